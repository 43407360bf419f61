//! Reports of a run: the tree text (shark's layout) and one JSON document.

mod json;
mod normalized;
mod text;

pub use json::to_json;
pub use normalized::{normalized_node, render_normalized};
pub use text::{render_scenario, render_text};

use crate::attribution::Attribution;
use crate::growth::{GrowingNode, SearchOutcome};

/// Wall-clock time of each phase, one entry per snapshot, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timings {
    /// Writing the heap dump (includes the full GC of a live dump).
    pub dump: Vec<u64>,
    /// Reading the dump into the heap model.
    pub parse: Vec<u64>,
    /// Path tree, diff and retained sizes.
    pub analysis: Vec<u64>,
    /// Attribution: one entry per growing node (its loops with a recorder, install and removal).
    pub attribution: Vec<u64>,
}

/// The result of one scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioReport {
    /// Fully qualified class name of the scenario.
    pub scenario: String,
    /// What the search found, or why the scenario could not be run.
    pub result: Result<SearchOutcome, String>,
    /// Which code grew each growing node, in the order of `result`'s nodes; `None` where
    /// attribution did not run (switched off, or no growth).
    pub attributions: Vec<Option<Attribution>>,
    /// Phase timings.
    pub timings: Timings,
}

impl ScenarioReport {
    /// A report of a scenario that failed before anything was measured.
    pub fn failed(scenario: &str, error: String) -> ScenarioReport {
        ScenarioReport {
            scenario: scenario.to_owned(),
            result: Err(error),
            attributions: Vec::new(),
            timings: Timings::default(),
        }
    }

    /// The growing nodes, each with its attribution.
    pub fn growing(&self) -> impl Iterator<Item = (&GrowingNode, Option<&Attribution>)> {
        let nodes = self
            .result
            .as_ref()
            .map_or(&[][..], |outcome| &outcome.growing);
        nodes
            .iter()
            .enumerate()
            .map(|(i, node)| (node, self.attributions.get(i).and_then(Option::as_ref)))
    }

    /// Whether this scenario has growth to report.
    pub fn has_growth(&self) -> bool {
        self.result
            .as_ref()
            .is_ok_and(|outcome| !outcome.growing.is_empty())
    }
}
