//! The search over the dumps of one recording: per-class sample counts judged by the class
//! trend, and the common paths of survivors spread over the recording.

use std::collections::HashMap;
use std::time::Duration;

use super::paths::{frames_key, matches, path_text, sample_path};
use super::{
    DumpCounts, GrowingClass, IgnoredSamples, OldObjectConfig, OldObjectOutcome, SampleAges,
    SampledPath, SampledStack, SurvivingPath, ATTACH_LISTENER_THREAD, MAX_PATHS_PER_CLASS,
    MAX_STACKS_PER_PATH, SPREAD_BINS, SPREAD_CONFIRMATION_FACTOR, SPREAD_MIN_CONFIRMED_WINDOW,
    SPREAD_MIN_SAMPLES, SPREAD_MIN_SHARE,
};
use crate::class_name::stable_class_name;
use crate::growth::class_trend::{ClassTrend, ClassTrendConfigError, TrendRow};
use crate::growth::{IgnoreRule, PathStep};
use crate::jfr::{JfrFrame, SampleDump};

/// A spread path's child that holds this share of its samples is followed: the common path
/// goes as deep as most of the survivors go together.
const COMMON_PATH_SHARE: f64 = 0.8;

/// How far the allocation time of one sample may move between two dumps (nanoseconds). Each
/// JFR dump is a chunk that converts its ticks to wall time from its own start: the same sample
/// reads a few tens of nanoseconds apart in two dumps a second apart (measured on JDK 17), more
/// the further apart they are. Two distinct samples of one class allocated within a
/// millisecond of each other, one dropped and the other taken, are all this can mistake.
const SAMPLE_TIME_JITTER: i64 = 1_000_000;

/// Whether two dumps' counted samples, as (class, allocation time) sorted, are the same.
fn same_samples(a: &[(String, i64)], b: &[(String, i64)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((class_a, time_a), (class_b, time_b))| {
                class_a == class_b && (time_a - time_b).abs() <= SAMPLE_TIME_JITTER
            })
}

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
    /// The counted samples of the last dump that moved the trend, as (class, allocation time),
    /// sorted: a dump with the same ones repeats it, unless a full collection ran between.
    judged_samples: Option<Vec<(String, i64)>>,
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
            judged_samples: None,
            survivors: Vec::new(),
        })
    }

    /// Tells the search when the recording started (nanoseconds since the Unix epoch), the
    /// start of the window over which survivors must be spread.
    pub fn recording_started(&mut self, time: i64) {
        self.start = Some(time);
    }

    /// Folds in one dump's samples and returns its counts. `full_collection`: whether heapgrowth
    /// ran a full collection in the JVM since the dump before (`GC.run`). A dump moves the class
    /// trend ([`DumpCounts::judged`]) when its counted samples are not those of the last dump
    /// that moved it (heapgrowth's own samples change at every dump and are left out), or after
    /// such a collection, which makes the samples those alive: unchanged, they are a flat value.
    /// Any other dump repeats the last judged one: it is kept for the report and tells the trend
    /// nothing. The JVM's own collections are not taken on its counters' word: they may be off
    /// (`-XX:-UsePerfData`), miss a change (ZGC on JDK 17: the samples changed with no
    /// collection counted between) or count collections after which the samples stay the same
    /// (ZGC on JDK 25: new samples after each of heapgrowth's full collections, none after its
    /// own major ones, which its counters count about three times each).
    pub fn observe(&mut self, dump: &SampleDump, full_collection: bool) -> DumpCounts {
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
        let mut identities: Vec<(String, i64)> = kept
            .iter()
            .map(|sample| (sample.class.clone(), sample.allocated))
            .collect();
        identities.sort_unstable();
        let judged = full_collection
            || self
                .judged_samples
                .as_ref()
                .map_or(true, |judged| !same_samples(judged, &identities));
        if judged {
            self.judged_samples = Some(identities);
        }
        counts.judged = judged;
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
        // Bytes 0 and no heap floor: see ClassTrendConfig::old_object_samples. A dump that
        // repeats the one before would add a flat value (and break a rising streak) per dump
        // taken between two collections: a leak in a JVM that collects every few intervals
        // never rose three intervals in a row, and read as clean.
        if judged {
            self.trend
                .observe(per_class.into_iter().map(|(class, n)| (class, n, 0)), 0);
        }
        self.dumps.push(counts);
        self.latest = kept;
        self.judge_spread();
        counts
    }

    /// Past a full queue the counts stop rising exactly when a leak dominates it: JFR then replaces
    /// samples by allocation span, and the survivors of a leak are spread over the whole recording.
    /// So at each dump, the paths whose survivors are (1) a share of the samples, (2) allocated in
    /// every quarter of the recording so far, and (3) still so at a dump with a window four times
    /// as long (and of ten seconds at least), are growth whatever the counts do. A bounded cache
    /// keeps only what it added lately: its oldest quarter empties once the recording is longer
    /// than an entry lives (the large-heap case: let the collector remove what dies, then read what
    /// remains and where it hangs).
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
            undecided: self.trend.undecided_rows(),
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
