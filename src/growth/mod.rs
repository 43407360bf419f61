//! Growth detection: path trees of snapshots, their diff, and retained sizes. Works on
//! [`crate::heap::HeapGraph`] only, so every rule is tested on synthetic heaps.

mod containers;
mod names;
mod retained;
mod search;
mod tree;

pub use names::{NameId, Names};
pub use retained::{retained_sizes, Retained};
pub use search::{
    ChildGrowth, GrowingNode, GrowthSearch, NextStep, PathStep, RetainedGrowth, SearchConfig,
    SearchOutcome, CONFIRMATION_SNAPSHOTS, DEFAULT_LOOPS_PER_SNAPSHOT, DEFAULT_MAX_SNAPSHOTS,
    DEFAULT_WARMUP_LOOPS, REQUIRED_GROWING_DIFFS,
};
pub use tree::{
    build as build_tree, root_kind_name, simple_name, NodeId, NodeKey, ObjectNodes, PathTree,
    StepKind, TreeNode,
};

#[cfg(test)]
mod tests;
