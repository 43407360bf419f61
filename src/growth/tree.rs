//! The shortest-path tree of one snapshot.
//!
//! A breadth-first walk from the GC roots reaches every object once, by a shortest path. Objects
//! reached through the same reference location — the same [`NodeKey`] under the same parent —
//! form one node, so a million entries of one list are one node with a count. A node whose key
//! equals its parent's folds into the parent, which flattens linked chains (`Node.next`).

use super::bitset::BitSet;
use super::containers::KEY_FIELD;
use super::decode::{
    walk_in_order, DecodedObject, QueueWalk, Rules, Step, StepMaker, TracedInternals,
};
use super::names::{FastMap, NameId, Names};
use super::roots::{root_kind_name, RootSet};
use crate::heap::{ClassIndex, HeapGraph, ObjectIndex, Reference, ReferenceKind};

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
    /// A local variable (or JNI local) on the stack of the parent thread.
    Local,
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
        }
    }
}

/// The reference location that groups objects into a node: kind, owner class, field name (or
/// `[x]`, `[key]`, a root kind), and the class of the objects reached. Names are interned in
/// [`Names`] so keys from different snapshots compare equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeKey {
    /// How the objects are referenced.
    pub kind: StepKind,
    /// The class declaring the field, or the array or collection class; empty for roots.
    pub owner: NameId,
    /// Field name, `[x]`, `[key]`, or the root kind.
    pub name: NameId,
    /// The class of the objects; empty for roots.
    pub target: NameId,
}

/// Index of a node in its [`PathTree`].
pub type NodeId = u32;

/// One group of objects.
#[derive(Clone, Debug)]
pub struct TreeNode {
    /// The reference location shared by the node's objects.
    pub key: NodeKey,
    /// The parent node; `None` for a root group.
    pub parent: Option<NodeId>,
    /// Objects in the node (a collection's internal objects are not counted).
    pub objects: u64,
    /// Their shallow size.
    pub bytes: u64,
    /// Child nodes, in the order the walk created them.
    pub children: Vec<NodeId>,
}

/// The shortest-path tree of one snapshot, without per-object data.
#[derive(Debug, Default)]
pub struct PathTree {
    nodes: Vec<TreeNode>,
    roots: Vec<NodeId>,
    by_parent_and_key: FastMap<(NodeId, NodeKey), NodeId>,
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
}

impl ObjectNodes {
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
    }
}

/// Interned names of one snapshot's classes and fields.
pub(super) struct SnapshotNames {
    pub(super) class: Vec<NameId>,
    pub(super) instance_fields: Vec<Vec<NameId>>,
    pub(super) static_fields: Vec<Vec<NameId>>,
    pub(super) element: NameId,
    pub(super) key_element: NameId,
    /// The name of the field that holds a map entry's key ([`KEY_FIELD`]).
    pub(super) key_field: NameId,
    pub(super) empty: NameId,
    pub(super) thread: NameId,
}

impl SnapshotNames {
    fn new(graph: &HeapGraph, names: &mut Names) -> SnapshotNames {
        let count = graph.class_count() as ClassIndex;
        let mut class = Vec::with_capacity(count as usize);
        let mut instance_fields = Vec::with_capacity(count as usize);
        let mut static_fields = Vec::with_capacity(count as usize);
        for c in 0..count {
            let info = graph.class(c);
            class.push(names.intern(&stable_class_name(&info.name)));
            instance_fields.push(
                info.instance_fields
                    .iter()
                    .map(|f| names.intern(&f.name))
                    .collect(),
            );
            static_fields.push(
                info.static_fields
                    .iter()
                    .map(|f| names.intern(&f.name))
                    .collect(),
            );
        }
        SnapshotNames {
            class,
            instance_fields,
            static_fields,
            element: names.intern("[x]"),
            key_element: names.intern("[key]"),
            key_field: names.intern(KEY_FIELD),
            empty: names.intern(""),
            thread: names.intern("java.lang.Thread"),
        }
    }
}

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

/// A class name without what changes from one JVM run to the next: the address suffix of
/// hidden classes (`LambdaForm$MH+0x00007f…`, `Foo$$Lambda/0x0000…`) and the sequence number
/// of JDK 17 lambda classes (`Foo$$Lambda$14/0x…`). Lambdas of one class then share a key,
/// which is what a reader wants from `Bus.listeners -> Screen$$Lambda` anyway.
pub(crate) fn stable_class_name(name: &str) -> std::borrow::Cow<'_, str> {
    let Some(cut) = name.find("/0x").or_else(|| name.find("+0x")) else {
        return name.into();
    };
    let mut stable = name[..cut].to_owned();
    if let Some(lambda) = stable.find("$$Lambda") {
        stable.truncate(lambda + "$$Lambda".len());
    }
    let suffix = name[cut..]
        .trim_start_matches(|c: char| c == '/' || c == '+' || c == 'x' || c.is_ascii_hexdigit());
    stable.push_str(suffix);
    stable.into()
}

/// `java.util.HashMap$Node` → `HashMap$Node`.
pub fn simple_name(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Walks `graph` from its roots and builds its path tree. `names` is shared across the
/// snapshots of one search so keys stay comparable.
pub fn build(graph: &HeapGraph, names: &mut Names) -> (PathTree, ObjectNodes) {
    let rules = Rules::new(graph);
    let snapshot_names = SnapshotNames::new(graph, names);
    let roots = RootSet::new(graph);
    let root_groups: Vec<(NodeKey, ObjectIndex)> = roots
        .entries
        .iter()
        .map(|&(kind, object)| {
            let key = NodeKey {
                kind: StepKind::GcRoot,
                owner: snapshot_names.empty,
                name: names.intern(root_kind_name(kind)),
                target: snapshot_names.empty,
            };
            (key, object)
        })
        .collect();
    let mut walk = Walk {
        graph,
        names: &snapshot_names,
        rules: &rules,
        roots: &roots,
        tree: PathTree::default(),
        reached: BitSet::new(graph.object_count()),
        queue: Vec::with_capacity(graph.object_count()),
        queue_nodes: Vec::with_capacity(graph.object_count()),
        internal_stack: Vec::new(),
        untraced_maker: StepMaker::new(graph, &rules, &snapshot_names),
        untraced_steps: Vec::new(),
    };
    for (key, object) in root_groups {
        let node = walk.tree.node_for(None, key);
        walk.reach(object, node);
    }
    walk_in_order(&mut walk, 0, graph, &rules, &snapshot_names);
    let Walk {
        tree,
        queue,
        queue_nodes,
        ..
    } = walk;
    let objects = ObjectNodes {
        objects: queue,
        nodes: queue_nodes,
    };
    (tree, objects)
}

struct Walk<'g> {
    graph: &'g HeapGraph,
    names: &'g SnapshotNames,
    rules: &'g Rules,
    roots: &'g RootSet,
    tree: PathTree,
    /// Objects reached (internal ones too): 1 bit per object, so it stays in cache.
    reached: BitSet,
    /// Objects reached as node members, in the order they were reached, and their nodes.
    queue: Vec<ObjectIndex>,
    queue_nodes: Vec<NodeId>,
    internal_stack: Vec<ObjectIndex>,
    /// For internal objects the decoder didn't trace: makes their steps, into a reused buffer.
    untraced_maker: StepMaker<'g>,
    untraced_steps: Vec<Step>,
}

impl QueueWalk for Walk<'_> {
    fn queued(&self) -> (&[ObjectIndex], &[NodeId]) {
        (&self.queue, &self.queue_nodes)
    }

    /// Groups the targets of `steps`, the steps of `object` (of `node`), into nodes.
    fn expand(
        &mut self,
        object: ObjectIndex,
        node: NodeId,
        decoded: DecodedObject,
        steps: &[Step],
        internals: TracedInternals,
    ) {
        self.tree.nodes[node as usize].bytes += decoded.bytes;
        for &local in self.roots.locals_of(object) {
            let step = Step {
                target: local,
                kind: StepKind::Local,
                inside: false,
                owner: self.names.thread,
                name: self.names.empty,
            };
            self.take(node, step);
        }
        for &step in steps {
            if step.inside {
                self.enter_internal(step.target);
            } else {
                self.take(node, step);
            }
        }
        if decoded.container {
            self.expand_internals(node, decoded.class, internals);
        }
    }
}

impl Walk<'_> {
    /// Puts an unreached `object` into `node` and queues it.
    fn reach(&mut self, object: ObjectIndex, node: NodeId) {
        if self.reached.test_and_set(object) {
            return;
        }
        self.tree.nodes[node as usize].objects += 1;
        self.queue.push(object);
        self.queue_nodes.push(node);
    }

    /// Reaches the target of `step`, taken from an object of `node`, unless it was reached
    /// before. A step with the same key as its parent's folds into it.
    fn take(&mut self, node: NodeId, step: Step) {
        if self.reached.contains(step.target) {
            return;
        }
        let key = NodeKey {
            kind: step.kind,
            owner: step.owner,
            name: step.name,
            target: self.names.class[self.graph.class_of(step.target) as usize],
        };
        let child = if self.tree.nodes[node as usize].key == key {
            node
        } else {
            self.tree.node_for(Some(node), key)
        };
        self.reach(step.target, child);
    }

    fn enter_internal(&mut self, object: ObjectIndex) {
        if !self.reached.test_and_set(object) {
            self.internal_stack.push(object);
        }
    }

    /// Walks the internal objects queued by [`Self::enter_internal`] for a collection of
    /// class `class`; whatever they reference that is not itself internal is an element of the
    /// collection, a child of `node`.
    fn expand_internals(&mut self, node: NodeId, class: ClassIndex, mut traced: TracedInternals) {
        let owner = self.names.class[class as usize];
        let keys_are_elements = self.rules.containers.keys_are_elements(class);
        let mut untraced = std::mem::take(&mut self.untraced_steps);
        while let Some(internal) = self.internal_stack.pop() {
            let steps = match traced.next_if(internal) {
                Some(steps) => steps,
                None => {
                    untraced.clear();
                    self.untraced_maker.internal_steps(
                        internal,
                        owner,
                        keys_are_elements,
                        &mut untraced,
                    );
                    untraced.as_slice()
                }
            };
            for &step in steps {
                if self.reached.contains(step.target) {
                    continue;
                }
                if step.inside {
                    self.enter_internal(step.target);
                } else {
                    self.take(node, step);
                }
            }
        }
        self.untraced_steps = untraced;
    }
}

#[cfg(test)]
mod tests {
    use super::stable_class_name;

    #[test]
    fn hidden_and_lambda_class_names_lose_their_addresses() {
        assert_eq!(
            stable_class_name("java.lang.invoke.LambdaForm$MH+0x00007fd0cc005c00"),
            "java.lang.invoke.LambdaForm$MH"
        );
        assert_eq!(
            stable_class_name("com.example.Screen$$Lambda$14/0x0000000800c03000"),
            "com.example.Screen$$Lambda"
        );
        assert_eq!(
            stable_class_name("com.example.Screen$$Lambda/0x0000000800c03000"),
            "com.example.Screen$$Lambda"
        );
        assert_eq!(
            stable_class_name("com.example.Screen$$Lambda/0x0000000800c03000[]"),
            "com.example.Screen$$Lambda[]"
        );
        assert_eq!(
            stable_class_name("java.util.HashMap$Node[]"),
            "java.util.HashMap$Node[]"
        );
    }
}
