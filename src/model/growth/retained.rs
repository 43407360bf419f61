//! Retained size of growing nodes.
//!
//! An object is retained by the growing nodes when no path from a GC root reaches it once the
//! growing nodes' objects are taken out of the graph. An object retained through several
//! growing nodes is split between them in equal shares (LeakShare, from BLeak) rather than
//! counted in each: the figures of all growing nodes then add up to what fixing all of them
//! would free, and shared structure is not reported twice. We don't build a dominator tree:
//! it would need several more arrays per object for an answer that, for groups of objects
//! rather than single objects, is the same set as this one.
//!
//! What stays reachable without the growing nodes comes, when the path tree's walk watched
//! their paths (the search has it watch the candidates of the snapshot before, or the paths
//! about to become ones), from what that walk noted: the objects it reached by a path through
//! no watched node, and its edges from those into the rest. Only what lies below the watched
//! nodes and is reachable some other way is walked again. For a growing node the walk did not
//! watch, the whole heap is walked a second time; both ways give the same set.

use super::bitset::BitSet;
use super::key::NodeId;
use super::names::FastMap;
use super::roots::{NonStrongFields, RootSet};
use super::tree::{ObjectNodes, WatchedEdges};
use crate::heap::{HeapGraph, ObjectIndex, ObjectKind};

/// What a growing node keeps alive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Retained {
    /// Objects, shared objects counted by their share (rounded).
    pub objects: u64,
    /// Shallow bytes, shared objects counted by their share (rounded).
    pub bytes: u64,
}

/// Retained size of each node in `groups`, nodes of the path tree whose walk put the
/// snapshot's objects into `objects`. When that walk watched every one of `groups` (as
/// [`crate::growth::GrowthSearch`] has it watch the paths that can be candidates), what stays
/// reachable without them is found from what it noted, without walking the heap again.
pub fn retained_sizes(
    graph: &HeapGraph,
    objects: &ObjectNodes,
    groups: &[NodeId],
) -> Vec<Retained> {
    if groups.is_empty() {
        return Vec::new();
    }
    let count = graph.object_count();
    let members = objects.members(groups);

    let non_strong = NonStrongFields::new(graph);
    let roots = RootSet::new(graph);
    let mut in_group = BitSet::new(count);
    for group in &members {
        for &object in group {
            in_group.test_and_set(object);
        }
    }
    let walk = Reachability {
        graph,
        roots: &roots,
        non_strong: &non_strong,
        left_out: &in_group,
    };
    let reached = match objects.watched() {
        Some(watched) if groups.iter().all(|&g| watched.watched_nodes[g as usize]) => {
            walk.reached_by_what_was_noted(objects, watched)
        }
        _ => walk.reached_by_walking_all(objects),
    };

    // What each group retains: what it reaches that nothing else does. `seen` marks the
    // current group's objects and is cleared after it, through its set.
    let mut seen = BitSet::new(count);
    let mut retained_sets: Vec<Vec<ObjectIndex>> = Vec::with_capacity(groups.len());
    for group_members in &members {
        let mut set = Vec::new();
        let mut stack: Vec<ObjectIndex> = group_members.clone();
        for &object in group_members {
            seen.test_and_set(object);
        }
        while let Some(object) = stack.pop() {
            release_pages_now_and_then(set.len());
            set.push(object);
            let mut follow = |target: ObjectIndex| {
                if !reached.contains(target) && !seen.test_and_set(target) {
                    stack.push(target);
                }
            };
            graph.for_each_reference(object, |r| {
                if !non_strong.contains(r.kind) {
                    follow(r.target);
                }
            });
            for edge in roots.implicit_edges(object) {
                follow(edge.target());
            }
            if let Some(class) = class_object(graph, object) {
                follow(class);
            }
        }
        for &object in &set {
            seen.remove(object);
        }
        retained_sets.push(set);
    }
    let shares = shares_of(&retained_sets);
    retained_sets
        .iter()
        .map(|set| {
            let (objects, bytes) = set.iter().fold((0f64, 0f64), |(objects, bytes), &object| {
                let share = f64::from(shares.get(&object).copied().unwrap_or(1));
                (
                    objects + 1.0 / share,
                    bytes + graph.shallow_size(object) as f64 / share,
                )
            });
            Retained {
                objects: objects.round() as u64,
                bytes: bytes.round() as u64,
            }
        })
        .collect()
}

/// The walk over everything the roots reach through strong references, implicit edges and
/// class objects without passing through an object of `left_out`. Bit sets and a depth-first
/// stack: this runs beside the model and the path tree's arrays, at the peak of the
/// analysis's memory.
struct Reachability<'a> {
    graph: &'a HeapGraph,
    roots: &'a RootSet,
    non_strong: &'a NonStrongFields,
    left_out: &'a BitSet,
}

impl Reachability<'_> {
    /// Walks the whole heap from the roots.
    fn reached_by_walking_all(&self, objects: &ObjectNodes) -> BitSet {
        let mut reached = BitSet::new(self.graph.object_count());
        let mut stack = Vec::new();
        for entry in &self.roots.entries {
            self.visit(entry.object, &mut reached, &mut stack);
        }
        for &class in objects.late_roots() {
            self.visit(class, &mut reached, &mut stack);
        }
        self.walk(&mut reached, stack);
        reached
    }

    /// The same set, from what the path tree's walk noted while watching paths that include
    /// every node whose objects are left out. That walk reached every object of `outside`
    /// along edges of this walk's kind, by a path through no watched node's object, so through
    /// no left-out one: they are reachable still. What else is reachable is reached from them
    /// by an edge that walk saw and noted (`from_outside`), or by one it doesn't follow: an
    /// instance's edge to its class object, an implicit edge of a collection's internal
    /// object. From those, and from the roots, a walk that stops at `outside` finds the rest;
    /// outside a leak's own objects it has little to walk.
    fn reached_by_what_was_noted(&self, objects: &ObjectNodes, watched: &WatchedEdges) -> BitSet {
        let graph = self.graph;
        let mut reached = watched.outside.clone();
        let mut stack = Vec::new();
        for target in watched.from_outside.iter() {
            self.visit(target, &mut reached, &mut stack);
        }
        for entry in &self.roots.entries {
            self.visit(entry.object, &mut reached, &mut stack);
        }
        for &class in objects.late_roots() {
            self.visit(class, &mut reached, &mut stack);
        }
        for (source, edges) in self.roots.implicit_sources() {
            if watched.outside.contains(source) {
                for edge in edges {
                    self.visit(edge.target(), &mut reached, &mut stack);
                }
            }
        }
        // Class objects outside `outside` are few, often none: only then are the instances
        // read for their classes.
        let classes_inside = graph
            .classes()
            .iter()
            .filter_map(|class| class.object)
            .any(|object| !watched.outside.contains(object));
        if classes_inside {
            for object in watched.outside.iter() {
                if let Some(class) = class_object(graph, object) {
                    self.visit(class, &mut reached, &mut stack);
                }
            }
        }
        self.walk(&mut reached, stack);
        reached
    }

    #[inline]
    fn visit(&self, object: ObjectIndex, reached: &mut BitSet, stack: &mut Vec<ObjectIndex>) {
        if !self.left_out.contains(object) && !reached.test_and_set(object) {
            stack.push(object);
        }
    }

    /// Depth first from `stack`, marking what is reached in `reached`.
    fn walk(&self, reached: &mut BitSet, mut stack: Vec<ObjectIndex>) {
        let mut targets = Vec::new();
        let mut walked = 0usize;
        while let Some(object) = stack.pop() {
            walked += 1;
            release_pages_now_and_then(walked);
            for edge in self.roots.implicit_edges(object) {
                self.visit(edge.target(), reached, &mut stack);
            }
            if let Some(class) = class_object(self.graph, object) {
                self.visit(class, reached, &mut stack);
            }
            targets.clear();
            self.graph.for_each_reference(object, |r| {
                if !self.non_strong.contains(r.kind) {
                    targets.push(r.target)
                }
            });
            for &target in &targets {
                self.visit(target, reached, &mut stack);
            }
        }
    }
}

/// Every few thousand objects walked (`walked`), releases the dump's pages once too many
/// are resident, as the path tree's walk does (see `heap::resident`): a walk of the whole
/// heap reads records all over the dump.
fn release_pages_now_and_then(walked: usize) {
    const OBJECTS_PER_LOOK: usize = 4096;
    if walked % OBJECTS_PER_LOOK == 0 {
        crate::heap::resident::release_if_over_budget();
    }
}

/// How many of `sets` hold each object that more than one holds (the others: one). Memory in
/// proportion to the retained objects, not to the heap.
fn shares_of(sets: &[Vec<ObjectIndex>]) -> FastMap<ObjectIndex, u16> {
    let mut shared = FastMap::default();
    if sets.len() < 2 {
        return shared;
    }
    let mut all: Vec<ObjectIndex> = sets.iter().flatten().copied().collect();
    all.sort_unstable();
    for run in all.chunk_by(|a, b| a == b) {
        if run.len() > 1 {
            shared.insert(run[0], run.len().min(u16::MAX as usize) as u16);
        }
    }
    shared
}

/// The class object of `object`'s class: an instance or array keeps its class (and so the
/// class's loader) alive, which the dump's references don't show.
fn class_object(graph: &HeapGraph, object: ObjectIndex) -> Option<ObjectIndex> {
    match graph.kind(object) {
        ObjectKind::Class => None,
        _ => graph.class(graph.class_of(object)).object,
    }
}
