//! When a watch lowers its allocation sampling interval: small objects that stay among many
//! short-lived ones escape an interval of 32 KiB (a thread is sampled about once per 32 KiB it
//! allocates, and the survivors are a sliver of those bytes), so a candidate node can reach
//! confirmation with no sampled object of its growing classes alive. Seen at a dump, that
//! lowers the interval for the rest of the watch, a few times at most.

use crate::attach::SamplingReport;

/// The interval is divided by this at each lowering.
pub(super) const LOWERING_FACTOR: u32 = 4;
/// Never lower below this many bytes: each sample costs the allocating thread a stack walk
/// when its class is watched, about half a microsecond when not.
pub(super) const INTERVAL_FLOOR: u32 = 4 * 1024;
/// Lowerings in one watch at most, the budget: 32 KiB → 8 KiB → 4 KiB by default.
pub(super) const MAX_LOWERINGS: usize = 2;

/// One lowering of the interval, told in the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Lowering {
    /// The interval before, in bytes.
    pub(super) from: u32,
    /// The interval after, in bytes.
    pub(super) to: u32,
    /// The watch's interval (histograms taken) when it was lowered.
    pub(super) at_interval: u32,
    /// The candidate's growing classes that had no sampled object alive.
    pub(super) classes: Vec<String>,
    /// Sampled allocations (of any class) when it was lowered.
    pub(super) sampled_allocations: u64,
}

impl Lowering {
    /// The caveat the report carries.
    pub(super) fn caveat(&self) -> String {
        format!(
            "the sampling interval was lowered from {} to {} at interval {} because allocation \
             sampling had seen {} allocations but no sampled object of {} was still in the heap \
             at a dump that found a candidate: small survivors among many short-lived \
             allocations escape a larger interval (only objects allocated after that are \
             sampled more often)",
            bytes(self.from),
            bytes(self.to),
            self.at_interval,
            self.sampled_allocations,
            self.classes.join(", ")
        )
    }
}

/// `n` bytes, in KiB when whole.
fn bytes(n: u32) -> String {
    if n >= 1024 && n % 1024 == 0 {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}

/// The interval to lower to, if `report` shows that the interval is why a candidate whose
/// growing classes are `classes` has no sampled object alive: the classes are watched, none of
/// their sampled objects is alive, the sampling saw allocations (it runs, and its tables are not
/// full: dropped samples would be the reason then, not the interval), fewer than
/// [`MAX_LOWERINGS`] lowerings so far, and the interval is above [`INTERVAL_FLOOR`].
pub(super) fn lowered_interval(
    report: &SamplingReport,
    classes: &[String],
    lowerings: usize,
) -> Option<u32> {
    let current = report.interval_bytes;
    if lowerings >= MAX_LOWERINGS || current <= INTERVAL_FLOOR || classes.is_empty() {
        return None;
    }
    let watched = classes
        .iter()
        .all(|class| report.classes.iter().any(|w| &w.name == class));
    let live: u64 = report
        .stacks
        .iter()
        .filter(|stack| classes.contains(&stack.class))
        .map(|stack| stack.live_objects)
        .sum();
    let saw = report.sampled_allocations > 0 && report.dropped() == 0;
    (watched && live == 0 && saw).then(|| (current / LOWERING_FACTOR).max(INTERVAL_FLOOR))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attach::{SampledStack, WatchedClass};

    fn report(interval: u32, sampled: u64, live_items: u64) -> SamplingReport {
        SamplingReport {
            interval_bytes: interval,
            sampled_allocations: sampled,
            samples: sampled / 2,
            classes: vec![
                WatchedClass {
                    name: "Item".into(),
                    loaded: 1,
                },
                WatchedClass {
                    name: "java.lang.String".into(),
                    loaded: 1,
                },
            ],
            stacks: vec![
                SampledStack {
                    class: "Item".into(),
                    live_objects: live_items,
                    samples: 3,
                    frames: Vec::new(),
                },
                SampledStack {
                    class: "java.lang.String".into(),
                    live_objects: 40,
                    samples: 90,
                    frames: Vec::new(),
                },
            ],
            ..SamplingReport::default()
        }
    }

    fn items() -> Vec<String> {
        vec!["Item".to_string()]
    }

    #[test]
    fn lowers_four_times_when_the_classes_have_nothing_alive_but_sampling_ran() {
        assert_eq!(
            lowered_interval(&report(32768, 500, 0), &items(), 0),
            Some(8192)
        );
        // Down to the floor, not below.
        assert_eq!(
            lowered_interval(&report(8192, 500, 0), &items(), 1),
            Some(4096)
        );
        assert_eq!(
            lowered_interval(&report(12288, 500, 0), &items(), 0),
            Some(4096)
        );
        assert_eq!(lowered_interval(&report(4096, 500, 0), &items(), 1), None);
        assert_eq!(lowered_interval(&report(1024, 500, 0), &items(), 0), None);
        assert_eq!(lowered_interval(&report(0, 500, 0), &items(), 0), None);
    }

    #[test]
    fn at_most_twice() {
        assert_eq!(
            lowered_interval(&report(1 << 20, 500, 0), &items(), 1),
            Some(1 << 18)
        );
        assert_eq!(
            lowered_interval(&report(1 << 18, 500, 0), &items(), 2),
            None
        );
    }

    #[test]
    fn not_when_something_is_alive_or_the_interval_is_not_why() {
        // A sampled object of the class is alive: the sampling catches the leak.
        assert_eq!(lowered_interval(&report(32768, 500, 1), &items(), 0), None);
        // Another class's live objects do not count for this node.
        assert_eq!(
            lowered_interval(&report(32768, 500, 0), &["java.lang.String".into()], 0),
            None
        );
        // Nothing sampled yet (just started): no evidence about the interval.
        assert_eq!(lowered_interval(&report(32768, 0, 0), &items(), 0), None);
        // Full tables are the reason then.
        let mut full = report(32768, 500, 0);
        full.dropped_tag_budget = 7;
        assert_eq!(lowered_interval(&full, &items(), 0), None);
        // A class the sampling does not watch.
        assert_eq!(
            lowered_interval(&report(32768, 500, 0), &["Other".into()], 0),
            None
        );
        assert_eq!(lowered_interval(&report(32768, 500, 0), &[], 0), None);
    }

    #[test]
    fn the_caveat_names_both_intervals_and_why() {
        let lowering = Lowering {
            from: 32768,
            to: 8192,
            at_interval: 7,
            classes: items(),
            sampled_allocations: 120,
        };
        assert_eq!(
            lowering.caveat(),
            "the sampling interval was lowered from 32 KiB to 8 KiB at interval 7 because \
             allocation sampling had seen 120 allocations but no sampled object of Item was \
             still in the heap at a dump that found a candidate: small survivors among many \
             short-lived allocations escape a larger interval (only objects allocated after \
             that are sampled more often)"
        );
        assert_eq!(bytes(5000), "5000 bytes");
    }
}
