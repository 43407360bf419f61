//! The shortest-path tree of one snapshot.
//!
//! A breadth-first walk from the GC roots reaches every object once, by a shortest path. Objects
//! reached through the same reference location — the same [`NodeKey`] under the same parent —
//! form one node, so a million entries of one list are one node with a count. A node whose key
//! equals its parent's folds into the parent, which flattens linked chains (`Node.next`).

use super::bitset::BitSet;
use super::decode::{
    DecodedObject, InternalRole, InternalStepSlice, InternalSteps, Rules, Step, StepMaker,
    TracedInternals,
};
use super::decode_queue::{walk_in_order, OwnCacheLines, QueueWalk};
use super::key::{NodeId, NodeKey, StepKind};
use super::names::{FastMap, NameId, Names, SnapshotNames};
use super::roots::{is_main_root, root_kind_name, ImplicitEdge, RootSet, CLOSED_SCENARIO};
use crate::heap::{ClassIndex, HeapGraph, ObjectIndex, RootKind};

mod notes;
mod walk;

use notes::{NoNotes, Watch};
use walk::build_noting;

/// One group of objects.
#[derive(Clone, Debug)]
pub struct TreeNode {
    /// The reference location shared by the node's objects.
    pub key: NodeKey,
    /// The parent node; `None` for a root group.
    pub parent: Option<NodeId>,
    /// Objects in the node (a collection's internal objects are not counted), those awaiting
    /// cleanup left out (see [`PathTree::awaiting_cleanup`]).
    pub objects: u64,
    /// Their shallow size.
    pub bytes: u64,
    /// The strong references the node's objects hold, to any object, reached before or not:
    /// fields, array slots in use, and a collection's entries (keys and values) seen through
    /// its internals. A list that gains references to objects that exist already grows here
    /// and nowhere else. References to references the collector cleared are left out.
    pub references: u64,
    /// For a `LOCAL` node: where the frame holding its first object was (`Timer.java:563`).
    /// Not part of the key, since a thread moves from line to line between snapshots.
    pub source: Option<NameId>,
    /// Child nodes, in the order the walk created them.
    pub children: Vec<NodeId>,
}

/// The shortest-path tree of one snapshot, without per-object data.
#[derive(Debug, Default)]
pub struct PathTree {
    nodes: Vec<TreeNode>,
    roots: Vec<NodeId>,
    by_parent_and_key: FastMap<(NodeId, NodeKey), NodeId>,
    /// Objects awaiting cleanup, for the few nodes that have any.
    awaiting_cleanup: FastMap<NodeId, u64>,
}

/// Parent id used for root nodes in the lookup map.
const NO_PARENT: NodeId = NodeId::MAX;

impl PathTree {
    /// All nodes; a node's id is its position.
    pub fn nodes(&self) -> &[TreeNode] {
        &self.nodes
    }

    /// The node `id`.
    pub fn node(&self, id: NodeId) -> &TreeNode {
        &self.nodes[id as usize]
    }

    /// Root nodes, one per GC root kind.
    pub fn roots(&self) -> &[NodeId] {
        &self.roots
    }

    /// Objects in node `id` that only references the collector cleared reach, those references
    /// included: garbage that waits for its owner's cleanup. A live heap dump starts with a
    /// full collection, which clears the weak references to what nothing else keeps; the
    /// reference objects stay where their owner put them (a `WeakHashMap`'s table, Guava's
    /// interner) until it drains its reference queue or probes past them. The walk takes such
    /// references after everything else, so what else reaches their objects keeps its own path,
    /// and counts them here, not in [`TreeNode::objects`].
    pub fn awaiting_cleanup(&self, id: NodeId) -> u64 {
        self.awaiting_cleanup.get(&id).copied().unwrap_or(0)
    }

    /// The child of `parent` (or the root node, for `None`) with `key`.
    pub fn child(&self, parent: Option<NodeId>, key: NodeKey) -> Option<NodeId> {
        self.by_parent_and_key
            .get(&(parent.unwrap_or(NO_PARENT), key))
            .copied()
    }

    /// The node reached by following `keys` from the roots.
    pub fn find(&self, keys: &[NodeKey]) -> Option<NodeId> {
        let mut current = None;
        for key in keys {
            current = Some(self.child(current, *key)?);
        }
        current
    }

    /// Keys from the root down to `id`.
    pub fn path(&self, id: NodeId) -> Vec<NodeKey> {
        let mut keys = Vec::new();
        let mut current = Some(id);
        while let Some(node) = current {
            keys.push(self.nodes[node as usize].key);
            current = self.nodes[node as usize].parent;
        }
        keys.reverse();
        keys
    }

    /// Objects in the children of `id`, and their shallow size: the measure that grows when
    /// something leaks into the node.
    pub fn children_totals(&self, id: NodeId) -> (u64, u64) {
        self.node(id)
            .children
            .iter()
            .fold((0, 0), |(objects, bytes), &child| {
                let child = self.node(child);
                (objects + child.objects, bytes + child.bytes)
            })
    }

    /// Whether any ancestor of `id` is in `set`.
    pub fn has_ancestor_in(&self, id: NodeId, set: &dyn Fn(NodeId) -> bool) -> bool {
        let mut current = self.node(id).parent;
        while let Some(node) = current {
            if set(node) {
                return true;
            }
            current = self.node(node).parent;
        }
        false
    }

    /// Heap bytes used by the tree, for the benchmark.
    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<TreeNode>()
            + self
                .nodes
                .iter()
                .map(|n| n.children.capacity() * 4)
                .sum::<usize>()
            + self.by_parent_and_key.capacity()
                * (std::mem::size_of::<(NodeId, NodeKey)>() + std::mem::size_of::<NodeId>() + 1)
            + self.awaiting_cleanup.capacity() * (std::mem::size_of::<(NodeId, u64)>() + 1)
    }

    fn node_for(&mut self, parent: Option<NodeId>, key: NodeKey) -> NodeId {
        let map_key = (parent.unwrap_or(NO_PARENT), key);
        if let Some(&id) = self.by_parent_and_key.get(&map_key) {
            return id;
        }
        let id = self.nodes.len() as NodeId;
        self.nodes.push(TreeNode {
            key,
            parent,
            objects: 0,
            bytes: 0,
            references: 0,
            source: None,
            children: Vec::new(),
        });
        self.by_parent_and_key.insert(map_key, id);
        match parent {
            Some(parent) => self.nodes[parent as usize].children.push(id),
            None => self.roots.push(id),
        }
        id
    }
}

/// Which node each object of the snapshot landed in; lives only while the snapshot does.
pub struct ObjectNodes {
    /// The objects the walk reached as node members (not collections' internal objects), in
    /// the order it reached them, and their nodes.
    objects: Vec<ObjectIndex>,
    nodes: Vec<NodeId>,
    /// Class objects the walk did not reach through their loader and took as roots last.
    late_roots: Vec<ObjectIndex>,
    /// What the walk noted about the edges out of the watched paths' subtrees, if it was given
    /// any.
    watched: Option<WatchedEdges>,
}

/// What a walk given paths to watch ([`build_watching`]) notes for the retained size of those
/// paths' nodes, so that it need not walk the heap again: which objects it reached by a path
/// that passes through no watched node's object, and the edges it saw from such objects into
/// the others.
pub(crate) struct WatchedEdges {
    /// Per node: whether it is one of the watched paths.
    pub(crate) watched_nodes: Vec<bool>,
    /// Objects (members and collections' internal objects) whose path from the roots passes
    /// through no object of a watched node.
    pub(crate) outside: BitSet,
    /// Targets of the edges the walk followed from objects of `outside` that `outside` doesn't
    /// account for: every edge to an object reached before, and the edges by which objects of
    /// watched nodes were first reached. The edges the walk doesn't follow (an instance's to
    /// its class object, a collection internal's implicit ones) are not noted.
    pub(crate) from_outside: BitSet,
}

impl ObjectNodes {
    /// Class objects the walk took as roots after everything else (see
    /// [`RootSet::loader_classes`]): reachability questions must start there too.
    pub(crate) fn late_roots(&self) -> &[ObjectIndex] {
        &self.late_roots
    }

    /// What the walk noted about the watched paths, if it watched any.
    pub(crate) fn watched(&self) -> Option<&WatchedEdges> {
        self.watched.as_ref()
    }

    /// Every member object with its node, in the order the walk reached them.
    pub fn iter(&self) -> impl Iterator<Item = (ObjectIndex, NodeId)> + '_ {
        self.objects.iter().copied().zip(self.nodes.iter().copied())
    }

    /// The member objects of each of `groups`, in ascending order.
    pub fn members(&self, groups: &[NodeId]) -> Vec<Vec<ObjectIndex>> {
        let mut members = vec![Vec::new(); groups.len()];
        for (object, node) in self.iter() {
            if let Some(group) = groups.iter().position(|&g| g == node) {
                members[group].push(object);
            }
        }
        for group in &mut members {
            group.sort_unstable();
        }
        members
    }

    /// Heap bytes used, for the benchmark.
    pub fn memory_bytes(&self) -> usize {
        (self.objects.capacity() + self.nodes.capacity()) * 4
            + self.watched.as_ref().map_or(0, |w| {
                w.watched_nodes.capacity() + 2 * w.outside.memory_bytes()
            })
    }
}

/// `java.util.HashMap$Node` → `HashMap$Node`.
pub fn simple_name(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Walks `graph` from its roots and builds its path tree. `names` is shared across the
/// snapshots of one search so keys stay comparable.
pub fn build(graph: &HeapGraph, names: &mut Names) -> (PathTree, ObjectNodes) {
    build_watching(graph, names, &[])
}

/// [`build`], noting [`WatchedEdges`] for the nodes at the end of `watched` (paths of keys
/// from a root group), when there are any.
pub(crate) fn build_watching(
    graph: &HeapGraph,
    names: &mut Names,
    watched: &[Vec<NodeKey>],
) -> (PathTree, ObjectNodes) {
    // Two builds of the walk: the one that notes nothing is the walk as it was before there
    // was anything to note, to the instruction.
    if watched.is_empty() {
        build_noting(graph, names, NoNotes)
    } else {
        build_noting(graph, names, Watch::new(watched, graph.object_count()))
    }
}
