//! Growth detection: path trees of snapshots, their diff, and retained sizes. Works on
//! [`crate::heap::HeapGraph`] only, so every rule is tested on synthetic heaps. [`class_trend`]
//! is the cheap gate before a dump: per-class counts over intervals, tested on synthetic series.
//! [`old_objects`] judges JFR old-object samples instead of dumps, for heaps too big to dump.

mod bitset;
pub mod class_trend;
mod cleared;
mod config;
mod containers;
mod decode;
mod decode_queue;
mod ignore;
mod key;
mod names;
pub mod old_objects;
mod outcome;
mod retained;
mod roots;
mod search;
mod series;
mod tree;

pub use class_trend::{
    render_sample_trend_rows, render_trend_rows, ClassTrend, ClassTrendConfig,
    ClassTrendConfigError, MeasureTrend, TrendRow, OLD_OBJECT_MIN_SAMPLE_GROWTH,
};
pub use config::{
    NextStep, SearchConfig, AMBIGUOUS_EXTRA_SNAPSHOTS, CONFIRMATION_LOOP_FACTOR,
    CONFIRMATION_SNAPSHOTS, DEFAULT_CONFIRM_LOOPS, DEFAULT_LOOPS_PER_SNAPSHOT,
    DEFAULT_MAX_SNAPSHOTS, DEFAULT_WARMUP_LOOPS, FEW_CHILDREN_PER_LOOP, MAX_SNAPSHOTS_PER_SEARCH,
    MIN_CONFIRMATION_GROWTH, REQUIRED_RECORDS,
};
pub use ignore::{IgnoreRule, RuleOrigin, KNOWN_JDK_GROWTH, KNOWN_LIBRARY_GROWTH};
pub use key::{NodeId, NodeKey, StepKind};
pub use names::{NameId, Names};
pub use outcome::{
    AwaitingCleanup, ChildGrowth, Confirmation, ConfirmationCut, GoneOnRetake, GrowingNode,
    IgnoredPath, LeveledOff, LookLongerReason, LookedLonger, PathStep, RetainedGrowth,
    SearchOutcome,
};
pub use retained::{retained_sizes, Retained};
pub use roots::root_kind_name;
pub use search::GrowthSearch;
pub use series::{GrowthKind, NodeValues, SnapshotValues};
pub use tree::{build as build_tree, simple_name, ObjectNodes, PathTree, TreeNode};

#[cfg(test)]
mod tests;
