//! The normalized report: what stays the same from run to run and machine to machine, for
//! regression gates (insta snapshots in `cargo test`, the baseline file of the JUnit extension).
//!
//! It keeps the paths, their kinds and classes, and which children grew; it leaves out object
//! and byte counts, retained sizes, timings and source line numbers (a comment line added above
//! the growing code must not change it). Growing nodes are in path order; a scenario without
//! growth gives an empty string.
//!
//! ```text
//! GcRoot(Class)
//! ├─STATIC_FIELD EventBus.INSTANCE -> instance of corpus.app.EventBus
//! ╰→INSTANCE_FIELD EventBus.listeners -> instance of java.util.concurrent.CopyOnWriteArrayList
//!     grows in: objects
//!     grows: ARRAY_ENTRY CopyOnWriteArrayList.[x] -> instance of corpus.app.Screen$1
//!     attribution: calls to add()
//!         at corpus.app.EventBus.register(EventBus.java)
//! ```

use std::fmt::Write;

use super::gate::without_line_numbers;
use super::ScenarioReport;
use crate::attribution::Attribution;
use crate::growth::GrowingNode;

/// The normalized report of one scenario: one block per growing node, separated by blank
/// lines; `error: ...` (first line only) for a scenario that failed.
pub fn render_normalized(report: &ScenarioReport) -> String {
    match &report.result {
        Err(error) => format!("error: {}\n", error.lines().next().unwrap_or_default()),
        Ok(_) => report
            .growing()
            .map(|(node, attribution)| normalized_node(node, attribution))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// One growing node's block.
pub fn normalized_node(node: &GrowingNode, attribution: Option<&Attribution>) -> String {
    let mut out = String::new();
    let last = node.path.len().saturating_sub(1);
    for (depth, step) in node.path.iter().enumerate() {
        let prefix = match depth {
            0 => "",
            d if d < last => "├─",
            _ => "╰→",
        };
        let _ = writeln!(out, "{prefix}{}", without_line_numbers(&step.to_string()));
    }
    // The most telling kind of growth only: a leak that grows in objects grows in references
    // too, and which secondary kinds cross the line can vary from run to run.
    if let Some(kind) = node.kinds.first() {
        let _ = writeln!(out, "    grows in: {}", kind.label());
    }
    for child in node
        .children
        .iter()
        .filter(|child| child.new > 0 || (child.new == 0 && child.new_bytes > 0))
    {
        let _ = writeln!(
            out,
            "    grows: {}",
            without_line_numbers(&child.step.to_string())
        );
    }
    match attribution {
        None => {}
        // The kind and the frame to look at of each stack (the innermost if there is none):
        // what the user fixes. Counts and other frames are left out (they depend on the loop
        // count, on callers, and on the version of a library the growth happens in).
        Some(Attribution::Attributed { kind, stacks, .. }) => {
            let _ = writeln!(out, "    attribution: {}", kind.label());
            for stack in stacks {
                let shown = stack.place_to_look().unwrap_or(0);
                if let Some(frame) = stack.frames.get(shown) {
                    let _ = writeln!(
                        out,
                        "        at {}",
                        without_line_numbers(&frame.to_string())
                    );
                }
            }
        }
        Some(Attribution::NotAttributed { reason }) => {
            let _ = writeln!(out, "    not attributed: {reason}");
        }
    }
    out
}
