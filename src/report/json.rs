//! The JSON document: `{"scenarios": [...]}`, the shape other tools rely on (README).

use serde::Serialize;

use super::ScenarioReport;
use crate::attribution::Attribution;
use crate::growth::{GrowingNode, PathStep, StepKind};

#[derive(Serialize)]
struct Document<'a> {
    scenarios: Vec<JsonScenario<'a>>,
}

#[derive(Serialize)]
struct JsonScenario<'a> {
    scenario: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    loops: u32,
    snapshots: u32,
    growing: Vec<JsonGrowing<'a>>,
    leveled_off: Vec<Vec<JsonStep<'a>>>,
    timings_ms: JsonTimings<'a>,
}

#[derive(Serialize)]
struct JsonTimings<'a> {
    dump: &'a [u64],
    parse: &'a [u64],
    analysis: &'a [u64],
    attribution: &'a [u64],
}

#[derive(Serialize)]
struct JsonStep<'a> {
    kind: &'static str,
    owner: Option<&'a str>,
    name: &'a str,
    target: Option<&'a str>,
    objects: u64,
}

#[derive(Serialize)]
struct JsonChild<'a> {
    kind: &'static str,
    owner: &'a str,
    name: &'a str,
    target: &'a str,
    objects: u64,
    new: i64,
    bytes: u64,
    new_bytes: i64,
}

#[derive(Serialize)]
struct JsonRetained {
    objects: u64,
    bytes: u64,
    objects_increase: i64,
    bytes_increase: i64,
}

#[derive(Serialize)]
struct JsonGrowing<'a> {
    path: Vec<JsonStep<'a>>,
    children_objects: &'a [u64],
    retained: JsonRetained,
    children: Vec<JsonChild<'a>>,
    /// `null` when attribution did not run.
    attribution: Option<JsonAttribution>,
}

/// `{"status": "attributed", "kind": ..., "stacks": [...]}` or
/// `{"status": "not_attributed", "reason": ...}`.
#[derive(Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
enum JsonAttribution {
    Attributed {
        kind: String,
        stacks: Vec<JsonStack>,
    },
    NotAttributed {
        reason: String,
    },
}

#[derive(Serialize)]
struct JsonStack {
    count: u64,
    frames: Vec<String>,
}

fn attribution(attribution: &Attribution) -> JsonAttribution {
    match attribution {
        Attribution::Attributed { kind, stacks } => JsonAttribution::Attributed {
            kind: kind.label(),
            stacks: stacks
                .iter()
                .map(|s| JsonStack {
                    count: s.count,
                    frames: s.frames.clone(),
                })
                .collect(),
        },
        Attribution::NotAttributed { reason } => JsonAttribution::NotAttributed {
            reason: reason.clone(),
        },
    }
}

fn step(step: &PathStep) -> JsonStep<'_> {
    let is_root = step.kind == StepKind::GcRoot;
    JsonStep {
        kind: step.kind.label(),
        owner: (!is_root).then_some(step.owner.as_str()),
        name: &step.name,
        target: (!is_root).then_some(step.target.as_str()),
        objects: step.objects,
    }
}

fn growing<'a>(node: &'a GrowingNode, found: Option<&'a Attribution>) -> JsonGrowing<'a> {
    JsonGrowing {
        path: node.path.iter().map(step).collect(),
        children_objects: &node.children_objects,
        retained: JsonRetained {
            objects: node.retained.objects,
            bytes: node.retained.bytes,
            objects_increase: node.retained.objects_increase,
            bytes_increase: node.retained.bytes_increase,
        },
        children: node
            .children
            .iter()
            .map(|child| JsonChild {
                kind: child.step.kind.label(),
                owner: &child.step.owner,
                name: &child.step.name,
                target: &child.step.target,
                objects: child.objects,
                new: child.new,
                bytes: child.bytes,
                new_bytes: child.new_bytes,
            })
            .collect(),
        attribution: found.map(attribution),
    }
}

/// The JSON document for `reports`, pretty-printed.
pub fn to_json(reports: &[ScenarioReport]) -> String {
    let scenarios = reports
        .iter()
        .map(|report| {
            let timings = JsonTimings {
                dump: &report.timings.dump,
                parse: &report.timings.parse,
                analysis: &report.timings.analysis,
                attribution: &report.timings.attribution,
            };
            match &report.result {
                Ok(outcome) => JsonScenario {
                    scenario: &report.scenario,
                    error: None,
                    loops: outcome.loops,
                    snapshots: outcome.snapshots,
                    growing: report
                        .growing()
                        .map(|(node, found)| growing(node, found))
                        .collect(),
                    leveled_off: outcome
                        .leveled_off
                        .iter()
                        .map(|path| path.iter().map(step).collect())
                        .collect(),
                    timings_ms: timings,
                },
                Err(error) => JsonScenario {
                    scenario: &report.scenario,
                    error: Some(error),
                    loops: 0,
                    snapshots: 0,
                    growing: Vec::new(),
                    leveled_off: Vec::new(),
                    timings_ms: timings,
                },
            }
        })
        .collect();
    serde_json::to_string_pretty(&Document { scenarios })
        .expect("serialising plain data cannot fail")
}
