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

use super::ScenarioReport;
use crate::attribution::Attribution;
use crate::growth::GrowingNode;
use crate::line::escape_line;

/// The normalized report of one scenario: one block per growing node, separated by blank
/// lines; `error: ...` (first line only) for a scenario that failed.
pub fn render_normalized(report: &ScenarioReport) -> String {
    match &report.result {
        Err(error) => format!(
            "error: {}\n",
            escape_line(error.lines().next().unwrap_or_default())
        ),
        Ok(_) => report
            .growing()
            .map(|(node, attribution)| {
                from_the_instance(&normalized_node(node, attribution), &report.scenario)
            })
            .chain(report.sampled_classes().map(normalized_sampled_class))
            .chain(
                report
                    .survivor_paths()
                    .map(|step| normalized_survivors(&step)),
            )
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The block of a class whose JFR old-object samples grew (`--jfr`): the class alone. Which
/// of its paths and stacks the samples happened to take varies from run to run; the class
/// does not.
pub fn normalized_sampled_class(class: &str) -> String {
    format!(
        "{SAMPLED_CLASS}{}\n    grows in: samples\n",
        escape_line(class)
    )
}

/// The block of a common path of JFR survivors spread over the recording (`--jfr`): the step
/// that holds them ([`crate::growth::old_objects::SurvivingPath::key_step`]).
pub fn normalized_survivors(step: &str) -> String {
    format!("{SURVIVORS}{step}\n    grows in: survivors\n")
}

/// How the block of JFR survivors starts.
const SURVIVORS: &str = "JFR old-object survivors held at ";

/// How the block of a sampled class starts.
const SAMPLED_CLASS: &str = "JFR old-object samples of ";

/// The root line that stands for the scenario's own instance.
const INSTANCE_ROOT: &str = "the scenario's instance of ";

/// `block` starting at the scenario's own instance when its path reaches it through the front
/// end's plumbing: `heapgrowth run`'s `ScenarioThread.scenario` field, or the JUnit frame that
/// holds the test instance (`LOCAL InterceptingExecutableInvoker.invoke(...)`, another frame
/// in another JUnit version). Those two lines become one, `the scenario's instance of
/// com.example.CartTest`, so that an upgrade of JUnit or of heapgrowth leaves the gate as it
/// was. `scenario` is the report's name: the class, or for a JUnit test `Class.method`. Blocks
/// written before (with the plumbing) read the same.
pub(crate) fn from_the_instance(block: &str, scenario: &str) -> String {
    let mut lines = block.lines();
    let (Some(root), Some(second)) = (lines.next(), lines.next()) else {
        return block.to_owned();
    };
    let step = second
        .strip_prefix("├─")
        .or_else(|| second.strip_prefix("╰→"))
        .unwrap_or(second);
    let plumbing =
        step.starts_with("LOCAL ") || step.starts_with("INSTANCE_FIELD ScenarioThread.scenario ");
    let class = step.rsplit_once(" -> instance of ").map(|(_, class)| class);
    let is_scenario = |class: &str| {
        class == scenario
            || scenario
                .rsplit_once('.')
                .is_some_and(|(owner, _method)| owner == class)
    };
    match class {
        Some(class)
            if root.starts_with("GcRoot(ThreadObject") && plumbing && is_scenario(class) =>
        {
            let mut out = format!("{INSTANCE_ROOT}{class}\n");
            for line in lines {
                out.push_str(line);
                out.push('\n');
            }
            out
        }
        _ => block.to_owned(),
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
        let _ = writeln!(
            out,
            "{prefix}{}",
            without_line_numbers(&escape_line(&step.to_string()))
        );
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
            without_line_numbers(&escape_line(&child.step.to_string()))
        );
    }
    match attribution {
        None => {}
        // The kind and the frame to look at of each stack (the innermost if there is none):
        // what the user fixes. Counts and other frames are left out (they depend on the loop
        // count, on callers, and on the version of a library the growth happens in). Stacks
        // that differ only in a line number read alike here: each `at` line is written once.
        Some(Attribution::Attributed { kind, stacks, .. }) => {
            let _ = writeln!(out, "    attribution: {}", escape_line(&kind.label()));
            let mut written: Vec<String> = Vec::new();
            for stack in stacks {
                let shown = stack.place_to_look().unwrap_or(0);
                if let Some(frame) = stack.frames.get(shown) {
                    let line = without_line_numbers(&escape_line(&frame.to_string()));
                    if !written.contains(&line) {
                        let _ = writeln!(out, "        at {line}");
                        written.push(line);
                    }
                }
            }
        }
        Some(Attribution::NotAttributed { reason }) => {
            let _ = writeln!(out, "    not attributed: {}", escape_line(reason));
        }
    }
    out
}

/// `line` without the line numbers of source positions: `Foo.run(Foo.java:42)` becomes
/// `Foo.run(Foo.java)`. Stack frames in paths (`LOCAL` steps) and attributions carry them.
pub fn without_line_numbers(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(colon) = rest.find(':') {
        let (before, after) = rest.split_at(colon);
        out.push_str(before);
        let digits = after[1..].bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[1 + digits..].starts_with(')') {
            rest = &after[1 + digits..];
        } else {
            out.push(':');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const JUNIT: &str = "\
GcRoot(ThreadObject \"main\")
├─LOCAL InterceptingExecutableInvoker.invoke(InterceptingExecutableInvoker.java) -> instance of com.example.CartTest
╰→INSTANCE_FIELD CartTest.seen -> instance of java.util.ArrayList
    grows in: objects
";

    #[test]
    fn paths_start_at_the_scenario_instance() {
        let expected = "\
the scenario's instance of com.example.CartTest
╰→INSTANCE_FIELD CartTest.seen -> instance of java.util.ArrayList
    grows in: objects
";
        assert_eq!(
            from_the_instance(JUNIT, "com.example.CartTest.keepsEverything"),
            expected
        );
        let cli = JUNIT
            .replace(
                "GcRoot(ThreadObject \"main\")",
                "GcRoot(ThreadObject \"heapgrowth-scenario\")",
            )
            .replace(
                "LOCAL InterceptingExecutableInvoker.invoke(InterceptingExecutableInvoker.java)",
                "INSTANCE_FIELD ScenarioThread.scenario",
            );
        assert_eq!(from_the_instance(&cli, "com.example.CartTest"), expected);
    }

    #[test]
    fn other_paths_keep_their_start() {
        // Another class: a worker's local, not the scenario's instance.
        assert_eq!(from_the_instance(JUNIT, "com.example.OtherTest.m"), JUNIT);
        // The instance held by a static field of the user's: that path is the point.
        let registry = JUNIT.replace(
            "GcRoot(ThreadObject \"main\")\n├─LOCAL InterceptingExecutableInvoker.invoke(InterceptingExecutableInvoker.java)",
            "GcRoot(Class)\n├─STATIC_FIELD Registry.LAST",
        );
        assert_eq!(
            from_the_instance(&registry, "com.example.CartTest.m"),
            registry
        );
    }

    // Issue 32: a baseline repeated `lambda$get$0` once per stack that differed only in a
    // line number; each `at` line is written once.
    #[test]
    fn stacks_that_read_alike_without_line_numbers_are_written_once() {
        use crate::attribution::{Frame, Origin, RecordKind, StackCount, StackFrame};
        use crate::growth::{Confirmation, GrowthKind, RetainedGrowth};
        let stack = |method: &str, line: i32| StackCount {
            count: 4,
            operation: String::new(),
            frames: vec![StackFrame::with_origin(
                Frame {
                    class: "com.example.Loader".into(),
                    method: method.into(),
                    file: Some("Loader.java".into()),
                    line: Some(line),
                    code_source: None,
                },
                Origin::User,
            )],
            made_at: None,
            folded: 1,
        };
        let node = GrowingNode {
            path: Vec::new(),
            kinds: vec![GrowthKind::Objects],
            history: Vec::new(),
            confirmed: Confirmation {
                from_loop: 31,
                to_loop: 1000,
                snapshots: 3,
                cut: None,
            },
            retained: RetainedGrowth::default(),
            children: Vec::new(),
        };
        let attribution = Attribution::Attributed {
            kind: RecordKind::Allocations,
            stacks: vec![
                stack("lambda$get$0", 12),
                stack("lambda$get$0", 14),
                stack("run", 20),
                stack("lambda$get$0", 12),
            ],
            caveats: Vec::new(),
            hints: vec!["a hint is advice, not growth".into()],
        };
        assert_eq!(
            normalized_node(&node, Some(&attribution)),
            "    grows in: objects\n    attribution: allocated at\n\
             \x20       at com.example.Loader.lambda$get$0(Loader.java)\n\
             \x20       at com.example.Loader.run(Loader.java)\n"
        );
    }

    #[test]
    fn line_numbers_are_left_out() {
        assert_eq!(
            without_line_numbers("at a.B.c(B.java:12)"),
            "at a.B.c(B.java)"
        );
        assert_eq!(
            without_line_numbers("LOCAL W.run(W.java:56) -> instance of x.Y"),
            "LOCAL W.run(W.java) -> instance of x.Y"
        );
        // Only `:digits)`: other colons stay.
        assert_eq!(without_line_numbers("a:b (c:1x) d:2"), "a:b (c:1x) d:2");
    }
}
