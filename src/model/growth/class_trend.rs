//! The class-trend gate: decides, from cheap per-class counts taken at every interval, when a
//! class grows enough to be worth an expensive heap dump.
//!
//! The rule is the **class-trend rule**, the one a production profiler uses to pick classes for
//! reference-chain searches (docs/architecture.md, Glossary): per class a ring of recent values, a
//! least-squares line over it whose fitted rise must clear the larger of a relative and an absolute
//! floor (the rise need not be monotonic), hysteresis over consecutive qualifying intervals, fewer
//! when the heap floor (live bytes after GC) rises too, a capped class table and at most a few
//! classes selected. The counts may come from a class histogram after a full GC (`heapgrowth
//! watch`) or from per-class JFR sample counts: this module only sees names and numbers, so every
//! rule is tested on synthetic series.
//!
//! What differs from that rule, and why:
//! * **Two measures.** A class qualifies when its instances or its bytes qualify: an array that
//!   lengthens grows in bytes with no more instances. A source without bytes passes 0.
//! * **Still rising.** A fitted line over 30 values keeps rising for many intervals after a cache
//!   filled once and stopped; so a measure qualifies only while one of its last
//!   [`ClassTrendConfig::rising_window`] values is a new high of the ring (the "records" of the
//!   dump search). Two by default: a noisy leak that dips every other interval still qualifies
//!   at every interval, and a bound that stops stops qualifying one interval later.
//! * **Late classes start their ring when they appear**, with no zeros before: a class that
//!   first appears with many instances (a pool created once) would otherwise look like a step up
//!   from zero, and after an eviction the table cannot tell a new class from one it dropped.
//!   A tracked class absent from an interval has no live instances then: its value is 0.

use std::collections::{HashMap, VecDeque};

use serde::Serialize;

/// Values kept per class and for the heap floor, as in that rule: 30 intervals of history.
pub const DEFAULT_RING_LEN: usize = 30;
/// Values a class needs before its trend is evaluated. That rule needs 10, but it folds a value
/// at every GC cycle; `watch` takes one per interval (tens of seconds, each after a full GC).
/// Four is the fewest where every value counts in the line: over three, a least-squares slope
/// is (last - first) / 2 and ignores the middle. With the streak, a first verdict comes after
/// six intervals.
pub const DEFAULT_MIN_VALUES: usize = 4;
/// The fitted rise must be at least this share of the fitted start (that rule's 15 %), so that
/// the noise of a large class (millions of strings) is not taken for growth.
pub const DEFAULT_RELATIVE_FLOOR: f64 = 0.15;
/// The fitted rise in instances must be at least this many over the ring. Counts after a full
/// GC are exact, so this is not about measurement noise but about work in flight: the objects of
/// requests alive at the moment of the GC make a class swing by tens with no leak. A leak of
/// 34 instances per interval clears it at the first evaluation, one of 4 once the ring is full.
/// (That rule's floor is one distinct GC age, a different unit.) JFR sample counts are far
/// smaller: that source sets its own floor.
pub const DEFAULT_MIN_INSTANCE_GROWTH: u64 = 100;
/// The fitted rise in bytes must be at least this much. Larger than 100 small objects (2 to
/// 5 KiB) because bytes move by whole array resizes: a list's backing array grows by half at
/// once, a 4096-entry hash table's resize adds 16 to 32 KiB.
pub const DEFAULT_MIN_BYTE_GROWTH: u64 = 64 * 1024;
/// A measure must have set a new high among its last this many values (see the module docs).
pub const DEFAULT_RISING_WINDOW: usize = 2;
/// Consecutive qualifying intervals before a class is selected. That rule's 5 are GC folds a few
/// seconds apart; an interval of `watch` is longer and costs a full GC, and the dump search also
/// asks for three records in a row ([`super::REQUIRED_RECORDS`]).
pub const DEFAULT_REQUIRED_STREAK: u32 = 3;
/// The streak required when the heap floor rises over the class's window too (that rule: 3 of 5).
pub const DEFAULT_CORROBORATED_STREAK: u32 = 2;
/// The heap floor corroborates a class when its fitted rise is at least this share of the
/// class's fitted rise in bytes: the class's growth shows in the whole heap, not offset by memory
/// freed elsewhere. Half leaves room for other classes freeing some.
pub const DEFAULT_HEAP_FLOOR_SHARE: f64 = 0.5;
/// Classes selected at a time, as in that rule: the rows of the report, strongest first.
pub const DEFAULT_MAX_SELECTED: usize = 5;
/// Classes tracked at a time. That rule's 256 live inside the profiled JVM; `watch` keeps them in
/// its own process, about 600 bytes each. A JVM running javac here had 59 of 736 histogram
/// classes above the floors (where tracking starts). The cap bounds the table when classes keep
/// being generated; such a leak shows as growth of `java.lang.Class` anyway.
pub const DEFAULT_MAX_TRACKED: usize = 1024;

/// The fitted rise in samples a class needs when the counts are JFR old-object samples
/// ([`ClassTrendConfig::old_object_samples`]), also the count from which a class is tracked.
/// Counts of a queue of 256 samples are small and move by chance: samples fall at TLAB refills,
/// so a class that does not grow has a count that wanders around its level (measured here: the
/// `byte[]` of a service whose sessions live for two seconds held 0 to 6 samples at each of 15
/// dumps, while the same service leaking 1.6 MB/s of sessions gained about 10 samples per
/// two-second interval). Eight clears the first and keeps the second well above it: a leak
/// reaches it in one or two intervals, noise of a few samples never keeps it up for the streak.
pub const OLD_OBJECT_MIN_SAMPLE_GROWTH: u64 = 8;

/// The thresholds of [`ClassTrend`]; [`Default`] gives the `DEFAULT_*` constants.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassTrendConfig {
    /// Values kept per class and for the heap floor.
    pub ring_len: usize,
    /// Values a class needs before it is evaluated.
    pub min_values: usize,
    /// The fitted rise must be at least this share of the fitted start.
    pub relative_floor: f64,
    /// The fitted rise in instances must be at least this; also the count from which an
    /// untracked class starts being tracked.
    pub min_instance_growth: u64,
    /// The fitted rise in bytes must be at least this; also the size from which an untracked
    /// class starts being tracked.
    pub min_byte_growth: u64,
    /// A measure qualifies only while one of its last this many values is a new high.
    pub rising_window: usize,
    /// Consecutive qualifying intervals before a class is selected.
    pub required_streak: u32,
    /// The same when the heap floor corroborates the class's growth.
    pub corroborated_streak: u32,
    /// Share of the class's byte rise the heap floor must rise by to corroborate it.
    pub heap_floor_share: f64,
    /// Classes selected at a time.
    pub max_selected: usize,
    /// Classes tracked at a time.
    pub max_tracked: usize,
}

impl Default for ClassTrendConfig {
    fn default() -> Self {
        ClassTrendConfig {
            ring_len: DEFAULT_RING_LEN,
            min_values: DEFAULT_MIN_VALUES,
            relative_floor: DEFAULT_RELATIVE_FLOOR,
            min_instance_growth: DEFAULT_MIN_INSTANCE_GROWTH,
            min_byte_growth: DEFAULT_MIN_BYTE_GROWTH,
            rising_window: DEFAULT_RISING_WINDOW,
            required_streak: DEFAULT_REQUIRED_STREAK,
            corroborated_streak: DEFAULT_CORROBORATED_STREAK,
            heap_floor_share: DEFAULT_HEAP_FLOOR_SHARE,
            max_selected: DEFAULT_MAX_SELECTED,
            max_tracked: DEFAULT_MAX_TRACKED,
        }
    }
}

impl ClassTrendConfig {
    /// The preset for counts of JFR old-object samples alive at each dump (`watch --jfr`), fed
    /// with bytes 0 and a heap floor of 0: the absolute floor is
    /// [`OLD_OBJECT_MIN_SAMPLE_GROWTH`] samples (the instance default of 100 is more than a
    /// third of a whole default queue), the byte measure is off (a sample is one object, its
    /// size says nothing of the heap), and without a heap floor no class is corroborated, so
    /// every class needs the full streak. The ring, the relative floor, the rising window and
    /// the streak are the defaults: a count moves only at garbage collections, so intervals
    /// should be longer than the time between them, and then one value per interval is as
    /// telling as a histogram's.
    pub fn old_object_samples() -> ClassTrendConfig {
        ClassTrendConfig {
            min_instance_growth: OLD_OBJECT_MIN_SAMPLE_GROWTH,
            min_byte_growth: u64::MAX,
            ..ClassTrendConfig::default()
        }
    }
}

impl ClassTrendConfig {
    /// Values before a class that grows from the first can be selected: evaluated from the
    /// `min_values`-th, selected after a streak of `required_streak`. Fewer say nothing either
    /// way.
    pub fn values_to_select(&self) -> usize {
        self.min_values + self.required_streak as usize - 1
    }
}

/// A [`ClassTrendConfig`] that cannot work; the message names the setting.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid class-trend setting: {0}")]
pub struct ClassTrendConfigError(&'static str);

impl ClassTrendConfig {
    fn validate(&self) -> Result<(), ClassTrendConfigError> {
        let fail = |why| Err(ClassTrendConfigError(why));
        if self.min_values < 2 {
            return fail("min_values must be at least 2: a line needs two points");
        }
        if self.ring_len < self.min_values {
            return fail("ring_len must be at least min_values");
        }
        if self.rising_window == 0 {
            return fail("rising_window must be at least 1");
        }
        if self.corroborated_streak == 0 || self.corroborated_streak > self.required_streak {
            return fail("corroborated_streak must be between 1 and required_streak");
        }
        if !(self.relative_floor >= 0.0 && self.heap_floor_share >= 0.0) {
            return fail("relative_floor and heap_floor_share must be numbers of at least 0");
        }
        if self.max_tracked == 0 {
            return fail("max_tracked must be at least 1");
        }
        Ok(())
    }
}

/// A least-squares line over a ring's values, one value per interval.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Fit {
    slope: f64,
    start: f64,
    end: f64,
}

impl Fit {
    fn of(values: impl ExactSizeIterator<Item = u64> + Clone) -> Fit {
        let n = values.len() as f64;
        let mean_x = (n - 1.0) / 2.0;
        let mean_y = values.clone().map(|v| v as f64).sum::<f64>() / n.max(1.0);
        let (mut covariance, mut variance) = (0.0, 0.0);
        for (x, y) in values.enumerate() {
            let dx = x as f64 - mean_x;
            covariance += dx * (y as f64 - mean_y);
            variance += dx * dx;
        }
        let slope = if variance > 0.0 {
            covariance / variance
        } else {
            0.0
        };
        Fit {
            slope,
            start: mean_y - slope * mean_x,
            end: mean_y + slope * mean_x,
        }
    }

    fn growth(&self) -> f64 {
        self.end - self.start
    }

    /// The fitted rise over what it must be at least; qualifying needs 1 or more (so a rise above
    /// 0 even when both floors are 0).
    fn promise(&self, config: &ClassTrendConfig, absolute_floor: u64) -> f64 {
        let required = (config.relative_floor * self.start.max(0.0)).max(absolute_floor as f64);
        self.growth() / required.max(f64::MIN_POSITIVE)
    }
}

/// Whether one of the last `window` values is higher than every value before it in the ring.
fn sets_recent_high(values: &VecDeque<u64>, window: usize) -> bool {
    let recent_from = values.len().saturating_sub(window).max(1);
    let mut high = values.front().copied().unwrap_or(0);
    for (index, &value) in values.iter().enumerate().skip(1) {
        if value > high && index >= recent_from {
            return true;
        }
        high = high.max(value);
    }
    false
}

fn push(ring: &mut VecDeque<u64>, value: u64, len: usize) {
    if ring.len() == len {
        ring.pop_front();
    }
    ring.push_back(value);
}

/// The latest evaluation of a class that has enough values.
#[derive(Clone, Copy, Debug)]
struct Verdict {
    instances: Fit,
    bytes: Fit,
    instances_qualify: bool,
    bytes_qualify: bool,
    corroborated: bool,
    /// The better of the two measures' [`Fit::promise`]: which class to drop first.
    promise: f64,
}

#[derive(Debug)]
struct History {
    instances: VecDeque<u64>,
    bytes: VecDeque<u64>,
    streak: u32,
    verdict: Option<Verdict>,
}

impl History {
    fn evaluate(&mut self, config: &ClassTrendConfig, heap_floor: &VecDeque<u64>) {
        let n = self.instances.len();
        if n < config.min_values {
            return;
        }
        let instances = Fit::of(self.instances.iter().copied());
        let bytes = Fit::of(self.bytes.iter().copied());
        let qualifies = |fit: &Fit, values, floor| {
            fit.promise(config, floor) >= 1.0 && sets_recent_high(values, config.rising_window)
        };
        let instances_qualify = qualifies(&instances, &self.instances, config.min_instance_growth);
        let bytes_qualify = qualifies(&bytes, &self.bytes, config.min_byte_growth);
        let floor = Fit::of(heap_floor.iter().skip(heap_floor.len() - n).copied());
        let corroborated = floor.growth() > 0.0
            && floor.growth() >= config.heap_floor_share * bytes.growth().max(0.0);
        self.streak = if instances_qualify || bytes_qualify {
            self.streak.saturating_add(1)
        } else {
            0
        };
        let promise = instances
            .promise(config, config.min_instance_growth)
            .max(bytes.promise(config, config.min_byte_growth));
        self.verdict = Some(Verdict {
            instances,
            bytes,
            instances_qualify,
            bytes_qualify,
            corroborated,
            promise,
        });
    }

    fn required_streak(&self, config: &ClassTrendConfig) -> u32 {
        match self.verdict {
            Some(verdict) if verdict.corroborated => config.corroborated_streak,
            _ => config.required_streak,
        }
    }

    fn selected(&self, config: &ClassTrendConfig) -> bool {
        self.verdict.is_some() && self.streak >= self.required_streak(config)
    }

    /// A class that may make room for a new one: evaluated, not on a streak, not rising at all.
    fn evictable(&self) -> bool {
        self.streak == 0 && self.verdict.is_some_and(|verdict| verdict.promise <= 0.0)
    }
}

/// One measure of a [`TrendRow`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeasureTrend {
    /// The ring's values, oldest first.
    pub values: Vec<u64>,
    /// The fitted line's rise per interval.
    pub slope_per_interval: f64,
    /// The fitted line at the ring's oldest value.
    pub fitted_start: f64,
    /// The fitted line at the ring's latest value.
    pub fitted_end: f64,
    /// (fitted end - fitted start) / fitted start; none when the fitted start is not above 0.
    pub relative_growth: Option<f64>,
    /// Whether this measure qualified at the latest interval.
    pub qualifies: bool,
}

impl MeasureTrend {
    fn new(values: &VecDeque<u64>, qualifies: bool) -> MeasureTrend {
        let fit = Fit::of(values.iter().copied());
        MeasureTrend {
            values: values.iter().copied().collect(),
            slope_per_interval: fit.slope,
            fitted_start: fit.start,
            fitted_end: fit.end,
            relative_growth: (fit.start > 0.0).then(|| fit.growth() / fit.start),
            qualifies,
        }
    }
}

/// A class's trend as the report shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrendRow {
    /// The class name as the source gave it.
    pub class: String,
    /// Live instances (or samples) per interval.
    pub instances: MeasureTrend,
    /// Live bytes per interval (0 when the source has none).
    pub bytes: MeasureTrend,
    /// Whether the class had enough values to be evaluated.
    pub evaluated: bool,
    /// Consecutive qualifying intervals up to the latest.
    pub streak: u32,
    /// The streak it needs to be selected now.
    pub required_streak: u32,
    /// Whether the heap floor rose with the class over the class's window.
    pub heap_floor_corroborated: bool,
    /// Whether the class is selected now.
    pub selected: bool,
}

/// Per-class trends fed one observation per interval; see the module docs.
#[derive(Debug)]
pub struct ClassTrend {
    config: ClassTrendConfig,
    heap_floor: VecDeque<u64>,
    classes: HashMap<String, History>,
    /// The last [`ClassTrendConfig::max_tracked`] classes dropped to make room, oldest first:
    /// they come back after the classes never tracked, so a few large flat classes cannot keep
    /// every other one out by being re-admitted each time.
    dropped: VecDeque<String>,
}

impl ClassTrend {
    /// An empty trend with these thresholds.
    pub fn new(config: ClassTrendConfig) -> Result<ClassTrend, ClassTrendConfigError> {
        config.validate()?;
        Ok(ClassTrend {
            config,
            heap_floor: VecDeque::new(),
            classes: HashMap::new(),
            dropped: VecDeque::new(),
        })
    }

    /// One interval: every class with live instances (name, instances, bytes) and the heap's
    /// live bytes after GC. Rows with the same name (classes of different loaders) are summed,
    /// so a leak of loaders that each define the class shows as that class's growth.
    pub fn observe<N: AsRef<str>>(
        &mut self,
        histogram: impl IntoIterator<Item = (N, u64, u64)>,
        heap_floor_bytes: u64,
    ) {
        let config = &self.config;
        let mut present: HashMap<String, (u64, u64)> = HashMap::new();
        for (name, instances, bytes) in histogram {
            let name = name.as_ref();
            let total = match present.get_mut(name) {
                Some(total) => total,
                None => present.entry(name.to_owned()).or_default(),
            };
            total.0 = total.0.saturating_add(instances);
            total.1 = total.1.saturating_add(bytes);
        }
        push(&mut self.heap_floor, heap_floor_bytes, config.ring_len);
        for (name, history) in &mut self.classes {
            let (instances, bytes) = present.remove(name).unwrap_or((0, 0));
            push(&mut history.instances, instances, config.ring_len);
            push(&mut history.bytes, bytes, config.ring_len);
            history.evaluate(config, &self.heap_floor);
        }
        // A class gone for a whole ring holds no information: it starts afresh if it returns.
        self.classes
            .retain(|_, history| history.instances.iter().any(|&v| v > 0));
        self.admit(present);
    }

    /// Starts tracking classes that hold at least a floor's worth, while there is room or a
    /// tracked class that does not rise at all to drop (the one furthest from qualifying first):
    /// classes never dropped first, largest first. Smaller classes are tracked once they reach
    /// the floor.
    fn admit(&mut self, present: HashMap<String, (u64, u64)>) {
        let config = &self.config;
        let dropped: HashMap<&str, usize> = self
            .dropped
            .iter()
            .enumerate()
            .map(|(age, name)| (name.as_str(), age))
            .collect();
        let mut newcomers: Vec<(Option<usize>, String, u64, u64)> = present
            .into_iter()
            .filter(|(_, (instances, bytes))| {
                *instances >= config.min_instance_growth || *bytes >= config.min_byte_growth
            })
            .map(|(name, (instances, bytes))| {
                (dropped.get(name.as_str()).copied(), name, instances, bytes)
            })
            .collect();
        drop(dropped);
        // None (never dropped) sorts first, then the longest ago dropped.
        newcomers.sort_by(|a, b| {
            (a.0.cmp(&b.0))
                .then(b.3.cmp(&a.3))
                .then(b.2.cmp(&a.2))
                .then(a.1.cmp(&b.1))
        });
        for (_, name, instances, bytes) in newcomers {
            if self.classes.len() >= config.max_tracked {
                let victim = self
                    .classes
                    .iter()
                    .filter(|(_, history)| history.evictable())
                    .min_by(|(a_name, a), (b_name, b)| {
                        let promise = |h: &History| h.verdict.map_or(0.0, |v| v.promise);
                        promise(a).total_cmp(&promise(b)).then(a_name.cmp(b_name))
                    })
                    .map(|(name, _)| name.clone());
                let Some(victim) = victim else { break };
                self.classes.remove(&victim);
                if self.dropped.len() == config.max_tracked {
                    self.dropped.pop_front();
                }
                self.dropped.push_back(victim);
            }
            let ring = |value| VecDeque::from([value]);
            let history = History {
                instances: ring(instances),
                bytes: ring(bytes),
                streak: 0,
                verdict: None,
            };
            self.classes.insert(name, history);
        }
    }

    /// The classes selected now, at most [`ClassTrendConfig::max_selected`], strongest first:
    /// by fitted bytes per interval (what fills the heap), then instances per interval.
    pub fn selected_classes(&self) -> Vec<&str> {
        let mut selected: Vec<(&str, Verdict)> = self
            .classes
            .iter()
            .filter(|(_, history)| history.selected(&self.config))
            .filter_map(|(name, history)| Some((name.as_str(), history.verdict?)))
            .collect();
        selected.sort_by(|(a_name, a), (b_name, b)| {
            (b.bytes.slope.total_cmp(&a.bytes.slope))
                .then(b.instances.slope.total_cmp(&a.instances.slope))
                .then(a_name.cmp(b_name))
        });
        selected.truncate(self.config.max_selected);
        selected.into_iter().map(|(name, _)| name).collect()
    }

    /// The rows of the classes selected now, in [`Self::selected_classes`] order.
    pub fn selected_rows(&self) -> Vec<TrendRow> {
        self.rows(self.selected_classes())
    }

    /// The rows of these classes, in this order; classes not tracked are left out.
    pub fn rows<'a>(&self, classes: impl IntoIterator<Item = &'a str>) -> Vec<TrendRow> {
        classes
            .into_iter()
            .filter_map(|name| self.row(name))
            .collect()
    }

    fn row(&self, name: &str) -> Option<TrendRow> {
        let history = self.classes.get(name)?;
        let verdict = history.verdict;
        Some(TrendRow {
            class: name.to_owned(),
            instances: MeasureTrend::new(
                &history.instances,
                verdict.is_some_and(|v| v.instances_qualify),
            ),
            bytes: MeasureTrend::new(&history.bytes, verdict.is_some_and(|v| v.bytes_qualify)),
            evaluated: verdict.is_some(),
            streak: history.streak,
            required_streak: history.required_streak(&self.config),
            heap_floor_corroborated: verdict.is_some_and(|v| v.corroborated),
            selected: history.selected(&self.config),
        })
    }

    /// How many classes are tracked now.
    pub fn tracked_classes(&self) -> usize {
        self.classes.len()
    }
}

/// The rows as a fixed-width text table: a header, then two lines per class (instances, bytes).
/// The class column is as wide as the longest name, so names are never cut.
pub fn render_trend_rows(rows: &[TrendRow]) -> Vec<String> {
    render_rows(
        rows,
        &[
            ("instances", |row| &row.instances),
            ("bytes", |row| &row.bytes),
        ],
    )
}

/// The rows of a trend of sample counts ([`ClassTrendConfig::old_object_samples`]) as the same
/// table with one line per class, its measure named `samples`: the bytes are all 0.
pub fn render_sample_trend_rows(rows: &[TrendRow]) -> Vec<String> {
    render_rows(rows, &[("samples", |row| &row.instances)])
}

type MeasureOf = fn(&TrendRow) -> &MeasureTrend;

fn render_rows(rows: &[TrendRow], measures: &[(&str, MeasureOf)]) -> Vec<String> {
    let width = rows
        .iter()
        .map(|row| row.class.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    let line = |cells: [&str; 10]| {
        let [class, measure, values, first, last, slope, start, end, growth, rest] = cells;
        let line = format!(
            "{class:<width$}  {measure:<9}  {values:>6}  {first:>12}  {last:>12}  {slope:>12}  \
             {start:>14}  {end:>14}  {growth:>8}  {rest}"
        );
        line.trim_end().to_owned()
    };
    let mut lines = vec![line([
        "class",
        "measure",
        "values",
        "first",
        "last",
        "slope/int",
        "fitted start",
        "fitted end",
        "growth",
        "streak  heap floor",
    ])];
    for row in rows {
        let state = format!(
            "{:<6}  {}",
            format!("{}/{}", row.streak, row.required_streak),
            if row.heap_floor_corroborated {
                "rose"
            } else {
                "-"
            }
        );
        for (index, (measure, of)) in measures.iter().enumerate() {
            let (class, rest) = match index {
                0 => (row.class.as_str(), state.as_str()),
                _ => ("", ""),
            };
            let trend = of(row);
            let number = |value: Option<&u64>| value.map_or(String::new(), u64::to_string);
            let growth = trend
                .relative_growth
                .map_or("from 0".to_owned(), |g| format!("{:+.1}%", g * 100.0));
            lines.push(line([
                class,
                measure,
                &trend.values.len().to_string(),
                &number(trend.values.first()),
                &number(trend.values.last()),
                &format!("{:+.1}", trend.slope_per_interval),
                &format!("{:.1}", trend.fitted_start),
                &format!("{:.1}", trend.fitted_end),
                &growth,
                rest,
            ]));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A heap floor that does not move: no corroboration.
    const FLAT_FLOOR: u64 = 512 << 20;
    const BYTES_PER_INSTANCE: u64 = 24;

    type Histogram = Vec<(String, u64, u64)>;

    fn class(name: &str, instances: u64) -> (String, u64, u64) {
        (name.to_owned(), instances, instances * BYTES_PER_INSTANCE)
    }

    fn defaults() -> ClassTrendConfig {
        ClassTrendConfig::default()
    }

    /// Feeds one observation per interval; returns the trend and the classes selected after each.
    fn run(
        config: ClassTrendConfig,
        intervals: usize,
        histogram: impl Fn(usize) -> Histogram,
        floor: impl Fn(usize) -> u64,
    ) -> (ClassTrend, Vec<Vec<String>>) {
        let mut trend = ClassTrend::new(config).unwrap();
        let mut selections = Vec::new();
        for t in 0..intervals {
            trend.observe(histogram(t), floor(t));
            selections.push(
                trend
                    .selected_classes()
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
            );
        }
        (trend, selections)
    }

    /// The intervals (0-based) at which the one class of `series` is selected, flat heap floor.
    fn selected_at(config: ClassTrendConfig, series: &[u64]) -> Vec<usize> {
        let (_, selections) = run(
            config,
            series.len(),
            |t| vec![class("Item", series[t])],
            |_| FLAT_FLOOR,
        );
        (0..series.len())
            .filter(|&t| !selections[t].is_empty())
            .collect()
    }

    fn first_selected(config: ClassTrendConfig, series: &[u64]) -> Option<usize> {
        selected_at(config, series).first().copied()
    }

    fn linear(start: u64, per_interval: u64, intervals: u64) -> Vec<u64> {
        (0..intervals).map(|t| start + per_interval * t).collect()
    }

    /// Alternating steps from 1000: `up`, then `down`.
    fn walk(up: u64, down: u64, intervals: usize) -> Vec<u64> {
        let step = |t: usize, v: u64| if t % 2 == 0 { v + up } else { v - down };
        (0..intervals)
            .scan(1000, |v, t| Some(std::mem::replace(v, step(t, *v))))
            .collect()
    }

    /// Rises by 400 per interval through interval `last_rise`, then stays.
    fn cache(last_rise: u64, intervals: u64) -> Vec<u64> {
        (0..intervals)
            .map(|t| 200 + 400 * t.min(last_rise))
            .collect()
    }

    /// Deterministic pseudo-random values (xorshift64).
    fn noise(seed: u64, count: usize, below: u64) -> Vec<u64> {
        let mut state = seed;
        (0..count)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state % below
            })
            .collect()
    }

    #[test]
    fn steady_leak_is_selected_after_exactly_the_required_streak() {
        let leak = linear(1000, 100, 12);
        for required_streak in [3, 5] {
            let config = ClassTrendConfig {
                required_streak,
                ..defaults()
            };
            // Evaluated from the min_values-th value on; qualifies at each interval since.
            let first = config.min_values - 1 + required_streak as usize - 1;
            assert_eq!(selected_at(config, &leak), (first..12).collect::<Vec<_>>());
        }
    }

    #[test]
    fn noisy_leak_up_three_down_two_is_selected_and_up_three_down_three_is_not() {
        let selected = selected_at(defaults(), &walk(300, 200, 40));
        // Once selected, the dips do not break the streak.
        assert_eq!(selected, (selected[0]..40).collect::<Vec<_>>());
        assert_eq!(
            selected_at(defaults(), &walk(300, 300, 40)),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn cache_that_levels_before_the_streak_is_never_selected() {
        // Its last rise is its first evaluation (interval 3); one interval of grace, then flat.
        assert_eq!(selected_at(defaults(), &cache(3, 40)), Vec::<usize>::new());
        // Twin: one that rises through interval 8 is selected from 5, and stops qualifying one
        // interval after its last rise, although its fitted line keeps rising for a while.
        assert_eq!(
            selected_at(defaults(), &cache(8, 40)),
            (5..=9).collect::<Vec<_>>()
        );
    }

    #[test]
    fn churn_around_a_level_never_qualifies_and_a_leak_under_the_same_noise_does() {
        let noises: Vec<Vec<u64>> = (0..20).map(|c| noise(c + 1, 300, 1200)).collect();
        let churn = |t: usize| -> Histogram {
            (0..20)
                .map(|c| class(&format!("Churn{c}"), 4400 + noises[c][t]))
                .collect()
        };
        let (_, selections) = run(defaults(), 300, churn, |_| FLAT_FLOOR);
        assert!(selections.iter().all(Vec::is_empty));

        let leak = |t: usize| -> Histogram {
            let grown = 150 * t as u64;
            (0..20)
                .map(|c| class(&format!("Leak{c}"), 4400 + noises[c][t] + grown))
                .collect()
        };
        let config = ClassTrendConfig {
            max_selected: 20,
            ..defaults()
        };
        let (_, selections) = run(config, 300, leak, |_| FLAT_FLOOR);
        for c in 0..20 {
            let name = format!("Leak{c}");
            assert!(
                selections.iter().any(|s| s.contains(&name)),
                "{name} never selected"
            );
        }
    }

    #[test]
    fn growth_under_the_relative_floor_of_a_huge_class_never_qualifies() {
        // 29 000 over a full ring of 30 is 2.9 % of a million.
        assert_eq!(
            selected_at(defaults(), &linear(1_000_000, 1_000, 60)),
            Vec::<usize>::new()
        );
        // 180 000 over four values is 18 %.
        assert_eq!(
            first_selected(defaults(), &linear(1_000_000, 60_000, 60)),
            Some(5)
        );
    }

    #[test]
    fn growth_under_the_absolute_floor_of_a_small_class_never_qualifies() {
        // 3 per interval: 87 over a full ring, under 100 (though 58 % of the class).
        assert_eq!(
            selected_at(defaults(), &linear(150, 3, 60)),
            Vec::<usize>::new()
        );
        // 5 per interval reaches 100 once the ring spans 21 values (interval 20).
        assert_eq!(first_selected(defaults(), &linear(150, 5, 60)), Some(22));
    }

    #[test]
    fn a_heap_floor_that_rises_with_the_class_lowers_the_required_streak() {
        // The class gains 2 400 bytes per interval.
        let leak = |t: usize| vec![class("Item", 1000 + 100 * t as u64)];
        let first = |floor_per_interval: u64| {
            let floor = |t: usize| FLAT_FLOOR + floor_per_interval * t as u64;
            let (_, selections) = run(defaults(), 12, leak, floor);
            selections.iter().position(|s| !s.is_empty())
        };
        assert_eq!(first(2_000), Some(4)); // at least half of the class's rise: a streak of 2
        assert_eq!(first(1_000), Some(5)); // less than half: 3
        assert_eq!(first(0), Some(5));
    }

    #[test]
    fn the_class_cap_drops_classes_that_do_not_rise_and_keeps_leaks_and_young_classes() {
        let config = ClassTrendConfig {
            max_tracked: 4,
            ..defaults()
        };
        let tracked = |trend: &ClassTrend, name: &str| !trend.rows([name]).is_empty();
        let histogram = |t: usize| {
            let mut h = vec![
                class("Leak", 1000 + 100 * t as u64),
                class("Creep", 5000 + 10 * t as u64), // rises, under the floors
                class("Flat", 5000),
            ];
            match t {
                0..=3 => h.push(class("Falling", 5000 - 200 * t as u64)), // gone from 4 on
                _ => h.extend((4..=t.min(6)).map(|n| class(&format!("New{n}"), 500))),
            }
            h
        };
        let (trend, _) = run(config.clone(), 5, histogram, |_| FLAT_FLOOR);
        // Full at interval 4: the falling class was the furthest from qualifying.
        assert!(!tracked(&trend, "Falling") && tracked(&trend, "Flat") && tracked(&trend, "New4"));
        let (trend, _) = run(config.clone(), 7, histogram, |_| FLAT_FLOOR);
        // Interval 5 dropped the flat one for New5; at 6 nothing could go: New6 waits.
        assert!(!tracked(&trend, "Flat") && tracked(&trend, "New5") && !tracked(&trend, "New6"));
        assert!(tracked(&trend, "Creep") && tracked(&trend, "Leak"));
        assert_eq!(trend.selected_classes(), ["Leak"]);
        let (trend, _) = run(config, 8, histogram, |_| FLAT_FLOOR);
        // New4 has four flat values at 7: it makes room for New6, never tracked, rather than for
        // Flat, larger but dropped before.
        assert!(!tracked(&trend, "New4") && tracked(&trend, "New6") && tracked(&trend, "Creep"));
    }

    #[test]
    fn a_class_that_grows_in_bytes_only_qualifies_through_its_bytes() {
        // Arrays that lengthen: as many instances, more bytes every interval.
        let array = |bytes_per_interval: u64| {
            move |t: usize| {
                vec![(
                    "[B".to_owned(),
                    1000,
                    (1 << 20) + bytes_per_interval * t as u64,
                )]
            }
        };
        let (trend, selections) = run(defaults(), 8, array(100 << 10), |_| FLAT_FLOOR);
        assert_eq!(selections.iter().position(|s| !s.is_empty()), Some(5));
        let row = &trend.selected_rows()[0];
        assert!(row.bytes.qualifies && !row.instances.qualifies);
        // 4 KiB per interval: 116 KiB over a full ring, under 15 % of 1 MiB.
        let (_, selections) = run(defaults(), 60, array(4 << 10), |_| FLAT_FLOOR);
        assert!(selections.iter().all(Vec::is_empty));
    }

    #[test]
    fn a_class_that_disappears_is_dropped_after_a_ring_of_zeros() {
        let config = ClassTrendConfig {
            ring_len: 5,
            ..defaults()
        };
        let histogram = |t: usize| {
            if t < 3 {
                vec![class("Gone", 5000)]
            } else {
                vec![]
            }
        };
        let (trend, _) = run(config.clone(), 7, histogram, |_| FLAT_FLOOR);
        assert_eq!(trend.rows(["Gone"])[0].instances.values, [5000, 0, 0, 0, 0]);
        let (trend, _) = run(config, 8, histogram, |_| FLAT_FLOOR);
        assert_eq!(trend.tracked_classes(), 0);
    }

    #[test]
    fn at_most_max_selected_classes_are_selected_strongest_in_bytes_first() {
        let by_bytes = |t: usize| -> Histogram {
            let instances = 1000 + 100 * t as u64;
            (1..=7)
                .map(|k| (format!("C{k}"), instances, instances * 16 * k))
                .collect()
        };
        let (trend, _) = run(defaults(), 6, by_bytes, |_| FLAT_FLOOR);
        assert_eq!(trend.selected_classes(), ["C7", "C6", "C5", "C4", "C3"]);
        // A source without bytes (JFR samples): by instances per interval.
        let by_instances = |t: usize| -> Histogram {
            (1..=7)
                .map(|k| (format!("C{k}"), 1000 + 100 * k * t as u64, 0))
                .collect()
        };
        let (trend, _) = run(defaults(), 6, by_instances, |_| FLAT_FLOOR);
        assert_eq!(trend.selected_classes(), ["C7", "C6", "C5", "C4", "C3"]);
    }

    #[test]
    fn two_flat_intervals_reset_the_streak_and_one_is_tolerated() {
        // Rises through interval 3 (its first evaluation), stays `flat` intervals, rises again.
        let series = |flat: u64| -> Vec<u64> {
            (0..14)
                .map(|t: u64| 1000 + 100 * (t.min(3) + t.saturating_sub(3 + flat)))
                .collect()
        };
        assert_eq!(first_selected(defaults(), &series(1)), Some(5)); // 3, 4 (grace), 5
        assert_eq!(first_selected(defaults(), &series(2)), Some(8)); // 5 resets: 6, 7, 8
        let strict = ClassTrendConfig {
            rising_window: 1,
            ..defaults()
        };
        assert_eq!(first_selected(strict, &series(1)), Some(7)); // 4 resets: 5, 6, 7
    }

    #[test]
    fn a_class_that_appears_late_starts_its_ring_when_it_appears() {
        let late = |from: usize, values: fn(u64) -> u64| {
            move |t: usize| {
                let mut h = vec![class("Steady", 5000)];
                if t >= from {
                    h.push(class("Late", values((t - from) as u64)));
                }
                h
            }
        };
        let (_, selections) = run(defaults(), 30, late(10, |t| 1000 + 100 * t), |_| FLAT_FLOOR);
        assert_eq!(selections.iter().position(|s| s == &["Late"]), Some(10 + 5));
        // Twin: one that appears with many instances and keeps them is no step up from zero.
        let (_, selections) = run(defaults(), 30, late(10, |_| 50_000), |_| FLAT_FLOOR);
        assert!(selections.iter().all(Vec::is_empty));
    }

    #[test]
    fn a_class_with_fewer_than_min_values_is_not_evaluated() {
        for min_values in [4, 3] {
            let config = ClassTrendConfig {
                min_values,
                ..defaults()
            };
            let mut trend = ClassTrend::new(config).unwrap();
            for t in 0..3 {
                trend.observe([class("Item", 1000 * 10u64.pow(t))], FLAT_FLOOR);
            }
            let row = &trend.rows(["Item"])[0];
            assert_eq!(
                (row.evaluated, row.streak),
                (min_values == 3, (min_values == 3) as u32)
            );
        }
    }

    #[test]
    fn scaling_every_count_keeps_every_verdict() {
        let churn: Vec<u64> = noise(7, 60, 1200).iter().map(|n| 4400 + n).collect();
        let series = [
            linear(1000, 100, 60),
            walk(300, 200, 60),
            walk(300, 300, 60),
            cache(3, 60),
            cache(8, 60),
            churn,
            linear(1_000_000, 1_000, 60),
            linear(1_000_000, 60_000, 60),
        ];
        for values in &series {
            for floor_per_interval in [0, 10_000] {
                let verdicts = |scale: u64| {
                    let histogram = |t: usize| vec![class("Item", values[t] * scale)];
                    let floor = |t: usize| (FLAT_FLOOR + floor_per_interval * t as u64) * scale;
                    let (trend, selections) = run(defaults(), values.len(), histogram, floor);
                    let streak = trend.rows(["Item"])[0].streak;
                    (
                        selections.iter().map(Vec::is_empty).collect::<Vec<_>>(),
                        streak,
                    )
                };
                let unscaled = verdicts(1);
                for scale in [2, 7, 1000] {
                    assert_eq!(verdicts(scale), unscaled, "{values:?} times {scale}");
                }
            }
        }
    }

    #[test]
    fn rows_render_as_a_fixed_width_table_and_serialize_every_value() {
        let leak = |t: usize| vec![class("com.example.Item", 1000 + 100 * t as u64)];
        let (trend, _) = run(defaults(), 6, leak, |_| FLAT_FLOOR);
        let rows = trend.selected_rows();
        assert_eq!(
            render_trend_rows(&rows),
            [
                "class             measure    values         first          last     slope/int  \
                 \x20 fitted start      fitted end    growth  streak  heap floor",
                "com.example.Item  instances       6          1000          1500        +100.0  \
                 \x20       1000.0          1500.0    +50.0%  3/3     -",
                "                  bytes           6         24000         36000       +2400.0  \
                 \x20      24000.0         36000.0    +50.0%",
            ]
        );
        let json = serde_json::to_value(&rows[0]).unwrap();
        assert_eq!(
            json["instances"]["values"],
            serde_json::json!([1000, 1100, 1200, 1300, 1400, 1500])
        );
        assert_eq!(json["instances"]["qualifies"], true);
        assert_eq!(json["bytes"]["qualifies"], false); // 12 000 bytes, under 64 KiB
        assert_eq!(json["heap_floor_corroborated"], false);
        assert_eq!(json["selected"], true);
    }

    #[test]
    fn rows_of_one_class_from_several_loaders_are_summed() {
        let mut trend = ClassTrend::new(defaults()).unwrap();
        trend.observe([class("Item", 600), class("Item", 700)], FLAT_FLOOR);
        assert_eq!(trend.rows(["Item", "Absent"])[0].instances.values, [1300]);
        assert_eq!(trend.rows(["Item", "Absent"]).len(), 1);
    }

    #[test]
    fn a_config_that_cannot_work_is_refused() {
        assert!(ClassTrend::new(defaults()).is_ok());
        for config in [
            ClassTrendConfig {
                min_values: 1,
                ..defaults()
            },
            ClassTrendConfig {
                ring_len: 3,
                ..defaults()
            },
            ClassTrendConfig {
                corroborated_streak: 4,
                ..defaults()
            },
            ClassTrendConfig {
                relative_floor: f64::NAN,
                ..defaults()
            },
        ] {
            assert!(ClassTrend::new(config).is_err());
        }
    }
}
