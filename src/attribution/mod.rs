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

use std::collections::HashMap;

use crate::class_name::stable_class_name;
use crate::growth::{GrowingNode, GrowthKind};
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
/// most frequent first, ties in frame order; at most [`MAX_STACKS`].
pub fn group(recorded: Vec<Recorded>) -> Vec<StackCount> {
    group_counted(recorded.into_iter().map(|event| (event, 1)))
}

/// [`group`] for stacks that come with a count each (the live objects of an allocation stack,
/// counted by the agent in `heapgrowth watch`): identical stacks add up their counts.
pub fn group_counted(recorded: impl IntoIterator<Item = (Recorded, u64)>) -> Vec<StackCount> {
    let mut counts: HashMap<(String, Vec<StackFrame>), u64> = HashMap::new();
    for ((operation, mut frames), count) in recorded {
        frames.truncate(MAX_FRAMES);
        *counts.entry((operation, frames)).or_default() += count;
    }
    let mut stacks: Vec<StackCount> = counts
        .into_iter()
        .map(|((operation, frames), count)| StackCount {
            count,
            operation,
            frames,
            made_at: None,
        })
        .collect();
    stacks.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| {
                let text = |stack: &StackCount| {
                    stack
                        .frames
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                };
                text(a).cmp(&text(b))
            })
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
                },
                StackCount {
                    count: 1,
                    operation: "add".into(),
                    frames: b,
                    made_at: None,
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
            made_at: None,
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
