//! The shortest-path tree of one snapshot.
//!
//! A breadth-first walk from the GC roots reaches every object once, by a shortest path. Objects
//! reached through the same reference location — the same [`NodeKey`] under the same parent —
//! form one node, so a million entries of one list are one node with a count. A node whose key
//! equals its parent's folds into the parent, which flattens linked chains (`Node.next`).

use super::containers::{Containers, KEY_FIELD};
use super::names::{FastMap, NameId, Names};
use crate::heap::{
    ClassIndex, HeapGraph, ObjectIndex, ObjectKind, Reference, ReferenceKind, RootKind,
};

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
    node_of: Vec<NodeId>,
}

/// `node_of` value of an object the walk has not reached.
const UNREACHED: NodeId = NodeId::MAX;
/// `node_of` value of a collection's internal object.
const INTERNAL: NodeId = NodeId::MAX - 1;

impl ObjectNodes {
    /// The node of `object`, if the walk reached it as a node member (not as a collection's
    /// internal object).
    pub fn node_of(&self, object: ObjectIndex) -> Option<NodeId> {
        match self.node_of[object as usize] {
            UNREACHED | INTERNAL => None,
            node => Some(node),
        }
    }

    /// Heap bytes used, for the benchmark.
    pub fn memory_bytes(&self) -> usize {
        self.node_of.capacity() * 4
    }
}

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

/// Interned names of one snapshot's classes and fields.
struct SnapshotNames {
    class: Vec<NameId>,
    instance_fields: Vec<Vec<NameId>>,
    static_fields: Vec<Vec<NameId>>,
    element: NameId,
    key_element: NameId,
    /// The name of the field that holds a map entry's key ([`KEY_FIELD`]).
    key_field: NameId,
    empty: NameId,
    thread: NameId,
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

/// How many objects ahead of the one being decoded the decoder prefetches: far enough for a
/// load from memory to finish in the meantime.
const PREFETCH_DISTANCE: usize = 16;

/// Objects decoded together by the second thread. Large enough that hand-offs are rare, small
/// enough that the buffers stay in cache.
const DECODE_BLOCK: usize = 4096;

/// The references of a block of queued objects, decoded ahead of the walk.
#[derive(Default)]
struct DecodedBlock {
    objects: Vec<ObjectIndex>,
    /// `references[ends[i - 1]..ends[i]]` belong to `objects[i]`.
    ends: Vec<u32>,
    references: Vec<Reference>,
}

impl DecodedBlock {
    fn decode(&mut self, graph: &HeapGraph) {
        self.ends.clear();
        self.references.clear();
        for (i, &object) in self.objects.iter().enumerate() {
            if let Some(&ahead) = self.objects.get(i + PREFETCH_DISTANCE) {
                graph.prefetch(ahead);
            }
            graph.for_each_reference(object, |reference| self.references.push(reference));
            self.ends.push(self.references.len() as u32);
        }
    }
}

/// Expands the queued objects in queue order until the queue is exhausted.
///
/// Decoding references from the mapped dump is mostly waiting for memory, and it doesn't
/// depend on the tree, so a second thread decodes the next block of the queue while this one
/// groups the current block into nodes. The grouping still happens in queue order, so the tree
/// is the same as a single-threaded walk's.
fn walk_queue(walk: &mut Walk, roots: &RootSet) {
    let graph = walk.graph;
    std::thread::scope(|scope| {
        let (to_decoder, decoder_input) = std::sync::mpsc::sync_channel::<DecodedBlock>(1);
        let (decoder_output, from_decoder) = std::sync::mpsc::sync_channel::<DecodedBlock>(1);
        scope.spawn(move || {
            for mut block in decoder_input {
                block.decode(graph);
                if decoder_output.send(block).is_err() {
                    break;
                }
            }
        });
        let mut spare = DecodedBlock::default();
        let mut in_flight = false;
        let mut head = 0;
        loop {
            let current = if in_flight {
                from_decoder
                    .recv()
                    .expect("the decoder answers every block it was sent")
            } else {
                let mut block = std::mem::take(&mut spare);
                block.objects.clear();
                let end = walk.queue.len().min(head + DECODE_BLOCK);
                block.objects.extend_from_slice(&walk.queue[head..end]);
                block.decode(graph);
                block
            };
            if current.objects.is_empty() {
                break;
            }
            head += current.objects.len();
            // Hand the next block to the decoder if the queue already holds it.
            in_flight = head < walk.queue.len();
            if in_flight {
                let mut next = std::mem::take(&mut spare);
                next.objects.clear();
                let end = walk.queue.len().min(head + DECODE_BLOCK);
                next.objects.extend_from_slice(&walk.queue[head..end]);
                to_decoder
                    .send(next)
                    .expect("the decoder runs until its input closes");
            }
            let mut start = 0;
            for (i, &object) in current.objects.iter().enumerate() {
                let end = current.ends[i] as usize;
                walk.expand(object, &current.references[start..end], roots);
                start = end;
            }
            // Its buffers serve the block after next.
            spare = current;
        }
        drop(to_decoder);
    });
}

/// Walks `graph` from its roots and builds its path tree. `names` is shared across the
/// snapshots of one search so keys stay comparable.
pub fn build(graph: &HeapGraph, names: &mut Names) -> (PathTree, ObjectNodes) {
    let snapshot_names = SnapshotNames::new(graph, names);
    let mut walk = Walk {
        graph,
        names: snapshot_names,
        containers: Containers::new(graph),
        referent: referent_field(graph),
        tree: PathTree::default(),
        node_of: vec![UNREACHED; graph.object_count()],
        reached: BitSet::new(graph.object_count()),
        queue: Vec::new(),
        internal_stack: Vec::new(),
        internal_references: Vec::new(),
    };
    let roots = RootSet::new(graph);
    for &(kind, object) in &roots.entries {
        let name = names.intern(root_kind_name(kind));
        let key = NodeKey {
            kind: StepKind::GcRoot,
            owner: walk.names.empty,
            name,
            target: walk.names.empty,
        };
        let node = walk.tree.node_for(None, key);
        walk.reach(object, node);
    }
    walk_queue(&mut walk, &roots);
    let Walk { tree, node_of, .. } = walk;
    (tree, ObjectNodes { node_of })
}

/// A fixed-size set of object indexes.
pub(crate) struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    pub(crate) fn new(len: usize) -> BitSet {
        BitSet {
            words: vec![0; len.div_ceil(64)],
        }
    }

    #[inline]
    pub(crate) fn contains(&self, index: ObjectIndex) -> bool {
        self.words[index as usize / 64] & (1 << (index % 64)) != 0
    }

    /// Adds `index`; returns whether it was there already.
    #[inline]
    pub(crate) fn test_and_set(&mut self, index: ObjectIndex) -> bool {
        let word = &mut self.words[index as usize / 64];
        let bit = 1 << (index % 64);
        let was_set = *word & bit != 0;
        *word |= bit;
        was_set
    }
}

struct Walk<'g> {
    graph: &'g HeapGraph,
    names: SnapshotNames,
    containers: Containers,
    referent: Option<ReferenceKind>,
    tree: PathTree,
    node_of: Vec<NodeId>,
    /// Whether `node_of` is set: most references lead to objects already reached, and this
    /// answers that from 1 bit per object instead of 4 bytes, so it stays in cache.
    reached: BitSet,
    queue: Vec<ObjectIndex>,
    internal_stack: Vec<ObjectIndex>,
    /// Reused buffer for the references of internal objects.
    internal_references: Vec<Reference>,
}

impl Walk<'_> {
    /// Puts an unreached `object` into `node` and queues it.
    fn reach(&mut self, object: ObjectIndex, node: NodeId) {
        if self.reached.test_and_set(object) {
            return;
        }
        self.node_of[object as usize] = node;
        self.tree.nodes[node as usize].objects += 1;
        self.queue.push(object);
    }

    /// Reaches `target` from an object of `node` through a location with the given kind, owner
    /// and name; the target's class completes the key.
    fn reach_through(
        &mut self,
        node: NodeId,
        kind: StepKind,
        owner: NameId,
        name: NameId,
        target: ObjectIndex,
    ) {
        if self.reached.contains(target) {
            return;
        }
        let key = NodeKey {
            kind,
            owner,
            name,
            target: self.names.class[self.graph.class_of(target) as usize],
        };
        let child = if self.tree.nodes[node as usize].key == key {
            node
        } else {
            self.tree.node_for(Some(node), key)
        };
        self.reach(target, child);
    }

    /// Groups the targets of `references`, the references of `object`, into nodes.
    fn expand(&mut self, object: ObjectIndex, references: &[Reference], roots: &RootSet) {
        let node = self.node_of[object as usize];
        // Counted here rather than when the object is reached: its record, which an array's
        // size needs, has been prefetched by now.
        self.tree.nodes[node as usize].bytes += self.graph.shallow_size(object);
        for &local in roots.locals_of(object) {
            self.reach_through(
                node,
                StepKind::Local,
                self.names.thread,
                self.names.empty,
                local,
            );
        }
        let class = self.graph.class_of(object);
        let container =
            self.graph.kind(object) == ObjectKind::Instance && self.containers.is_container(class);
        for &reference in references {
            if Some(reference.kind) == self.referent {
                continue;
            }
            if container && self.is_internal_reference(class, reference) {
                self.enter_internal(reference.target);
                continue;
            }
            let (kind, owner, name) = self.location(object, reference);
            self.reach_through(node, kind, owner, name, reference.target);
        }
        if container {
            let keys_are_elements = self.containers.keys_are_elements(class);
            self.expand_internals(node, self.names.class[class as usize], keys_are_elements);
        }
    }

    /// Whether `reference`, read from a collection of class `class`, leads to its internals:
    /// through one of its rule's fields, or to an object of a collection-internal class (so
    /// `LinkedHashMap.head` is internal too).
    fn is_internal_reference(&self, class: ClassIndex, reference: Reference) -> bool {
        self.containers
            .entry_fields(class)
            .contains(&field_of(reference.kind))
            || self
                .containers
                .is_internal_class(self.graph.class_of(reference.target))
    }

    fn enter_internal(&mut self, object: ObjectIndex) {
        if !self.reached.test_and_set(object) {
            self.node_of[object as usize] = INTERNAL;
            self.internal_stack.push(object);
        }
    }

    /// Walks the internal objects queued by [`Self::enter_internal`]; whatever they reference
    /// that is not itself internal is an element of the collection, a child of `node`. Map keys
    /// are named `[key]` unless the collection is a set built on a map, whose keys are its
    /// elements.
    fn expand_internals(&mut self, node: NodeId, owner: NameId, keys_are_elements: bool) {
        let graph = self.graph;
        let mut references = std::mem::take(&mut self.internal_references);
        while let Some(internal) = self.internal_stack.pop() {
            let class = graph.class_of(internal);
            let delegate =
                graph.kind(internal) == ObjectKind::Instance && self.containers.is_container(class);
            references.clear();
            graph.for_each_reference(internal, |reference| references.push(reference));
            for &reference in &references {
                if Some(reference.kind) == self.referent || self.reached.contains(reference.target)
                {
                    continue;
                }
                if (delegate && self.is_internal_reference(class, reference))
                    || self
                        .containers
                        .is_internal_class(graph.class_of(reference.target))
                {
                    self.enter_internal(reference.target);
                    continue;
                }
                let name = match reference.kind {
                    ReferenceKind::InstanceField {
                        declaring_class,
                        field,
                    } if !keys_are_elements
                        && self.names.instance_fields[declaring_class as usize][field as usize]
                            == self.names.key_field =>
                    {
                        self.names.key_element
                    }
                    _ => self.names.element,
                };
                self.reach_through(node, StepKind::ArrayEntry, owner, name, reference.target);
            }
        }
        self.internal_references = references;
    }

    fn location(&self, object: ObjectIndex, reference: Reference) -> (StepKind, NameId, NameId) {
        match reference.kind {
            ReferenceKind::InstanceField {
                declaring_class,
                field,
            } => (
                StepKind::InstanceField,
                self.names.class[declaring_class as usize],
                self.names.instance_fields[declaring_class as usize][field as usize],
            ),
            ReferenceKind::StaticField { class, field } => (
                StepKind::StaticField,
                self.names.class[class as usize],
                self.names.static_fields[class as usize][field as usize],
            ),
            ReferenceKind::ArrayEntry { .. } => (
                StepKind::ArrayEntry,
                self.names.class[self.graph.class_of(object) as usize],
                self.names.element,
            ),
        }
    }
}

/// `(declaring class, field)` of an instance-field reference; a value no field has otherwise.
fn field_of(kind: ReferenceKind) -> (ClassIndex, u16) {
    match kind {
        ReferenceKind::InstanceField {
            declaring_class,
            field,
        } => (declaring_class, field),
        _ => (ClassIndex::MAX, u16::MAX),
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
