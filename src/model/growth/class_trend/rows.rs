//! What a report shows of a tracked class: its rings, fitted lines and streak.

use std::collections::VecDeque;

use serde::Serialize;

use super::history::Fit;

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
    pub(super) fn new(values: &VecDeque<u64>, qualifies: bool) -> MeasureTrend {
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
