//! The thresholds of the class-trend rule: each default, and why it has that value.

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
/// asks for three records in a row ([`REQUIRED_RECORDS`](crate::growth::REQUIRED_RECORDS)).
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
///
/// [`ClassTrend`]: super::ClassTrend
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
    pub(super) fn validate(&self) -> Result<(), ClassTrendConfigError> {
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
