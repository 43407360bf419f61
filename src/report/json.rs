//! The JSON document: `{"scenarios": [...]}`, the shape other tools rely on (docs/reference.md, "JSON").

use serde::Serialize;

use super::{LoopUnit, OldObjectReport, ScenarioReport, Subject, Verdict};
use crate::attribution::{Attribution, Origin, StackCount};
use crate::growth::{GrowingNode, GrowthKind, PathStep, SnapshotValues, StepKind, TrendRow};

#[derive(Serialize)]
struct Document<'a> {
    scenarios: Vec<JsonScenario<'a>>,
}

#[derive(Serialize)]
struct JsonScenario<'a> {
    scenario: &'a str,
    /// `growing`, `clean`, `inconclusive` (see [`crate::report::Verdict`]), or `error`.
    verdict: &'static str,
    /// Why an inconclusive verdict is one; omitted for the others.
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    loops: u32,
    snapshots: u32,
    /// The loops at each snapshot (`heapgrowth diff --loops` takes them for dumps that
    /// `--keep-dumps all` kept).
    snapshot_loops: &'a [u32],
    /// Why detection went on past its first three snapshots, at each snapshot it did; omitted
    /// where the snapshots were not the search's to choose (`diff`).
    #[serde(skip_serializing_if = "Option::is_none")]
    looked_longer: Option<Vec<JsonLookedLonger<'a>>>,
    growing: Vec<JsonGrowing<'a>>,
    /// `heapgrowth watch`: candidates watching ended on before a confirmation snapshot;
    /// omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unconfirmed: Vec<JsonUnconfirmed<'a>>,
    leveled_off: Vec<JsonLeveledOff<'a>>,
    /// Candidates whose growth a snapshot retaken after the settling bound did not find (not
    /// growth); omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    gone_on_retake: Vec<JsonGoneOnRetake<'a>>,
    /// Paths under which references the GC cleared kept piling up (not growth); omitted when
    /// none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    awaiting_cleanup: Vec<JsonAwaitingCleanup<'a>>,
    ignored: Vec<JsonIgnored<'a>>,
    timings_ms: JsonTimings<'a>,
    /// The loops at which the settling before a snapshot was cut short by its bounds; omitted
    /// when none was.
    #[serde(skip_serializing_if = "<[u32]>::is_empty")]
    settling_cut_short: &'a [u32],
    /// Heap dumps kept on request; omitted when none were.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    kept_dumps: Vec<String>,
    /// Why the dumps asked for could not be kept; omitted otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    dumps_not_kept: Option<&'a str>,
    /// What was searched: "heap dumps" (`diff`) or "jvm" (`watch`); omitted for a scenario.
    #[serde(skip_serializing_if = "Option::is_none")]
    subject: Option<&'static str>,
    /// What `loops` and the loop numbers count: "dumps" (`diff`), "snapshots" (an interactive
    /// `watch`) or "intervals" (a periodic `watch`); omitted for loops of a scenario.
    #[serde(skip_serializing_if = "Option::is_none")]
    loop_unit: Option<&'static str>,
    /// Why no node is attributed, once for the whole scenario; omitted otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    not_attributed: Option<&'a str>,
    /// The class-trend table of `heapgrowth watch`; omitted when empty.
    #[serde(skip_serializing_if = "<[TrendRow]>::is_empty")]
    class_trends: &'a [TrendRow],
    /// The JFR old-object samples of `heapgrowth watch --jfr`; omitted elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    old_objects: Option<JsonOldObjects<'a>>,
}

/// `watch --jfr`: what sampling can tell, each dump's counts, the growing classes.
#[derive(Serialize)]
struct JsonOldObjects<'a> {
    sampling: String,
    /// [`crate::report::OldObjectReport::stopped_early`]; omitted when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped_early: Option<&'a str>,
    /// Samples judged over all dumps (heapgrowth's own and ignored ones left out).
    samples_judged: u64,
    /// Garbage collections from the recording's start to its last dump; null when unknown.
    collections: Option<u64>,
    queue_size: u32,
    queue_size_set_at_start: bool,
    dumps: Vec<JsonSampleDump>,
    growing: Vec<JsonGrowingClass<'a>>,
    /// Common paths of survivors spread over the recording (growth past a full queue).
    survivors: Vec<JsonSurvivors<'a>>,
    ignored: Vec<JsonIgnoredSamples<'a>>,
}

#[derive(Serialize)]
struct JsonSampleDump {
    /// Milliseconds since the Unix epoch.
    time_ms: i64,
    samples: u64,
    /// heapgrowth's own (the attach listener's), left out.
    own: u64,
    ignored: u64,
    without_path: u64,
}

#[derive(Serialize)]
struct JsonGrowingClass<'a> {
    class: &'a str,
    trend: &'a TrendRow,
    paths: Vec<JsonSampledPath<'a>>,
    other_paths: u64,
    other_paths_samples: u64,
}

#[derive(Serialize)]
struct JsonSurvivors<'a> {
    /// The step a gate keys it by (the last static field on the path, else its last step).
    held_at: String,
    path: Vec<JsonStep<'a>>,
    samples: u64,
    of_samples: u64,
    share_percent: f64,
    classes: Vec<JsonThreadSamples<'a>>,
    /// Its samples per quarter of the recording by allocation time, oldest first.
    quarters: &'a [u64],
    first_window_ms: u128,
    confirmed_window_ms: u128,
    ages_ms: JsonAges,
    threads: Vec<JsonThreadSamples<'a>>,
    stacks: Vec<JsonStack>,
}

#[derive(Serialize)]
struct JsonSampledPath<'a> {
    /// Empty when JFR found no path to a GC root.
    path: Vec<JsonStep<'a>>,
    /// Samples on the path at each dump of the class's trend.
    counts: &'a [u64],
    samples: u64,
    references_left_out: u64,
    ages_ms: JsonAges,
    threads: Vec<JsonThreadSamples<'a>>,
    stacks: Vec<JsonStack>,
}

#[derive(Serialize)]
struct JsonAges {
    youngest: u128,
    median: u128,
    oldest: u128,
}

#[derive(Serialize)]
struct JsonThreadSamples<'a> {
    name: &'a str,
    samples: u64,
}

#[derive(Serialize)]
struct JsonIgnoredSamples<'a> {
    pattern: &'a str,
    reason: &'a str,
    /// [`crate::growth::RuleOrigin::label`].
    origin: &'a str,
    samples: u64,
}

/// A path that grew for a while and stopped.
#[derive(Serialize)]
struct JsonLeveledOff<'a> {
    path: Vec<JsonStep<'a>>,
    growth: Vec<&'static str>,
    last_growth_loop: u32,
    history: Vec<JsonValues>,
}

/// A candidate whose growth the retaken snapshot did not find.
#[derive(Serialize)]
struct JsonGoneOnRetake<'a> {
    path: Vec<JsonStep<'a>>,
    growth: Vec<&'static str>,
    history: Vec<JsonValues>,
    /// The objects of its children in the retaken snapshot.
    retaken_children_objects: u64,
}

/// A path under which references the GC cleared kept piling up.
#[derive(Serialize)]
struct JsonAwaitingCleanup<'a> {
    path: Vec<JsonStep<'a>>,
    /// Objects awaiting cleanup among the node's children at the last snapshot, and how many
    /// more than at the one before.
    objects: u64,
    new: i64,
    history: Vec<JsonAwaitingValues>,
}

#[derive(Serialize)]
struct JsonAwaitingValues {
    loops: u32,
    objects: u64,
}

/// A path that kept detection going after a snapshot.
#[derive(Serialize)]
struct JsonLookedLonger<'a> {
    after_loop: u32,
    why: &'static str,
    path: Vec<JsonStep<'a>>,
    growth: Vec<&'static str>,
    /// How many paths kept it going, this one included.
    paths: u32,
    history: Vec<JsonValues>,
}

/// A candidate that was not confirmed: watching ended first.
#[derive(Serialize)]
struct JsonUnconfirmed<'a> {
    path: Vec<JsonStep<'a>>,
    growth: Vec<&'static str>,
    history: Vec<JsonValues>,
}

/// A path an ignore rule kept out of the search.
#[derive(Serialize)]
struct JsonIgnored<'a> {
    path: Vec<JsonStep<'a>>,
    growth: Vec<&'static str>,
    pattern: &'a str,
    reason: &'a str,
    /// [`crate::growth::RuleOrigin::label`].
    origin: &'a str,
    history: Vec<JsonValues>,
}

/// A node's measures at one snapshot.
#[derive(Serialize)]
struct JsonValues {
    loops: u32,
    objects: u64,
    children_objects: u64,
    references: u64,
    children_bytes: u64,
    spread_objects: u64,
}

#[derive(Serialize)]
struct JsonConfirmed {
    from_loop: u32,
    to_loop: u32,
    snapshots: u32,
    /// Why confirmation stopped before its loops, or null.
    cut: Option<&'static str>,
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
    /// The step as the text report writes it (`STATIC_FIELD Cart.items -> instance of ...`).
    text: String,
    kind: &'static str,
    owner: Option<&'a str>,
    name: &'a str,
    target: Option<&'a str>,
    objects: u64,
    /// For a root group of threads: the pattern of their names.
    #[serde(skip_serializing_if = "Option::is_none")]
    threads: Option<&'a str>,
    /// For `LOCAL`: where the frame was.
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonChild<'a> {
    /// The child's step as the text report writes it.
    text: String,
    kind: &'static str,
    owner: &'a str,
    name: &'a str,
    target: &'a str,
    objects: u64,
    new: i64,
    bytes: u64,
    new_bytes: i64,
    below: u64,
    new_below: i64,
}

#[derive(Serialize)]
struct JsonRetained {
    objects: u64,
    bytes: u64,
    /// null when the snapshot before did not measure it.
    objects_increase: Option<i64>,
    bytes_increase: Option<i64>,
}

#[derive(Serialize)]
struct JsonGrowing<'a> {
    path: Vec<JsonStep<'a>>,
    growth: Vec<&'static str>,
    confirmed: JsonConfirmed,
    children_objects: Vec<u64>,
    history: Vec<JsonValues>,
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
        caveats: Vec<String>,
    },
    NotAttributed {
        reason: String,
    },
}

#[derive(Serialize)]
struct JsonStack {
    /// `4 call(s) to add()`, as the text report heads the stack.
    headline: String,
    count: u64,
    /// `pkg.Class.method(File.java:LINE)`, innermost first.
    frames: Vec<String>,
    /// The same frames as objects.
    frame_details: Vec<JsonFrame>,
    /// The index of the frame to look at (see `attribution::place_to_look`), or null.
    place_to_look: Option<usize>,
}

#[derive(Serialize)]
struct JsonFrame {
    class: String,
    method: String,
    file: Option<String>,
    line: Option<i32>,
    /// `jdk`, `library` or `user`.
    origin: &'static str,
    /// The library's jar, for `origin: "library"`.
    library: Option<String>,
}

fn attribution(attribution: &Attribution) -> JsonAttribution {
    match attribution {
        Attribution::Attributed {
            kind,
            stacks,
            caveats,
        } => JsonAttribution::Attributed {
            kind: kind.label(),
            caveats: caveats.clone(),
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
        frame_details: s
            .frames
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
            .collect(),
        place_to_look: s.place_to_look(),
    }
}

fn old_objects<'a>(report: &'a OldObjectReport) -> JsonOldObjects<'a> {
    let outcome = &report.outcome;
    let millis = |d: std::time::Duration| d.as_millis();
    JsonOldObjects {
        sampling: report.sampling_limits(),
        stopped_early: report.stopped_early.as_deref(),
        samples_judged: report.samples_judged(),
        collections: report.collections,
        queue_size: report.queue.samples,
        queue_size_set_at_start: report.queue.set_at_start,
        dumps: outcome
            .dumps
            .iter()
            .map(|dump| JsonSampleDump {
                time_ms: dump.time / 1_000_000,
                samples: dump.samples,
                own: dump.own,
                ignored: dump.ignored,
                without_path: dump.without_path,
            })
            .collect(),
        growing: outcome
            .growing
            .iter()
            .enumerate()
            .map(|(c, class)| JsonGrowingClass {
                class: &class.trend.class,
                trend: &class.trend,
                paths: class
                    .paths
                    .iter()
                    .enumerate()
                    .map(|(p, sampled)| JsonSampledPath {
                        path: path(&sampled.path),
                        counts: &sampled.counts,
                        samples: sampled.samples,
                        references_left_out: sampled.references_left_out,
                        ages_ms: JsonAges {
                            youngest: millis(sampled.ages.youngest),
                            median: millis(sampled.ages.median),
                            oldest: millis(sampled.ages.oldest),
                        },
                        threads: sampled
                            .threads
                            .iter()
                            .map(|(name, samples)| JsonThreadSamples {
                                name,
                                samples: *samples,
                            })
                            .collect(),
                        stacks: report
                            .stacks
                            .get(c)
                            .and_then(|paths| paths.get(p))
                            .map_or(&[][..], Vec::as_slice)
                            .iter()
                            .map(|s| json_stack(s, format!("{} sample(s) allocated at", s.count)))
                            .collect(),
                    })
                    .collect(),
                other_paths: class.other_paths.0,
                other_paths_samples: class.other_paths.1,
            })
            .collect(),
        survivors: outcome
            .survivors
            .iter()
            .enumerate()
            .map(|(i, survivors)| {
                let sampled = &survivors.sampled;
                let named = |list: &'a [(String, u64)]| {
                    list.iter()
                        .map(|(name, samples)| JsonThreadSamples {
                            name,
                            samples: *samples,
                        })
                        .collect()
                };
                JsonSurvivors {
                    held_at: survivors.key_step(),
                    path: path(&sampled.path),
                    samples: sampled.samples,
                    of_samples: survivors.of_samples,
                    share_percent: (survivors.share_percent() * 10.0).round() / 10.0,
                    classes: named(&survivors.classes),
                    quarters: &survivors.quarters,
                    first_window_ms: millis(survivors.first_window),
                    confirmed_window_ms: millis(survivors.confirmed_window),
                    ages_ms: JsonAges {
                        youngest: millis(sampled.ages.youngest),
                        median: millis(sampled.ages.median),
                        oldest: millis(sampled.ages.oldest),
                    },
                    threads: named(&sampled.threads),
                    stacks: report
                        .survivor_stacks
                        .get(i)
                        .map_or(&[][..], Vec::as_slice)
                        .iter()
                        .map(|s| json_stack(s, format!("{} sample(s) allocated at", s.count)))
                        .collect(),
                }
            })
            .collect(),
        ignored: outcome
            .ignored
            .iter()
            .map(|ignored| JsonIgnoredSamples {
                pattern: &ignored.pattern,
                reason: &ignored.reason,
                origin: ignored.origin.label(),
                samples: ignored.samples,
            })
            .collect(),
    }
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
                    old_objects: report.old_objects.as_ref().map(old_objects),
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
                    old_objects: report.old_objects.as_ref().map(old_objects),
                },
            }
        })
        .collect();
    Document { scenarios }
}
