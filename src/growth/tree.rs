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

impl SnapshotNames {
    /// Kind, owner and name of the location `reference` is read from, in an object of class
    /// `class`.
    fn location(&self, class: ClassIndex, reference: Reference) -> (StepKind, NameId, NameId) {
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

/// How many objects ahead of the one being decoded the decoder prefetches: far enough for a
/// load from memory to finish in the meantime.
const PREFETCH_DISTANCE: usize = 16;

/// Objects decoded together. Large enough that hand-offs are rare, small enough that the
/// buffers stay in cache.
const DECODE_BLOCK: usize = 4096;

/// Blocks queued for decoding ahead of the grouping. Grouping one block can take much longer
/// than decoding the next (or the other way round); some slack keeps both threads busy
/// through such stretches.
const BLOCKS_AHEAD: usize = 16;

/// How many collections ahead the decoder fetches the first records of their internals.
const CONTAINERS_AHEAD: usize = 8;

/// Which references the walk follows, and which lead into a collection's internals. They
/// depend only on the snapshot, so the decoding threads apply them.
struct Rules {
    containers: Containers,
    /// `Reference.referent`, never a strong path (see [`referent_field`]).
    referent: Option<ReferenceKind>,
}

impl Rules {
    fn new(graph: &HeapGraph) -> Rules {
        Rules {
            containers: Containers::new(graph),
            referent: referent_field(graph),
        }
    }

    fn is_weak(&self, reference: Reference) -> bool {
        Some(reference.kind) == self.referent
    }

    /// Whether `object` is a collection whose internals the walk looks through.
    fn is_container(&self, graph: &HeapGraph, object: ObjectIndex) -> bool {
        graph.kind(object) == ObjectKind::Instance
            && self.containers.is_container(graph.class_of(object))
    }

    /// Whether `reference`, read from a collection or one of its internal objects (of class
    /// `class`; `container` says whether that object is a collection itself), leads to more
    /// internals: through one of the collection rule's fields, or to an object of a
    /// collection-internal class (so `LinkedHashMap.head` is internal too).
    fn leads_inside(
        &self,
        graph: &HeapGraph,
        class: ClassIndex,
        container: bool,
        reference: Reference,
    ) -> bool {
        (container
            && self
                .containers
                .entry_fields(class)
                .contains(&field_of(reference.kind)))
            || self
                .containers
                .is_internal_class(graph.class_of(reference.target))
    }
}

/// A reference as the walk groups it: the location part of the key of the node its target
/// joins (the target's class completes it), or whether it leads into a collection's
/// internals instead. Decoding threads work these out, so the walk itself mostly looks keys
/// up.
#[derive(Clone, Copy)]
struct Step {
    target: ObjectIndex,
    kind: StepKind,
    /// Leads into the internals of the collection being expanded.
    inside: bool,
    owner: NameId,
    name: NameId,
}

/// Turns references into steps, for a decoding thread or the walk.
struct StepMaker<'a> {
    graph: &'a HeapGraph,
    rules: &'a Rules,
    names: &'a SnapshotNames,
    /// Reused buffer for one object's references.
    references: Vec<Reference>,
}

impl<'a> StepMaker<'a> {
    fn new(graph: &'a HeapGraph, rules: &'a Rules, names: &'a SnapshotNames) -> StepMaker<'a> {
        StepMaker {
            graph,
            rules,
            names,
            references: Vec::new(),
        }
    }

    /// Loads `object`'s references into the buffer.
    fn read(&mut self, object: ObjectIndex) {
        self.references.clear();
        let graph = self.graph;
        graph.for_each_reference(object, |reference| self.references.push(reference));
    }

    /// What the walk follows from one object: its references except weak ones, as steps.
    /// `container` says whether the object is a collection, whose internals its steps may
    /// lead into.
    fn object_steps(
        &mut self,
        object: ObjectIndex,
        class: ClassIndex,
        container: bool,
        out: &mut Vec<Step>,
    ) {
        self.read(object);
        let (graph, rules, names) = (self.graph, self.rules, self.names);
        for &reference in &self.references {
            if rules.is_weak(reference) {
                continue;
            }
            let inside = container && rules.leads_inside(graph, class, true, reference);
            let (kind, owner, name) = names.location(class, reference);
            out.push(Step {
                target: reference.target,
                kind,
                inside,
                owner,
                name,
            });
        }
    }

    /// What the walk follows from an internal object of a collection of class name `owner`:
    /// steps into more internals, or to the collection's elements, named `[key]` for map keys
    /// (unless `keys_are_elements`, for sets built on maps) and `[x]` otherwise.
    fn internal_steps(
        &mut self,
        internal: ObjectIndex,
        owner: NameId,
        keys_are_elements: bool,
        out: &mut Vec<Step>,
    ) {
        self.read(internal);
        let (graph, rules, names) = (self.graph, self.rules, self.names);
        let class = graph.class_of(internal);
        let container = rules.is_container(graph, internal);
        for &reference in &self.references {
            if rules.is_weak(reference) {
                continue;
            }
            let name = match reference.kind {
                ReferenceKind::InstanceField {
                    declaring_class,
                    field,
                } if !keys_are_elements
                    && names.instance_fields[declaring_class as usize][field as usize]
                        == names.key_field =>
                {
                    names.key_element
                }
                _ => names.element,
            };
            out.push(Step {
                target: reference.target,
                kind: StepKind::ArrayEntry,
                inside: rules.leads_inside(graph, class, container, reference),
                owner,
                name,
            });
        }
    }
}

/// The class, kind and size of a decoded object, and where its steps end.
#[derive(Clone, Copy)]
struct DecodedObject {
    class: ClassIndex,
    /// An instance of a collection class (see [`Rules::is_container`]).
    container: bool,
    bytes: u64,
    /// End of its steps in [`DecodedBlock::steps`].
    steps_end: u32,
    /// End of its collection's traced internals in [`DecodedBlock::internals`].
    internals_end: u32,
}

/// The steps of a block of queued objects, decoded ahead of the walk, with the internal
/// objects of the collections among them.
#[derive(Default)]
struct DecodedBlock {
    objects: Vec<ObjectIndex>,
    /// The node of each object (not needed for decoding, but read in order with the objects).
    nodes: Vec<NodeId>,
    decoded: Vec<DecodedObject>,
    steps: Vec<Step>,
    internals: DecodedBlockInternals,
}

/// Internal objects in the order a walk expands them, and their steps.
#[derive(Default)]
struct DecodedBlockInternals {
    ids: Vec<ObjectIndex>,
    /// End of each one's steps in `steps`.
    ends: Vec<u32>,
    steps: Vec<Step>,
}

impl DecodedBlock {
    /// The steps of the object at `index` in the block, and its traced internals.
    fn object(&self, index: usize) -> (DecodedObject, &[Step], TracedInternals<'_>) {
        let (steps_start, internals_start) = match index.checked_sub(1) {
            Some(before) => {
                let before = self.decoded[before];
                (before.steps_end, before.internals_end)
            }
            None => (0, 0),
        };
        let object = self.decoded[index];
        let steps = &self.steps[steps_start as usize..object.steps_end as usize];
        let internals = TracedInternals {
            traced: &self.internals,
            next: internals_start as usize,
            end: object.internals_end as usize,
        };
        (object, steps, internals)
    }
}

/// A decoding thread's side: decodes blocks, and traces the internals of the collections in
/// them as the walk will (it can't know what the walk has reached, so it assumes nothing).
struct Decoder<'a> {
    maker: StepMaker<'a>,
    /// Internal objects of the collection being traced; emptied after each.
    traced: BitSet,
    stack: Vec<ObjectIndex>,
    /// Positions of the collections in the block being decoded.
    containers: Vec<usize>,
}

impl Decoder<'_> {
    fn decode(&mut self, block: &mut DecodedBlock) {
        let (graph, rules) = (self.maker.graph, self.maker.rules);
        block.decoded.clear();
        block.steps.clear();
        block.internals.ids.clear();
        block.internals.ends.clear();
        block.internals.steps.clear();
        self.containers.clear();
        let mut steps_start = 0;
        for (i, &object) in block.objects.iter().enumerate() {
            if let Some(&ahead) = block.objects.get(i + 2 * PREFETCH_DISTANCE) {
                graph.prefetch_entries(ahead);
            }
            if let Some(&ahead) = block.objects.get(i + PREFETCH_DISTANCE) {
                graph.prefetch(ahead);
            }
            let class = graph.class_of(object);
            let container = rules.is_container(graph, object);
            self.maker
                .object_steps(object, class, container, &mut block.steps);
            if container {
                self.containers.push(i);
                for step in &block.steps[steps_start..] {
                    graph.prefetch_entries(step.target);
                }
            }
            block.decoded.push(DecodedObject {
                class,
                container,
                bytes: graph.shallow_size(object),
                steps_end: block.steps.len() as u32,
                internals_end: 0,
            });
            steps_start = block.steps.len();
        }
        // Collections' internals go second, when the records of their first internal objects
        // (an `ArrayList`'s array, a `HashMap`'s table) can be fetched a few collections ahead.
        let steps_of = |decoded: &[DecodedObject], i: usize| {
            let start = i
                .checked_sub(1)
                .map_or(0, |before| decoded[before].steps_end);
            start as usize..decoded[i].steps_end as usize
        };
        for k in 0..self.containers.len() {
            if let Some(&later) = self.containers.get(k + CONTAINERS_AHEAD) {
                for step in &block.steps[steps_of(&block.decoded, later)] {
                    graph.prefetch(step.target);
                }
            }
            let i = self.containers[k];
            self.trace_internals(
                block.decoded[i].class,
                &block.steps[steps_of(&block.decoded, i)],
                &mut block.internals,
            );
            block.decoded[i].internals_end = block.internals.ids.len() as u32;
        }
        let mut internals_end = 0;
        for decoded in &mut block.decoded {
            if decoded.container {
                internals_end = decoded.internals_end;
            }
            decoded.internals_end = internals_end;
        }
    }

    /// The depth-first walk of [`Walk::expand_internals`] through the internals of one
    /// collection of class `class` whose steps are `steps`, recording each internal object's
    /// steps.
    fn trace_internals(
        &mut self,
        class: ClassIndex,
        steps: &[Step],
        out: &mut DecodedBlockInternals,
    ) {
        let graph = self.maker.graph;
        for step in steps {
            if step.inside && !self.traced.test_and_set(step.target) {
                self.stack.push(step.target);
            }
        }
        let owner = self.maker.names.class[class as usize];
        let keys_are_elements = self.maker.rules.containers.keys_are_elements(class);
        let first = out.ids.len();
        while let Some(internal) = self.stack.pop() {
            // The stack's deeper entries are popped later (unless what is popped before them
            // pushes more).
            let depth = self.stack.len();
            if let Some(at) = depth.checked_sub(2 * PREFETCH_DISTANCE) {
                graph.prefetch_entries(self.stack[at]);
            }
            if let Some(at) = depth.checked_sub(PREFETCH_DISTANCE) {
                graph.prefetch(self.stack[at]);
            }
            let start = out.steps.len();
            self.maker
                .internal_steps(internal, owner, keys_are_elements, &mut out.steps);
            for step in &out.steps[start..] {
                if step.inside && !self.traced.test_and_set(step.target) {
                    self.stack.push(step.target);
                }
            }
            out.ids.push(internal);
            out.ends.push(out.steps.len() as u32);
        }
        for &internal in &out.ids[first..] {
            self.traced.remove(internal);
        }
    }
}

/// The internals traced for one collection, consumed in order by the walk.
struct TracedInternals<'b> {
    traced: &'b DecodedBlockInternals,
    next: usize,
    end: usize,
}

impl<'b> TracedInternals<'b> {
    /// The steps of `internal` if it is the next traced object. It isn't when the walk had
    /// reached some of the collection's internals before (through another path, or another
    /// collection sharing them), and then the walk decodes the object itself.
    fn next_if(&mut self, internal: ObjectIndex) -> Option<&'b [Step]> {
        if self.next >= self.end || self.traced.ids[self.next] != internal {
            return None;
        }
        let start = self
            .next
            .checked_sub(1)
            .map_or(0, |before| self.traced.ends[before]);
        let end = self.traced.ends[self.next];
        self.next += 1;
        Some(&self.traced.steps[start as usize..end as usize])
    }
}

/// Blocks of the queue on their way through decoding, oldest first. Either thread decodes any
/// block that is waiting; the walk consumes them in order.
struct DecodeQueue {
    state: std::sync::Mutex<DecodeQueueState>,
    /// Signalled when a block is queued for decoding, or the queue closes.
    queued: std::sync::Condvar,
    /// Signalled when a block has been decoded.
    decoded: std::sync::Condvar,
}

#[derive(Default)]
struct DecodeQueueState {
    /// `slots[0]` is the block the walk expands next; its sequence number is `first`.
    slots: std::collections::VecDeque<Slot>,
    first: u64,
    closed: bool,
    /// The helper thread has stopped (only a bug makes it stop early, by panicking).
    helper_gone: bool,
}

enum Slot {
    Waiting(DecodedBlock),
    Decoding,
    Decoded(DecodedBlock),
}

impl DecodeQueueState {
    /// Takes the oldest block waiting to be decoded, with its sequence number.
    fn take_waiting(&mut self) -> Option<(u64, DecodedBlock)> {
        let position = self
            .slots
            .iter()
            .position(|slot| matches!(slot, Slot::Waiting(_)))?;
        let Slot::Waiting(block) = std::mem::replace(&mut self.slots[position], Slot::Decoding)
        else {
            unreachable!("the slot was just found waiting")
        };
        Some((self.first + position as u64, block))
    }

    fn put_decoded(&mut self, sequence: u64, block: DecodedBlock) {
        self.slots[(sequence - self.first) as usize] = Slot::Decoded(block);
    }
}

impl DecodeQueue {
    fn new() -> DecodeQueue {
        DecodeQueue {
            state: Default::default(),
            queued: Default::default(),
            decoded: Default::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, DecodeQueueState> {
        // Neither side panics while holding the lock; if one did, the walk is lost anyway.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn push(&self, block: DecodedBlock) {
        self.lock().slots.push_back(Slot::Waiting(block));
        self.queued.notify_one();
    }

    fn len(&self) -> usize {
        self.lock().slots.len()
    }

    fn close(&self) {
        self.lock().closed = true;
        self.queued.notify_all();
    }

    /// The helper thread: decodes waiting blocks until the queue closes.
    fn help(&self, decoder: &mut Decoder) {
        /// Tells the walk when the helper stops, also by panicking, so it never waits for a
        /// block the helper won't finish.
        struct Stopped<'q>(&'q DecodeQueue);
        impl Drop for Stopped<'_> {
            fn drop(&mut self) {
                self.0.lock().helper_gone = true;
                self.0.decoded.notify_all();
            }
        }
        let _stopped = Stopped(self);
        let mut state = self.lock();
        loop {
            if let Some((sequence, mut block)) = state.take_waiting() {
                drop(state);
                decoder.decode(&mut block);
                state = self.lock();
                state.put_decoded(sequence, block);
                self.decoded.notify_one();
            } else if state.closed {
                return;
            } else {
                state = self.queued.wait(state).unwrap_or_else(|p| p.into_inner());
            }
        }
    }

    /// The oldest block, decoded; while it isn't ready, this thread decodes waiting blocks
    /// too. `None` when no block is queued.
    fn next(&self, decoder: &mut Decoder) -> Option<DecodedBlock> {
        let mut state = self.lock();
        loop {
            match state.slots.front()? {
                Slot::Decoded(_) => {
                    state.first += 1;
                    let Some(Slot::Decoded(block)) = state.slots.pop_front() else {
                        unreachable!("the front slot was just seen decoded")
                    };
                    return Some(block);
                }
                _ => {
                    if let Some((sequence, mut block)) = state.take_waiting() {
                        drop(state);
                        decoder.decode(&mut block);
                        state = self.lock();
                        state.put_decoded(sequence, block);
                    } else if state.helper_gone {
                        panic!("the decoding thread stopped with blocks unfinished");
                    } else {
                        state = self.decoded.wait(state).unwrap_or_else(|p| p.into_inner());
                    }
                }
            }
        }
    }
}

/// Closes the queue when dropped.
struct CloseOnDrop<'q>(&'q DecodeQueue);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Expands the queued objects in queue order until the queue is exhausted.
///
/// Decoding references from the mapped dump is mostly waiting for memory, and it doesn't
/// depend on the tree, so blocks of the queue are decoded ahead, by a second thread and by
/// this one whenever the block it needs next isn't ready. The grouping into nodes happens on
/// this thread in queue order, so the tree is the same as a single-threaded walk's.
fn walk_queue(walk: &mut Walk, roots: &RootSet) {
    let (graph, rules, names) = (walk.graph, walk.rules, walk.names);
    let new_decoder = || Decoder {
        maker: StepMaker::new(graph, rules, names),
        traced: BitSet::new(graph.object_count()),
        stack: Vec::new(),
        containers: Vec::new(),
    };
    let blocks = DecodeQueue::new();
    std::thread::scope(|scope| {
        scope.spawn(|| blocks.help(&mut new_decoder()));
        // However this thread leaves the walk, panics included, the helper must stop too, or
        // the scope would wait for it forever.
        let _close = CloseOnDrop(&blocks);
        let mut decoder = new_decoder();
        let mut spares: Vec<DecodedBlock> = Vec::new();
        let mut sent = 0;
        loop {
            let mut queued = blocks.len();
            while queued < BLOCKS_AHEAD && sent < walk.queue.len() {
                let mut next = spares.pop().unwrap_or_default();
                let end = walk.queue.len().min(sent + DECODE_BLOCK);
                next.objects.clear();
                next.objects.extend_from_slice(&walk.queue[sent..end]);
                next.nodes.clear();
                next.nodes.extend_from_slice(&walk.queue_nodes[sent..end]);
                sent = end;
                queued += 1;
                blocks.push(next);
            }
            let Some(block) = blocks.next(&mut decoder) else {
                break;
            };
            for (i, (&object, &node)) in block.objects.iter().zip(&block.nodes).enumerate() {
                let (decoded, steps, internals) = block.object(i);
                walk.expand(object, node, decoded, steps, internals, roots);
            }
            spares.push(block);
        }
    });
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
    walk_queue(&mut walk, &roots);
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

    #[inline]
    fn remove(&mut self, index: ObjectIndex) {
        self.words[index as usize / 64] &= !(1 << (index % 64));
    }
}

struct Walk<'g> {
    graph: &'g HeapGraph,
    names: &'g SnapshotNames,
    rules: &'g Rules,
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

    /// Groups the targets of `steps`, the steps of `object` (of `node`), into nodes.
    fn expand(
        &mut self,
        object: ObjectIndex,
        node: NodeId,
        decoded: DecodedObject,
        steps: &[Step],
        internals: TracedInternals,
        roots: &RootSet,
    ) {
        self.tree.nodes[node as usize].bytes += decoded.bytes;
        for &local in roots.locals_of(object) {
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
