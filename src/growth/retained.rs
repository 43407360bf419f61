//! Retained size of growing nodes.
//!
//! An object is retained by the growing nodes when no path from a GC root reaches it once the
//! growing nodes' objects are taken out of the graph. An object retained through several
//! growing nodes is split between them in equal shares (LeakShare, from BLeak) rather than
//! counted in each: the figures of all growing nodes then add up to what fixing all of them
//! would free, and shared structure is not reported twice. We don't build a dominator tree:
//! it would need several more arrays per object for an answer that, for groups of objects
//! rather than single objects, is the same set as this one.

use super::bitset::BitSet;
use super::names::FastMap;
use super::roots::{NonStrongFields, RootSet};
use super::tree::{NodeId, ObjectNodes};
use crate::heap::{HeapGraph, ObjectIndex, ObjectKind};

/// What a growing node keeps alive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Retained {
    /// Objects, shared objects counted by their share (rounded).
    pub objects: u64,
    /// Shallow bytes, shared objects counted by their share (rounded).
    pub bytes: u64,
}

/// Retained size of each node in `groups`.
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
    // Everything still reachable without the groups. Bit sets and a depth-first stack: this
    // runs beside the model and the path tree's arrays, at the peak of the analysis's memory.
    let mut in_group = BitSet::new(count);
    for group in &members {
        for &object in group {
            in_group.test_and_set(object);
        }
    }
    let mut reached = BitSet::new(count);
    let mut stack: Vec<ObjectIndex> = Vec::new();
    let visit = |object: ObjectIndex, stack: &mut Vec<ObjectIndex>, reached: &mut BitSet| {
        if !in_group.contains(object) && !reached.test_and_set(object) {
            stack.push(object);
        }
    };
    for entry in &roots.entries {
        visit(entry.object, &mut stack, &mut reached);
    }
    for &class in objects.late_roots() {
        visit(class, &mut stack, &mut reached);
    }
    let mut targets = Vec::new();
    while let Some(object) = stack.pop() {
        for edge in roots.implicit_edges(object) {
            visit(edge.target(), &mut stack, &mut reached);
        }
        if let Some(class) = class_object(graph, object) {
            visit(class, &mut stack, &mut reached);
        }
        targets.clear();
        graph.for_each_reference(object, |r| {
            if !non_strong.contains(r.kind) {
                targets.push(r.target)
            }
        });
        for &target in &targets {
            visit(target, &mut stack, &mut reached);
        }
    }

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
