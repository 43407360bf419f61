//! Growth judged from JFR old-object samples (`heapgrowth watch --jfr`), for the large-heap case:
//! heaps of hundreds of gigabytes that cannot be dumped (docs/architecture.md, Glossary). At each
//! dump of the recording, the samples still alive are grouped by class, by the reference path from
//! their GC root and by allocation stack; per-class sample counts feed a
//! [`ClassTrend`](super::ClassTrend) with the sample preset
//! ([`ClassTrendConfig::old_object_samples`]), and a class it selects is growing.
//! What the large-heap case taught: one long recording's 256 samples say little; counted per
//! interval and compared over time, they point at the leak.
//!
//! **Paths.** A sample's chain of referrers (object, field or array slot, object, ...) becomes
//! the reference-path form of the tree report ([`PathStep`]): `GcRoot(Class)`, then
//! `STATIC_FIELD Owner.field -> instance of X`, `INSTANCE_FIELD ...`, `ARRAY_ENTRY ...`, with
//! collections seen through their internals as the tree sees them (`ARRAY_ENTRY ArrayList.[x]`,
//! not `elementData -> Object[]`, by the same rules, matched by class name: a chain has no class
//! hierarchy) and a linked chain folded into one step. Where the tree names a field's declaring
//! class, a chain can only name the referring object's class. A static field's class comes from
//! its `java.lang.Class` object, and its root is `GcRoot(Class)` whichever root JFR happened to
//! reach that class object through first (a class's statics live as long as the class); a
//! thread's stack roots are `GcRoot(ThreadObject "name")` with a `LOCAL Thread.<frame>` step,
//! since JFR does not say which frame.
//!
//! **What is left out.** Samples allocated on the JVM's `Attach Listener` thread: that thread
//! runs heapgrowth's own requests, and its handle area keeps the strings of one `JFR.dump`
//! alive while the next runs, one more per dump, which would read as a slow leak. Samples on
//! a path an ignore rule matches, counted per rule as the tree report lists ignored growth.

use std::time::Duration;

use super::class_trend::{ClassTrendConfig, TrendRow};
use super::ignore::{IgnoreRule, RuleOrigin};
use super::key::StepKind;
use super::outcome::PathStep;
use crate::jfr::JfrFrame;

mod paths;
mod search;

pub use paths::sample_path;
pub use search::OldObjectSearch;

/// The thread whose samples are heapgrowth's own (see the module docs).
pub const ATTACH_LISTENER_THREAD: &str = "Attach Listener";
/// Paths shown per growing class: the ones whose samples rose most.
pub const MAX_PATHS_PER_CLASS: usize = 3;
/// Distinct allocation stacks kept per path, most frequent first.
pub const MAX_STACKS_PER_PATH: usize = 10;
/// Dumps that move the trend ([`DumpCounts::judged`]) before samples without growth read as
/// clean: the sample preset of the class trend evaluates a class from its fourth value
/// and selects it after a streak of three, so a leak seen from the first dump is selected at
/// the sixth at the earliest ([`ClassTrendConfig::values_to_select`]).
pub const MIN_DUMPS_TO_JUDGE: usize = 6;

/// Settings of an [`OldObjectSearch`].
#[derive(Clone, Debug)]
pub struct OldObjectConfig {
    /// The class-trend rule's thresholds.
    pub trend: ClassTrendConfig,
    /// Paths whose samples are not counted.
    pub ignore_rules: Vec<IgnoreRule>,
}

impl Default for OldObjectConfig {
    fn default() -> OldObjectConfig {
        OldObjectConfig {
            trend: ClassTrendConfig::old_object_samples(),
            ignore_rules: IgnoreRule::built_in(),
        }
    }
}

/// What one dump held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DumpCounts {
    /// The dump's time, nanoseconds since the Unix epoch.
    pub time: i64,
    /// Samples of the dump.
    pub samples: u64,
    /// Of those, heapgrowth's own (allocated on the attach listener thread).
    pub own: u64,
    /// Of those, on paths ignore rules matched.
    pub ignored: u64,
    /// Of those, without a path (JFR found none).
    pub without_path: u64,
    /// Whether this dump moved the trend: its samples are not those of the last dump that
    /// moved it, or heapgrowth ran a full collection since the dump before.
    /// JFR reports a sample only once a collection ran after its allocation, and drops it only
    /// when a collection finds its object dead: without a collection, a dump repeats the one
    /// before and tells the trend nothing.
    pub judged: bool,
}

impl DumpCounts {
    /// The samples counted in the trend.
    pub fn counted(&self) -> u64 {
        self.samples - self.own - self.ignored
    }
}

/// Youngest, median and oldest age of a group's samples at the last dump.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SampleAges {
    /// The youngest.
    pub youngest: Duration,
    /// The median.
    pub median: Duration,
    /// The oldest.
    pub oldest: Duration,
}

impl SampleAges {
    fn of(mut ages: Vec<Duration>) -> SampleAges {
        ages.sort();
        match (ages.first(), ages.last()) {
            (Some(&youngest), Some(&oldest)) => SampleAges {
                youngest,
                median: ages[ages.len() / 2],
                oldest,
            },
            _ => SampleAges::default(),
        }
    }
}

/// One allocation stack of a path's samples and how many samples have it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampledStack {
    /// Samples with this stack.
    pub samples: u64,
    /// Innermost first.
    pub frames: Vec<JfrFrame>,
    /// Whether the JVM cut the stack at its depth.
    pub truncated: bool,
}

/// The samples of a growing class on one path.
#[derive(Clone, Debug, PartialEq)]
pub struct SampledPath {
    /// From the root to the sampled objects; empty when JFR found no path for them.
    pub path: Vec<PathStep>,
    /// Samples on the path at each dump of the class's trend (as many values as the trend row
    /// has, oldest first).
    pub counts: Vec<u64>,
    /// Samples at the last dump.
    pub samples: u64,
    /// The most references JFR left out of one of these samples' chains (it keeps about 100 at
    /// each end of a longer one); 0 for whole chains.
    pub references_left_out: u64,
    /// Their ages at the last dump.
    pub ages: SampleAges,
    /// Their allocation stacks, most frequent first, at most [`MAX_STACKS_PER_PATH`].
    pub stacks: Vec<SampledStack>,
    /// The threads that allocated them, most samples first.
    pub threads: Vec<(String, u64)>,
}

/// A class the trend selected, with the paths of its samples.
#[derive(Clone, Debug, PartialEq)]
pub struct GrowingClass {
    /// Its trend (sample counts per dump).
    pub trend: TrendRow,
    /// Its paths whose samples rose most, at most [`MAX_PATHS_PER_CLASS`].
    pub paths: Vec<SampledPath>,
    /// Paths not shown, and their samples at the last dump.
    pub other_paths: (u64, u64),
}

/// A common path of survivors spread over the whole recording (see
/// [`OldObjectSearch::has_survivors`]), at the last dump.
#[derive(Clone, Debug, PartialEq)]
pub struct SurvivingPath {
    /// The samples below the path: its steps, stacks, ages and threads (`counts` is empty).
    pub sampled: SampledPath,
    /// All samples counted at the last dump, of which `sampled.samples` are below the path.
    pub of_samples: u64,
    /// The classes of the samples below it, most first.
    pub classes: Vec<(String, u64)>,
    /// Its samples in each quarter of the recording by allocation time, oldest first.
    pub quarters: [u64; SPREAD_BINS],
    /// The recording's length (to the youngest survivor) when first seen spread.
    pub first_window: Duration,
    /// The same when confirmed, at least [`SPREAD_CONFIRMATION_FACTOR`] times as long.
    pub confirmed_window: Duration,
}

impl SurvivingPath {
    /// The step that names where the survivors are held, the same from run to run: the last
    /// static field on the path, else its last step (the steps below it vary with what the
    /// samples happened to take).
    pub fn key_step(&self) -> String {
        let path = &self.sampled.path;
        path.iter()
            .rev()
            .find(|step| step.kind == StepKind::StaticField)
            .or(path.last())
            .map(PathStep::with_source)
            .unwrap_or_default()
    }

    /// The share of the last dump's samples below the path, in per cent.
    pub fn share_percent(&self) -> f64 {
        100.0 * self.sampled.samples as f64 / self.of_samples.max(1) as f64
    }
}

/// Parts of the recording (by allocation time) in each of which a path's survivors must have a
/// sample to be spread: a leak's survivors fill all four; a bound structure's, only those
/// within an entry's life.
pub const SPREAD_BINS: usize = 4;
/// The least share of a dump's samples a path's spread survivors must have: past a full queue
/// a leak holds most of it (200 to 250 of 256 on a service leaking 16 KiB a request); the
/// live part of a clean program's samples is spread over its long-lived structures.
pub const SPREAD_MIN_SHARE: f64 = 0.25;
/// The fewest survivors a path needs, as many as the sample trend's least rise
/// ([`super::class_trend::OLD_OBJECT_MIN_SAMPLE_GROWTH`]): fewer land in every quarter by
/// chance too readily.
pub const SPREAD_MIN_SAMPLES: usize = 8;
/// A path seen spread is confirmed when spread again at a dump whose recording is at least
/// this many times as long: a structure whose entries live less than three first windows no
/// longer fills the oldest quarter then (as `run` confirms growth over four times the loops:
/// a bound reached by half of them is seen to level off).
pub const SPREAD_CONFIRMATION_FACTOR: f64 = 4.0;
/// And at least this long: a first window of a second (`run --jfr`'s first dump) would let
/// entries that live four seconds pass for a leak.
pub const SPREAD_MIN_CONFIRMED_WINDOW: Duration = Duration::from_secs(10);

/// Samples an ignore rule kept out at the last dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoredSamples {
    /// The rule's pattern.
    pub pattern: String,
    /// Its reason.
    pub reason: String,
    /// Whose rule it is.
    pub origin: RuleOrigin,
    /// Samples it matched at the last dump.
    pub samples: u64,
}

/// What the samples show after the dumps so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OldObjectOutcome {
    /// Each dump's counts, oldest first.
    pub dumps: Vec<DumpCounts>,
    /// The classes selected at the last dump, strongest first.
    pub growing: Vec<GrowingClass>,
    /// The common paths of survivors spread over the recording, in the order confirmed: growth
    /// past a full queue, where counts stop rising.
    pub survivors: Vec<SurvivingPath>,
    /// Ignore rules that matched samples of the last dump.
    pub ignored: Vec<IgnoredSamples>,
    /// The user's rules that matched no sample's path at any dump (most often a misspelled
    /// field), in the order given.
    pub unmatched_rules: Vec<IgnoreRule>,
    /// Classes the trend has not decided on at the last dump ([`ClassTrend::undecided_rows`]):
    /// a watch that ends with one is not clean.
    ///
    /// [`ClassTrend::undecided_rows`]: crate::growth::class_trend::ClassTrend::undecided_rows
    pub undecided: Vec<TrendRow>,
}

impl OldObjectOutcome {
    /// The dumps that moved the trend ([`DumpCounts::judged`]).
    pub fn judged_dumps(&self) -> usize {
        self.dumps.iter().filter(|dump| dump.judged).count()
    }
}

#[cfg(test)]
mod tests;
