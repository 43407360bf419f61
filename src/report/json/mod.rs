//! The JSON document: `{"scenarios": [...]}`, the shape other tools rely on (docs/reference.md, "JSON").
//! Its types are in `schema`; the part for JFR old-object samples is built in `old_objects`.

mod old_objects;
mod schema;

use schema::{
    Document, JsonAttribution, JsonAwaitingCleanup, JsonAwaitingValues, JsonChild, JsonConfirmed,
    JsonFrame, JsonGoneOnRetake, JsonGrowing, JsonIgnored, JsonLeveledOff, JsonLookedLonger,
    JsonMadeAt, JsonRetained, JsonScenario, JsonStack, JsonStep, JsonTimings, JsonUnconfirmed,
    JsonValues,
};

use super::{LoopUnit, ScenarioReport, Subject, Verdict};
use crate::attribution::{Attribution, Origin, StackCount};
use crate::growth::{GrowingNode, GrowthKind, PathStep, SnapshotValues, StepKind};

fn attribution(attribution: &Attribution) -> JsonAttribution {
    match attribution {
        Attribution::Attributed {
            kind,
            stacks,
            caveats,
            hints,
        } => JsonAttribution::Attributed {
            kind: kind.label(),
            caveats: caveats.clone(),
            hints: hints.clone(),
            stacks: stacks
                .iter()
                .map(|s| json_stack(s, s.headline(kind)))
                .collect(),
        },
        Attribution::NotAttributed { reason } => JsonAttribution::NotAttributed {
            reason: reason.clone(),
        },
    }
}

fn json_stack(s: &StackCount, headline: String) -> JsonStack {
    JsonStack {
        headline,
        count: s.count,
        frames: s.frames.iter().map(ToString::to_string).collect(),
        frame_details: frame_details(&s.frames),
        place_to_look: s.place_to_look(),
        made_at: s.made_at.as_ref().map(|frames| JsonMadeAt {
            frames: frames.iter().map(ToString::to_string).collect(),
            frame_details: frame_details(frames),
            place_to_look: crate::attribution::place_to_look(frames),
        }),
        folded: (s.folded > 1).then_some(s.folded),
    }
}

fn frame_details(frames: &[crate::attribution::StackFrame]) -> Vec<JsonFrame> {
    frames
        .iter()
        .map(|f| JsonFrame {
            class: f.frame.class.clone(),
            method: f.frame.method.clone(),
            file: f.frame.file.clone(),
            line: f.frame.line,
            origin: f.origin.label(),
            library: match &f.origin {
                Origin::Library(jar) => Some(jar.clone()),
                _ => None,
            },
        })
        .collect()
}

fn step(step: &PathStep) -> JsonStep<'_> {
    let is_root = step.kind == StepKind::GcRoot;
    JsonStep {
        text: step.with_source(),
        kind: step.kind.label(),
        owner: (!is_root).then_some(step.owner.as_str()),
        name: &step.name,
        target: (!is_root).then_some(step.target.as_str()),
        objects: step.objects,
        threads: (is_root && !step.target.is_empty()).then_some(step.target.as_str()),
        source: (!step.source.is_empty()).then_some(step.source.as_str()),
    }
}

fn path(path: &[PathStep]) -> Vec<JsonStep<'_>> {
    path.iter().map(step).collect()
}

fn labels(kinds: &[GrowthKind]) -> Vec<&'static str> {
    kinds.iter().map(|kind| kind.label()).collect()
}

fn history(history: &[SnapshotValues]) -> Vec<JsonValues> {
    history
        .iter()
        .map(|snapshot| JsonValues {
            loops: snapshot.loops,
            objects: snapshot.values.objects,
            children_objects: snapshot.values.children_objects,
            references: snapshot.values.references,
            children_bytes: snapshot.values.children_bytes,
            spread_objects: snapshot.values.spread_objects,
        })
        .collect()
}

fn growing<'a>(node: &'a GrowingNode, found: Option<&'a Attribution>) -> JsonGrowing<'a> {
    JsonGrowing {
        path: path(&node.path),
        growth: labels(&node.kinds),
        confirmed: JsonConfirmed {
            from_loop: node.confirmed.from_loop,
            to_loop: node.confirmed.to_loop,
            snapshots: node.confirmed.snapshots,
            cut: node.confirmed.cut.map(|cut| cut.reason()),
        },
        children_objects: node.children_objects(),
        history: history(&node.history),
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
                text: child.step.with_source(),
                kind: child.step.kind.label(),
                owner: &child.step.owner,
                name: &child.step.name,
                target: &child.step.target,
                objects: child.objects,
                new: child.new,
                bytes: child.bytes,
                new_bytes: child.new_bytes,
                below: child.below,
                new_below: child.new_below,
            })
            .collect(),
        attribution: found.map(attribution),
    }
}

/// The JSON document for `reports`, pretty-printed.
pub fn to_json(reports: &[ScenarioReport]) -> String {
    visible(
        &serde_json::to_string_pretty(&document(reports))
            .expect("serialising plain data cannot fail"),
        false,
    )
}

/// The same document as [`to_json`] on one line, for the HTML page (a third of the size: the
/// indentation of the pretty form is most of it), with every `<` as `\u003c` too: no string in
/// the data (a class or thread name, an error message) can close the page's `<script>` element
/// or open a comment (`<!--`).
pub(super) fn to_json_compact_for_html(reports: &[ScenarioReport]) -> String {
    visible(
        &serde_json::to_string(&document(reports)).expect("serialising plain data cannot fail"),
        true,
    )
}

/// `json` with the characters [`crate::line::escape_line`] escapes in text written as
/// `\uXXXX` (serde escapes only C0 controls): a report printed to a terminal or opened in an
/// editor holds no C1 control, bidi control or line separator from a name, and reads as the
/// same data (DEL too). They occur only inside strings (JSON's own syntax is ASCII), where `\uXXXX`
/// means the same character; each is in the Basic Multilingual Plane.
fn visible(json: &str, less_than_too: bool) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        // Below a space only the pretty form's line breaks are left: serde escaped the rest.
        if (c >= ' ' && crate::line::needs_escape(c)) || (less_than_too && c == '<') {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

fn document(reports: &[ScenarioReport]) -> Document<'_> {
    let scenarios = reports
        .iter()
        .map(|report| {
            let timings = JsonTimings {
                dump: &report.timings.dump,
                parse: &report.timings.parse,
                analysis: &report.timings.analysis,
                attribution: &report.timings.attribution,
            };
            let subject = match report.subject {
                Subject::Scenario => None,
                Subject::HeapDumps => Some("heap dumps"),
                Subject::Jvm => Some("jvm"),
            };
            let loop_unit = match report.loop_unit {
                LoopUnit::Loops => None,
                unit => Some(unit.plural()),
            };
            let kept_dumps = || {
                report
                    .kept_dumps
                    .iter()
                    .map(|path| path.display().to_string())
                    .collect()
            };
            let verdict = report.verdict();
            match &report.result {
                Ok(outcome) => JsonScenario {
                    scenario: &report.scenario,
                    verdict: verdict.as_ref().map_or("error", Verdict::label),
                    verdict_reason: verdict.as_ref().and_then(Verdict::reason).map(Into::into),
                    error: None,
                    loops: outcome.loops,
                    snapshots: outcome.snapshots,
                    snapshot_loops: &outcome.snapshot_loops,
                    looked_longer: outcome.looked_longer.as_ref().map(|list| {
                        list.iter()
                            .map(|looked| JsonLookedLonger {
                                after_loop: looked.after_loop,
                                why: looked.reason.label(),
                                path: path(&looked.path),
                                growth: labels(&looked.kinds),
                                paths: looked.paths,
                                history: history(&looked.history),
                            })
                            .collect()
                    }),
                    growing: report
                        .growing()
                        .map(|(node, found)| growing(node, found))
                        .collect(),
                    unconfirmed: outcome
                        .unconfirmed
                        .iter()
                        .map(|node| JsonUnconfirmed {
                            path: path(&node.path),
                            growth: labels(&node.kinds),
                            history: history(&node.history),
                        })
                        .collect(),
                    leveled_off: outcome
                        .leveled_off
                        .iter()
                        .map(|leveled| JsonLeveledOff {
                            path: path(&leveled.path),
                            growth: labels(&leveled.kinds),
                            last_growth_loop: leveled.last_growth_loop,
                            history: history(&leveled.history),
                        })
                        .collect(),
                    gone_on_retake: outcome
                        .gone_on_retake
                        .iter()
                        .map(|gone| JsonGoneOnRetake {
                            path: path(&gone.path),
                            growth: labels(&gone.kinds),
                            history: history(&gone.history),
                            retaken_children_objects: gone.retaken_children_objects,
                        })
                        .collect(),
                    awaiting_cleanup: outcome
                        .awaiting_cleanup
                        .iter()
                        .map(|awaiting| {
                            let (objects, new) = awaiting.last_and_new();
                            JsonAwaitingCleanup {
                                path: path(&awaiting.path),
                                objects,
                                new,
                                history: awaiting
                                    .history
                                    .iter()
                                    .map(|&(loops, objects)| JsonAwaitingValues { loops, objects })
                                    .collect(),
                            }
                        })
                        .collect(),
                    ignored: outcome
                        .ignored
                        .iter()
                        .map(|ignored| JsonIgnored {
                            path: path(&ignored.path),
                            growth: labels(&ignored.kinds),
                            pattern: &ignored.pattern,
                            reason: &ignored.reason,
                            origin: ignored.origin.label(),
                            history: history(&ignored.history),
                        })
                        .collect(),
                    timings_ms: timings,
                    settling_cut_short: &report.settling_cut_short,
                    kept_dumps: kept_dumps(),
                    dumps_not_kept: report.dumps_not_kept.as_deref(),
                    subject,
                    loop_unit,
                    not_attributed: report.not_attributed.as_deref(),
                    class_trends: &report.class_trends,
                    old_objects: report.old_objects.as_ref().map(old_objects::old_objects),
                },
                Err(error) => JsonScenario {
                    scenario: &report.scenario,
                    verdict: "error",
                    verdict_reason: None,
                    error: Some(error),
                    loops: 0,
                    snapshots: 0,
                    snapshot_loops: &[],
                    looked_longer: None,
                    growing: Vec::new(),
                    unconfirmed: Vec::new(),
                    leveled_off: Vec::new(),
                    gone_on_retake: Vec::new(),
                    awaiting_cleanup: Vec::new(),
                    ignored: Vec::new(),
                    timings_ms: timings,
                    settling_cut_short: &report.settling_cut_short,
                    kept_dumps: kept_dumps(),
                    dumps_not_kept: report.dumps_not_kept.as_deref(),
                    subject,
                    loop_unit,
                    not_attributed: report.not_attributed.as_deref(),
                    class_trends: &report.class_trends,
                    old_objects: report.old_objects.as_ref().map(old_objects::old_objects),
                },
            }
        })
        .collect();
    Document { scenarios }
}
