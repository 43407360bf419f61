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
//! recorders through [`crate::jvm`]. In `heapgrowth watch`, on a JVM heapgrowth did not start,
//! only allocation sampling can record (a live-loaded agent has no field watches):
//! [`attached`] turns what the agent counted ([`crate::attach::AttachedSampling`]) into the
//! same [`Attribution`].

pub mod attached;
pub mod class_definitions;
pub mod kept_by;
pub mod live;
pub mod old_objects;
pub mod sampling_cap;

use std::collections::HashMap;

use crate::class_name::stable_class_name;
use crate::growth::{GrowingNode, GrowthKind};
use crate::jvmti::is_remove_like;
pub use crate::jvmti::Frame;

/// Frames kept per stack: enough to pass a library's own frames and reach the user's.
pub const MAX_FRAMES: usize = crate::jvmti::MAX_FRAMES;
/// Frames the text report shows of a stack with no [`StackCount::place_to_look`].
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
        /// What the user should know about how it was recorded (a proxy the scenario could
        /// see, and where it saw it); empty for the recorders the scenario cannot observe.
        caveats: Vec<String>,
        /// What the recorders saw besides the growth that may be the bug itself: calls that
        /// should have removed and removed nothing ([`remove_hints`]). Not in the normalized
        /// report (a hint is advice, not what grows).
        hints: Vec<String>,
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
    /// Definitions of the classes the node's class loaders keep.
    ClassDefinitions,
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
            RecordKind::ClassDefinitions => "classes defined at".to_owned(),
        }
    }
}

/// Where a frame's code comes from: what tells the user's line from the JDK's and a library's.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The JDK's own classes (no code source, or the runtime image `jrt:/`).
    Jdk,
    /// A jar other than the scenario's: a library, by its file name (`guava-33.8.0-jre.jar`).
    Library(String),
    /// A class directory, or the scenario's own jar: code the user builds and can change.
    User,
}

impl Origin {
    /// The origin of code loaded from `code_source` (a code source URL, see
    /// [`Frame::code_source`]), where the scenario's (or test's) class came from
    /// `scenario_source`. Jars are libraries; class directories are the user's own code
    /// (a project's main and test classes are directories while its dependencies are jars).
    pub fn classify(code_source: Option<&str>, scenario_source: Option<&str>) -> Origin {
        match code_source {
            None => Origin::Jdk,
            Some(source) if source.starts_with("jrt:") => Origin::Jdk,
            Some(source) if Some(source) == scenario_source || source.ends_with('/') => {
                Origin::User
            }
            Some(source) => {
                let name = source
                    .trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or(source);
                Origin::Library(name.to_owned())
            }
        }
    }

    /// As JSON names it: `jdk`, `library`, `user`.
    pub fn label(&self) -> &'static str {
        match self {
            Origin::Jdk => "jdk",
            Origin::Library(_) => "library",
            Origin::User => "user",
        }
    }
}

/// One frame of a recorded stack, with where its code comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StackFrame {
    /// The frame.
    pub frame: Frame,
    /// Where its class comes from.
    pub origin: Origin,
}

impl StackFrame {
    /// `frame`, classified against the scenario's code source (see [`Origin::classify`]).
    pub fn new(frame: Frame, scenario_source: Option<&str>) -> StackFrame {
        let origin = Origin::classify(frame.code_source.as_deref(), scenario_source);
        StackFrame::with_origin(frame, origin)
    }

    /// `frame` from code of `origin`. Every recorded frame comes through here, whichever
    /// recorder (JVMTI, a proxy, JFR) and front end it is from: a lambda's or hidden class's
    /// name loses its address here ([`stable_class_name`]), so that reports and baselines are
    /// the same from run to run.
    pub fn with_origin(mut frame: Frame, origin: Origin) -> StackFrame {
        if let std::borrow::Cow::Owned(stable) = stable_class_name(&frame.class) {
            frame.class = stable;
        }
        StackFrame { frame, origin }
    }
}

impl std::fmt::Display for StackFrame {
    /// `pkg.Class.method(File.java:LINE)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.frame.fmt(f)
    }
}

/// One distinct stack and how often it was recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackCount {
    /// Times recorded.
    pub count: u64,
    /// The method called, for [`RecordKind::Calls`] (`add`); empty otherwise.
    pub operation: String,
    /// Innermost first, at most [`MAX_FRAMES`].
    pub frames: Vec<StackFrame>,
    /// Where the objects this stack linked under the node were allocated, when that is
    /// another place than [`StackCount::frames`]' (the stack above is the call that made them
    /// reachable, "kept by"; this one the `new`, "made at"). Innermost first.
    pub made_at: Option<Vec<StackFrame>>,
    /// Distinct recorded stacks counted here (1: this one only). Stacks of one operation with
    /// the same place to look and the same innermost method are one stack for the user: they
    /// differ only in a JDK or library line between, or in callers after the place to look.
    /// [`frames`](Self::frames) is the most recorded of them. See [`group`].
    pub folded: u32,
}

impl StackCount {
    /// The frame a user should look at: see [`place_to_look`].
    pub fn place_to_look(&self) -> Option<usize> {
        place_to_look(&self.frames)
    }

    /// The text report's header line: `4 call(s) to add()`, `4 write(s) to Cart.items`,
    /// `4 object(s) allocated`.
    pub fn headline(&self, kind: &RecordKind) -> String {
        match kind {
            RecordKind::Calls(_) => format!("{} call(s) to {}()", self.count, self.operation),
            RecordKind::Writes(field) => format!("{} write(s) to {field}", self.count),
            RecordKind::Allocations => format!("{} object(s) allocated", self.count),
            RecordKind::ClassDefinitions => format!("{} class(es) defined", self.count),
        }
    }
}

/// The frame of `frames` (innermost first) a user should look at: the user's own line that
/// made the growth happen, past the JDK's and the library's frames above it.
///
/// That is the first frame of the user's code ([`Origin::User`]) that the user's code called
/// too (or that is the outermost frame left): a user frame that the JDK or a library called
/// back is passed over, since the line that made that call happen is further out (a thread
/// factory a pool calls, a `create()` an object pool calls). The caller is the next frame of
/// another method: a bridge method the compiler generated calls its target from the same
/// class and method name. If every user frame is called back (a task on a pool thread), the
/// first one. Without user frames, the first frame outside the JDK and outside the library of
/// the innermost non-JDK frame (the library that grows).
pub fn place_to_look(frames: &[StackFrame]) -> Option<usize> {
    let user = |i: usize| frames.get(i).is_some_and(|f| f.origin == Origin::User);
    let caller = |i: usize| {
        let same_method = |j: usize| {
            frames[j].frame.class == frames[i].frame.class
                && frames[j].frame.method == frames[i].frame.method
        };
        (i + 1..frames.len()).find(|&j| !same_method(j))
    };
    let called_by_user = (0..frames.len()).find(|&i| user(i) && caller(i).map_or(true, user));
    if let Some(i) = called_by_user.or_else(|| (0..frames.len()).find(|&i| user(i))) {
        return Some(i);
    }
    let growing_library = frames.iter().find(|f| f.origin != Origin::Jdk)?;
    frames
        .iter()
        .position(|f| f.origin != Origin::Jdk && f.origin != growing_library.origin)
}

/// One recorded event: the operation (method called, or empty) and the stack, innermost first.
pub type Recorded = (String, Vec<StackFrame>);

/// Groups recorded stacks: identical (operation, first [`MAX_FRAMES`] frames) are counted once,
/// and stacks that differ only where the user does not look are folded into one (see
/// `fold_key`); in [`order_stacks`]'s order by raw count, all of them (the live front ends
/// order them per loop and keep [`MAX_STACKS`], see [`order_per_loop`]).
pub fn group(recorded: Vec<Recorded>) -> Vec<StackCount> {
    let mut stacks = folded(recorded.into_iter().map(|event| (event, 1)));
    sort_stacks(&mut stacks, None);
    stacks
}

/// [`group`] for stacks that come with a count each (the live objects of an allocation stack,
/// counted by the agent in `heapgrowth watch`; JFR samples): identical stacks add up their
/// counts. The number of loops is unknown there, so they are ordered by raw count; at most
/// [`MAX_STACKS`].
pub fn group_counted(recorded: impl IntoIterator<Item = (Recorded, u64)>) -> Vec<StackCount> {
    let mut stacks = folded(recorded);
    order_stacks(&mut stacks, None);
    stacks
}

/// What makes two stacks one for the user: the operation, the frame to look at, and the
/// innermost frame's class and method (not its line: a library's `computeIfAbsent` reaches
/// the same `putVal` from two lines). Callers after the place to look and the JDK and library
/// frames between do not count, except where the place to look is a constructor (the
/// allocation of a user's class): there the frames out to the constructor's caller count,
/// since who constructs is what tells two allocations apart. A stack without a place to look
/// is folded with identical stacks only: nothing says which of its frames the user reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum FoldKey {
    Placed {
        operation: String,
        place: Vec<StackFrame>,
        innermost: Option<(String, String)>,
    },
    Whole(String, Vec<StackFrame>),
}

fn fold_key(operation: &str, frames: &[StackFrame]) -> FoldKey {
    match place_to_look(frames) {
        Some(place) => FoldKey::Placed {
            operation: operation.to_owned(),
            place: {
                let caller = (place..frames.len())
                    .find(|&i| frames[i].frame.method != "<init>")
                    .unwrap_or(frames.len() - 1);
                frames[place..=caller].to_vec()
            },
            innermost: frames
                .first()
                .map(|f| (f.frame.class.clone(), f.frame.method.clone())),
        },
        None => FoldKey::Whole(operation.to_owned(), frames.to_vec()),
    }
}

/// Counts identical stacks, then folds stacks with the same [`fold_key`]: counts add, the most
/// recorded stack is kept (ties: the first in text order, so the choice does not depend on the
/// order events came in), `folded` is the number of distinct stacks merged.
fn folded(recorded: impl IntoIterator<Item = (Recorded, u64)>) -> Vec<StackCount> {
    let mut counts: HashMap<(String, Vec<StackFrame>), u64> = HashMap::new();
    for ((operation, mut frames), count) in recorded {
        frames.truncate(MAX_FRAMES);
        *counts.entry((operation, frames)).or_default() += count;
    }
    let mut groups: HashMap<FoldKey, Vec<StackCount>> = HashMap::new();
    for ((operation, frames), count) in counts {
        groups
            .entry(fold_key(&operation, &frames))
            .or_default()
            .push(StackCount {
                count,
                operation,
                frames,
                made_at: None,
                folded: 1,
            });
    }
    groups
        .into_values()
        .filter_map(|mut members| {
            members.sort_by(|a, b| {
                b.count
                    .cmp(&a.count)
                    .then_with(|| stack_text(a).cmp(&stack_text(b)))
            });
            let total: u64 = members.iter().map(|m| m.count).sum();
            let merged = u32::try_from(members.len()).unwrap_or(u32::MAX);
            let mut kept = members.into_iter().next()?;
            kept.count = total;
            kept.folded = merged;
            Some(kept)
        })
        .collect()
}

fn stack_text(stack: &StackCount) -> Vec<String> {
    stack.frames.iter().map(ToString::to_string).collect()
}

/// Events per loop, as stacks are ranked: a count of 3 or 4 in 4 loops is once a loop both
/// times, so a stack recorded one event short in one run does not change places. At least 1.
/// Without a number of loops (watch, JFR), the raw count.
pub fn per_loop(count: u64, loops: Option<u32>) -> u64 {
    match loops {
        Some(loops) if loops > 0 => {
            let loops = u64::from(loops);
            ((count + loops / 2) / loops).max(1)
        }
        _ => count,
    }
}

/// The order stacks are shown in, the same every run whatever order the events came in:
/// calls that remove ([`is_remove_like`]) last, since a node does not grow at them; then events
/// per loop ([`per_loop`]), most first; then the frame to look at (the innermost frame where
/// there is none) by its text, except that lines of one method come latest first; then the
/// whole stack's text; then the operation. At most [`MAX_STACKS`] are kept.
///
/// Latest first, because what one line makes a later line stores: a cache's key made on one
/// line (`new UUID(...).toString()`) and the `put` of the value on the next are both
/// allocation stacks under the node, and the `put` is the line to fix.
pub fn order_stacks(stacks: &mut Vec<StackCount>, loops: Option<u32>) {
    sort_stacks(stacks, loops);
    stacks.truncate(MAX_STACKS);
}

fn sort_stacks(stacks: &mut [StackCount], loops: Option<u32>) {
    // (class, method, file), the line latest first, the text: a method's lines stay together.
    let shown = |stack: &StackCount| {
        stack
            .frames
            .get(stack.place_to_look().unwrap_or(0))
            .map(|shown| {
                let frame = &shown.frame;
                (
                    (
                        frame.class.clone(),
                        frame.method.clone(),
                        frame.file.clone(),
                    ),
                    std::cmp::Reverse(frame.line),
                    shown.to_string(),
                )
            })
    };
    stacks.sort_by(|a, b| {
        removes_last(a)
            .cmp(&removes_last(b))
            .then_with(|| per_loop(b.count, loops).cmp(&per_loop(a.count, loops)))
            .then_with(|| shown(a).cmp(&shown(b)))
            .then_with(|| stack_text(a).cmp(&stack_text(b)))
            .then_with(|| a.operation.cmp(&b.operation))
    });
}

/// Whether `stack` is a call that takes out of the node ([`is_remove_like`]: `remove`,
/// `unsubscribe`, ...): such calls are recorded beside the adds by a container watch, but a node
/// does not grow at them, so they come after every other stack, however often they ran (a leak
/// on an error path removes at a later line of the same method in most loops, and lines of one
/// method come latest first).
fn removes_last(stack: &StackCount) -> bool {
    is_remove_like(&stack.operation)
}

/// `attribution` with its stacks in [`order_stacks`]'s order for `loops` attribution loops,
/// and a `Calls` kind's methods ranked per loop too (then by name).
pub fn order_per_loop(mut attribution: Attribution, loops: u32) -> Attribution {
    if let Attribution::Attributed { kind, stacks, .. } = &mut attribution {
        order_stacks(stacks, Some(loops));
        if let RecordKind::Calls(methods) = kind {
            let total = |method: &String| {
                let count = stacks
                    .iter()
                    .filter(|stack| &stack.operation == method)
                    .map(|stack| stack.count)
                    .sum();
                per_loop(count, Some(loops))
            };
            methods.sort_by(|a, b| total(b).cmp(&total(a)).then_with(|| a.cmp(b)));
        }
    }
    attribution
}

/// The hints of calls that should have removed from the node and removed nothing: `removes`
/// are the container reads made by a remove-like method (see [`crate::jvmti::ReadWatch`]),
/// `writes` the container writes, both as [`split_container_stack`] cut them. A place to look
/// with at least two removing reads and no removing write (an operation for which
/// [`is_remove_like`] holds) at the same place is a remove that found nothing, every time. Exact
/// for containers whose remove reads the watched field once when it finds nothing
/// (`ArrayList`, `Vector`, `ArrayDeque`); other containers give no hint. In the order of the
/// places' text.
pub fn remove_hints(removes: &[Recorded], writes: &[Recorded]) -> Vec<String> {
    let place = |frames: &[StackFrame]| place_to_look(frames).map(|i| frames[i].to_string());
    let removed_at: Vec<String> = writes
        .iter()
        .filter(|(operation, _)| is_remove_like(operation))
        .filter_map(|(_, frames)| place(frames))
        .collect();
    // Place -> (reads, the operations read in, each with its count).
    let mut places: std::collections::BTreeMap<String, (u64, Vec<(String, u64)>)> =
        std::collections::BTreeMap::new();
    for (operation, frames) in removes {
        let Some(at) = place(frames) else { continue };
        let (reads, operations) = places.entry(at).or_default();
        *reads += 1;
        match operations.iter_mut().find(|(op, _)| op == operation) {
            Some((_, count)) => *count += 1,
            None => operations.push((operation.clone(), 1)),
        }
    }
    places
        .into_iter()
        .filter(|(at, (reads, _))| *reads >= 2 && !removed_at.contains(at))
        .map(|(at, (reads, mut operations))| {
            operations.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            let operation =
                operations.first().map_or(
                    "remove",
                    |(op, _)| if op.is_empty() { "remove" } else { op },
                );
            format!(
                "{reads} call(s) to {operation}() at {at} removed nothing: what was passed was \
                 never in the node (a lambda or method reference written at the call is a new \
                 object each time)"
            )
        })
        .collect()
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
pub fn split_container_stack(frames: &[StackFrame]) -> Option<(String, Vec<StackFrame>)> {
    let first_user = frames
        .iter()
        .position(|frame| frame.origin != Origin::Jdk)?;
    let operation = match first_user.checked_sub(1) {
        Some(last_jdk) => frames[last_jdk].frame.method.clone(),
        None => String::new(),
    };
    Some((operation, frames[first_user..].to_vec()))
}

/// Cuts heapgrowth's own frames (the scenario thread's loop, or the JUnit extension's loop
/// callback, and everything below it), and the reflection frames through which the JUnit
/// extension invokes the test method.
pub fn without_host_frames(mut frames: Vec<StackFrame>) -> Vec<StackFrame> {
    if let Some(host) = frames
        .iter()
        .position(|f| f.frame.class.starts_with("dev.heapgrowth."))
    {
        frames.truncate(host);
        while frames.last().is_some_and(|f| {
            f.frame.class.starts_with("jdk.internal.reflect.")
                || (f.frame.class == "java.lang.reflect.Method" && f.frame.method == "invoke")
        }) {
            frames.pop();
        }
    }
    frames
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames written `pkg.Class.method(File.java:LINE)`, each with the code source its
    /// package says: `java.`, `jdk.` the JDK; `lib.` a library jar; anything else a class
    /// directory.
    fn stack(frames: &[&str]) -> Vec<StackFrame> {
        frames
            .iter()
            .map(|text| {
                let (call, place) = text.trim_end_matches(')').split_once('(').unwrap();
                let (class, method) = call.rsplit_once('.').unwrap();
                let (file, line) = match place.split_once(':') {
                    Some((file, line)) => (Some(file.to_owned()), line.parse().ok()),
                    None => (None, None),
                };
                let code_source = if class.starts_with("java.") || class.starts_with("jdk.") {
                    None
                } else if class.starts_with("lib.") {
                    Some("file:/repo/lib-1.0.jar".to_owned())
                } else {
                    Some("file:/project/classes/".to_owned())
                };
                let frame = Frame {
                    class: class.to_owned(),
                    method: method.to_owned(),
                    file,
                    line,
                    code_source,
                };
                StackFrame::new(frame, Some("file:/project/test-classes/"))
            })
            .collect()
    }

    fn strings(frames: &[StackFrame]) -> Vec<String> {
        frames.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_lambdas_frame_loses_its_address_so_two_runs_print_it_alike() {
        // JVMTI's class signature of a JDK 17 lambda, dotted: what stack frames held (issue 28).
        let lambda = |address: &str| Frame {
            class: format!("com.example.Cart$$Lambda$4.0x{address}"),
            method: "accept".into(),
            file: None,
            line: None,
            code_source: Some("file:/project/classes/".into()),
        };
        let first = StackFrame::new(lambda("00007fbf1c005210"), None);
        let second = StackFrame::with_origin(lambda("00007f0a3c00b000"), Origin::User);
        assert_eq!(
            first.to_string(),
            "com.example.Cart$$Lambda.accept(Unknown Source)"
        );
        assert_eq!(first.frame, second.frame);
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
                    frames: a,
                    made_at: None,
                    folded: 1,
                },
                StackCount {
                    count: 1,
                    operation: "add".into(),
                    frames: b,
                    made_at: None,
                    folded: 1,
                },
            ]
        );
        assert_eq!(operations(&grouped), ["add"]);
    }

    /// The places to look of `stacks`, in order, with their counts and folds.
    fn places(stacks: &[StackCount]) -> Vec<(String, u64, u32)> {
        stacks
            .iter()
            .map(|s| {
                let place = s
                    .place_to_look()
                    .map_or(String::new(), |i| s.frames[i].to_string());
                (place, s.count, s.folded)
            })
            .collect()
    }

    // Issue 32: `computeIfAbsent` reaches `putVal` from two lines, and the same user line is
    // called from two callers: one stack for the user, counts added.
    #[test]
    fn stacks_differing_only_in_jdk_lines_or_callers_fold_into_one() {
        let via = |jdk_line: &str, caller: &str| {
            stack(&[
                "java.util.concurrent.ConcurrentHashMap.putVal(ConcurrentHashMap.java:1011)",
                jdk_line,
                "app.Pool.lease(Pool.java:30)",
                caller,
            ])
        };
        let a = via(
            "java.util.concurrent.ConcurrentHashMap.computeIfAbsent(ConcurrentHashMap.java:1708)",
            "app.Jobs.run(Jobs.java:9)",
        );
        let b = via(
            "java.util.concurrent.ConcurrentHashMap.computeIfAbsent(ConcurrentHashMap.java:1740)",
            "app.Jobs.run(Jobs.java:9)",
        );
        let c = via(
            "java.util.concurrent.ConcurrentHashMap.computeIfAbsent(ConcurrentHashMap.java:1708)",
            "app.Other.call(Other.java:3)",
        );
        // Another innermost method, another operation: not folded.
        let other_inner = stack(&[
            "java.util.concurrent.ConcurrentHashMap.addCount(ConcurrentHashMap.java:2300)",
            "app.Pool.lease(Pool.java:30)",
        ]);
        let mut events: Vec<Recorded> = Vec::new();
        events.extend(std::iter::repeat(("put".into(), a.clone())).take(2));
        events.extend(std::iter::repeat(("put".into(), b.clone())).take(1));
        events.extend(std::iter::repeat(("put".into(), c.clone())).take(2));
        events.push(("put".into(), other_inner.clone()));
        events.push(("merge".into(), a.clone()));
        let grouped = group(events);
        assert_eq!(
            places(&grouped),
            [
                ("app.Pool.lease(Pool.java:30)".to_owned(), 5, 3),
                ("app.Pool.lease(Pool.java:30)".to_owned(), 1, 1),
                ("app.Pool.lease(Pool.java:30)".to_owned(), 1, 1),
            ]
        );
        // The most recorded of the folded stacks is kept; of two as recorded, the first in
        // text order.
        assert_eq!(grouped[0].frames, a);
        assert_eq!(grouped[0].operation, "put");
        // A constructor to look at: who constructs tells two allocations apart.
        let constructed = |caller: &str| {
            stack(&[
                "app.Session.<init>(Session.java:8)",
                caller,
                "app.Main.main(Main.java:3)",
            ])
        };
        let sessions = group(vec![
            (
                String::new(),
                constructed("app.Service.login(Service.java:28)"),
            ),
            (
                String::new(),
                constructed("app.Service.restore(Service.java:40)"),
            ),
        ]);
        assert_eq!(
            sessions.iter().map(|s| s.folded).collect::<Vec<_>>(),
            [1, 1]
        );
        // Stacks without a place to look fold only when identical.
        let library = |line: &str| {
            stack(&[
                "java.util.ArrayList.add(ArrayList.java:455)",
                &format!("lib.cache.Cache.put(Cache.java:{line})"),
            ])
        };
        let unplaced = group(vec![
            ("add".into(), library("12")),
            ("add".into(), library("13")),
            ("add".into(), library("12")),
        ]);
        assert_eq!(
            unplaced
                .iter()
                .map(|s| (s.count, s.folded))
                .collect::<Vec<_>>(),
            [(2, 1), (1, 1)]
        );
    }

    /// The permutations of `items`.
    fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
        if items.len() <= 1 {
            return vec![items.to_vec()];
        }
        let mut all = Vec::new();
        for i in 0..items.len() {
            let mut rest = items.to_vec();
            let first = rest.remove(i);
            for mut tail in permutations(&rest) {
                tail.insert(0, first.clone());
                all.push(tail);
            }
        }
        all
    }

    // Issue 32: for a per-user cache, the key's line (a UUID) and the cache call were each
    // recorded 3 or 4 times in 4 loops, and their order changed between runs.
    #[test]
    fn the_order_is_the_same_whatever_the_counts_one_short_and_the_event_order() {
        let at = |line: u32| {
            stack(&[
                "java.util.HashMap.put(HashMap.java:610)",
                &format!("app.Cache.run(Cache.java:{line})"),
            ])
        };
        let lines = [41, 40, 52, 43];
        let mut seen: Option<Vec<(String, u64, u32)>> = None;
        for counts in [[4, 3, 4, 3], [3, 4, 3, 4], [4, 4, 3, 3]] {
            for order in permutations(&[0, 1, 2, 3]) {
                // Each permutation of the four stacks, their events interleaved.
                let mut events: Vec<Recorded> = Vec::new();
                for round in 0..4 {
                    for &i in &order {
                        if round < counts[i] {
                            events.push(("put".into(), at(lines[i])));
                        }
                    }
                }
                let ordered = order_per_loop(
                    Attribution::Attributed {
                        kind: RecordKind::Calls(vec!["put".into()]),
                        stacks: group(events),
                        caveats: Vec::new(),
                        hints: Vec::new(),
                    },
                    4,
                );
                let Attribution::Attributed { stacks, .. } = ordered else {
                    panic!("attributed");
                };
                let shown: Vec<String> = places(&stacks).into_iter().map(|p| p.0).collect();
                // One method's lines, latest first: the key made on line 40, the value stored
                // on 41.
                assert_eq!(
                    shown,
                    [
                        "app.Cache.run(Cache.java:52)",
                        "app.Cache.run(Cache.java:43)",
                        "app.Cache.run(Cache.java:41)",
                        "app.Cache.run(Cache.java:40)",
                    ]
                );
                if counts == [4, 3, 4, 3] {
                    let now = places(&stacks);
                    assert_eq!(seen.get_or_insert_with(|| now.clone()), &now);
                }
            }
        }
        // Twice as often a loop ranks first.
        let mut events: Vec<Recorded> = vec![("put".into(), at(40)); 8];
        events.extend(vec![("put".into(), at(52)); 4]);
        let ordered = order_per_loop(
            Attribution::Attributed {
                kind: RecordKind::Calls(vec!["put".into()]),
                stacks: group(events),
                caveats: Vec::new(),
                hints: Vec::new(),
            },
            4,
        );
        let Attribution::Attributed { stacks, .. } = ordered else {
            panic!("attributed");
        };
        assert_eq!(places(&stacks)[0].0, "app.Cache.run(Cache.java:40)");
        // Other methods by text: `Cache.put` before `Cache.run`, whatever their lines.
        let elsewhere = stack(&[
            "java.util.HashMap.put(HashMap.java:610)",
            "app.Cache.put(Cache.java:90)",
            "app.Cache.run(Cache.java:41)",
        ]);
        let stacks = group(vec![("put".into(), at(52)), ("put".into(), elsewhere)]);
        assert_eq!(
            places(&stacks).into_iter().map(|p| p.0).collect::<Vec<_>>(),
            [
                "app.Cache.put(Cache.java:90)",
                "app.Cache.run(Cache.java:52)"
            ]
        );
    }

    // The survey (scripts/attribution-coverage.sh): a leak on an error path (`ErrorPathLeak`:
    // put on line 37, remove on line 40 in 5 loops of 6) looked at the remove, since lines of
    // one method come latest first and both rounded to once a loop.
    #[test]
    fn calls_that_remove_come_after_the_adds_however_often_and_wherever_they_ran() {
        let at = |method: &str, line: u32| {
            stack(&[
                &format!("java.util.HashMap.{method}(HashMap.java:610)"),
                &format!("app.Payments.run(Payments.java:{line})"),
            ])
        };
        for (puts, removes) in [(6, 5), (4, 4), (3, 8)] {
            let mut events: Vec<Recorded> = vec![("put".into(), at("put", 37)); puts];
            events.extend(vec![("remove".into(), at("remove", 40)); removes]);
            events.push(("removeAll".into(), at("removeAll", 45)));
            events.push(("putAll".into(), at("putAll", 30)));
            let ordered = order_per_loop(
                Attribution::Attributed {
                    kind: RecordKind::Calls(vec!["put".into(), "remove".into()]),
                    stacks: group(events),
                    caveats: Vec::new(),
                    hints: Vec::new(),
                },
                5,
            );
            let Attribution::Attributed { stacks, .. } = ordered else {
                panic!("attributed");
            };
            let operations: Vec<&str> = stacks.iter().map(|s| s.operation.as_str()).collect();
            // The adds by their own order (once a loop each: the later line first), then the
            // removes by theirs.
            assert_eq!(
                operations[..2],
                ["put", "putAll"],
                "{puts} puts, {removes} removes"
            );
            let mut removed = operations[2..].to_vec();
            removed.sort_unstable();
            assert_eq!(
                removed,
                ["remove", "removeAll"],
                "{puts} puts, {removes} removes"
            );
        }
    }

    #[test]
    fn events_per_loop_round_to_the_nearest_and_are_at_least_one() {
        assert_eq!(per_loop(3, Some(4)), 1);
        assert_eq!(per_loop(4, Some(4)), 1);
        assert_eq!(per_loop(5, Some(4)), 1);
        assert_eq!(per_loop(6, Some(4)), 2);
        assert_eq!(per_loop(1, Some(20)), 1);
        assert_eq!(per_loop(7, None), 7);
    }

    #[test]
    fn call_kinds_name_their_methods_per_loop_then_by_name() {
        let at = |line: u32| {
            stack(&[
                "java.util.HashMap.put(HashMap.java:610)",
                &format!("app.Cache.run(Cache.java:{line})"),
            ])
        };
        // `put` 3 times, `merge` 4 times in 4 loops: once a loop each, so by name.
        let mut events: Vec<Recorded> = vec![("put".into(), at(10)); 3];
        events.extend(vec![("merge".into(), at(11)); 4]);
        let stacks = group(events);
        let ordered = order_per_loop(
            Attribution::Attributed {
                kind: RecordKind::Calls(operations(&stacks)),
                stacks,
                caveats: Vec::new(),
                hints: Vec::new(),
            },
            4,
        );
        let Attribution::Attributed { kind, .. } = ordered else {
            panic!("attributed");
        };
        assert_eq!(kind.label(), "calls to merge() and put()");
    }

    // Issue 32: `unsubscribe(this::onTick)` passes a new object each time; ArrayList.remove
    // reads `size`, finds nothing and writes nothing.
    #[test]
    fn removes_that_never_write_are_hinted() {
        let at = |caller: &str| {
            let frames = stack(&[
                "java.util.ArrayList.remove(ArrayList.java:520)",
                caller,
                "app.View.close(View.java:40)",
            ]);
            split_container_stack(&frames).unwrap()
        };
        let unsubscribe = || at("app.Feed.unsubscribe(Feed.java:19)");
        let removes: Vec<Recorded> = (0..4).map(|_| unsubscribe()).collect();
        let hints = remove_hints(&removes, &[]);
        assert_eq!(
            hints,
            [
                "4 call(s) to remove() at app.Feed.unsubscribe(Feed.java:19) removed nothing: \
              what was passed was never in the node (a lambda or method reference written at \
              the call is a new object each time)"
            ]
        );
        // Removes that removed (a removing write at the same place): no hint.
        assert!(remove_hints(&removes, &removes).is_empty());
        // An add at that place is not a remove.
        let added: Vec<Recorded> = removes
            .iter()
            .map(|(_, frames)| ("add".to_owned(), frames.clone()))
            .collect();
        assert_eq!(remove_hints(&removes, &added).len(), 1);
        // One read is not enough; two places are two hints, in the order of their text.
        assert!(remove_hints(&removes[..1], &[]).is_empty());
        let mut two = removes.clone();
        two.extend((0..2).map(|_| at("app.Bus.drop(Bus.java:7)")));
        let hints = remove_hints(&two, &[]);
        assert_eq!(hints.len(), 2);
        assert!(hints[0].starts_with("2 call(s) to remove() at app.Bus.drop(Bus.java:7)"));
        assert!(hints[1].starts_with("4 call(s) to remove() at app.Feed.unsubscribe"));
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
            made_at: None,
            folded: 1,
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
        assert_eq!(RecordKind::ClassDefinitions.label(), "classes defined at");
        assert_eq!(
            counted.headline(&RecordKind::ClassDefinitions),
            "4 class(es) defined"
        );
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
            strings(&user),
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
        assert_eq!(strings(&without_host_frames(frames)), ["a.B.run(B.java:1)"]);
        let junit = stack(&[
            "a.B.open(B.java:1)",
            "a.BTest.leaks(BTest.java:7)",
            "jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)",
            "jdk.internal.reflect.DelegatingMethodAccessorImpl.invoke(DelegatingMethodAccessorImpl.java:43)",
            "java.lang.reflect.Method.invoke(Method.java:568)",
            "dev.heapgrowth.junit.LoopCallback.runLoops(LoopCallback.java:42)",
        ]);
        assert_eq!(
            strings(&without_host_frames(junit)),
            ["a.B.open(B.java:1)", "a.BTest.leaks(BTest.java:7)"]
        );
    }

    #[test]
    fn code_sources_tell_the_jdk_libraries_and_the_users_code_apart() {
        let scenario = Some("file:/app/app.jar");
        assert_eq!(Origin::classify(None, scenario), Origin::Jdk);
        assert_eq!(
            Origin::classify(Some("jrt:/java.logging"), scenario),
            Origin::Jdk
        );
        assert_eq!(
            Origin::classify(Some("file:/m2/guava-33.8.0-jre.jar"), scenario),
            Origin::Library("guava-33.8.0-jre.jar".into())
        );
        // The scenario's own jar, and class directories (main and test classes), are the
        // user's.
        assert_eq!(
            Origin::classify(Some("file:/app/app.jar"), scenario),
            Origin::User
        );
        assert_eq!(
            Origin::classify(Some("file:/app/build/classes/"), scenario),
            Origin::User
        );
    }

    fn look_at(frames: &[&str]) -> Option<String> {
        let frames = stack(frames);
        place_to_look(&frames).map(|i| frames[i].to_string())
    }

    #[test]
    fn the_place_to_look_is_the_users_line_past_the_jdk_and_the_library() {
        // Growth inside a library: past its frames to the call into it.
        assert_eq!(
            look_at(&[
                "java.util.HashMap.put(HashMap.java:610)",
                "lib.cache.Segment.put(Segment.java:30)",
                "lib.cache.Cache.put(Cache.java:12)",
                "app.Prices.update(Prices.java:42)",
                "app.PricesTest.updates(PricesTest.java:9)",
            ]),
            Some("app.Prices.update(Prices.java:42)".into())
        );
        // A user callback the JDK calls (a thread factory): the user's call that made it happen.
        assert_eq!(
            look_at(&[
                "java.lang.Thread.<init>(Thread.java:400)",
                "app.Factory.newThread(Factory.java:23)",
                "java.util.concurrent.ThreadPoolExecutor.addWorker(ThreadPoolExecutor.java:899)",
                "java.util.concurrent.ThreadPoolExecutor.execute(ThreadPoolExecutor.java:1344)",
                "app.Jobs.run(Jobs.java:66)",
            ]),
            Some("app.Jobs.run(Jobs.java:66)".into())
        );
        // A bridge method is not the caller: past it to the library that called back.
        assert_eq!(
            look_at(&[
                "lib.pool.Wrapper.<init>(Wrapper.java:20)",
                "app.Factory.wrap(Factory.java:65)",
                "app.Factory.wrap(Factory.java:54)",
                "lib.pool.Pool.create(Pool.java:555)",
                "app.Leases.run(Leases.java:84)",
            ]),
            Some("app.Leases.run(Leases.java:84)".into())
        );
        // A task on a pool thread: only called back, so the first user frame.
        assert_eq!(
            look_at(&[
                "java.util.ArrayList.add(ArrayList.java:455)",
                "app.Record.run(Record.java:51)",
                "java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1136)",
                "java.lang.Thread.run(Thread.java:840)",
            ]),
            Some("app.Record.run(Record.java:51)".into())
        );
        // No user frame: the first frame outside the JDK and the growing library.
        assert_eq!(
            look_at(&[
                "java.util.ArrayList.add(ArrayList.java:455)",
                "lib.cache.Cache.put(Cache.java:12)",
            ]),
            None
        );
        assert_eq!(
            look_at(&["java.util.ArrayList.add(ArrayList.java:455)"]),
            None
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
