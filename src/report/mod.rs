//! Reports of a run: the tree text (shark's layout) and one JSON document.

mod json;
mod normalized;
mod text;

pub use json::to_json;
pub use normalized::{normalized_node, render_normalized};
pub use text::{render_scenario, render_text};

use crate::growth::SearchOutcome;

/// Wall-clock time of each phase, one entry per snapshot, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timings {
    /// Writing the heap dump (includes the full GC of a live dump).
    pub dump: Vec<u64>,
    /// Reading the dump into the heap model.
    pub parse: Vec<u64>,
    /// Path tree, diff and retained sizes.
    pub analysis: Vec<u64>,
}

/// The result of one scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioReport {
    /// Fully qualified class name of the scenario.
    pub scenario: String,
    /// What the search found, or why the scenario could not be run.
    pub result: Result<SearchOutcome, String>,
    /// Phase timings.
    pub timings: Timings,
}

impl ScenarioReport {
    /// Whether this scenario has growth to report.
    pub fn has_growth(&self) -> bool {
        self.result
            .as_ref()
            .is_ok_and(|outcome| !outcome.growing.is_empty())
    }
}
