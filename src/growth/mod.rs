//! Growth detection: path trees of snapshots, their diff, and retained sizes. Works on
//! [`crate::heap::HeapGraph`] only, so every rule is tested on synthetic heaps. [`class_trend`]
//! is the cheap gate before a dump: per-class counts over intervals, tested on synthetic series.
//! [`old_objects`] judges JFR old-object samples instead of dumps, for heaps too big to dump.

mod bitset;
pub mod class_trend;
mod cleared;
mod containers;
mod decode;
mod ignore;
mod names;
pub mod old_objects;
mod retained;
mod roots;
mod search;
mod tree;

pub use class_trend::{
    render_sample_trend_rows, render_trend_rows, ClassTrend, ClassTrendConfig,
    ClassTrendConfigError, MeasureTrend, TrendRow, OLD_OBJECT_MIN_SAMPLE_GROWTH,
};
pub use ignore::{IgnoreRule, RuleOrigin, KNOWN_JDK_GROWTH, KNOWN_LIBRARY_GROWTH};
pub use names::{NameId, Names};
pub use retained::{retained_sizes, Retained};
pub use roots::root_kind_name;
pub use search::{
    AwaitingCleanup, ChildGrowth, Confirmation, ConfirmationCut, GoneOnRetake, GrowingNode,
    GrowthKind, GrowthSearch, IgnoredPath, LeveledOff, LookLongerReason, LookedLonger, NextStep,
    NodeValues, PathStep, RetainedGrowth, SearchConfig, SearchOutcome, SnapshotValues,
    AMBIGUOUS_EXTRA_SNAPSHOTS, CONFIRMATION_LOOP_FACTOR, CONFIRMATION_SNAPSHOTS,
    DEFAULT_CONFIRM_LOOPS, DEFAULT_LOOPS_PER_SNAPSHOT, DEFAULT_MAX_SNAPSHOTS, DEFAULT_WARMUP_LOOPS,
    FEW_CHILDREN_PER_LOOP, MAX_SNAPSHOTS_PER_SEARCH, MIN_CONFIRMATION_GROWTH, REQUIRED_RECORDS,
};
pub use tree::{
    build as build_tree, simple_name, NodeId, NodeKey, ObjectNodes, PathTree, StepKind, TreeNode,
};

#[cfg(test)]
mod tests;
