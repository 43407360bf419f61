//! A tracked class's rings of values and their evaluation at each interval: a least-squares
//! line per measure, its rise against the floors, the streak of qualifying intervals.

use std::collections::VecDeque;

use super::ClassTrendConfig;

/// A least-squares line over a ring's values, one value per interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Fit {
    pub(super) slope: f64,
    pub(super) start: f64,
    pub(super) end: f64,
}

impl Fit {
    pub(super) fn of(values: impl ExactSizeIterator<Item = u64> + Clone) -> Fit {
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

    pub(super) fn growth(&self) -> f64 {
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

pub(super) fn push(ring: &mut VecDeque<u64>, value: u64, len: usize) {
    if ring.len() == len {
        ring.pop_front();
    }
    ring.push_back(value);
}

/// The latest evaluation of a class that has enough values.
#[derive(Clone, Copy, Debug)]
pub(super) struct Verdict {
    pub(super) instances: Fit,
    pub(super) bytes: Fit,
    pub(super) instances_qualify: bool,
    pub(super) bytes_qualify: bool,
    pub(super) corroborated: bool,
    /// The better of the two measures' [`Fit::promise`]: which class to drop first.
    pub(super) promise: f64,
}

#[derive(Debug)]
pub(super) struct History {
    pub(super) instances: VecDeque<u64>,
    pub(super) bytes: VecDeque<u64>,
    pub(super) streak: u32,
    pub(super) verdict: Option<Verdict>,
}

impl History {
    pub(super) fn evaluate(&mut self, config: &ClassTrendConfig, heap_floor: &VecDeque<u64>) {
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

    pub(super) fn required_streak(&self, config: &ClassTrendConfig) -> u32 {
        match self.verdict {
            Some(verdict) if verdict.corroborated => config.corroborated_streak,
            _ => config.required_streak,
        }
    }

    pub(super) fn selected(&self, config: &ClassTrendConfig) -> bool {
        self.verdict.is_some() && self.streak >= self.required_streak(config)
    }

    /// Whether the trend has yet to decide on this class, not selected: too few values to be
    /// evaluated while a measure is at its high so far, or qualifying short of the streak.
    pub(super) fn undecided(&self, config: &ClassTrendConfig) -> bool {
        let at_its_high = |ring: &VecDeque<u64>| {
            ring.back()
                .is_some_and(|&last| last > 0 && ring.iter().all(|&value| value <= last))
        };
        !self.selected(config)
            && (self.streak > 0
                || (self.verdict.is_none()
                    && (at_its_high(&self.instances) || at_its_high(&self.bytes))))
    }

    /// A class that may make room for a new one: evaluated, not on a streak, not rising at all.
    pub(super) fn evictable(&self) -> bool {
        self.streak == 0 && self.verdict.is_some_and(|verdict| verdict.promise <= 0.0)
    }
}
