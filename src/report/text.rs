//! The text report, laid out as shark lays out a growing node:
//!
//! ```text
//! ┬───
//! │ GcRoot(ThreadObject) (14 objects)
//! │
//! ├─INSTANCE_FIELD CartTest.cart -> instance of com.example.cart.Cart (1 objects)
//! │
//! ╰→INSTANCE_FIELD Cart.itemsById -> instance of java.util.LinkedHashMap (1 objects)
//!     Retained size: 777 B (+ 132 B)
//!     Retained objects: 32 (+ 6)
//!     Children:
//!     10 objects (2 new): ARRAY_ENTRY LinkedHashMap.[x] -> instance of com.example.cart.Item
//! ```

use std::fmt::Write;

use super::ScenarioReport;
use crate::attribution::{Attribution, TEXT_FRAMES};
use crate::growth::GrowingNode;

/// All scenarios, one after the other.
pub fn render_text(reports: &[ScenarioReport]) -> String {
    reports
        .iter()
        .map(render_scenario)
        .collect::<Vec<_>>()
        .join("\n")
}

/// One scenario: a header line, then each growing node as a tree.
pub fn render_scenario(report: &ScenarioReport) -> String {
    let mut out = String::new();
    match &report.result {
        Err(error) => {
            let _ = writeln!(out, "Scenario {}: error: {error}", report.scenario);
        }
        Ok(outcome) => {
            let summary = match outcome.growing.len() {
                0 => "no growing objects".to_owned(),
                1 => "1 growing node".to_owned(),
                n => format!("{n} growing nodes"),
            };
            let _ = writeln!(
                out,
                "Scenario {}: {summary} after {} loops in {} snapshots",
                report.scenario, outcome.loops, outcome.snapshots
            );
            for (node, attribution) in report.growing() {
                out.push('\n');
                render_node(&mut out, node, attribution);
            }
            for path in &outcome.leveled_off {
                let last = path.last().map(ToString::to_string).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "\nLeveled off before the end of the run (not reported): {last}"
                );
            }
        }
    }
    out
}

fn render_node(out: &mut String, node: &GrowingNode, attribution: Option<&Attribution>) {
    out.push_str("┬───\n");
    let last = node.path.len().saturating_sub(1);
    for (depth, step) in node.path.iter().enumerate() {
        let line = format!("{step} ({} objects)", step.objects);
        if depth == 0 {
            let _ = writeln!(out, "│ {line}\n│");
        } else if depth < last {
            let _ = writeln!(out, "├─{line}\n│");
        } else {
            let _ = writeln!(out, "╰→{line}");
        }
    }
    let retained = &node.retained;
    let _ = writeln!(
        out,
        "    Retained size: {} ({} {})",
        format_bytes(retained.bytes),
        sign(retained.bytes_increase),
        format_bytes(retained.bytes_increase.unsigned_abs())
    );
    let _ = writeln!(
        out,
        "    Retained objects: {} ({} {})",
        retained.objects,
        sign(retained.objects_increase),
        retained.objects_increase.unsigned_abs()
    );
    out.push_str("    Children:\n");
    // A node can have hundreds of children (a root group, a class with many statics); the
    // ones that changed tell the story, the rest are summed up when there are many.
    let show_all = node.children.len() <= MAX_UNCHANGED_CHILDREN_SHOWN;
    let mut hidden = 0;
    for child in &node.children {
        if child.new == 0 && child.new_bytes != 0 {
            // Growth in bytes: the same objects got longer.
            let _ = writeln!(
                out,
                "    {} objects (0 new, {} {}): {}",
                child.objects,
                sign(child.new_bytes),
                format_bytes(child.new_bytes.unsigned_abs()),
                child.step
            );
        } else if show_all || child.new != 0 {
            let _ = writeln!(
                out,
                "    {} objects ({} new): {}",
                child.objects, child.new, child.step
            );
        } else {
            hidden += 1;
        }
    }
    if hidden > 0 {
        let _ = writeln!(out, "    ... and {hidden} unchanged children");
    }
    if let Some(attribution) = attribution {
        render_attribution(out, attribution);
    }
}

/// After the children: each recorded stack, most frequent first, a few frames deep.
fn render_attribution(out: &mut String, attribution: &Attribution) {
    match attribution {
        Attribution::Attributed { kind, stacks } => {
            for stack in stacks {
                let _ = writeln!(out, "\n    {}", stack.headline(kind));
                for frame in stack.frames.iter().take(TEXT_FRAMES) {
                    let _ = writeln!(out, "        at {frame}");
                }
                if stack.frames.len() > TEXT_FRAMES {
                    let _ = writeln!(out, "        ...");
                }
            }
        }
        Attribution::NotAttributed { reason } => {
            let _ = writeln!(out, "\n    Not attributed: {reason}");
        }
    }
}

/// Children listed even when unchanged, if the node has no more than this many.
const MAX_UNCHANGED_CHILDREN_SHOWN: usize = 5;

fn sign(value: i64) -> char {
    if value < 0 {
        '-'
    } else {
        '+'
    }
}

fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_shown_in_binary_units() {
        assert_eq!(format_bytes(777), "777 B");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes(3 * 1024 * 1024), "3.0 MiB");
    }
}
