//! Growth detection: path trees of snapshots, their diff, and retained sizes. Works on
//! [`crate::heap::HeapGraph`] only, so every rule is tested on synthetic heaps.

mod bitset;
mod containers;
mod decode;
mod names;
mod retained;
mod roots;
mod search;
mod tree;

pub use names::{NameId, Names};
pub use retained::{retained_sizes, Retained};
pub use roots::root_kind_name;
pub use search::{
    ChildGrowth, GrowingNode, GrowthSearch, NextStep, PathStep, RetainedGrowth, SearchConfig,
    SearchOutcome, CONFIRMATION_SNAPSHOTS, DEFAULT_LOOPS_PER_SNAPSHOT, DEFAULT_MAX_SNAPSHOTS,
    DEFAULT_WARMUP_LOOPS, REQUIRED_GROWING_DIFFS,
};
pub use tree::{
    build as build_tree, simple_name, NodeId, NodeKey, ObjectNodes, PathTree, StepKind, TreeNode,
};

#[cfg(test)]
mod tests;
