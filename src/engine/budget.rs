//! The time budget of one scenario's search: what is left of it, and what loops and snapshots
//! have cost so far.

use std::time::{Duration, Instant};

/// How long a search waits before it retakes a snapshot to check a candidate whose growth is a
/// few new children ([`NextStep::Retake`](crate::growth::NextStep::Retake)): the settler's
/// bound for the tick of a timer thread (`Settler.PERIOD_BOUND_MILLIS`). A structure such a
/// thread empties on its tick, and that a snapshot caught before the tick because the settle
/// was cut short at that bound, has been emptied by then.
pub const RETAKE_AFTER: Duration = Duration::from_millis(1_500);

/// What is left of a scenario's time budget, and what loops and snapshots have cost so far.
pub(super) struct Budget {
    deadline: Instant,
    loops: u64,
    loop_time: Duration,
    /// The last snapshot's cost (settle, dump, read, analysis). The next one must fit too,
    /// and costs more when the heap grows: twice as much is kept for it.
    snapshot_time: Duration,
}

impl Budget {
    pub(super) fn new(budget: Duration, started: Instant) -> Budget {
        Budget {
            deadline: started + budget,
            loops: 0,
            loop_time: Duration::ZERO,
            snapshot_time: Duration::ZERO,
        }
    }

    pub(super) fn ran_loops(&mut self, count: u32, took: Duration) {
        self.loops += u64::from(count);
        self.loop_time += took;
    }

    pub(super) fn took_snapshot(&mut self, took: Duration) {
        self.snapshot_time = took;
    }

    /// Whether waiting `wait` and then one more snapshot fit before the deadline.
    pub(super) fn affords(&self, wait: Duration) -> bool {
        self.deadline.saturating_duration_since(Instant::now()) >= wait + self.snapshot_time * 2
    }

    /// How many of `requested` loops fit before the deadline with one more snapshot after
    /// them, at the average loop time so far.
    pub(super) fn affordable_loops(&self, requested: u32) -> u32 {
        let left = self
            .deadline
            .saturating_duration_since(Instant::now())
            .saturating_sub(self.snapshot_time * 2);
        if self.loops == 0 || self.loop_time.is_zero() {
            return if left.is_zero() { 0 } else { requested };
        }
        let per_loop = self.loop_time.as_secs_f64() / self.loops as f64;
        let fit = (left.as_secs_f64() / per_loop).floor();
        if fit >= f64::from(requested) {
            requested
        } else {
            fit as u32
        }
    }
}
