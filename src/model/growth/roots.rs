//! Where the walk starts: which GC roots keep objects alive, how they are grouped into root
//! nodes, and the edges a heap dump doesn't list as references (a thread's stack locals).

use super::bitset::BitSet;
use super::names::FastMap;
use crate::heap::{ClassIndex, FieldValue, HeapGraph, ObjectIndex, ReferenceKind, RootKind};

/// The name of a root group: `ThreadObject`, `StickyClass` (the boot loader's classes, as
/// HotSpot lists them), and `Class` for the other classes of the JVM's own loaders (platform
/// and application class loaders, and hidden classes of the boot loader), which HotSpot does
/// not list but never unloads while the JVM runs.
pub fn root_kind_name(kind: Option<RootKind>) -> &'static str {
    match kind {
        None => "Class",
        Some(RootKind::Unknown) => "Unknown",
        Some(RootKind::JniGlobal) => "JniGlobal",
        Some(RootKind::JniLocal) => "JniLocal",
        Some(RootKind::JavaFrame) => "JavaFrame",
        Some(RootKind::NativeStack) => "NativeStack",
        Some(RootKind::StickyClass) => "StickyClass",
        Some(RootKind::ThreadBlock) => "ThreadBlock",
        Some(RootKind::MonitorUsed) => "MonitorUsed",
        Some(RootKind::ThreadObject) => "ThreadObject",
        Some(RootKind::InternedString) => "InternedString",
        Some(RootKind::Finalizing) => "Finalizing",
        Some(RootKind::Debugger) => "Debugger",
        Some(RootKind::ReferenceCleanup) => "ReferenceCleanup",
        Some(RootKind::VmInternal) => "VmInternal",
        Some(RootKind::JniMonitor) => "JniMonitor",
        Some(RootKind::Unreachable) => "Unreachable",
    }
}

/// Order in which root groups are walked; ties between equally short paths go to the earlier.
/// Threads first: a scenario's objects then hang off the thread that runs it.
fn root_priority(kind: Option<RootKind>) -> u8 {
    match kind {
        Some(RootKind::ThreadObject) => 0,
        Some(RootKind::StickyClass) => 1,
        None => 2,
        Some(RootKind::JniGlobal) => 3,
        Some(RootKind::JavaFrame) | Some(RootKind::JniLocal) | Some(RootKind::NativeStack) => 4,
        _ => 5,
    }
}

/// Whether objects of root `kind` are walked first, in the main walk. The others (JNI
/// globals and locals of no known thread, monitors, the VM's own) are walked only after
/// everything the main roots reach: the JIT holds JNI handles to classes and class loaders
/// while it compiles, and a path through such a handle would replace the real one for the one
/// snapshot that catches it. What only they keep alive still has its path.
pub(crate) fn is_main_root(kind: Option<RootKind>) -> bool {
    matches!(
        kind,
        None | Some(RootKind::ThreadObject) | Some(RootKind::StickyClass)
    )
}

/// Roots that don't keep anything alive: objects pending finalization or reference processing
/// (finalizer bookkeeping), and what the dump itself calls unreachable.
fn is_strong_root(kind: RootKind) -> bool {
    !matches!(
        kind,
        RootKind::Finalizing | RootKind::ReferenceCleanup | RootKind::Unreachable
    )
}

fn is_thread_local_root(kind: RootKind) -> bool {
    matches!(
        kind,
        RootKind::JavaFrame | RootKind::JniLocal | RootKind::NativeStack | RootKind::ThreadBlock
    )
}

/// Classes of the loaders the JVM itself creates and never unloads (JDK 9+ and JDK 8 names).
/// Their classes are roots; a class of any other loader lives only as long as its loader.
const JVM_LOADER_CLASSES: &[&str] = &[
    "jdk.internal.loader.ClassLoaders$PlatformClassLoader",
    "jdk.internal.loader.ClassLoaders$AppClassLoader",
    "sun.misc.Launcher$ExtClassLoader",
    "sun.misc.Launcher$AppClassLoader",
];

/// One strong root and the group it is walked in.
pub(crate) struct RootEntry {
    /// The root kind; `None` for a class of the JVM's own loaders that the dump doesn't list
    /// as a root (HotSpot lists only the boot loader's classes, as sticky classes).
    pub(crate) kind: Option<RootKind>,
    /// For a thread object: its name with every run of digits as `*` (`worker-*`), so the
    /// threads of one pool form one group; `None` when the dump doesn't have the name.
    pub(crate) thread_name: Option<String>,
    pub(crate) object: ObjectIndex,
}

/// A reference the dump's records don't list, but that keeps its target alive.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ImplicitEdge {
    /// A local variable of a thread's stack (a Java frame, a JNI local, native code).
    Local {
        object: ObjectIndex,
        /// The root kind the dump gives the local.
        kind: RootKind,
        /// The frame holding it, an index into [`HeapGraph::frames`], when the dump says.
        frame: Option<u32>,
    },
    /// A class defined by a class loader: the loader keeps it alive.
    Class { object: ObjectIndex },
    /// The loader that defined a class (`Class.classLoader`, which dumps don't list): a class
    /// keeps its loader alive. Only for loaders that are not the JVM's own.
    Loader { object: ObjectIndex },
}

impl ImplicitEdge {
    pub(crate) fn target(self) -> ObjectIndex {
        match self {
            ImplicitEdge::Local { object, .. }
            | ImplicitEdge::Class { object }
            | ImplicitEdge::Loader { object } => object,
        }
    }
}

/// The strong roots of a snapshot in walk order, and the implicit edges of threads (their
/// stack locals, walked as `LOCAL` steps from the thread object), of class loaders (the
/// classes they defined, walked as `CLASS` steps from the loader) and of those classes (their
/// loader, as `Class.classLoader`).
pub(crate) struct RootSet {
    pub(crate) entries: Vec<RootEntry>,
    implicit: FastMap<ObjectIndex, Vec<ImplicitEdge>>,
    /// The keys of `implicit`: asked for every object, so a bit rather than a hash lookup.
    has_implicit: BitSet,
    /// Class objects that are not roots but reached through their loader. A walk that doesn't
    /// reach some of them (a loader kept alive only through an instance of one of its classes,
    /// whose class pointer dumps don't list) reaches them last, from an instance, or as
    /// `GcRoot(Class)` when no instance was reached either.
    pub(crate) loader_classes: Vec<ObjectIndex>,
    /// Those of `loader_classes` that a closed scenario's loader defined (ascending): reached
    /// last, they are roots of a group of their own, apart from the running scenario's classes
    /// of the same names.
    pub(crate) closed_scenario_classes: Vec<ObjectIndex>,
}

impl RootSet {
    pub(crate) fn new(graph: &HeapGraph) -> RootSet {
        let mut entries = Vec::new();
        let mut implicit: FastMap<ObjectIndex, Vec<ImplicitEdge>> = FastMap::default();
        for root in graph.roots() {
            if !is_strong_root(root.kind) {
                continue;
            }
            match root.thread {
                Some(thread) if is_thread_local_root(root.kind) => implicit
                    .entry(thread)
                    .or_default()
                    .push(ImplicitEdge::Local {
                        object: root.object,
                        kind: root.kind,
                        frame: root.frame,
                    }),
                _ => entries.push(RootEntry {
                    kind: Some(root.kind),
                    thread_name: (root.kind == RootKind::ThreadObject)
                        .then(|| thread_name(graph, root.object))
                        .flatten()
                        .map(|name| thread_name_pattern(&name)),
                    object: root.object,
                }),
            }
        }
        let jvm_loaders = JvmLoaders::new(graph);
        let mut loader_classes = Vec::new();
        let mut closed_scenario_classes = Vec::new();
        for class in graph.classes() {
            let Some(object) = class.object else { continue };
            match class.loader {
                Some(loader) if !jvm_loaders.contains(graph, loader) => {
                    implicit
                        .entry(loader)
                        .or_default()
                        .push(ImplicitEdge::Class { object });
                    implicit
                        .entry(object)
                        .or_default()
                        .push(ImplicitEdge::Loader { object: loader });
                    loader_classes.push(object);
                    if jvm_loaders.scenario.closed.contains(&loader) {
                        closed_scenario_classes.push(object);
                    }
                }
                _ => entries.push(RootEntry {
                    kind: None,
                    thread_name: None,
                    object,
                }),
            }
        }
        entries.sort_by_key(|entry| root_priority(entry.kind));
        let mut has_implicit = BitSet::new(graph.object_count());
        for &object in implicit.keys() {
            has_implicit.test_and_set(object);
        }
        closed_scenario_classes.sort_unstable();
        RootSet {
            entries,
            implicit,
            has_implicit,
            loader_classes,
            closed_scenario_classes,
        }
    }

    /// Every object that has implicit edges, with them.
    pub(crate) fn implicit_sources(
        &self,
    ) -> impl Iterator<Item = (ObjectIndex, &[ImplicitEdge])> + '_ {
        self.implicit
            .iter()
            .map(|(&object, edges)| (object, edges.as_slice()))
    }

    /// The implicit edges of `object`, if it is a thread with stack locals or a class loader.
    #[inline]
    pub(crate) fn implicit_edges(&self, object: ObjectIndex) -> &[ImplicitEdge] {
        if self.has_implicit.contains(object) {
            self.implicit.get(&object).map_or(&[], Vec::as_slice)
        } else {
            &[]
        }
    }
}

/// The name of the class loader heapgrowth loads a scenario with (`ScenarioHost` in the glue),
/// followed by `-N`, N counting the scenarios opened in the JVM. It stands for the application
/// class loader the scenario's classes have outside the tool, so its classes are roots too, and
/// a static field's path is the same under `heapgrowth run` and under a JUnit test.
///
/// Only the running scenario's loader (the largest N) is taken so: the loader of a scenario
/// closed before can outlive it for a while (a JIT compile of one of its methods can hold it, a
/// thread it started is still ending), and its classes, taken as roots too, would share their
/// paths with the running scenario's classes of the same names: a map that grew over the last
/// scenario's hundreds of loops would then be counted as the running one's at its first
/// snapshot, and hide its growth.
pub(crate) const SCENARIO_LOADER_NAME: &str = "heapgrowth-scenario";

/// The group name of the classes of a closed scenario's loader that the walk reaches only as
/// roots: `GcRoot(Class "closed scenario")`.
pub(crate) const CLOSED_SCENARIO: &str = "closed scenario";

/// The JVM's own class loaders in one snapshot: those of [`JVM_LOADER_CLASSES`], the system
/// class loader when it is a class of the user's (`-Djava.system.class.loader`), and the
/// running scenario's loader ([`SCENARIO_LOADER_NAME`]).
struct JvmLoaders {
    classes: Vec<ClassIndex>,
    system: Option<ObjectIndex>,
    scenario: ScenarioLoaders,
}

/// The scenario loaders of a snapshot, each loader's name read once.
struct ScenarioLoaders {
    /// The running scenario's: the largest number after [`SCENARIO_LOADER_NAME`].
    running: Option<ObjectIndex>,
    /// Those of scenarios closed before it.
    closed: Vec<ObjectIndex>,
    /// Those named [`SCENARIO_LOADER_NAME`] alone, by a glue from before the number: every
    /// one is taken as the JVM's, as then.
    unnumbered: Vec<ObjectIndex>,
}

impl ScenarioLoaders {
    fn new(graph: &HeapGraph) -> ScenarioLoaders {
        let mut loaders: Vec<ObjectIndex> = graph
            .classes()
            .iter()
            .filter_map(|class| class.loader)
            .collect();
        loaders.sort_unstable();
        loaders.dedup();
        let mut numbered: Vec<(u64, ObjectIndex)> = Vec::new();
        let mut unnumbered = Vec::new();
        for loader in loaders {
            let Some(name) = loader_name(graph, loader) else {
                continue;
            };
            let Some(rest) = name.strip_prefix(SCENARIO_LOADER_NAME) else {
                continue;
            };
            if rest.is_empty() {
                unnumbered.push(loader);
            } else if let Some(number) = rest.strip_prefix('-').and_then(|n| n.parse().ok()) {
                numbered.push((number, loader));
            }
        }
        numbered.sort_unstable();
        let running = numbered.pop().map(|(_, loader)| loader);
        ScenarioLoaders {
            running,
            closed: numbered.into_iter().map(|(_, loader)| loader).collect(),
            unnumbered,
        }
    }

    /// Whether `loader` stands for the application's loader: the running scenario's.
    fn is_running(&self, loader: ObjectIndex) -> bool {
        Some(loader) == self.running || self.unnumbered.contains(&loader)
    }
}

impl JvmLoaders {
    fn new(graph: &HeapGraph) -> JvmLoaders {
        let system = graph
            .class_by_name("java.lang.ClassLoader")
            .and_then(|class| graph.static_field_value(class, "scl"))
            .and_then(|value| match value {
                FieldValue::Object(id) => graph.index_of_id(id),
                _ => None,
            });
        JvmLoaders {
            classes: JVM_LOADER_CLASSES
                .iter()
                .filter_map(|name| graph.class_by_name(name))
                .collect(),
            system,
            scenario: ScenarioLoaders::new(graph),
        }
    }

    fn contains(&self, graph: &HeapGraph, loader: ObjectIndex) -> bool {
        Some(loader) == self.system
            || self.classes.contains(&graph.class_of(loader))
            || self.scenario.is_running(loader)
    }
}

/// The `name` of a `java.lang.Thread`, if the dump has it.
fn thread_name(graph: &HeapGraph, thread: ObjectIndex) -> Option<String> {
    string_field(graph, thread, "name")
}

/// The `name` a `java.lang.ClassLoader` was given, if any.
fn loader_name(graph: &HeapGraph, loader: ObjectIndex) -> Option<String> {
    string_field(graph, loader, "name")
}

fn string_field(graph: &HeapGraph, object: ObjectIndex, field: &str) -> Option<String> {
    match graph.field_value(object, field)? {
        FieldValue::Object(id) => graph.string_value(graph.index_of_id(id)?),
        _ => None,
    }
}

/// A thread name with each run of digits replaced by `*`: `pool-3-thread-12` → `pool-*-thread-*`.
/// Threads that a pool or a loop starts then share a group, whatever their number.
pub(crate) fn thread_name_pattern(name: &str) -> String {
    let mut pattern = String::with_capacity(name.len());
    let mut in_digits = false;
    for c in name.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                pattern.push('*');
            }
            in_digits = true;
        } else {
            pattern.push(c);
            in_digits = false;
        }
    }
    pattern
}

/// Fields of `java.lang.ref.Reference` that are not strong paths: `referent` (weak, soft,
/// phantom and final references don't keep it alive) and `discovered` (the list the collector
/// links references into while it processes them: a path through it would change with every
/// collection, and a leak seen through it would never keep its path from one snapshot to the
/// next).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NonStrongFields {
    referent: Option<ReferenceKind>,
    discovered: Option<ReferenceKind>,
}

impl NonStrongFields {
    pub(crate) fn new(graph: &HeapGraph) -> NonStrongFields {
        let field = |name: &str| {
            let class = graph.class_by_name("java.lang.ref.Reference")?;
            let field = graph
                .class(class)
                .instance_fields
                .iter()
                .position(|f| f.name == name)?;
            Some(ReferenceKind::InstanceField {
                declaring_class: class,
                field: field as u16,
            })
        };
        NonStrongFields {
            referent: field("referent"),
            discovered: field("discovered"),
        }
    }

    /// Whether a reference read from `kind` is one of these fields.
    #[inline]
    pub(crate) fn contains(&self, kind: ReferenceKind) -> bool {
        Some(kind) == self.referent || Some(kind) == self.discovered
    }
}
