//! The key of a path-tree node: how a node's objects are referenced by their parent's objects.
//! A leaf below both the tree and the decoder, so they need not use each other both ways.

use super::names::{NameId, SnapshotNames};
use crate::heap::{ClassIndex, Reference, ReferenceKind};

/// How a node's objects are referenced by their parent's objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StepKind {
    /// A group of GC roots of one kind; the key's name is the root kind.
    GcRoot,
    /// A static field of the owner class.
    StaticField,
    /// An instance field declared by the owner class.
    InstanceField,
    /// An array element, or an element of a collection seen through its internals.
    ArrayEntry,
    /// A local variable (or JNI local) on the stack of the parent thread; the owner is the
    /// class of the frame's method (`java.lang.Thread` when the dump names no frame), the name
    /// the method.
    Local,
    /// A class defined by the parent class loader; the owner is the loader's class, the name
    /// the class's (the target is `java.lang.Class`).
    Class,
}

impl StepKind {
    /// The name used in reports: `STATIC_FIELD`, `INSTANCE_FIELD`, ...
    pub fn label(self) -> &'static str {
        match self {
            StepKind::GcRoot => "GC_ROOT",
            StepKind::StaticField => "STATIC_FIELD",
            StepKind::InstanceField => "INSTANCE_FIELD",
            StepKind::ArrayEntry => "ARRAY_ENTRY",
            StepKind::Local => "LOCAL",
            StepKind::Class => "CLASS",
        }
    }
}

/// The reference location that groups objects into a node: kind, owner class, field name (or
/// `[x]`, `[key]`, a root kind), and the class of the objects reached. Names are interned in
/// [`Names`] so keys from different snapshots compare equal. A root group of threads has the
/// pattern of their names (`worker-*`) as its target.
///
/// [`Names`]: super::Names
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeKey {
    /// How the objects are referenced.
    pub kind: StepKind,
    /// The class declaring the field, or the array or collection class; empty for roots.
    pub owner: NameId,
    /// Field name, `[x]`, `[key]`, or the root kind.
    pub name: NameId,
    /// The class of the objects; empty for roots, the thread name pattern for thread roots.
    pub target: NameId,
}

/// Index of a node in its [`PathTree`](super::PathTree).
pub type NodeId = u32;

impl SnapshotNames {
    /// Kind, owner and name of the location `reference` is read from, in an object of class
    /// `class`.
    pub(super) fn location(
        &self,
        class: ClassIndex,
        reference: Reference,
    ) -> (StepKind, NameId, NameId) {
        match reference.kind {
            ReferenceKind::InstanceField {
                declaring_class,
                field,
            } => (
                StepKind::InstanceField,
                self.class[declaring_class as usize],
                self.instance_fields[declaring_class as usize][field as usize],
            ),
            ReferenceKind::StaticField { class, field } => (
                StepKind::StaticField,
                self.class[class as usize],
                self.static_fields[class as usize][field as usize],
            ),
            ReferenceKind::ArrayEntry { .. } => (
                StepKind::ArrayEntry,
                self.class[class as usize],
                self.element,
            ),
        }
    }
}
