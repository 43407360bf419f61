//! The growth search: one path tree per snapshot, diffed with the one before.
//!
//! Shark's rule is the baseline: a node grows when the objects under it increase from one
//! snapshot to the next, it must keep growing, and a growing node is reported once, not again
//! under a growing ancestor. Where shark's rule hides real leaks, this one differs:
//!
//! * Shark needs one child key to gain at least `loops` objects per snapshot. That misses
//!   growth slower than one object per loop, and growth spread over children of different
//!   classes (a list that alternates two classes). Here a node grows when its children taken
//!   together gain objects, or, with as many objects, bytes (a `StringBuilder` that lengthens).
//! * Shark only follows nodes of the first snapshot and stops at the first snapshot without
//!   growth, so a leak that starts after the first snapshot is never seen. Here every node of
//!   every snapshot is diffed, and a node needs [`REQUIRED_GROWING_DIFFS`] consecutive growing
//!   diffs; the search stops early only when no node can reach that any more.
//! * A cache that fills slowly grows in every early snapshot (BLeak's only false positives).
//!   Before reporting, the search runs as many loops again as it ran so far, over
//!   [`CONFIRMATION_SNAPSHOTS`] snapshots, and reports only nodes that still grow in each.

use super::names::Names;
use super::retained::{retained_sizes, Retained};
use super::tree::{build, simple_name, NodeId, NodeKey, PathTree, StepKind};
use crate::heap::HeapGraph;

/// Loops run before the first snapshot, so that class loading and lazy initialisation, which
/// usually happen in the first loop or two, are done before anything is measured.
pub const DEFAULT_WARMUP_LOOPS: u32 = 3;
/// Loops between snapshots; shark's default. More loops per snapshot make growth larger per
/// diff but every snapshot costs a full heap dump.
pub const DEFAULT_LOOPS_PER_SNAPSHOT: u32 = 2;
/// Snapshots of the detection phase; shark's default.
pub const DEFAULT_MAX_SNAPSHOTS: u32 = 5;
/// Consecutive diffs a node must grow in to be a candidate. Three diffs are six loops at the
/// default rate: lazy initialisation, a warming JIT or a one-off cache fill rarely keep growing
/// that long, and a leak that starts after the first snapshot still has time to show.
pub const REQUIRED_GROWING_DIFFS: u32 = 3;
/// Snapshots spent confirming that candidates don't level off. Two, so a candidate must grow
/// through the whole extra budget, not just at its start.
pub const CONFIRMATION_SNAPSHOTS: u32 = 2;

/// How many loops to run and how often to look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// Loops between two snapshots of the detection phase.
    pub loops_per_snapshot: u32,
    /// Snapshots of the detection phase (the confirmation adds [`CONFIRMATION_SNAPSHOTS`]).
    pub max_snapshots: u32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            loops_per_snapshot: DEFAULT_LOOPS_PER_SNAPSHOT,
            max_snapshots: DEFAULT_MAX_SNAPSHOTS,
        }
    }
}

impl SearchConfig {
    /// Growing diffs needed for a candidate: [`REQUIRED_GROWING_DIFFS`], or fewer when the user
    /// asked for fewer snapshots than that allows.
    pub fn required_growing_diffs(&self) -> u32 {
        REQUIRED_GROWING_DIFFS
            .min(self.max_snapshots.saturating_sub(1))
            .max(1)
    }
}

/// What the caller should do after a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextStep {
    /// Run this many more loops, then take a snapshot.
    RunLoops(u32),
    /// The search is over; call [`GrowthSearch::finish`].
    Done,
}

#[derive(Debug)]
enum Phase {
    Detecting,
    /// Candidates found; this many confirmation snapshots are still to come.
    Confirming {
        snapshots_left: u32,
        loops_each: u32,
    },
    Done,
}

/// A node under confirmation, by its path of keys.
#[derive(Debug)]
struct Candidate {
    path: Vec<NodeKey>,
    /// Retained size at each confirmation snapshot, `None` where the node was missing.
    retained: Vec<Option<Retained>>,
}

/// The growth search over the snapshots of one scenario. Feed it snapshots with
/// [`GrowthSearch::add_snapshot`] and run the loops it asks for until it says
/// [`NextStep::Done`].
#[derive(Debug)]
pub struct GrowthSearch {
    config: SearchConfig,
    names: Names,
    trees: Vec<PathTree>,
    /// Loops run (warm-up included) when each snapshot was taken.
    loops_at: Vec<u32>,
    /// For each node of the latest tree: how many consecutive diffs it has grown in.
    streaks: Vec<u32>,
    phase: Phase,
    candidates: Vec<Candidate>,
}

impl GrowthSearch {
    /// A search that has seen no snapshot yet.
    pub fn new(config: SearchConfig) -> GrowthSearch {
        GrowthSearch {
            config,
            names: Names::default(),
            trees: Vec::new(),
            loops_at: Vec::new(),
            streaks: Vec::new(),
            phase: Phase::Detecting,
            candidates: Vec::new(),
        }
    }

    /// Analyses a snapshot taken after `loops` loops in total (warm-up included) and says what
    /// to do next.
    pub fn add_snapshot(&mut self, graph: &HeapGraph, loops: u32) -> NextStep {
        let (tree, objects) = build(graph, &mut self.names);
        self.streaks = match self.trees.last() {
            Some(previous) => growth_streaks(previous, &self.streaks, &tree),
            None => vec![0; tree.nodes().len()],
        };
        if let Phase::Confirming { .. } = self.phase {
            let present: Vec<(usize, NodeId)> = self
                .candidates
                .iter()
                .enumerate()
                .filter_map(|(index, candidate)| {
                    tree.find(&candidate.path).map(|node| (index, node))
                })
                .collect();
            let nodes: Vec<NodeId> = present.iter().map(|&(_, node)| node).collect();
            let sizes = retained_sizes(graph, &objects, &nodes);
            let mut retained = vec![None; self.candidates.len()];
            for (&(index, _), size) in present.iter().zip(sizes) {
                retained[index] = Some(size);
            }
            for (candidate, size) in self.candidates.iter_mut().zip(retained) {
                candidate.retained.push(size);
            }
        }
        self.trees.push(tree);
        self.loops_at.push(loops);
        let next = self.next_step(loops);
        if next == NextStep::Done {
            self.phase = Phase::Done;
        }
        next
    }

    fn next_step(&mut self, loops: u32) -> NextStep {
        let required = self.config.required_growing_diffs();
        match self.phase {
            Phase::Detecting => {
                let taken = self.trees.len() as u32;
                let remaining = self.config.max_snapshots.saturating_sub(taken);
                if remaining > 0 {
                    let best = self.streaks.iter().copied().max().unwrap_or(0);
                    return if best + remaining >= required {
                        NextStep::RunLoops(self.config.loops_per_snapshot)
                    } else {
                        NextStep::Done
                    };
                }
                let tree = self.trees.last().expect("a snapshot was just added");
                let paths: Vec<Vec<NodeKey>> = top_growing(tree, &self.streaks, required)
                    .into_iter()
                    .map(|node| tree.path(node))
                    .collect();
                if paths.is_empty() {
                    return NextStep::Done;
                }
                self.candidates = paths
                    .into_iter()
                    .map(|path| Candidate {
                        path,
                        retained: Vec::new(),
                    })
                    .collect();
                // As many loops again as the search has run, spread over the confirmation.
                let loops_each = loops.div_ceil(CONFIRMATION_SNAPSHOTS).max(1);
                self.phase = Phase::Confirming {
                    snapshots_left: CONFIRMATION_SNAPSHOTS,
                    loops_each,
                };
                NextStep::RunLoops(loops_each)
            }
            Phase::Confirming {
                snapshots_left,
                loops_each,
            } => {
                if snapshots_left > 1 {
                    self.phase = Phase::Confirming {
                        snapshots_left: snapshots_left - 1,
                        loops_each,
                    };
                    NextStep::RunLoops(loops_each)
                } else {
                    NextStep::Done
                }
            }
            Phase::Done => NextStep::Done,
        }
    }

    /// The result: the nodes that grew through detection and confirmation.
    pub fn finish(self) -> SearchOutcome {
        let loops = self.loops_at.last().copied().unwrap_or(0);
        let snapshots = self.trees.len() as u32;
        let Some(last) = self.trees.last() else {
            return SearchOutcome {
                loops,
                snapshots,
                growing: Vec::new(),
                leveled_off: Vec::new(),
            };
        };
        let mut growing = Vec::new();
        let mut leveled_off = Vec::new();
        for candidate in &self.candidates {
            let confirmed = last.find(&candidate.path).is_some_and(|node| {
                self.streaks[node as usize]
                    >= self.config.required_growing_diffs() + CONFIRMATION_SNAPSHOTS
            });
            if confirmed {
                growing.push(self.describe(candidate));
            } else {
                leveled_off.push(self.resolve_path(last, &candidate.path));
            }
        }
        growing.sort_by(|a, b| a.path.cmp(&b.path));
        leveled_off.sort();
        SearchOutcome {
            loops,
            snapshots,
            growing,
            leveled_off,
        }
    }

    fn describe(&self, candidate: &Candidate) -> GrowingNode {
        let last = self.trees.last().expect("finish checked");
        let node = last
            .find(&candidate.path)
            .expect("confirmed nodes are in the last tree");
        let previous_tree = &self.trees[self.trees.len() - 2];
        let previous = previous_tree.find(&candidate.path);
        let children_objects = self
            .trees
            .iter()
            .map(|tree| {
                tree.find(&candidate.path)
                    .map_or(0, |n| tree.children_totals(n).0)
            })
            .collect();
        let mut children: Vec<ChildGrowth> = last
            .node(node)
            .children
            .iter()
            .map(|&child| {
                let child_node = last.node(child);
                let (before_objects, before_bytes) = previous
                    .and_then(|p| previous_tree.child(Some(p), child_node.key))
                    .map_or((0, 0), |c| {
                        (previous_tree.node(c).objects, previous_tree.node(c).bytes)
                    });
                ChildGrowth {
                    step: self.resolve_step(child_node.key, child_node.objects),
                    objects: child_node.objects,
                    new: child_node.objects as i64 - before_objects as i64,
                    bytes: child_node.bytes,
                    new_bytes: child_node.bytes as i64 - before_bytes as i64,
                }
            })
            .collect();
        children.sort_by(|a, b| a.step.cmp(&b.step));
        let last_retained = candidate
            .retained
            .last()
            .copied()
            .flatten()
            .unwrap_or_default();
        let before_retained = candidate
            .retained
            .iter()
            .rev()
            .nth(1)
            .copied()
            .flatten()
            .unwrap_or_default();
        GrowingNode {
            path: self.resolve_path(last, &candidate.path),
            children_objects,
            retained: RetainedGrowth {
                objects: last_retained.objects,
                bytes: last_retained.bytes,
                objects_increase: last_retained.objects as i64 - before_retained.objects as i64,
                bytes_increase: last_retained.bytes as i64 - before_retained.bytes as i64,
            },
            children,
        }
    }

    fn resolve_path(&self, tree: &PathTree, keys: &[NodeKey]) -> Vec<PathStep> {
        let mut steps = Vec::with_capacity(keys.len());
        for depth in 0..keys.len() {
            let objects = tree
                .find(&keys[..=depth])
                .map_or(0, |node| tree.node(node).objects);
            steps.push(self.resolve_step(keys[depth], objects));
        }
        steps
    }

    fn resolve_step(&self, key: NodeKey, objects: u64) -> PathStep {
        PathStep {
            kind: key.kind,
            owner: self.names.get(key.owner).to_owned(),
            name: self.names.get(key.name).to_owned(),
            target: self.names.get(key.target).to_owned(),
            objects,
        }
    }
}

/// Growth streak of every node of `tree`, continuing the streaks of `previous`'s nodes.
///
/// A node grows when its children together gain objects, or, with as many objects, gain bytes
/// while no child grows itself: a lengthening array or string then belongs to the node that
/// holds it, not to every ancestor whose children total includes it.
fn growth_streaks(previous: &PathTree, previous_streaks: &[u32], tree: &PathTree) -> Vec<u32> {
    let nodes = tree.nodes();
    // Parents are created before their children, so a parent's match is known first.
    let mut matches: Vec<Option<NodeId>> = Vec::with_capacity(nodes.len());
    for node in nodes {
        matches.push(match node.parent {
            None => previous.child(None, node.key),
            Some(parent) => {
                matches[parent as usize].and_then(|p| previous.child(Some(p), node.key))
            }
        });
    }
    // Children before parents, for the bytes rule.
    let mut grew = vec![false; nodes.len()];
    for id in (0..nodes.len()).rev() {
        let (objects, bytes) = tree.children_totals(id as NodeId);
        let (before_objects, before_bytes) =
            matches[id].map_or((0, 0), |m| previous.children_totals(m));
        let child_grew = || nodes[id].children.iter().any(|&child| grew[child as usize]);
        grew[id] = objects > before_objects
            || (objects == before_objects && bytes > before_bytes && !child_grew());
    }
    (0..nodes.len())
        .map(|id| {
            if grew[id] {
                matches[id].map_or(0, |m| previous_streaks[m as usize]) + 1
            } else {
                0
            }
        })
        .collect()
}

/// Nodes with a streak of at least `required`, leaving out those under another such node.
fn top_growing(tree: &PathTree, streaks: &[u32], required: u32) -> Vec<NodeId> {
    let growing = |node: NodeId| streaks[node as usize] >= required;
    (0..tree.nodes().len() as NodeId)
        .filter(|&node| growing(node) && !tree.has_ancestor_in(node, &growing))
        .collect()
}

/// One step of a path, with names resolved.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PathStep {
    /// How the step's objects are referenced.
    pub kind: StepKind,
    /// Class that declares the field, or the array/collection class; empty for roots.
    pub owner: String,
    /// Field name, `[x]`, `[key]`, or the root kind for [`StepKind::GcRoot`].
    pub name: String,
    /// Class of the referenced objects; empty for roots.
    pub target: String,
    /// Objects in the node, in the last snapshot.
    pub objects: u64,
}

impl std::fmt::Display for PathStep {
    /// `STATIC_FIELD Cart.items -> instance of java.util.ArrayList`, or `GcRoot(ThreadObject)`:
    /// the owner by its simple name, as shark prints it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            StepKind::GcRoot => write!(f, "GcRoot({})", self.name),
            kind => write!(
                f,
                "{} {}.{} -> instance of {}",
                kind.label(),
                simple_name(&self.owner),
                self.name,
                self.target
            ),
        }
    }
}

/// A child of a growing node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildGrowth {
    /// The child's location.
    pub step: PathStep,
    /// Objects in the child in the last snapshot.
    pub objects: u64,
    /// Change since the snapshot before.
    pub new: i64,
    /// Shallow bytes of the child's objects in the last snapshot.
    pub bytes: u64,
    /// Change in bytes since the snapshot before.
    pub new_bytes: i64,
}

/// Retained size in the last snapshot and its change since the one before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RetainedGrowth {
    /// Objects retained.
    pub objects: u64,
    /// Bytes retained.
    pub bytes: u64,
    /// Change in objects since the snapshot before.
    pub objects_increase: i64,
    /// Change in bytes since the snapshot before.
    pub bytes_increase: i64,
}

/// A node that grew in every diff of detection and confirmation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrowingNode {
    /// From the root group down to the growing node.
    pub path: Vec<PathStep>,
    /// Objects in the node's children, one number per snapshot.
    pub children_objects: Vec<u64>,
    /// What the node keeps alive.
    pub retained: RetainedGrowth,
    /// The node's children in the last snapshot.
    pub children: Vec<ChildGrowth>,
}

/// The result of one search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchOutcome {
    /// Loops run, warm-up and confirmation included.
    pub loops: u32,
    /// Snapshots taken.
    pub snapshots: u32,
    /// Confirmed growing nodes, sorted by path.
    pub growing: Vec<GrowingNode>,
    /// Paths that grew during detection but leveled off during confirmation.
    pub leveled_off: Vec<Vec<PathStep>>,
}
