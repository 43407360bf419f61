//! References the collector cleared: garbage waiting for its owner's cleanup, not growth.
//!
//! A live heap dump starts with a full collection, which clears every weak reference (and
//! phantom reference, and soft reference under memory pressure) whose referent nothing else
//! keeps alive. The reference object itself stays where its owner put it until the owner
//! notices: `WeakHashMap` and Guava's `MapMakerInternalMap` drain their reference queue on a
//! later write (Guava 16 entries at a time), a `ThreadLocalMap` expunges stale entries as it
//! probes past them, Caffeine in its next maintenance. So a dump shows the entries whose keys
//! died since the previous collection, and with snapshots that get further apart, more of
//! them every time. Counting them as growth reported Guava's weak interner with unique keys as
//! a leak of +414 entries.
//!
//! The path tree's walk therefore holds such a reference back when it meets it, and takes it
//! only after everything else (see [`super::tree`]): what else is reachable keeps its strong
//! path, and what only cleared references reach counts as *awaiting cleanup* in its node
//! instead of as its objects.

use super::containers::inherited;
use crate::heap::{ClassIndex, FieldValue, HeapGraph, ObjectIndex};

/// Per snapshot: which classes are references, to tell a cleared one by its `referent`.
pub(crate) struct ClearedReferences {
    /// For each class: whether it is `java.lang.ref.Reference` or a subclass.
    is_reference: Vec<bool>,
}

impl ClearedReferences {
    pub(crate) fn new(graph: &HeapGraph) -> ClearedReferences {
        let is_reference = match graph.class_by_name("java.lang.ref.Reference") {
            Some(reference) => inherited(graph, |class, parent: Option<&bool>| {
                class == reference || parent.copied().unwrap_or(false)
            }),
            None => vec![false; graph.class_count()],
        };
        ClearedReferences { is_reference }
    }

    /// Whether `class` is `java.lang.ref.Reference` or a subclass.
    pub(crate) fn is_reference(&self, class: ClassIndex) -> bool {
        self.is_reference[class as usize]
    }

    /// Whether `object` is a reference whose referent the collector cleared: its `referent`
    /// is null. A reference that refers to itself is left out: that is the head of a list of
    /// references, made without a referent (`jdk.internal.ref.PhantomCleanable`'s in JDK 9 to
    /// 17, whose list holds every live cleanable of a `Cleaner`), not a cleared entry.
    #[inline]
    pub(crate) fn is_cleared(&self, graph: &HeapGraph, object: ObjectIndex) -> bool {
        self.is_reference(graph.class_of(object))
            && graph.field_value(object, "referent") == Some(FieldValue::Object(0))
            && !refers_to_itself(graph, object)
    }
}

fn refers_to_itself(graph: &HeapGraph, object: ObjectIndex) -> bool {
    let mut itself = false;
    graph.for_each_reference(object, |reference| itself |= reference.target == object);
    itself
}
