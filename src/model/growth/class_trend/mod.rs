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
//!
//! The files: `config.rs` holds the thresholds and why each has its value, `history.rs` a
//! class's rings and their least-squares evaluation, `rows.rs` what a report shows of a class,
//! `render.rs` that as a text table; the tracking itself, [`ClassTrend`], is here.

mod config;
mod history;
mod render;
mod rows;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, VecDeque};

use history::{push, History, Verdict};

pub use config::{
    ClassTrendConfig, ClassTrendConfigError, DEFAULT_CORROBORATED_STREAK, DEFAULT_HEAP_FLOOR_SHARE,
    DEFAULT_MAX_SELECTED, DEFAULT_MAX_TRACKED, DEFAULT_MIN_BYTE_GROWTH,
    DEFAULT_MIN_INSTANCE_GROWTH, DEFAULT_MIN_VALUES, DEFAULT_RELATIVE_FLOOR,
    DEFAULT_REQUIRED_STREAK, DEFAULT_RING_LEN, DEFAULT_RISING_WINDOW, OLD_OBJECT_MIN_SAMPLE_GROWTH,
};
pub use render::{render_sample_trend_rows, render_trend_rows};
pub use rows::{MeasureTrend, TrendRow};

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

    /// The rows of the classes the trend has not decided on, by name: tracked and not selected,
    /// but not evaluated yet (fewer than [`ClassTrendConfig::min_values`] values since they
    /// reached the floor) with a measure at its high so far, or qualifying without the whole
    /// streak yet. A leak that reached the floor late is one of these for several intervals
    /// before it is selected: until then, no growth is not the same as none. (A class below its
    /// first value is not: the noise of a clean service that touched the floor once.)
    pub fn undecided_rows(&self) -> Vec<TrendRow> {
        let mut names: Vec<&str> = self
            .classes
            .iter()
            .filter(|(_, history)| history.undecided(&self.config))
            .map(|(name, _)| name.as_str())
            .collect();
        names.sort_unstable();
        self.rows(names)
    }

    /// How many classes are tracked now.
    pub fn tracked_classes(&self) -> usize {
        self.classes.len()
    }
}
