//! Where the walk starts: which GC roots keep objects alive, how they are grouped into root
//! nodes, and the edges a heap dump doesn't list as references (a thread's stack locals).

use super::bitset::BitSet;
use super::names::FastMap;
use crate::heap::{ClassIndex, HeapGraph, ObjectIndex, ReferenceKind, RootKind};

/// The name of a root group: `ThreadObject`, `StickyClass`, and `Class` for classes whose
/// loader is not one of the JDK's built-in loaders. Those classes are not GC roots in HotSpot's
/// list, but they live as long as their loader, and a live dump has already unloaded the ones
/// whose loader died; taking them as roots keeps the path to a static field short and stable
/// instead of running through the class loader's internals.
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

/// The strong roots of a snapshot, grouped: `(group, object)` in walk order, and the stack
/// locals of each thread (walked as `LOCAL` references from the thread object).
pub(crate) struct RootSet {
    pub(crate) entries: Vec<(Option<RootKind>, ObjectIndex)>,
    locals: FastMap<ObjectIndex, Vec<ObjectIndex>>,
    /// The keys of `locals`: asked for every object, so a bit rather than a hash lookup.
    threads_with_locals: BitSet,
}

impl RootSet {
    pub(crate) fn new(graph: &HeapGraph) -> RootSet {
        let mut entries = Vec::new();
        let mut locals: FastMap<ObjectIndex, Vec<ObjectIndex>> = FastMap::default();
        for root in graph.roots() {
            if !is_strong_root(root.kind) {
                continue;
            }
            match root.thread {
                Some(thread) if is_thread_local_root(root.kind) => {
                    locals.entry(thread).or_default().push(root.object)
                }
                _ => entries.push((Some(root.kind), root.object)),
            }
        }
        for class in 0..graph.class_count() as ClassIndex {
            if let Some(object) = graph.class(class).object {
                entries.push((None, object));
            }
        }
        entries.sort_by_key(|(kind, _)| root_priority(*kind));
        let mut threads_with_locals = BitSet::new(graph.object_count());
        for &thread in locals.keys() {
            threads_with_locals.test_and_set(thread);
        }
        RootSet {
            entries,
            locals,
            threads_with_locals,
        }
    }

    /// The stack locals of `object`, if it is a thread that has some.
    #[inline]
    pub(crate) fn locals_of(&self, object: ObjectIndex) -> &[ObjectIndex] {
        if self.threads_with_locals.contains(object) {
            self.locals.get(&object).map_or(&[], Vec::as_slice)
        } else {
            &[]
        }
    }
}

/// The field `java.lang.ref.Reference.referent`: weak, soft, phantom and final references
/// (finalizer bookkeeping) don't keep their referent alive, so it is never a strong path.
pub(crate) fn referent_field(graph: &HeapGraph) -> Option<ReferenceKind> {
    let class = graph.class_by_name("java.lang.ref.Reference")?;
    let field = graph
        .class(class)
        .instance_fields
        .iter()
        .position(|f| f.name == "referent")?;
    Some(ReferenceKind::InstanceField {
        declaring_class: class,
        field: field as u16,
    })
}
