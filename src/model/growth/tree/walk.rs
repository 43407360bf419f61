//! The walk that builds a [`PathTree`]: breadth-first from the roots, one node per reference
//! location under a parent, noting what its [`EdgeNotes`] ask for.

use super::notes::EdgeNotes;
use super::{
    is_main_root, root_kind_name, walk_in_order, BitSet, ClassIndex, DecodedObject, FastMap,
    HeapGraph, ImplicitEdge, InternalRole, InternalStepSlice, InternalSteps, NameId, Names, NodeId,
    NodeKey, ObjectIndex, ObjectNodes, OwnCacheLines, PathTree, QueueWalk, RootKind, RootSet,
    Rules, SnapshotNames, Step, StepKind, StepMaker, TracedInternals, CLOSED_SCENARIO, NO_PARENT,
};

pub(super) fn build_noting<N: EdgeNotes>(
    graph: &HeapGraph,
    names: &mut Names,
    notes: N,
) -> (PathTree, ObjectNodes) {
    // Read by the decoding thread for every object, beside the walk's own state, which this
    // thread writes as often: each on cache lines of its own (see `OwnCacheLines`).
    let shared_rules = OwnCacheLines(Rules::new(graph));
    let shared_names = OwnCacheLines(SnapshotNames::new(graph, names));
    let (rules, snapshot_names) = (&shared_rules.0, &shared_names.0);
    let roots = RootSet::new(graph);
    // `label`: a thread group's name pattern, or what sets a group of classes apart.
    let mut root_key = |kind: Option<RootKind>, label: Option<&str>| NodeKey {
        kind: StepKind::GcRoot,
        owner: snapshot_names.empty,
        name: names.intern(root_kind_name(kind)),
        target: label.map_or(snapshot_names.empty, |label| names.intern(label)),
    };
    let (main_roots, other_roots): (Vec<_>, Vec<_>) = roots
        .entries
        .iter()
        .map(|entry| {
            let key = root_key(entry.kind, entry.thread_name.as_deref());
            (is_main_root(entry.kind), key, entry.object)
        })
        .partition(|&(main, _, _)| main);
    let late_root_key = root_key(None, None);
    let closed_scenario_root_key = root_key(None, Some(CLOSED_SCENARIO));
    let mut walk = Walk {
        graph,
        names: snapshot_names,
        rules,
        roots: &roots,
        tree: PathTree::default(),
        reached: BitSet::new(graph.object_count()),
        queue: Vec::with_capacity(graph.object_count()),
        queue_nodes: Vec::with_capacity(graph.object_count()),
        internal_stack: Vec::new(),
        untraced_maker: StepMaker::new(graph, rules, snapshot_names),
        untraced_steps: InternalSteps::default(),
        notes,
        recent_children: RecentChildren::new(),
        held_back: Vec::new(),
        taking_cleared: false,
        awaiting: BitSet::new(0),
        from_awaiting: None,
        expanded: 0,
        main_roots: 0,
        deferred_locals: Vec::new(),
    };
    // The main roots, then the others for what is left, then classes whose loader the walk
    // never reached: roots after all, walked last so they take no shorter path away from
    // anything.
    for &(_, key, object) in &main_roots {
        let node = walk.node_for(None, key);
        walk.reach(object, node);
    }
    // An object that is two roots is queued once.
    walk.main_roots = walk.queue.len();
    walk_in_order(&mut walk, 0, graph, &shared_rules, &shared_names);
    debug_assert!(walk.deferred_locals.is_empty());
    let walked = walk.queue.len();
    for &(_, key, object) in &other_roots {
        let node = walk.node_for(None, key);
        walk.reach(object, node);
    }
    walk_in_order(&mut walk, walked, graph, &shared_rules, &shared_names);
    // Classes of loaders the walk didn't reach: from the first instance of each the walk
    // reached (an instance keeps its class, and so its loader, alive), then the rest as roots.
    let mut unreached: FastMap<ClassIndex, ObjectIndex> = roots
        .loader_classes
        .iter()
        .filter(|&&class| !walk.reached.contains(class))
        .filter_map(|&class| Some((graph.class_object_of(class)?, class)))
        .collect();
    if !unreached.is_empty() {
        let walked = walk.queue.len();
        for at in 0..walked {
            let object = walk.queue[at];
            if let Some(class) = unreached.remove(&graph.class_of(object)) {
                walk.take_class(walk.queue_nodes[at], object, class);
                if unreached.is_empty() {
                    break;
                }
            }
        }
        walk_in_order(&mut walk, walked, graph, &shared_rules, &shared_names);
    }
    let (closed_scenario_roots, late_roots): (Vec<ObjectIndex>, Vec<ObjectIndex>) = roots
        .loader_classes
        .iter()
        .copied()
        .filter(|&class| !walk.reached.contains(class))
        .partition(|class| roots.closed_scenario_classes.binary_search(class).is_ok());
    for (key, classes) in [
        (late_root_key, &late_roots),
        (closed_scenario_root_key, &closed_scenario_roots),
    ] {
        if classes.is_empty() {
            continue;
        }
        let walked = walk.queue.len();
        let node = walk.node_for(None, key);
        for &class in classes {
            walk.reach(class, node);
        }
        walk_in_order(&mut walk, walked, graph, &shared_rules, &shared_names);
    }
    let mut late_roots = late_roots;
    late_roots.extend(closed_scenario_roots);
    // Last, the references the collector cleared that the walk held back, and what only they
    // reach: their objects wait for cleanup, and their nodes count them apart.
    if !walk.held_back.is_empty() {
        let walked = walk.queue.len();
        walk.taking_cleared = true;
        walk.awaiting = BitSet::new(graph.object_count());
        for held in std::mem::take(&mut walk.held_back) {
            match held {
                HeldBack::Member { node, step } => {
                    walk.take(node, step);
                }
                HeldBack::Internal {
                    node,
                    collection,
                    object,
                } => {
                    walk.enter_internal(node, collection, object);
                    let references =
                        walk.expand_internals(node, collection, TracedInternals::none());
                    walk.tree.nodes[node as usize].references += references;
                }
            }
        }
        walk_in_order(&mut walk, walked, graph, &shared_rules, &shared_names);
    }
    let Walk {
        tree,
        queue,
        queue_nodes,
        notes,
        ..
    } = walk;
    let objects = ObjectNodes {
        objects: queue,
        nodes: queue_nodes,
        late_roots,
        watched: notes.into_watched_edges(),
    };
    (tree, objects)
}

struct Walk<'g, N: EdgeNotes> {
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
    untraced_steps: InternalSteps,
    /// What the walk notes about the edges it follows.
    notes: N,
    /// The last child nodes looked up, in front of the tree's map.
    recent_children: RecentChildren,
    /// References the collector cleared, met through fields, array slots and collections'
    /// internals, in the order met; taken after everything else.
    held_back: Vec<HeldBack>,
    /// Whether the walk is taking what it held back.
    taking_cleared: bool,
    /// Objects that await cleanup: references the collector cleared, and what the walk
    /// reached only through them (empty until it takes what it held back).
    awaiting: BitSet,
    /// While the walk takes the steps of an object that awaits cleanup: that object's class.
    from_awaiting: Option<ClassIndex>,
    /// Objects expanded so far, in queue order.
    expanded: usize,
    /// The main roots, first in the queue: the stack locals of those expanded (threads) wait
    /// in `deferred_locals` until all of them are, so that every root's fields are taken
    /// first (see [`Walk::expand`]).
    main_roots: usize,
    deferred_locals: Vec<(NodeId, StackLocal)>,
}

/// A stack local of a thread, as [`ImplicitEdge::Local`] gives it.
type StackLocal = (ObjectIndex, RootKind, Option<u32>);

/// A reference the collector cleared, held back by the walk (see [`cleared`]).
///
/// [`cleared`]: super::super::cleared
#[derive(Clone, Copy)]
enum HeldBack {
    /// The target of `step`, taken from an object of `node`.
    Member { node: NodeId, step: Step },
    /// An internal object of a collection of class `collection`, of `node` (a
    /// `WeakHashMap$Entry`, a `ThreadLocalMap$Entry`).
    Internal {
        node: NodeId,
        collection: ClassIndex,
        object: ObjectIndex,
    },
}

/// Slots of [`RecentChildren`]: 256 of 24 bytes, which stay in the first-level cache beside the
/// walk (with 1,024 the map was still asked about as often: 0.07 % of samples against 0.08 %).
const RECENT_CHILDREN_BITS: u32 = 8;

/// A direct-mapped cache of (parent, key) → child lookups, in front of [`PathTree`]'s map.
/// Every newly reached object needs its child node, and hashing the 20-byte key into a map of
/// thousands of nodes was a sixth of the walk's own time; most lookups repeat one of a few
/// recent ones (the entries of one list, the fields of objects of one class), which a slot
/// found by one multiplication answers. A slot only ever holds a pair the map holds too, so a
/// miss or an eviction only costs the map's lookup.
struct RecentChildren {
    slots: Box<[RecentChild]>,
}

#[derive(Clone, Copy)]
struct RecentChild {
    parent: NodeId,
    key: NodeKey,
    /// `NodeId::MAX` for a slot not used yet.
    child: NodeId,
}

impl RecentChildren {
    fn new() -> RecentChildren {
        let empty = RecentChild {
            parent: NO_PARENT,
            key: NodeKey {
                kind: StepKind::GcRoot,
                owner: 0,
                name: 0,
                target: 0,
            },
            child: NodeId::MAX,
        };
        RecentChildren {
            slots: vec![empty; 1 << RECENT_CHILDREN_BITS].into_boxed_slice(),
        }
    }

    fn slot(parent: NodeId, key: NodeKey) -> usize {
        let mixed = (u64::from(parent) << 32 | u64::from(key.name))
            ^ (u64::from(key.target) << 32 | u64::from(key.owner)).rotate_left(17)
            ^ key.kind as u64;
        (mixed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - RECENT_CHILDREN_BITS)) as usize
    }

    #[inline]
    fn get(&self, parent: NodeId, key: NodeKey) -> Option<NodeId> {
        let slot = &self.slots[Self::slot(parent, key)];
        (slot.child != NodeId::MAX && slot.parent == parent && slot.key == key)
            .then_some(slot.child)
    }

    fn put(&mut self, parent: NodeId, key: NodeKey, child: NodeId) {
        self.slots[Self::slot(parent, key)] = RecentChild { parent, key, child };
    }
}

impl<N: EdgeNotes> QueueWalk for Walk<'_, N> {
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
        self.expanded += 1;
        let awaiting = self.taking_cleared && self.awaiting.contains(object);
        self.from_awaiting = awaiting.then_some(decoded.class);
        let mut references = self.take_all(node, decoded.class, steps);
        if decoded.container {
            references += self.expand_internals(node, decoded.class, internals);
        }
        self.from_awaiting = None;
        let tree_node = &mut self.tree.nodes[node as usize];
        if !awaiting {
            tree_node.bytes += decoded.bytes;
        }
        tree_node.references += references;
        // After the fields: where a field and a stack local reach an object at the same depth,
        // the field is the path a reader can act on (`TimerThread.queue`, not a frame of
        // `TimerThread.mainLoop`), and the one that lasts: a local holds it only while its
        // frame runs, so a dump that catches a thread filling a static map would otherwise
        // give the map a path of that thread's for that one snapshot. That holds across roots
        // too: a thread's locals (threads are roots walked first) wait until every main root's
        // fields are taken, statics included. They keep their depth.
        let defer_locals = self.expanded <= self.main_roots;
        for &edge in self.roots.implicit_edges(object) {
            match edge {
                ImplicitEdge::Local {
                    object: local,
                    kind,
                    frame,
                } => {
                    if defer_locals {
                        self.deferred_locals.push((node, (local, kind, frame)));
                    } else {
                        self.take_local(node, (local, kind, frame));
                    }
                }
                ImplicitEdge::Class { object: class } => {
                    self.take_class(node, object, class);
                }
                ImplicitEdge::Loader { object: loader } => {
                    let step = Step {
                        target: loader,
                        kind: StepKind::InstanceField,
                        inside: false,
                        owner: self.names.class[self.graph.class_of(object) as usize],
                        name: self.names.class_loader,
                    };
                    self.take(node, step);
                }
            }
        }
        if self.expanded == self.main_roots {
            for (node, local) in std::mem::take(&mut self.deferred_locals) {
                self.take_local(node, local);
            }
        }
    }
}

impl<N: EdgeNotes> Walk<'_, N> {
    /// Takes the object of a stack local of a thread of `node`, as a `LOCAL` step naming its
    /// frame.
    fn take_local(&mut self, node: NodeId, (local, kind, frame): StackLocal) {
        let (owner, name, source) = self.names.local(kind, frame);
        let step = Step {
            target: local,
            kind: StepKind::Local,
            inside: false,
            owner,
            name,
        };
        if let Some(child) = self.take(node, step) {
            let child = &mut self.tree.nodes[child as usize];
            child.source = child.source.or(source);
        }
    }

    /// The node under `parent` with `key`, created if need be.
    #[inline]
    fn node_for(&mut self, parent: Option<NodeId>, key: NodeKey) -> NodeId {
        let parent_id = parent.unwrap_or(NO_PARENT);
        if let Some(id) = self.recent_children.get(parent_id, key) {
            return id;
        }
        let nodes = self.tree.nodes.len();
        let id = self.tree.node_for(parent, key);
        if id as usize == nodes {
            self.notes.node_created(id, parent, key);
        }
        self.recent_children.put(parent_id, key, id);
        id
    }

    /// Puts an unreached `object` into `node` and queues it.
    fn reach(&mut self, object: ObjectIndex, node: NodeId) {
        if self.reached.test_and_set(object) {
            return;
        }
        self.notes.reached(object, node);
        if self.taking_cleared && self.awaits_cleanup(object) {
            self.awaiting.test_and_set(object);
            *self.tree.awaiting_cleanup.entry(node).or_default() += 1;
        } else {
            self.tree.nodes[node as usize].objects += 1;
        }
        self.queue.push(object);
        self.queue_nodes.push(node);
    }

    /// Reaches class object `class` from `owner` (of `node`): its loader, or an instance of
    /// it, as a `CLASS` step.
    fn take_class(&mut self, node: NodeId, owner: ObjectIndex, class: ObjectIndex) {
        let described = self.graph.class_object_of(class).unwrap_or_default();
        let step = Step {
            target: class,
            kind: StepKind::Class,
            inside: false,
            owner: self.names.class[self.graph.class_of(owner) as usize],
            name: self.names.class[described as usize],
        };
        self.take(node, step);
    }

    /// Reaches the target of `step`, taken from an object of `node`, unless it was reached
    /// before; returns the node it joined. A step with the same key as its parent's folds into
    /// it.
    fn take(&mut self, node: NodeId, step: Step) -> Option<NodeId> {
        if self.reached.contains(step.target) {
            self.notes.edge(node, None, step.target);
            return None;
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
            self.node_for(Some(node), key)
        };
        self.notes.edge(node, Some(child), step.target);
        self.reach(step.target, child);
        Some(child)
    }

    /// Whether `target` is a reference the collector cleared that the walk holds back until
    /// everything else is reached; `held` says how to take it then.
    #[inline]
    fn holds_back(&mut self, target: ObjectIndex, held: impl FnOnce() -> HeldBack) -> bool {
        // What the walk reached before is never one it holds back, so most steps cost no look
        // at their target.
        if self.taking_cleared
            || self.reached.contains(target)
            || !self.rules.is_cleared(self.graph, target)
        {
            return false;
        }
        self.held_back.push(held());
        true
    }

    /// Whether `object`, reached while the walk takes what it held back, awaits cleanup: a
    /// reference the collector cleared, or what an object that awaits cleanup leads to. But
    /// for a live reference of the same kind as that object: the next entry of a bucket chain
    /// (a `WeakHashMap`'s, Guava's), which the owner keeps when it unlinks the cleared one.
    fn awaits_cleanup(&self, object: ObjectIndex) -> bool {
        if self.rules.is_cleared(self.graph, object) {
            return true;
        }
        let Some(from) = self.from_awaiting else {
            return false;
        };
        let class = self.graph.class_of(object);
        !(self.rules.is_reference(class) && related_classes(self.graph, from, class))
    }

    /// Whether a reference from the object whose steps are being taken to `target` counts
    /// among the node's references: not from an object that awaits cleanup, nor to a
    /// reference the collector cleared.
    fn counts_reference(&self, target: ObjectIndex) -> bool {
        self.from_awaiting.is_none()
            && !(self.taking_cleared && self.rules.is_cleared(self.graph, target))
    }

    /// Queues internal object `object` of a collection of class `collection`, of `node`,
    /// unless it was reached before or is held back.
    fn enter_internal(&mut self, node: NodeId, collection: ClassIndex, object: ObjectIndex) {
        if self.holds_back(object, || HeldBack::Internal {
            node,
            collection,
            object,
        }) {
            return;
        }
        if !self.reached.test_and_set(object) {
            if self.taking_cleared && self.awaits_cleanup(object) {
                self.awaiting.test_and_set(object);
            }
            self.internal_stack.push(object);
            self.notes.reached(object, node);
        } else {
            self.notes.edge(node, None, object);
        }
    }

    /// Walks the internal objects queued by [`Self::enter_internal`] for a collection of
    /// class `class`; whatever they reference that is not itself internal is an element of the
    /// collection, a child of `node`. Returns how many references to elements the internals
    /// hold (the collection's entries, keys and values counted apart).
    fn expand_internals(
        &mut self,
        node: NodeId,
        class: ClassIndex,
        mut traced: TracedInternals,
    ) -> u64 {
        let mut references = 0;
        let owner = self.names.class[class as usize];
        let keys_are_elements = self.rules.containers.keys_are_elements(class);
        let mut untraced = std::mem::take(&mut self.untraced_steps);
        let from_collection = self.from_awaiting;
        while let Some(internal) = self.internal_stack.pop() {
            if self.taking_cleared {
                self.from_awaiting = self
                    .awaiting
                    .contains(internal)
                    .then(|| self.graph.class_of(internal));
            }
            let steps = match traced.next_if(internal) {
                Some(steps) => steps,
                None => {
                    untraced.clear();
                    self.untraced_maker
                        .internal_steps(internal, keys_are_elements, &mut untraced);
                    untraced.all()
                }
            };
            references += self.take_internal_steps(node, class, owner, steps);
        }
        self.from_awaiting = from_collection;
        self.untraced_steps = untraced;
        references
    }

    /// [`Self::take_all`] for the steps of an internal object of a collection of `node`, of
    /// class `collection` named `owner`. Returns the references to elements.
    fn take_internal_steps(
        &mut self,
        node: NodeId,
        collection: ClassIndex,
        owner: NameId,
        steps: InternalStepSlice,
    ) -> u64 {
        let mut references = 0;
        for (target, role) in steps.iter() {
            let name = match role {
                InternalRole::Inside => {
                    self.enter_internal(node, collection, target);
                    continue;
                }
                InternalRole::Element => self.names.element,
                InternalRole::Key => self.names.key_element,
            };
            let step = Step {
                target,
                kind: StepKind::ArrayEntry,
                inside: false,
                owner,
                name,
            };
            if !self.holds_back(target, || HeldBack::Member { node, step }) {
                references += u64::from(self.counts_reference(target));
                self.take(node, step);
            }
        }
        references
    }

    /// Takes every step of `steps` from an object of `node`, of class `class`: into the
    /// collection's internals, or to a child. Returns the references to children (each step
    /// that isn't internal, but for those to references the collector cleared).
    fn take_all(&mut self, node: NodeId, class: ClassIndex, steps: &[Step]) -> u64 {
        let mut references = 0;
        for &step in steps {
            if step.inside {
                self.enter_internal(node, class, step.target);
            } else if !self.holds_back(step.target, || HeldBack::Member { node, step }) {
                references += u64::from(self.counts_reference(step.target));
                self.take(node, step);
            }
        }
        references
    }
}

/// Super classes [`related_classes`] looks through: the entries of one map are of one class or
/// of a subclass a level or two below it, and a bound keeps a crafted hierarchy thousands of
/// classes deep from costing its depth at every object.
const RELATED_CLASS_LEVELS: usize = 8;

/// Whether one of classes `a` and `b` is the other or a subclass of it, a few levels down
/// (Guava's `WeakKeyDummyValueEntry` and `LinkedWeakKeyDummyValueEntry`).
fn related_classes(graph: &HeapGraph, a: ClassIndex, b: ClassIndex) -> bool {
    let extends = |sub: ClassIndex, sup: ClassIndex| {
        std::iter::successors(Some(sub), |&c| graph.class(c).super_class)
            .take(RELATED_CLASS_LEVELS)
            .any(|c| c == sup)
    };
    extends(a, b) || extends(b, a)
}

#[cfg(test)]
mod tests {
    use super::{NodeKey, RecentChildren, StepKind, NO_PARENT};

    fn key(name: u32, target: u32) -> NodeKey {
        NodeKey {
            kind: StepKind::InstanceField,
            owner: 1,
            name,
            target,
        }
    }

    #[test]
    fn recent_children_answer_only_the_pair_a_slot_holds() {
        let mut recent = RecentChildren::new();
        // A fresh cache answers nothing, not even the key its empty slots were made with.
        assert_eq!(recent.get(NO_PARENT, recent.slots[0].key), None);
        recent.put(3, key(7, 9), 42);
        assert_eq!(recent.get(3, key(7, 9)), Some(42));
        // Another parent, kind, field or target class is another child.
        assert_eq!(recent.get(4, key(7, 9)), None);
        assert_eq!(recent.get(3, key(8, 9)), None);
        assert_eq!(recent.get(3, key(7, 10)), None);
        let other_kind = NodeKey {
            kind: StepKind::ArrayEntry,
            ..key(7, 9)
        };
        assert_eq!(recent.get(3, other_kind), None);
        // A pair that lands in the same slot replaces it: the first is then a miss (the map
        // answers it), never the second's child.
        let colliding = (0..100_000)
            .map(|name| key(name, 9))
            .find(|&other| {
                other != key(7, 9)
                    && RecentChildren::slot(3, other) == RecentChildren::slot(3, key(7, 9))
            })
            .expect("a key in the same slot");
        recent.put(3, colliding, 43);
        assert_eq!(recent.get(3, colliding), Some(43));
        assert_eq!(recent.get(3, key(7, 9)), None);
    }
}
