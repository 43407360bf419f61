//! Reports of a run: the tree text (shark's layout), one JSON document, and an HTML page that
//! draws the JSON.

pub mod baseline;
pub mod gate;
#[cfg(test)]
pub(crate) mod golden_tests;
mod hostile;
mod html;
pub mod index_page;
mod json;
mod normalized;
mod text;
mod verdict;

pub use hostile::{named_dumps, reports_of_named_dumps};
pub use html::render_html;
pub use json::to_json;
pub use normalized::{normalized_node, render_normalized};
pub use text::{render_scenario, render_text, StackDepth};
pub(crate) use verdict::undecided_classes;
pub use verdict::{
    confirmation_due, exit_status, Verdict, EXIT_CLEAN, EXIT_ERROR, EXIT_GROWING, EXIT_INCONCLUSIVE,
};

use std::path::{Path, PathBuf};

use crate::attach::QueueSize;
use crate::attribution::{Attribution, StackCount};
use crate::growth::old_objects::OldObjectOutcome;
use crate::growth::{GrowingNode, IgnoreRule, SearchOutcome, TrendRow};

/// Wall-clock time of each phase, one entry per snapshot (and one for a retaken snapshot,
/// [`crate::growth::NextStep::Retake`]), in milliseconds.
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

/// Milliseconds since `started`, for [`Timings`].
pub(crate) fn elapsed_ms(started: std::time::Instant) -> u64 {
    started.elapsed().as_millis() as u64
}

/// The result of one scenario.
#[derive(Clone, Debug, PartialEq)]
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
    /// Heap dumps kept on request (`keepDumps = failed`): they hold every secret in the heap.
    /// Empty by default.
    pub kept_dumps: Vec<PathBuf>,
    /// Why the dumps asked for could not be kept, if so (the report stands).
    pub dumps_not_kept: Option<String>,
    /// What was searched: a scenario (`run`, the test front ends), heap dumps (`diff`), a
    /// running JVM (`watch`).
    pub subject: Subject,
    /// What the loop numbers of the outcome count: loops of a scenario, dumps given (`diff`
    /// without `--loops`), snapshots of a watched JVM.
    pub loop_unit: LoopUnit,
    /// Why no node is attributed, said once for the whole report rather than per node (heap
    /// dumps alone do not hold the code that grew them); `None` where attribution ran or was
    /// switched off.
    pub not_attributed: Option<String>,
    /// The class-trend table of `heapgrowth watch`: the classes whose live counts rose, from
    /// the class histograms between dumps. Empty elsewhere.
    pub class_trends: Vec<TrendRow>,
    /// What `heapgrowth watch --jfr` found in JFR old-object samples instead of heap dumps;
    /// `None` elsewhere. `result` then holds no growing nodes, only the dumps' count.
    pub old_objects: Option<OldObjectReport>,
    /// Why the search ended before it could judge, as its front end knows it (the JVM of a
    /// watch ended, the watch stopped before the class trend could judge); `None` otherwise. A
    /// report without growth and with this is inconclusive ([`Verdict`]).
    pub cut_short: Option<String>,
    /// The loops at which the settling before a snapshot was cut short by its bounds (the
    /// scenario's threads still busy after two seconds, or a timer thread of its that did not
    /// wake and sleep again within the settler's bound): such a snapshot may hold work still
    /// in progress. Empty where every settle finished, and for front ends that do not settle.
    pub settling_cut_short: Vec<u32>,
}

/// The JFR old-object samples of `heapgrowth watch --jfr`: the growing classes with their
/// paths, and what the sampling can tell.
#[derive(Clone, Debug, PartialEq)]
pub struct OldObjectReport {
    /// The dumps' counts and the growing classes.
    pub outcome: OldObjectOutcome,
    /// The allocation stacks of each growing class's paths as recorded stacks, most frequent
    /// first: `stacks[c][p]` for `outcome.growing[c].paths[p]`.
    pub stacks: Vec<Vec<Vec<StackCount>>>,
    /// The allocation stacks of each common path of spread survivors, as `stacks`:
    /// `survivor_stacks[s]` for `outcome.survivors[s]`.
    pub survivor_stacks: Vec<Vec<StackCount>>,
    /// The JVM's old-object queue.
    pub queue: QueueSize,
    /// Why sampling ended before it could decide (the time budget ran out with nothing
    /// selected, before the most dumps a search takes): a clean report then rules nothing out.
    pub stopped_early: Option<String>,
    /// Garbage collections the JVM ran from the recording's start to its last dump (samples
    /// move only at collections); `None` where the JVM's counters could not be read.
    pub collections: Option<u64>,
}

impl OldObjectReport {
    /// The report of `outcome`, with each growing class's sample stacks marked as recorded
    /// stacks are.
    pub fn new(outcome: OldObjectOutcome, queue: QueueSize) -> OldObjectReport {
        let stacks = outcome
            .growing
            .iter()
            .map(|class| {
                class
                    .paths
                    .iter()
                    .map(|path| crate::attribution::old_objects::sample_stacks(&path.stacks))
                    .collect()
            })
            .collect();
        let survivor_stacks = outcome
            .survivors
            .iter()
            .map(|path| crate::attribution::old_objects::sample_stacks(&path.sampled.stacks))
            .collect();
        OldObjectReport {
            outcome,
            stacks,
            survivor_stacks,
            queue,
            stopped_early: None,
            collections: None,
        }
    }

    /// Samples judged over the dumps that moved the trend (those after a collection; the
    /// others repeat them): heapgrowth's own and ignored ones left out.
    pub fn samples_judged(&self) -> u64 {
        self.outcome
            .dumps
            .iter()
            .filter(|dump| dump.judged)
            .map(|dump| dump.counted())
            .sum()
    }

    /// What sampling cannot tell, said in every report of samples.
    pub fn sampling_limits(&self) -> String {
        let queue = if self.queue.set_at_start {
            format!(
                "a queue of {} samples (set when the JVM started)",
                self.queue.samples
            )
        } else {
            format!(
                "a queue of {} samples (HotSpot's default; only a JVM start can raise it: \
                 -XX:FlightRecorderOptions:old-object-queue-size=N)",
                self.queue.samples
            )
        };
        format!(
            "JFR jdk.OldObjectSample, {queue}, sampled by allocation (now and then at a TLAB \
             refill, in proportion to the bytes allocated: a leak shows by the bytes it \
             allocates, not by the objects it keeps), survivors only (a sample goes when its \
             object dies, and one allocated after the JVM's last collection is not reported yet, \
             so counts move at collections); counts are samples, not objects"
        )
    }
}

/// What a report searched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Subject {
    /// A scenario heapgrowth ran in loops.
    #[default]
    Scenario,
    /// Heap dumps that existed before (`heapgrowth diff`).
    HeapDumps,
    /// A running JVM heapgrowth attached to (`heapgrowth watch`).
    Jvm,
}

impl Subject {
    /// How a report's header names it: "Scenario", "Heap dumps", "JVM".
    pub fn title(self) -> &'static str {
        match self {
            Subject::Scenario => "Scenario",
            Subject::HeapDumps => "Heap dumps",
            Subject::Jvm => "JVM",
        }
    }
}

/// What the loop numbers of a report count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoopUnit {
    /// Loops of a scenario that heapgrowth ran.
    #[default]
    Loops,
    /// Heap dumps given to `heapgrowth diff`, numbered from 1 in the order given.
    Dumps,
    /// Presses of Enter (or the repetitions typed before it) in an interactive
    /// `heapgrowth watch`: one snapshot each.
    Snapshots,
    /// Intervals of a periodic `heapgrowth watch`, counted from the search's first dump:
    /// detection dumps at every interval, confirmation at twice and four times as many.
    Intervals,
}

impl LoopUnit {
    /// The word for one: "loop", "dump", "snapshot".
    pub fn singular(self) -> &'static str {
        match self {
            LoopUnit::Loops => "loop",
            LoopUnit::Dumps => "dump",
            LoopUnit::Snapshots => "snapshot",
            LoopUnit::Intervals => "interval",
        }
    }

    /// The word for several.
    pub fn plural(self) -> &'static str {
        match self {
            LoopUnit::Loops => "loops",
            LoopUnit::Dumps => "dumps",
            LoopUnit::Snapshots => "snapshots",
            LoopUnit::Intervals => "intervals",
        }
    }
}

impl ScenarioReport {
    /// A report of a scenario that failed before anything was measured.
    pub fn failed(scenario: &str, error: String) -> ScenarioReport {
        ScenarioReport {
            scenario: scenario.to_owned(),
            result: Err(error),
            attributions: Vec::new(),
            timings: Timings::default(),
            kept_dumps: Vec::new(),
            dumps_not_kept: None,
            subject: Subject::Scenario,
            loop_unit: LoopUnit::Loops,
            not_attributed: None,
            class_trends: Vec::new(),
            old_objects: None,
            cut_short: None,
            settling_cut_short: Vec::new(),
        }
    }

    /// The classes whose JFR old-object samples grew (`--jfr`), strongest first; none without
    /// `--jfr`.
    pub fn sampled_classes(&self) -> impl Iterator<Item = &str> {
        self.old_objects
            .iter()
            .filter(|_| self.result.is_ok())
            .flat_map(|samples| &samples.outcome.growing)
            .map(|class| class.trend.class.as_str())
    }

    /// The common paths of JFR survivors spread over the recording (`--jfr`), each as the
    /// step a gate keys it by ([`crate::growth::old_objects::SurvivingPath::key_step`]).
    pub fn survivor_paths(&self) -> impl Iterator<Item = String> + '_ {
        self.old_objects
            .iter()
            .filter(|_| self.result.is_ok())
            .flat_map(|samples| &samples.outcome.survivors)
            .map(|path| path.key_step())
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
        self.result.as_ref().is_ok_and(|outcome| {
            !outcome.growing.is_empty()
                || self.old_objects.as_ref().is_some_and(|samples| {
                    !samples.outcome.growing.is_empty() || !samples.outcome.survivors.is_empty()
                })
        })
    }
}

/// The user's ignore rules that matched no step of any path in any of `reports` that ran: most
/// often a misspelled class or field, which would otherwise let the growth it meant to accept
/// fail the run without saying why.
pub fn unmatched_rules(reports: &[ScenarioReport]) -> Vec<&IgnoreRule> {
    let outcomes: Vec<&SearchOutcome> = reports
        .iter()
        .filter_map(|r| r.result.as_ref().ok())
        .collect();
    let Some(first) = outcomes.first() else {
        return Vec::new();
    };
    first
        .unmatched_rules
        .iter()
        .filter(|rule| {
            outcomes
                .iter()
                .all(|outcome| outcome.unmatched_rules.contains(rule))
        })
        .collect()
}

/// The warning for a rule [`unmatched_rules`] returned.
pub fn unmatched_rule_warning(rule: &IgnoreRule) -> String {
    let from = if rule.origin.is_built_in() {
        "heapgrowth"
    } else {
        rule.origin.label()
    };
    format!(
        "the ignore rule '{}' ({from}) matched no path; a rule names a step `Owner.field` as \
         the report shows it (com.example.Cache.entries or Cache.entries)",
        rule.pattern
    )
}

/// Writes `text` to `path` through a temporary file and a rename ([`crate::output::write_file`]):
/// a reader (a browser open on an earlier page, a CI step) never sees half a report, and a
/// failed write leaves an earlier report as it was. For every front end that writes report
/// files; check the path first with [`crate::output::check_outputs`].
pub fn write_report_file(path: &Path, text: &str) -> std::io::Result<()> {
    crate::output::write_file(path, text.as_bytes())
}

/// A report file that [`write_checked_report`] could not write.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportFileError {
    /// The path is not one an output may have ([`crate::output::check_outputs`]).
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    /// Writing failed.
    #[error("cannot write the report file {path}: {source}")]
    Write {
        /// The file, as a terminal may show it.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// Checks `path` as every output is checked ([`crate::output::check_outputs`]: not a directory
/// or a special file, not through another user's symbolic link, in a directory that takes a new
/// file), then writes `text` there ([`write_report_file`]). The JUnit front end's report files
/// and `index.html` are written this way.
pub fn write_checked_report(path: &Path, text: &str) -> Result<(), ReportFileError> {
    let checked = crate::output::check_outputs(&[("report file", path)], &[])?;
    write_report_file(&checked[0].target, text).map_err(|source| ReportFileError::Write {
        path: crate::line::escape_line(&path.display().to_string()),
        source,
    })
}

/// Reports the unit tests of several report modules share.
#[cfg(test)]
pub(crate) mod test_reports {
    use super::*;

    /// A report of `watch --jfr` on samples like those of a service that leaks sessions into
    /// a static list (`byte[]` grows, through `Service.SESSIONS`), with an ignored path.
    pub(crate) fn old_object_samples() -> ScenarioReport {
        use crate::growth::old_objects::{OldObjectConfig, OldObjectSearch};
        use crate::jfr::{
            ChainObject, JfrFrame, OldObjectSample, Referrer, SampleDump, SampleRoot, Via,
        };
        let object = |class: &str, description: Option<&str>| ChainObject {
            class: class.into(),
            description: description.map(Into::into),
            array_length: None,
        };
        let referrer = |via: Via, object: ChainObject| Referrer {
            via,
            object,
            skipped: 0,
        };
        let field = |name: &str, is_static: bool| Via::Field {
            name: name.into(),
            is_static,
        };
        let frame = |class: &str, method: &str, line: i32, loader: &str| JfrFrame {
            class: class.into(),
            method: method.into(),
            line: Some(line),
            loader: Some(loader.into()),
            module_location: None,
        };
        let sample = |t: i64, i: u64| OldObjectSample {
            dump_time: t * 2_000_000_000,
            allocation_time: 0,
            age: std::time::Duration::from_millis(400 * i + 300),
            heap_used_at_last_gc: 0,
            object: object("byte[]", None),
            referrers: vec![
                referrer(field("payload", false), object("app.Service$Session", None)),
                referrer(
                    Via::ArrayElement { index: i },
                    object("java.lang.Object[]", None),
                ),
                referrer(
                    field("elementData", false),
                    object("java.util.ArrayList", None),
                ),
                referrer(
                    field("SESSIONS", true),
                    object("java.lang.Class", Some("Class Name: app.Service")),
                ),
            ],
            root: Some(SampleRoot {
                system: "Threads".into(),
                kind: "Stack Variable".into(),
                description: Some("Thread Name: main".into()),
            }),
            thread: Some(if i % 4 == 0 { "worker-1" } else { "main" }.into()),
            stack: vec![
                frame("app.Service$Session", "<init>", 8, "app"),
                frame(
                    "app.Service",
                    if i % 3 == 0 { "restore" } else { "login" },
                    28,
                    "app",
                ),
                frame("java.lang.Thread", "run", 833, "bootstrap"),
            ],
            stack_truncated: false,
        };
        let rule = crate::growth::IgnoreRule::parse(
            "Cache.RECENT warms up",
            crate::growth::RuleOrigin::User("--ignore".into()),
        )
        .unwrap();
        let mut config = OldObjectConfig::default();
        config.ignore_rules.push(rule);
        let mut search = OldObjectSearch::new(config).unwrap();
        for t in 0..7 {
            let mut samples: Vec<OldObjectSample> =
                (0..9 * t as u64).map(|i| sample(t, i)).collect();
            let mut cached = sample(t, 0);
            cached.referrers[3] = referrer(
                field("RECENT", true),
                object("java.lang.Class", Some("Class Name: app.Cache")),
            );
            samples.push(cached);
            let mut own = sample(t, 0);
            own.thread = Some("Attach Listener".into());
            samples.push(own);
            search.observe(
                &SampleDump {
                    time: t * 2_000_000_000,
                    samples,
                    earlier: 0,
                    file_bytes: 0,
                },
                true,
            );
        }
        let outcome = search.outcome();
        ScenarioReport {
            subject: crate::report::Subject::Jvm,
            loop_unit: LoopUnit::Snapshots,
            result: Ok(crate::growth::SearchOutcome {
                snapshots: 7,
                ..Default::default()
            }),
            old_objects: Some(OldObjectReport::new(
                outcome,
                crate::attach::QueueSize {
                    samples: 256,
                    set_at_start: false,
                },
            )),
            ..ScenarioReport::failed("pid 4242 (java)", String::new())
        }
    }
}
