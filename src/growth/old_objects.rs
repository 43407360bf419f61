//! Growth judged from JFR old-object samples (`heapgrowth watch --jfr`, seed 003): at each dump
//! of the recording, the samples still alive are grouped by class, by the reference path from
//! their GC root and by allocation stack; per-class sample counts feed a [`ClassTrend`] with the
//! sample preset ([`ClassTrendConfig::old_object_samples`]), and a class it selects is growing.
//! The seed's lesson: one long recording's 256 samples say little; counted per interval and
//! compared over time, they point at the leak.
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

use std::collections::HashMap;
use std::time::Duration;

use super::class_trend::{ClassTrend, ClassTrendConfig, ClassTrendConfigError, TrendRow};
use super::containers::{entry_fields_by_name, is_internal_class_name, keys_are_elements_by_name};
use super::ignore::{IgnoreRule, RuleOrigin};
use super::roots::thread_name_pattern;
use super::search::PathStep;
use super::tree::StepKind;
use crate::class_name::stable_class_name;
use crate::jfr::{ChainObject, JfrFrame, OldObjectSample, SampleDump, SampleRoot, Via};

/// The thread whose samples are heapgrowth's own (see the module docs).
pub const ATTACH_LISTENER_THREAD: &str = "Attach Listener";
/// Paths shown per growing class: the ones whose samples rose most.
pub const MAX_PATHS_PER_CLASS: usize = 3;
/// Distinct allocation stacks kept per path, most frequent first.
pub const MAX_STACKS_PER_PATH: usize = 10;
/// Dumps before samples without growth read as clean: the sample preset of the class trend
/// evaluates a class from its fourth value and selects it after a streak of three, so a leak
/// seen from the first dump is selected at the sixth at the earliest
/// ([`ClassTrendConfig::values_to_select`]).
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
/// A spread path's child that holds this share of its samples is followed: the common path
/// goes as deep as most of the survivors go together.
const COMMON_PATH_SHARE: f64 = 0.8;

/// The quarter of `[start, end]` that `time` falls in.
fn bin(time: i64, start: i64, end: i64) -> usize {
    let span = (end - start).max(1) as f64;
    let at = ((time - start) as f64 / span * SPREAD_BINS as f64).floor();
    (at.max(0.0) as usize).min(SPREAD_BINS - 1)
}

/// The common paths of `samples` whose survivors are spread over `[start, end]`: for every
/// path prefix past the root, the samples below it; those with [`SPREAD_MIN_SHARE`] of all
/// and [`SPREAD_MIN_SAMPLES`] that fill every quarter are spread; of those, the ones no
/// spread child takes [`COMMON_PATH_SHARE`] of (where the survivors part ways) and no
/// spread ancestor is chosen before (the top-most such place). A step to a
/// `java.lang.Class` is never where they part: JFR may reach a class's statics through a
/// class loader's list of classes.
fn spread_paths(samples: &[Kept], start: i64, end: i64) -> Vec<Vec<PathStep>> {
    let mut below: HashMap<&[PathStep], (usize, [u64; SPREAD_BINS])> = HashMap::new();
    for sample in samples {
        let quarter = bin(sample.allocated, start, end);
        for depth in 2..=sample.path.len() {
            let entry = below.entry(&sample.path[..depth]).or_default();
            entry.0 += 1;
            entry.1[quarter] += 1;
        }
    }
    let least = (SPREAD_MIN_SHARE * samples.len() as f64)
        .ceil()
        .max(SPREAD_MIN_SAMPLES as f64) as usize;
    let spread: HashMap<&[PathStep], usize> = below
        .into_iter()
        .filter(|(_, (n, quarters))| *n >= least && quarters.iter().all(|&q| q > 0))
        .map(|(prefix, (n, _))| (prefix, n))
        .collect();
    let parts_ways = |prefix: &[PathStep], n: usize| {
        let is_class = prefix
            .last()
            .is_some_and(|step| step.target == "java.lang.Class");
        !is_class
            && !spread.iter().any(|(child, &m)| {
                child.len() == prefix.len() + 1
                    && child.starts_with(prefix)
                    && m as f64 >= COMMON_PATH_SHARE * n as f64
            })
    };
    let places: Vec<&[PathStep]> = spread
        .iter()
        .filter(|(prefix, &n)| parts_ways(prefix, n))
        .map(|(prefix, _)| *prefix)
        .collect();
    let mut chosen: Vec<Vec<PathStep>> = places
        .iter()
        .filter(|prefix| {
            !places
                .iter()
                .any(|other| other.len() < prefix.len() && prefix.starts_with(other))
        })
        .map(|prefix| prefix.to_vec())
        .collect();
    chosen.sort_by_key(|path| path_text(path));
    chosen
}

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
}

/// A sample as the search keeps it.
#[derive(Clone, Debug)]
struct Kept {
    class: String,
    path: Vec<PathStep>,
    /// Allocation time, nanoseconds since the Unix epoch.
    allocated: i64,
    left_out: u64,
    age: Duration,
    thread: Option<String>,
    stack: Vec<JfrFrame>,
    truncated: bool,
}

/// Sample counts per dump, judged with the class-trend rule (see the module docs).
#[derive(Debug)]
pub struct OldObjectSearch {
    trend: ClassTrend,
    rules: Vec<IgnoreRule>,
    dumps: Vec<DumpCounts>,
    /// Per (class, path): samples at each dump so far (index = dump).
    paths: HashMap<(String, Vec<PathStep>), Vec<u64>>,
    /// The last dump's counted samples.
    latest: Vec<Kept>,
    /// The last dump's ignored samples per rule (index into `rules`).
    latest_ignored: Vec<u64>,
    /// Per rule: whether it matched a sample's path at any dump.
    matched: Vec<bool>,
    /// When the recording started (nanoseconds since the Unix epoch): samples are allocated
    /// after it. Until told, the oldest allocation of the first dump.
    start: Option<i64>,
    /// Per common path of spread survivors: the window (nanoseconds from `start`) of the dump
    /// at which it was first seen spread.
    spread_since: HashMap<Vec<PathStep>, i64>,
    /// Common paths confirmed: spread again at a dump with a window at least
    /// [`SPREAD_CONFIRMATION_FACTOR`] times the first; with both windows, in order found.
    survivors: Vec<(Vec<PathStep>, i64, i64)>,
}

impl OldObjectSearch {
    /// A search with no dump yet.
    pub fn new(config: OldObjectConfig) -> Result<OldObjectSearch, ClassTrendConfigError> {
        Ok(OldObjectSearch {
            trend: ClassTrend::new(config.trend)?,
            latest_ignored: vec![0; config.ignore_rules.len()],
            matched: vec![false; config.ignore_rules.len()],
            rules: config.ignore_rules,
            dumps: Vec::new(),
            paths: HashMap::new(),
            latest: Vec::new(),
            start: None,
            spread_since: HashMap::new(),
            survivors: Vec::new(),
        })
    }

    /// Tells the search when the recording started (nanoseconds since the Unix epoch), the
    /// start of the window over which survivors must be spread.
    pub fn recording_started(&mut self, time: i64) {
        self.start = Some(time);
    }

    /// Folds in one dump's samples and returns its counts.
    pub fn observe(&mut self, dump: &SampleDump) -> DumpCounts {
        let mut counts = DumpCounts {
            time: dump.time,
            samples: dump.samples.len() as u64,
            ..DumpCounts::default()
        };
        let mut kept = Vec::new();
        self.latest_ignored.iter_mut().for_each(|n| *n = 0);
        for sample in &dump.samples {
            if sample.thread.as_deref() == Some(ATTACH_LISTENER_THREAD) {
                counts.own += 1;
                continue;
            }
            let (path, left_out) = sample_path(sample);
            let mut ignored_by = None;
            for (index, rule) in self.rules.iter().enumerate() {
                if matches(rule, &path) {
                    self.matched[index] = true;
                    ignored_by = ignored_by.or(Some(index));
                }
            }
            if let Some(rule) = ignored_by {
                counts.ignored += 1;
                self.latest_ignored[rule] += 1;
                continue;
            }
            if path.is_empty() {
                counts.without_path += 1;
            }
            kept.push(Kept {
                class: stable_class_name(&sample.object.class).into_owned(),
                path,
                allocated: sample.allocation_time,
                left_out,
                age: sample.age,
                thread: sample.thread.clone(),
                stack: sample.stack.clone(),
                truncated: sample.stack_truncated,
            });
        }
        let dump_index = self.dumps.len();
        let mut per_class: HashMap<&str, u64> = HashMap::new();
        for sample in &kept {
            *per_class.entry(&sample.class).or_default() += 1;
            let history = self
                .paths
                .entry((sample.class.clone(), sample.path.clone()))
                .or_default();
            history.resize(dump_index + 1, 0);
            history[dump_index] += 1;
        }
        // Bytes 0 and no heap floor: see ClassTrendConfig::old_object_samples.
        self.trend
            .observe(per_class.into_iter().map(|(class, n)| (class, n, 0)), 0);
        self.dumps.push(counts);
        self.latest = kept;
        self.judge_spread();
        counts
    }

    /// Past a full queue the counts stop rising exactly when a leak dominates it: JFR then
    /// replaces samples by allocation span, and the survivors of a leak are spread over the
    /// whole recording. So at each dump, the paths whose survivors are (1) a share of the
    /// samples, (2) allocated in every quarter of the recording so far, and (3) still so at a
    /// dump with a window four times as long (and of ten seconds at least), are growth whatever the counts do. A bounded cache
    /// keeps only what it added lately: its oldest quarter empties once the recording is
    /// longer than an entry lives (seed 003: let the collector remove what dies, then read
    /// what remains and where it hangs).
    fn judge_spread(&mut self) {
        let Some(start) = self
            .start
            .or_else(|| self.latest.iter().map(|s| s.allocated).min())
        else {
            return;
        };
        self.start = Some(start);
        // The youngest survivor stands for the last collection: what came after is not
        // reported yet, so the window ends there.
        let Some(end) = self.latest.iter().map(|s| s.allocated).max() else {
            return;
        };
        let window = end - start;
        if window <= 0 {
            return;
        }
        // A dump that misses a path is no reason to start over: the confirming dump's window
        // is what tells a bound from a leak, and JFR's queue can come back short for a dump.
        for prefix in spread_paths(&self.latest, start, end) {
            let first = *self.spread_since.entry(prefix.clone()).or_insert(window);
            let confirmed = window as f64 >= first as f64 * SPREAD_CONFIRMATION_FACTOR
                && window >= SPREAD_MIN_CONFIRMED_WINDOW.as_nanos() as i64;
            if confirmed && !self.survivors.iter().any(|(path, ..)| *path == prefix) {
                self.survivors.push((prefix, first, window));
            }
        }
    }

    /// Whether a common path of spread survivors has been confirmed.
    pub fn has_survivors(&self) -> bool {
        !self.survivors.is_empty()
    }

    /// The classes selected now, strongest first.
    pub fn selected_classes(&self) -> Vec<&str> {
        self.trend.selected_classes()
    }

    /// The trend rows of the classes selected now.
    pub fn selected_rows(&self) -> Vec<TrendRow> {
        self.trend.selected_rows()
    }

    /// The growing classes (those selected at the last dump) with their paths, stacks and ages.
    pub fn outcome(&self) -> OldObjectOutcome {
        let dumps = self.dumps.len();
        let growing = self
            .trend
            .selected_rows()
            .into_iter()
            .map(|trend| self.growing_class(trend, dumps))
            .collect();
        let ignored = self
            .rules
            .iter()
            .zip(&self.latest_ignored)
            .filter(|(_, &samples)| samples > 0)
            .map(|(rule, &samples)| IgnoredSamples {
                pattern: rule.pattern.clone(),
                reason: rule.reason.clone(),
                origin: rule.origin.clone(),
                samples,
            })
            .collect();
        let unmatched_rules = self
            .rules
            .iter()
            .zip(&self.matched)
            .filter(|(rule, &matched)| !matched && !rule.origin.is_built_in())
            .map(|(rule, _)| rule.clone())
            .collect();
        let survivors = self
            .survivors
            .iter()
            .map(|(prefix, first, confirmed)| self.surviving_path(prefix, *first, *confirmed))
            .collect();
        OldObjectOutcome {
            dumps: self.dumps.clone(),
            growing,
            survivors,
            ignored,
            unmatched_rules,
        }
    }

    fn surviving_path(&self, prefix: &[PathStep], first: i64, confirmed: i64) -> SurvivingPath {
        let below = |s: &Kept| s.path.starts_with(prefix);
        let counted = self.latest.len() as u64;
        let mut classes: HashMap<&str, u64> = HashMap::new();
        let mut quarters = [0u64; SPREAD_BINS];
        let start = self.start.unwrap_or(0);
        let end = self
            .latest
            .iter()
            .map(|s| s.allocated)
            .max()
            .unwrap_or(start);
        for sample in self.latest.iter().filter(|s| below(s)) {
            *classes.entry(&sample.class).or_default() += 1;
            quarters[bin(sample.allocated, start, end)] += 1;
        }
        let mut classes: Vec<(String, u64)> = classes
            .into_iter()
            .map(|(class, n)| (class.to_owned(), n))
            .collect();
        classes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let sampled = self.sampled_where(prefix, Vec::new(), below);
        SurvivingPath {
            of_samples: counted,
            classes,
            quarters,
            first_window: Duration::from_nanos(first.max(0) as u64),
            confirmed_window: Duration::from_nanos(confirmed.max(0) as u64),
            sampled,
        }
    }

    fn growing_class(&self, trend: TrendRow, dumps: usize) -> GrowingClass {
        let window = trend.instances.values.len();
        let mut paths: Vec<(i64, SampledPath)> = self
            .paths
            .iter()
            .filter(|((class, _), _)| *class == trend.class)
            .filter_map(|((class, path), history)| {
                let counts: Vec<u64> = (dumps - window..dumps)
                    .map(|d| history.get(d).copied().unwrap_or(0))
                    .collect();
                let samples = *counts.last()?;
                if samples == 0 {
                    return None;
                }
                let rise = samples as i64 - counts[0] as i64;
                Some((rise, self.sampled_path(class, path, counts)))
            })
            .collect();
        // Most risen first; ties by samples, then by path text so the order never depends on
        // hashing.
        paths.sort_by(|(a_rise, a), (b_rise, b)| {
            b_rise
                .cmp(a_rise)
                .then(b.samples.cmp(&a.samples))
                .then_with(|| path_text(&a.path).cmp(&path_text(&b.path)))
        });
        let risen = paths.iter().filter(|(rise, _)| *rise > 0).count();
        let shown = risen.clamp(1, MAX_PATHS_PER_CLASS).min(paths.len());
        let others = &paths[shown..];
        let other_paths = (
            others.len() as u64,
            others.iter().map(|(_, p)| p.samples).sum(),
        );
        GrowingClass {
            trend,
            paths: paths.into_iter().take(shown).map(|(_, p)| p).collect(),
            other_paths,
        }
    }

    fn sampled_path(&self, class: &str, path: &[PathStep], counts: Vec<u64>) -> SampledPath {
        self.sampled_where(path, counts, |s| s.class == class && s.path == path)
    }

    /// The samples of the last dump that `keep` keeps, as found on `path`.
    fn sampled_where(
        &self,
        path: &[PathStep],
        counts: Vec<u64>,
        keep: impl Fn(&Kept) -> bool,
    ) -> SampledPath {
        let samples: Vec<&Kept> = self.latest.iter().filter(|s| keep(s)).collect();
        let mut stacks: HashMap<(&[JfrFrame], bool), u64> = HashMap::new();
        let mut threads: HashMap<&str, u64> = HashMap::new();
        for sample in &samples {
            *stacks.entry((&sample.stack, sample.truncated)).or_default() += 1;
            *threads
                .entry(sample.thread.as_deref().unwrap_or("?"))
                .or_default() += 1;
        }
        let mut stacks: Vec<SampledStack> = stacks
            .into_iter()
            .map(|((frames, truncated), samples)| SampledStack {
                samples,
                frames: frames.to_vec(),
                truncated,
            })
            .collect();
        stacks.sort_by(|a, b| {
            b.samples
                .cmp(&a.samples)
                .then_with(|| frames_key(&a.frames).cmp(&frames_key(&b.frames)))
        });
        stacks.truncate(MAX_STACKS_PER_PATH);
        let mut threads: Vec<(String, u64)> = threads
            .into_iter()
            .map(|(name, n)| (name.to_owned(), n))
            .collect();
        threads.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        SampledPath {
            path: path.to_vec(),
            samples: samples.len() as u64,
            counts,
            references_left_out: samples.iter().map(|s| s.left_out).max().unwrap_or(0),
            ages: SampleAges::of(samples.iter().map(|s| s.age).collect()),
            stacks,
            threads,
        }
    }
}

fn path_text(path: &[PathStep]) -> Vec<String> {
    path.iter().map(PathStep::with_source).collect()
}

fn frames_key(frames: &[JfrFrame]) -> Vec<(&str, &str, Option<i32>)> {
    frames
        .iter()
        .map(|f| (f.class.as_str(), f.method.as_str(), f.line))
        .collect()
}

/// Whether `rule` matches a step of `path` (a rule covers everything below the step).
fn matches(rule: &IgnoreRule, path: &[PathStep]) -> bool {
    path.iter().any(|step| match step.kind {
        StepKind::GcRoot => rule.matches_root(&step.name, &step.target),
        _ => rule.matches_location(&step.owner, &step.name),
    })
}

fn step(kind: StepKind, owner: &str, name: &str, target: &str) -> PathStep {
    PathStep {
        kind,
        owner: stable_class_name(owner).into_owned(),
        name: name.to_owned(),
        target: stable_class_name(target).into_owned(),
        objects: 0,
        source: String::new(),
    }
}

fn root_step(name: &str, thread: Option<&str>) -> PathStep {
    PathStep {
        kind: StepKind::GcRoot,
        owner: String::new(),
        name: name.to_owned(),
        target: thread.map(thread_name_pattern).unwrap_or_default(),
        objects: 0,
        source: String::new(),
    }
}

/// The steps a sample's chain starts with: the root group and, for a thread's stack roots, the
/// `LOCAL` step to the outermost object. `outermost` is the object the root references;
/// `first` how it references the next one (if any).
fn root_steps(root: &SampleRoot, outermost: &ChainObject) -> Vec<PathStep> {
    let thread = root.thread_name();
    let local = |what: &str| step(StepKind::Local, "java.lang.Thread", what, &outermost.class);
    match (root.system.as_str(), root.kind.as_str()) {
        ("Threads", "Stack Variable") => vec![root_step("ThreadObject", thread), local("<frame>")],
        ("Threads", "Local JNI Handle") => {
            vec![root_step("ThreadObject", thread), local("<JNI local>")]
        }
        ("Threads", _) => vec![root_step("ThreadObject", thread), local("<VM handle>")],
        ("Class Loader Data", _) => vec![root_step("Class", None)],
        ("Global JNI Handles", _) => vec![root_step("JniGlobal", None)],
        ("Object Monitor", _) => vec![root_step("MonitorUsed", None)],
        ("Universe", _) => vec![root_step("VmInternal", None)],
        (system, _) => vec![root_step(&system.replace(' ', ""), None)],
    }
}

/// The path of a sample in the tree report's form (see the module docs), and the most
/// references JFR left out of its chain. Empty when the dump found no path.
pub fn sample_path(sample: &OldObjectSample) -> (Vec<PathStep>, u64) {
    let Some(root) = &sample.root else {
        return (Vec::new(), 0);
    };
    // Objects from the outermost (the one a root references) in to the sample, and how each
    // references the next one in.
    let objects: Vec<&ChainObject> = sample
        .referrers
        .iter()
        .rev()
        .map(|r| &r.object)
        .chain(std::iter::once(&sample.object))
        .collect();
    let links: Vec<&Via> = sample.referrers.iter().rev().map(|r| &r.via).collect();
    let left_out = sample.referrers.iter().map(|r| r.skipped).sum();

    let outermost = objects[0];
    let static_first = matches!(
        links.first(),
        Some(Via::Field {
            is_static: true,
            ..
        })
    ) && outermost.class_object_name().is_some();
    let mut steps = if static_first {
        // A class's statics live as long as the class: heapgrowth's root for them.
        vec![root_step("Class", None)]
    } else {
        root_steps(root, outermost)
    };
    // Inside a collection: its class, and whether its map keys are its elements.
    let mut container: Option<(&str, bool)> = None;
    for (index, via) in links.iter().enumerate() {
        let (from, to) = (objects[index], objects[index + 1]);
        let field = match via {
            Via::Field { name, .. } => Some(name.as_str()),
            _ => None,
        };
        if let Some((collection, keys_are_elements)) = container {
            let nested_rule = field.is_some_and(|name| {
                entry_fields_by_name(&from.class).is_some_and(|fields| fields.contains(&name))
            });
            if is_internal_class_name(&to.class) || nested_rule {
                continue;
            }
            let name = match field {
                Some("key") if !keys_are_elements => "[key]",
                _ => "[x]",
            };
            steps.push(step(StepKind::ArrayEntry, collection, name, &to.class));
            container = None;
            continue;
        }
        let enters = field.is_some_and(|name| {
            entry_fields_by_name(&from.class).is_some_and(|fields| fields.contains(&name))
                || is_internal_class_name(&to.class)
        });
        if enters {
            container = Some((&from.class, keys_are_elements_by_name(&from.class)));
            continue;
        }
        let next = match via {
            Via::Field {
                name,
                is_static: true,
            } => {
                let owner = from.class_object_name().unwrap_or(&from.class);
                step(StepKind::StaticField, owner, name, &to.class)
            }
            Via::Field { name, .. } => step(StepKind::InstanceField, &from.class, name, &to.class),
            Via::ArrayElement { .. } => step(StepKind::ArrayEntry, &from.class, "[x]", &to.class),
            Via::Unknown => step(StepKind::InstanceField, &from.class, "<unknown>", &to.class),
        };
        // A linked chain (`Node.next -> Node` again and again) is one step, as in the tree.
        if steps.last() != Some(&next) {
            steps.push(next);
        }
    }
    (steps, left_out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jfr::Referrer;

    /// A sample builder: the sampled object's class, then its referrers from the nearest out.
    struct Chain {
        sample: OldObjectSample,
    }

    fn object(class: &str) -> ChainObject {
        ChainObject {
            class: class.into(),
            description: None,
            array_length: None,
        }
    }

    fn class_object(name: &str) -> ChainObject {
        ChainObject {
            class: "java.lang.Class".into(),
            description: Some(format!("Class Name: {name}")),
            array_length: None,
        }
    }

    fn field(name: &str) -> Via {
        Via::Field {
            name: name.into(),
            is_static: false,
        }
    }

    fn static_field(name: &str) -> Via {
        Via::Field {
            name: name.into(),
            is_static: true,
        }
    }

    fn slot() -> Via {
        Via::ArrayElement { index: 3 }
    }

    fn main_stack() -> SampleRoot {
        SampleRoot {
            system: "Threads".into(),
            kind: "Stack Variable".into(),
            description: Some("Thread Name: main".into()),
        }
    }

    fn frame(class: &str, method: &str, line: i32) -> JfrFrame {
        JfrFrame {
            class: class.into(),
            method: method.into(),
            line: Some(line),
            loader: Some("app".into()),
            module_location: None,
        }
    }

    impl Chain {
        fn of(class: &str) -> Chain {
            Chain {
                sample: OldObjectSample {
                    dump_time: 10_000_000_000,
                    allocation_time: 5_000_000_000,
                    age: Duration::from_secs(5),
                    heap_used_at_last_gc: 0,
                    object: object(class),
                    referrers: Vec::new(),
                    root: Some(main_stack()),
                    thread: Some("main".into()),
                    stack: vec![frame("app.Service", "leak", 30)],
                    stack_truncated: false,
                },
            }
        }

        fn from(mut self, via: Via, object: ChainObject) -> Chain {
            self.sample.referrers.push(Referrer {
                via,
                object,
                skipped: 0,
            });
            self
        }

        fn root(mut self, root: Option<SampleRoot>) -> Chain {
            self.sample.root = root;
            self
        }

        fn thread(mut self, name: &str) -> Chain {
            self.sample.thread = Some(name.into());
            self
        }

        fn at(mut self, line: i32, age_seconds: u64) -> Chain {
            self.sample.stack = vec![frame("app.Service", "leak", line)];
            self.sample.age = Duration::from_secs(age_seconds);
            self
        }

        fn texts(&self) -> Vec<String> {
            path_text(&sample_path(&self.sample).0)
        }
    }

    /// A session's payload in `static List<Session> SESSIONS` (an `ArrayList`).
    fn leaked_payload() -> Chain {
        Chain::of("byte[]")
            .from(field("payload"), object("app.Service$Session"))
            .from(slot(), object("java.lang.Object[]"))
            .from(field("elementData"), object("java.util.ArrayList"))
            .from(static_field("SESSIONS"), class_object("app.Service"))
    }

    #[test]
    fn a_static_list_is_seen_through_its_internals_from_the_class_root() {
        assert_eq!(
            leaked_payload().texts(),
            [
                "GcRoot(Class)",
                "STATIC_FIELD Service.SESSIONS -> instance of java.util.ArrayList",
                "ARRAY_ENTRY ArrayList.[x] -> instance of app.Service$Session",
                "INSTANCE_FIELD Service$Session.payload -> instance of byte[]",
            ]
        );
    }

    #[test]
    fn map_values_keys_and_set_elements_are_entries_of_their_collection() {
        let map = |via_entry: Via| {
            Chain::of("app.Value")
                .from(via_entry, object("java.util.HashMap$Node"))
                .from(field("next"), object("java.util.HashMap$Node"))
                .from(slot(), object("java.util.HashMap$Node[]"))
                .from(field("table"), object("java.util.LinkedHashMap"))
                .from(field("cache"), object("app.Registry"))
                .from(static_field("INSTANCE"), class_object("app.Registry"))
                .texts()
        };
        assert_eq!(
            map(field("value"))[2..],
            [
                "INSTANCE_FIELD Registry.cache -> instance of java.util.LinkedHashMap",
                "ARRAY_ENTRY LinkedHashMap.[x] -> instance of app.Value"
            ]
        );
        assert_eq!(
            map(field("key")).last().unwrap(),
            "ARRAY_ENTRY LinkedHashMap.[key] -> instance of app.Value"
        );
        let set = Chain::of("app.Listener")
            .from(field("key"), object("java.util.HashMap$Node"))
            .from(slot(), object("java.util.HashMap$Node[]"))
            .from(field("table"), object("java.util.HashMap"))
            .from(field("map"), object("java.util.HashSet"))
            .from(static_field("LISTENERS"), class_object("app.Bus"))
            .texts();
        assert_eq!(
            set[1..],
            [
                "STATIC_FIELD Bus.LISTENERS -> instance of java.util.HashSet",
                "ARRAY_ENTRY HashSet.[x] -> instance of app.Listener"
            ]
        );
    }

    #[test]
    fn a_user_subclass_of_a_map_is_seen_through_by_its_internal_classes() {
        let texts = Chain::of("app.Value")
            .from(field("value"), object("java.util.HashMap$Node"))
            .from(slot(), object("java.util.HashMap$Node[]"))
            .from(field("table"), object("app.MyMap"))
            .from(static_field("MAP"), class_object("app.Holder"))
            .texts();
        assert_eq!(
            texts.last().unwrap(),
            "ARRAY_ENTRY MyMap.[x] -> instance of app.Value"
        );
    }

    #[test]
    fn a_linked_chain_folds_into_one_step_and_a_plain_array_is_an_array_entry() {
        let texts = Chain::of("app.Node")
            .from(field("next"), object("app.Node"))
            .from(field("next"), object("app.Node"))
            .from(field("next"), object("app.Node"))
            .from(field("head"), object("app.Queue"))
            .from(slot(), object("app.Queue[]"))
            .from(static_field("QUEUES"), class_object("app.Pool"))
            .texts();
        assert_eq!(
            texts,
            [
                "GcRoot(Class)",
                "STATIC_FIELD Pool.QUEUES -> instance of app.Queue[]",
                "ARRAY_ENTRY Queue[].[x] -> instance of app.Queue",
                "INSTANCE_FIELD Queue.head -> instance of app.Node",
                "INSTANCE_FIELD Node.next -> instance of app.Node",
            ]
        );
    }

    #[test]
    fn stack_roots_are_the_threads_and_no_root_is_no_path() {
        let texts = Chain::of("app.Item")
            .from(slot(), object("java.lang.Object[]"))
            .from(field("elementData"), object("java.util.ArrayList"))
            .root(Some(SampleRoot {
                system: "Threads".into(),
                kind: "Stack Variable".into(),
                description: Some("Thread Name: worker-12".into()),
            }))
            .texts();
        assert_eq!(
            texts,
            [
                "GcRoot(ThreadObject \"worker-*\")",
                "LOCAL Thread.<frame> -> instance of java.util.ArrayList",
                "ARRAY_ENTRY ArrayList.[x] -> instance of app.Item",
            ]
        );
        assert!(Chain::of("app.Item").root(None).texts().is_empty());
        let jni = Chain::of("app.Item")
            .root(Some(SampleRoot {
                system: "Global JNI Handles".into(),
                kind: "Global JNI Handle".into(),
                description: None,
            }))
            .texts();
        assert_eq!(jni, ["GcRoot(JniGlobal)"]);
    }

    #[test]
    fn lambda_class_names_lose_their_address() {
        let texts = Chain::of("app.Bus$$Lambda$14/0x0000000800c03000")
            .from(slot(), object("java.lang.Object[]"))
            .from(field("elementData"), object("java.util.ArrayList"))
            .from(static_field("HANDLERS"), class_object("app.Bus"))
            .texts();
        assert_eq!(
            texts.last().unwrap(),
            "ARRAY_ENTRY ArrayList.[x] -> instance of app.Bus$$Lambda"
        );
    }

    fn dump(time: i64, samples: Vec<OldObjectSample>) -> SampleDump {
        SampleDump {
            time,
            samples,
            earlier: 0,
            file_bytes: 0,
        }
    }

    /// `leaked` payloads (alternating between two allocating lines) and `level` samples of a
    /// cache that does not grow, plus one sample of heapgrowth's own.
    fn service_dump(t: i64, leaked: u64, level: u64) -> SampleDump {
        let mut samples: Vec<OldObjectSample> = (0..leaked)
            .map(|i| {
                leaked_payload()
                    .at(if i % 3 == 0 { 31 } else { 30 }, i + 1)
                    .sample
            })
            .collect();
        samples.extend((0..level).map(|_| {
            Chain::of("byte[]")
                .from(slot(), object("java.lang.Object[]"))
                .from(field("elementData"), object("java.util.ArrayList"))
                .from(static_field("RECENT"), class_object("app.Cache"))
                .at(50, 1)
                .sample
        }));
        samples.push(
            Chain::of("java.lang.String")
                .thread("Attach Listener")
                .sample,
        );
        dump(t, samples)
    }

    #[test]
    fn a_leaking_path_is_found_through_its_class_with_stacks_and_ages() {
        let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
        let mut first_selected = None;
        for t in 0..10 {
            let counts = search.observe(&service_dump(t, 10 * t as u64, 12));
            assert_eq!((counts.own, counts.counted()), (1, 10 * t as u64 + 12));
            if first_selected.is_none() && !search.selected_classes().is_empty() {
                first_selected = Some(t);
            }
        }
        // byte[] holds 12 samples from the first dump: tracked from it, evaluated from the
        // fourth, selected after the streak of three.
        assert_eq!(first_selected, Some(5));
        let outcome = search.outcome();
        assert_eq!(outcome.dumps.len(), 10);
        let [class] = &outcome.growing[..] else {
            panic!("{:?}", outcome.growing)
        };
        assert_eq!(class.trend.class, "byte[]");
        // The leaking path first; the cache's flat path is left out (it did not rise).
        let [path] = &class.paths[..] else {
            panic!("{:?}", class.paths)
        };
        assert_eq!(
            path_text(&path.path)[1],
            "STATIC_FIELD Service.SESSIONS -> instance of java.util.ArrayList"
        );
        assert_eq!(class.other_paths, (1, 12));
        assert_eq!(path.samples, 90);
        assert_eq!(path.counts, (0..10).map(|t| 10 * t).collect::<Vec<u64>>());
        assert_eq!(
            path.stacks
                .iter()
                .map(|s| (s.samples, s.frames[0].line))
                .collect::<Vec<_>>(),
            [(60, Some(30)), (30, Some(31))]
        );
        assert_eq!(
            path.ages,
            SampleAges {
                youngest: Duration::from_secs(1),
                median: Duration::from_secs(46),
                oldest: Duration::from_secs(90),
            }
        );
        assert_eq!(path.threads, [("main".to_owned(), 90)]);
    }

    /// A dump at second `t` of a recording started at 0 whose queue is full: `leaked`
    /// payloads allocated evenly over the whole recording, and `cached` entries of a bounded
    /// cache that keeps each for `cache_life` seconds (allocated evenly within the last
    /// `cache_life`), none of them rising in number.
    fn saturated_dump(t: i64, leaked: u64, cached: u64, cache_life: f64) -> SampleDump {
        let second = 1_000_000_000i64;
        let at = |fraction: f64| (fraction * t as f64 * second as f64) as i64;
        let mut samples: Vec<OldObjectSample> = (0..leaked)
            .map(|i| {
                let mut sample = leaked_payload().at(30, 1).sample;
                sample.allocation_time = at((i as f64 + 0.5) / leaked as f64);
                sample
            })
            .collect();
        samples.extend((0..cached).map(|i| {
            let mut sample = Chain::of("byte[]")
                .from(slot(), object("java.lang.Object[]"))
                .from(field("elementData"), object("java.util.ArrayList"))
                .from(static_field("RECENT"), class_object("app.Cache"))
                .at(50, 1)
                .sample;
            let life = cache_life.min(t as f64);
            sample.allocation_time =
                at(1.0) - (life * second as f64 * (i as f64 + 0.5) / cached as f64) as i64;
            sample
        }));
        dump(t * second, samples)
    }

    #[test]
    fn past_a_full_queue_a_leak_is_its_survivors_spread_over_the_recording() {
        let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
        search.recording_started(0);
        let mut found = None;
        for t in 1..=12 {
            // The queue stays full: the same counts at every dump, so no trend can rise.
            search.observe(&saturated_dump(t, 200, 56, 3.0));
            assert!(search.selected_classes().is_empty(), "dump {t}");
            if found.is_none() && search.has_survivors() {
                found = Some(t);
            }
        }
        // Spread from the first dump (window 1 s), confirmed at a window four times as long
        // and of 10 s at least: the youngest survivor ends the window, just before the tenth
        // second's dump, so at the eleventh.
        assert_eq!(found, Some(11));
        let outcome = search.outcome();
        let [survivors] = &outcome.survivors[..] else {
            panic!("{:?}", outcome.survivors)
        };
        assert_eq!(
            survivors.key_step(),
            "STATIC_FIELD Service.SESSIONS -> instance of java.util.ArrayList"
        );
        // The common path goes down to the sessions, where payloads and sessions part ways.
        assert_eq!(
            path_text(&survivors.sampled.path).last().unwrap(),
            "INSTANCE_FIELD Service$Session.payload -> instance of byte[]"
        );
        assert_eq!(
            (survivors.sampled.samples, survivors.of_samples),
            (200, 256)
        );
        assert_eq!(survivors.quarters, [50, 50, 50, 50]);
        assert_eq!(survivors.classes, [("byte[]".to_owned(), 200)]);
        assert_eq!(survivors.sampled.stacks[0].frames[0].line, Some(30));
    }

    #[test]
    fn a_bounded_cache_whose_entries_die_is_never_spread_past_their_life() {
        let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
        search.recording_started(0);
        for t in 1..=30 {
            // Entries live 3 s: over the first three seconds they fill the window as a leak
            // would, but never at a window four times as long.
            search.observe(&saturated_dump(t, 0, 200, 3.0));
        }
        assert!(!search.has_survivors());
        assert!(search.outcome().survivors.is_empty());
        // A few leaked samples among many are not a share to judge.
        let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
        search.recording_started(0);
        for t in 1..=30 {
            search.observe(&saturated_dump(t, 20, 200, 3.0));
        }
        assert!(!search.has_survivors());
    }

    #[test]
    fn the_fewest_dumps_to_judge_are_those_the_sample_trend_needs() {
        assert_eq!(
            MIN_DUMPS_TO_JUDGE,
            ClassTrendConfig::old_object_samples().values_to_select()
        );
    }

    #[test]
    fn a_flat_cache_and_heapgrowths_own_samples_are_not_growth() {
        let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
        for t in 0..30 {
            // A level of 20 that wanders by up to 6 either way, and one more own sample per
            // dump (the attach listener's strings).
            let wander = [0, 6, 2, 5, 1, 3, 6, 0, 4, 2][t % 10];
            let mut dump = service_dump(t as i64, 0, 14 + wander);
            for _ in 0..t {
                dump.samples.push(
                    Chain::of("java.lang.String")
                        .thread("Attach Listener")
                        .sample,
                );
            }
            search.observe(&dump);
            assert!(search.selected_classes().is_empty(), "dump {t}");
        }
        assert!(search.outcome().growing.is_empty());
    }

    #[test]
    fn samples_on_ignored_paths_are_counted_per_rule_and_not_judged() {
        let rule = IgnoreRule::parse(
            "Service.SESSIONS kept on purpose",
            crate::growth::RuleOrigin::User("--ignore".into()),
        )
        .unwrap();
        let mut search = OldObjectSearch::new(OldObjectConfig {
            ignore_rules: vec![rule],
            ..OldObjectConfig::default()
        })
        .unwrap();
        for t in 0..10 {
            let counts = search.observe(&service_dump(t, 10 * t as u64, 12));
            assert_eq!(counts.ignored, 10 * t as u64);
        }
        let outcome = search.outcome();
        assert!(outcome.growing.is_empty());
        assert!(outcome.unmatched_rules.is_empty());
        assert_eq!(
            outcome.ignored,
            [IgnoredSamples {
                pattern: "Service.SESSIONS".into(),
                reason: "kept on purpose".into(),
                origin: crate::growth::RuleOrigin::User("--ignore".into()),
                samples: 90
            }]
        );
    }
}
