//! Attribution: which code grew a growing node.
//!
//! After the growth search, the engine runs the scenario's loops again with a recorder on each
//! growing node (see `docs/attribution.md`):
//!
//! 1. a recording `java.lang.reflect.Proxy` in an interface-typed, non-final field holding a
//!    Collection or Map (`calls to add()`);
//! 2. a JVMTI field-modification watch on the node's own field when the growth is a field
//!    reassignment (an array grown by hand, a linked list's head): `writes to Owner.field`;
//! 3. a JVMTI field-modification watch on the internal size field of the node's containers
//!    (concrete-typed or `static final` fields, map values, thread-local values), filtered by
//!    tag to those containers: `calls to add()` named after the container method that wrote;
//! 4. JVMTI sampled allocation events (interval 0) for the classes of the node's growing
//!    children, keeping the stacks of the objects that are under the node afterwards:
//!    `allocated at`;
//!
//! and otherwise says why not. The owners of instance fields are found by following the
//! node's path from its root through live objects (`dev.heapgrowth.attribution`), never by
//! tagging the heap.
//!
//! This module holds the result types and the stack grouping (no JNI); [`live`] drives the
//! recorders through [`crate::jvm`].

pub mod live;

use std::collections::HashMap;

use crate::growth::{GrowingNode, GrowthKind};

/// Frames kept per stack in the report: the growing call and a few callers.
pub const MAX_FRAMES: usize = 8;
/// Frames shown per stack in the text report.
pub const TEXT_FRAMES: usize = 5;
/// Distinct stacks kept per node, most frequent first.
pub const MAX_STACKS: usize = 10;
/// The fewest loops the attribution phase runs: enough for a leak that grows every second
/// loop to show twice.
pub const MIN_ATTRIBUTION_LOOPS: u32 = 4;
/// The most loops the attribution phase runs for one node, however slowly it grows.
pub const MAX_ATTRIBUTION_LOOPS: u32 = 500;

/// Loops run with recorders in place on `node`: enough for its growth to happen about twice
/// at the rate it grew during confirmation (a leak on an error path taken once in ten loops
/// gets 20), between [`MIN_ATTRIBUTION_LOOPS`] and [`MAX_ATTRIBUTION_LOOPS`].
pub fn attribution_loops(node: &GrowingNode) -> u32 {
    let kind = node.kinds.first().copied().unwrap_or(GrowthKind::Objects);
    let at = |loops: u32| {
        node.history
            .iter()
            .find(|snapshot| snapshot.loops == loops)
            .map_or(0, |snapshot| snapshot.values.get(kind))
    };
    let (from, to) = (node.confirmed.from_loop, node.confirmed.to_loop);
    let grown = at(to).saturating_sub(at(from));
    if grown == 0 || to <= from {
        return MIN_ATTRIBUTION_LOOPS;
    }
    // Two growth events at `grown / (to - from)` per loop, rounded up.
    let loops = (2 * u64::from(to - from)).div_ceil(grown);
    (loops.min(u64::from(MAX_ATTRIBUTION_LOOPS)) as u32).max(MIN_ATTRIBUTION_LOOPS)
}

/// What attribution found for one growing node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attribution {
    /// The recorder saw the node grow.
    Attributed {
        /// What was recorded.
        kind: RecordKind,
        /// Recorded stacks, grouped and counted, most frequent first.
        stacks: Vec<StackCount>,
    },
    /// No recorder applied, or it saw nothing.
    NotAttributed {
        /// Why, in words a user can act on.
        reason: String,
    },
}

impl Attribution {
    /// A `NotAttributed` with `reason`.
    pub fn not_attributed(reason: impl Into<String>) -> Attribution {
        Attribution::NotAttributed {
            reason: reason.into(),
        }
    }
}

/// What kind of event a stack was recorded at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordKind {
    /// Calls to these methods of the node's collection or map (`add`, `put`), most frequent first.
    Calls(Vec<String>),
    /// Writes to the node's field, `Owner.field`.
    Writes(String),
    /// Allocations of the node's new objects.
    Allocations,
}

impl RecordKind {
    /// The kind as the JSON report names it: `calls to add()`, `writes to Cart.items`,
    /// `allocated at`.
    pub fn label(&self) -> String {
        match self {
            RecordKind::Calls(methods) => {
                let methods: Vec<String> = methods.iter().map(|m| format!("{m}()")).collect();
                format!("calls to {}", methods.join(" and "))
            }
            RecordKind::Writes(field) => format!("writes to {field}"),
            RecordKind::Allocations => "allocated at".to_owned(),
        }
    }
}

/// One distinct stack and how often it was recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackCount {
    /// Times recorded.
    pub count: u64,
    /// The method called, for [`RecordKind::Calls`] (`add`); empty otherwise.
    pub operation: String,
    /// `pkg.Class.method(File.java:LINE)`, innermost first, at most [`MAX_FRAMES`].
    pub frames: Vec<String>,
}

impl StackCount {
    /// The text report's header line: `4 call(s) to add()`, `4 write(s) to Cart.items`,
    /// `4 object(s) allocated`.
    pub fn headline(&self, kind: &RecordKind) -> String {
        match kind {
            RecordKind::Calls(_) => format!("{} call(s) to {}()", self.count, self.operation),
            RecordKind::Writes(field) => format!("{} write(s) to {field}", self.count),
            RecordKind::Allocations => format!("{} object(s) allocated", self.count),
        }
    }
}

/// One recorded event: the operation (method called, or empty) and the stack, innermost first.
pub type Recorded = (String, Vec<String>);

/// Groups recorded stacks: identical (operation, first [`MAX_FRAMES`] frames) are counted once,
/// most frequent first, ties in frame order; at most [`MAX_STACKS`].
pub fn group(recorded: Vec<Recorded>) -> Vec<StackCount> {
    let mut counts: HashMap<(String, Vec<String>), u64> = HashMap::new();
    for (operation, mut frames) in recorded {
        frames.truncate(MAX_FRAMES);
        *counts.entry((operation, frames)).or_default() += 1;
    }
    let mut stacks: Vec<StackCount> = counts
        .into_iter()
        .map(|((operation, frames), count)| StackCount {
            count,
            operation,
            frames,
        })
        .collect();
    stacks.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.frames.cmp(&b.frames))
            .then_with(|| a.operation.cmp(&b.operation))
    });
    stacks.truncate(MAX_STACKS);
    stacks
}

/// The operations of `stacks`, most recorded first, each once.
pub fn operations(stacks: &[StackCount]) -> Vec<String> {
    let mut totals: Vec<(String, u64)> = Vec::new();
    for stack in stacks {
        match totals.iter_mut().find(|(op, _)| *op == stack.operation) {
            Some((_, total)) => *total += stack.count,
            None => totals.push((stack.operation.clone(), stack.count)),
        }
    }
    totals.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    totals.into_iter().map(|(op, _)| op).collect()
}

/// A stack recorded inside a container's own code (a JVMTI watch on `ArrayList.size`): the
/// container method the caller called (the outermost JDK frame above the caller) and the
/// caller's frames. `None` if the stack has no frame outside the JDK.
pub fn split_container_stack(frames: &[String]) -> Option<(String, Vec<String>)> {
    let first_user = frames.iter().position(|frame| !is_jdk_frame(frame))?;
    let operation = match first_user.checked_sub(1) {
        Some(last_jdk) => method_name(&frames[last_jdk]).to_owned(),
        None => String::new(),
    };
    Some((operation, frames[first_user..].to_vec()))
}

/// Cuts heapgrowth's own frames (the scenario thread's loop, or the JUnit extension's loop
/// callback, and everything below it), and the reflection frames through which the JUnit
/// extension invokes the test method.
pub fn without_host_frames(mut frames: Vec<String>) -> Vec<String> {
    if let Some(host) = frames
        .iter()
        .position(|frame| frame.starts_with("dev.heapgrowth."))
    {
        frames.truncate(host);
        while frames.last().is_some_and(|frame| {
            frame.starts_with("jdk.internal.reflect.")
                || frame.starts_with("java.lang.reflect.Method.invoke(")
        }) {
            frames.pop();
        }
    }
    frames
}

fn is_jdk_frame(frame: &str) -> bool {
    ["java.", "javax.", "jdk.", "sun.", "com.sun."]
        .iter()
        .any(|prefix| frame.starts_with(prefix))
}

/// `pkg.Class.method(File.java:1)` → `method`.
fn method_name(frame: &str) -> &str {
    let call = frame.split('(').next().unwrap_or(frame);
    call.rsplit('.').next().unwrap_or(call)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(frames: &[&str]) -> Vec<String> {
        frames.iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn identical_stacks_are_counted_once_most_frequent_first() {
        let a = stack(&["a.B.add(B.java:3)", "a.C.run(C.java:9)"]);
        let b = stack(&["a.B.add(B.java:4)", "a.C.run(C.java:9)"]);
        let grouped = group(vec![
            ("add".into(), b.clone()),
            ("add".into(), a.clone()),
            ("add".into(), a.clone()),
        ]);
        assert_eq!(
            grouped,
            [
                StackCount {
                    count: 2,
                    operation: "add".into(),
                    frames: a
                },
                StackCount {
                    count: 1,
                    operation: "add".into(),
                    frames: b
                },
            ]
        );
        assert_eq!(operations(&grouped), ["add"]);
    }

    #[test]
    fn kinds_read_as_the_report_names_them() {
        assert_eq!(
            RecordKind::Calls(vec!["add".into()]).label(),
            "calls to add()"
        );
        assert_eq!(
            RecordKind::Calls(vec!["put".into(), "merge".into()]).label(),
            "calls to put() and merge()"
        );
        assert_eq!(
            RecordKind::Writes("Cart.items".into()).label(),
            "writes to Cart.items"
        );
        let counted = StackCount {
            count: 4,
            operation: "add".into(),
            frames: vec![],
        };
        assert_eq!(
            counted.headline(&RecordKind::Calls(vec!["add".into()])),
            "4 call(s) to add()"
        );
        assert_eq!(
            counted.headline(&RecordKind::Writes("A.f".into())),
            "4 write(s) to A.f"
        );
        assert_eq!(
            counted.headline(&RecordKind::Allocations),
            "4 object(s) allocated"
        );
        assert_eq!(RecordKind::Allocations.label(), "allocated at");
    }

    #[test]
    fn container_stacks_name_the_method_the_caller_called() {
        let frames = stack(&[
            "java.util.ArrayList.add(ArrayList.java:455)",
            "java.util.ArrayList.add(ArrayList.java:467)",
            "corpus.leaks.ThreadLocalLeak.run(ThreadLocalLeak.java:34)",
        ]);
        let (operation, user) = split_container_stack(&frames).unwrap();
        assert_eq!(operation, "add");
        assert_eq!(
            user,
            ["corpus.leaks.ThreadLocalLeak.run(ThreadLocalLeak.java:34)"]
        );
        assert_eq!(split_container_stack(&frames[..2]), None);
    }

    #[test]
    fn host_frames_are_cut() {
        let frames = stack(&[
            "a.B.run(B.java:1)",
            "dev.heapgrowth.glue.ScenarioThread.runOneLoop(ScenarioThread.java:9)",
            "java.lang.Thread.run(Thread.java:1)",
        ]);
        assert_eq!(without_host_frames(frames), ["a.B.run(B.java:1)"]);
        let junit = stack(&[
            "a.B.open(B.java:1)",
            "a.BTest.leaks(BTest.java:7)",
            "jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)",
            "jdk.internal.reflect.DelegatingMethodAccessorImpl.invoke(DelegatingMethodAccessorImpl.java:43)",
            "java.lang.reflect.Method.invoke(Method.java:568)",
            "dev.heapgrowth.junit.LoopCallback.runLoops(LoopCallback.java:42)",
        ]);
        assert_eq!(
            without_host_frames(junit),
            ["a.B.open(B.java:1)", "a.BTest.leaks(BTest.java:7)"]
        );
    }

    /// A node that grew from `objects_from` to `objects_to` children between loops 31 and 1000.
    fn grown(objects_from: u64, objects_to: u64) -> GrowingNode {
        use crate::growth::{Confirmation, NodeValues, RetainedGrowth, SnapshotValues};
        let snapshot = |loops, children_objects| SnapshotValues {
            loops,
            values: NodeValues {
                children_objects,
                ..NodeValues::default()
            },
        };
        GrowingNode {
            path: Vec::new(),
            kinds: vec![GrowthKind::Objects],
            history: vec![snapshot(31, objects_from), snapshot(1000, objects_to)],
            confirmed: Confirmation {
                from_loop: 31,
                to_loop: 1000,
                snapshots: 3,
                cut: None,
            },
            retained: RetainedGrowth::default(),
            children: Vec::new(),
        }
    }

    #[test]
    fn attribution_runs_long_enough_for_the_node_to_grow_twice() {
        // One object per loop, or more: the minimum.
        assert_eq!(attribution_loops(&grown(31, 1000)), 4);
        assert_eq!(attribution_loops(&grown(62, 2000)), 4);
        // One every ten loops (97 over 969 loops): twenty loops.
        assert_eq!(attribution_loops(&grown(3, 100)), 20);
        // One in the whole confirmation: capped.
        assert_eq!(attribution_loops(&grown(3, 4)), MAX_ATTRIBUTION_LOOPS);
    }
}
