//! Retained size of growing nodes.
//!
//! An object is retained by the growing nodes when no path from a GC root reaches it once the
//! growing nodes' objects are taken out of the graph. An object retained through several
//! growing nodes is split between them in equal shares (LeakShare, from BLeak) rather than
//! counted in each: the figures of all growing nodes then add up to what fixing all of them
//! would free, and shared structure is not reported twice. We don't build a dominator tree:
//! it would need several more arrays per object for an answer that, for groups of objects
//! rather than single objects, is the same set as this one.

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
    // Everything still reachable without the groups.
    let mut reached = vec![false; count];
    let mut queue: Vec<ObjectIndex> = Vec::new();
    let mut in_group = vec![false; count];
    for group in &members {
        for &object in group {
            in_group[object as usize] = true;
        }
    }
    let visit = |object: ObjectIndex, queue: &mut Vec<ObjectIndex>, reached: &mut Vec<bool>| {
        if !reached[object as usize] && !in_group[object as usize] {
            reached[object as usize] = true;
            queue.push(object);
        }
    };
    for entry in &roots.entries {
        visit(entry.object, &mut queue, &mut reached);
    }
    for &class in objects.late_roots() {
        visit(class, &mut queue, &mut reached);
    }
    let mut head = 0;
    let mut targets = Vec::new();
    while head < queue.len() {
        let object = queue[head];
        head += 1;
        for edge in roots.implicit_edges(object) {
            visit(edge.target(), &mut queue, &mut reached);
        }
        if let Some(class) = class_object(graph, object) {
            visit(class, &mut queue, &mut reached);
        }
        targets.clear();
        graph.for_each_reference(object, |r| {
            if !non_strong.contains(r.kind) {
                targets.push(r.target)
            }
        });
        for &target in &targets {
            visit(target, &mut queue, &mut reached);
        }
    }

    // How many groups reach each retained object, then each group's share.
    let mut shares = vec![0u16; count];
    let mut stamp = vec![u32::MAX; count];
    let mut retained_sets: Vec<Vec<ObjectIndex>> = Vec::with_capacity(groups.len());
    for (group, group_members) in members.iter().enumerate() {
        let mut set = Vec::new();
        let mut stack: Vec<ObjectIndex> = group_members.clone();
        for &object in group_members {
            stamp[object as usize] = group as u32;
        }
        while let Some(object) = stack.pop() {
            set.push(object);
            shares[object as usize] = shares[object as usize].saturating_add(1);
            let mut follow = |target: ObjectIndex| {
                if !reached[target as usize] && stamp[target as usize] != group as u32 {
                    stamp[target as usize] = group as u32;
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
        retained_sets.push(set);
    }
    retained_sets
        .iter()
        .map(|set| {
            let (objects, bytes) = set.iter().fold((0f64, 0f64), |(objects, bytes), &object| {
                let share = f64::from(shares[object as usize].max(1));
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

/// The class object of `object`'s class: an instance or array keeps its class (and so the
/// class's loader) alive, which the dump's references don't show.
fn class_object(graph: &HeapGraph, object: ObjectIndex) -> Option<ObjectIndex> {
    match graph.kind(object) {
        ObjectKind::Class => None,
        _ => graph.class(graph.class_of(object)).object,
    }
}
