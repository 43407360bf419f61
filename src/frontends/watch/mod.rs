//! `heapgrowth watch --pid PID`: the growth search on a JVM that runs by itself (a service
//! under load, a long integration test, an application the user drives by hand), through the
//! attach protocol ([`crate::attach`]).
//!
//! Between snapshots a class histogram (live instance counts after a full collection: cheap
//! next to a dump) feeds the class-trend rule ([`ClassTrend`]). Watching at an interval, the
//! first heap dump waits until a class qualifies as growing; from then on every interval
//! dumps, the dumps feed the same [`crate::growth::GrowthSearch`] as `run`'s, and the watch
//! ends once growth is confirmed (or on Ctrl-C, at the end of `--for`). Watching
//! interactively, every press of Enter dumps. Each dump goes into a private directory and is
//! deleted once read.

mod interval;
pub mod jfr;
mod ticks;
mod watched;

use std::time::Duration;

use crate::attach::{AgentLibrary, AttachError, AttachOptions, Target};
use crate::engine::{search_source, Progress, SearchSettings};
use crate::growth::{
    ClassTrend, ClassTrendConfig, PathStep, SearchConfig, SearchOutcome, TrendRow,
    DEFAULT_MAX_SNAPSHOTS,
};
use crate::line::escape_line;
use crate::report::{undecided_classes, ScenarioReport, Verdict};
use crate::tempdir::PrivateTempDir;

pub use ticks::{EveryInterval, OnEnter};
use watched::Watched;

/// Why a watch run with `--no-attribution` names no line, said once in its report.
pub const ATTRIBUTION_OFF: &str = "attribution is switched off (--no-attribution): no agent \
     was loaded into the JVM";

/// How often to look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    /// At every tick of the [`Ticks`] (Enter pressed), a histogram and a dump.
    Interactive,
    /// At every tick, a histogram; a dump once a class grows ([`WatchOptions::class_gate`]).
    Periodic,
}

/// What to watch and how.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// The JVM's process id.
    pub pid: u32,
    /// Interactive or periodic.
    pub pace: Pace,
    /// Periodic: dump only once a class qualifies in the class trend (the default); `false`
    /// dumps at every interval.
    pub class_gate: bool,
    /// The class-trend rule's settings.
    pub trend: ClassTrendConfig,
    /// Ignore rules (loops, warm-up and time budget don't apply).
    pub settings: SearchSettings,
    /// Timeouts of the attach protocol.
    pub attach: AttachOptions,
    /// Load heapgrowth's agent into the JVM to sample the allocations of the classes that
    /// grow, and attribute the growing nodes to the code that allocated them.
    pub attribution: bool,
    /// Bytes between allocation samples ([`crate::attach::DEFAULT_SAMPLING_INTERVAL`] by
    /// default).
    pub sampling_interval: u32,
    /// `--jfr`: run a full collection before a dump of the recording when this long has
    /// passed since the last one heapgrowth ran (`None`: never).
    pub gc_every: Option<Duration>,
}

/// One tick of a watch: the user pressed Enter, an interval passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tick {
    /// Look now; the number is how many times the scenario was repeated since the last look
    /// (1 when unknown).
    Now(u32),
    /// Stop watching.
    Stop(StopReason),
}

/// Why watching stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Ctrl-C (or SIGTERM, SIGHUP).
    Interrupted,
    /// `--for` ran out.
    TimeUp,
    /// End of input, or `q` (interactive).
    EndOfInput,
}

impl StopReason {
    /// In words: "interrupted".
    pub fn describe(self) -> &'static str {
        match self {
            StopReason::Interrupted => "interrupted",
            StopReason::TimeUp => "the time given with --for ran out",
            StopReason::EndOfInput => "input ended",
        }
    }
}

/// Where ticks come from.
pub trait Ticks {
    /// Waits for the next tick.
    fn next_tick(&mut self) -> Tick;
}

/// What a watch tells its front end as it goes.
#[derive(Debug)]
pub enum WatchEvent<'a> {
    /// Attached to the JVM.
    Attached {
        /// Its pid and command line.
        name: &'a str,
    },
    /// A class histogram was taken and folded into the trend.
    Histogram {
        /// Its interval (1, 2, ...).
        interval: u32,
        /// The classes the trend selects now, with their rows.
        selected: &'a [TrendRow],
        /// Live bytes after the collection.
        heap_bytes: u64,
    },
    /// `--jfr`: the old-object recording runs.
    RecordingStarted {
        /// Its name in the JVM.
        name: &'a str,
        /// The JVM's old-object queue size.
        queue_size: u32,
        /// Whether the JVM was started with that size (else it is the default).
        queue_size_set_at_start: bool,
    },
    /// `--jfr`: a dump of the recording was read and its samples folded into the trend.
    OldObjectSamples {
        /// Its interval (1, 2, ...).
        interval: u32,
        /// Samples counted (heapgrowth's own and ignored ones left out).
        samples: u64,
        /// The classes the trend selects now.
        selected: &'a [TrendRow],
    },
    /// Watching stopped before growth was confirmed.
    Stopped {
        /// Why.
        reason: StopReason,
    },
    /// A heap dump was read and analysed.
    Snapshot {
        /// Its interval.
        interval: u32,
        /// Paths that are candidates now, not yet confirmed, each with when its confirmation
        /// dumps are due.
        candidates: &'a [(Vec<PathStep>, ConfirmationDue)],
    },
    /// Allocation sampling (re)started on these classes, for attribution.
    SamplingStarted {
        /// The classes sampled.
        classes: &'a [String],
    },
    /// Growth is confirmed, but allocation sampling holds no live object of a growing node's
    /// classes yet: the watch waits a few more ticks for them.
    AwaitingSamples {
        /// Ticks it waits at most.
        at_most: u32,
    },
}

/// When a candidate's confirmation dumps are due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfirmationDue {
    /// A periodic watch: at these two intervals (numbered as the watch's intervals are).
    AtIntervals(u32, u32),
    /// An interactive watch: at the next two snapshots.
    NextSnapshots,
}

/// Errors that stop a watch before it starts.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WatchError {
    /// The process is not a JVM heapgrowth can attach to, or the attach failed.
    #[error(transparent)]
    Attach(#[from] AttachError),
    /// `--jfr`: the recording could not start (no `jfr` tool, Flight Recorder disabled).
    #[error(transparent)]
    Recording(#[from] crate::old_object_session::RecordingError),
    /// The private directory for dumps could not be made.
    #[error("cannot create a private directory for heap dumps: {0}")]
    TempDir(#[from] std::io::Error),
    /// Settings that cannot work.
    #[error("{0}")]
    InvalidOptions(String),
}

/// Watches the JVM of `options` until growth is confirmed or `ticks` says stop, and reports
/// what grew with the class-trend table. A JVM that ends or fails a request during the watch
/// gives a report with that error.
pub fn watch(
    options: &WatchOptions,
    ticks: &mut dyn Ticks,
    events: &mut dyn FnMut(WatchEvent),
) -> Result<ScenarioReport, WatchError> {
    let mut trend = ClassTrend::new(options.trend.clone())
        .map_err(|e| WatchError::InvalidOptions(e.to_string()))?;
    let target = Target::check(options.pid)?;
    let jvm = target.attach_with(options.attach)?;
    let name = format!("pid {} ({})", options.pid, target.command());
    events(WatchEvent::Attached { name: &name });
    let dumps = PrivateTempDir::new("watch")?;
    let settings = SearchSettings {
        search: SearchConfig {
            loops_per_snapshot: 1,
            max_snapshots: DEFAULT_MAX_SNAPSHOTS,
            confirm_loops: 0,
        },
        ..options.settings.clone()
    };
    let (agent, no_sampling) = if options.attribution {
        match AgentLibrary::extract() {
            Ok(agent) => (Some(agent), None),
            Err(error) => (
                None,
                Some(format!("heapgrowth's agent is not available: {error}")),
            ),
        }
    } else {
        (None, Some(ATTRIBUTION_OFF.to_owned()))
    };
    let mut watched = Watched {
        jvm,
        trend: &mut trend,
        ticks,
        events,
        interval: 0,
        position: 0,
        origin: 0,
        spaced_confirmation: options.pace == Pace::Periodic,
        confirming: false,
        stopped: None,
        agent,
        sampling: None,
        sampled: Vec::new(),
        no_sampling,
        sampling_interval: options.sampling_interval,
        lowerings: Vec::new(),
        sampling_started_at: 0,
        candidate_since: Vec::new(),
        ended: None,
    };
    // The report of the last search that found nothing, for a watch that stops after it.
    let mut last: Option<ScenarioReport> = None;
    let mut report = loop {
        // Periodic: histograms only, until a class grows.
        let gate = options.pace == Pace::Periodic && options.class_gate;
        match watched.look(gate) {
            Ok(true) => {
                watched.origin = watched.position - 1;
                watched.confirming = false;
            }
            Ok(false) => {
                break last
                    .take()
                    .unwrap_or_else(|| watched.report_without_dumps(&name, &options.trend))
            }
            Err(error) if !watched.jvm.is_running() => {
                watched.ended = Some(error.to_string());
                break last
                    .take()
                    .unwrap_or_else(|| watched.report_without_dumps(&name, &options.trend));
            }
            Err(error) => break watched.failed(&name, error),
        }
        let report = search_source(
            &mut watched,
            &name,
            &settings,
            dumps.path(),
            &Progress::new(false),
        );
        let grew = report.has_growth();
        if grew || report.result.is_err() || watched.stopped.is_some() || watched.ended.is_some() {
            // A search the watch ended before it could judge stays inconclusive, even after an
            // earlier search of this watch found nothing: that one did not see the intervals
            // since, and a leak that started in them has no candidate yet.
            break report;
        }
        // Nothing confirmed: back to histograms until a class grows again.
        last = Some(report);
    };
    if let Some(reason) = watched.stopped {
        (watched.events)(WatchEvent::Stopped { reason });
    }
    // Gated by the class trend, a watch that stopped while the trend had not decided on a
    // class did not see enough to call the JVM clean: a leak is one of those for a few
    // intervals before it is selected.
    if options.pace == Pace::Periodic
        && options.class_gate
        && report.verdict() == Some(Verdict::Clean)
    {
        report.cut_short = undecided_classes(
            &watched.trend.undecided_rows(),
            "class trend",
            "instances at the last intervals",
            "intervals",
        );
    }
    if let Some(error) = &watched.ended {
        // The report so far stands; growth found before stays growth.
        report.cut_short = Some(format!(
            "the JVM ended during the watch, after interval {}: {}",
            watched.interval,
            escape_line(error)
        ));
    }
    let rows = match &report.result {
        Ok(outcome) => trend_rows_for(watched.trend, outcome),
        Err(_) => watched.trend.selected_rows(),
    };
    report.class_trends = rows;
    watched.attribute(&mut report);
    Ok(report)
}

/// The trend rows of the selected classes and of the classes the growing nodes hold.
fn trend_rows_for(trend: &ClassTrend, outcome: &SearchOutcome) -> Vec<TrendRow> {
    let mut names: Vec<String> = trend
        .selected_rows()
        .into_iter()
        .map(|row| row.class)
        .collect();
    for node in &outcome.growing {
        for child in &node.children {
            if !child.step.target.is_empty() && !names.contains(&child.step.target) {
                names.push(child.step.target.clone());
            }
        }
    }
    trend.rows(names.iter().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::ticks::parse_repetitions;
    use super::watched::too_few_histograms;
    use super::*;

    #[test]
    fn a_watch_ended_before_the_class_trend_could_judge_says_what_it_needed() {
        // The message had 18 spaces in its middle (a line break lost in the source).
        assert_eq!(
            too_few_histograms(2, 3).as_deref(),
            Some(
                "watching ended after 2 class histogram(s): the class trend needs 3 to see a \
                 class grow"
            )
        );
        assert_eq!(too_few_histograms(3, 3), None);
    }

    #[test]
    fn lines_count_repetitions() {
        assert_eq!(parse_repetitions(""), Some(1));
        assert_eq!(parse_repetitions("  \r"), Some(1));
        assert_eq!(parse_repetitions("5"), Some(5));
        assert_eq!(parse_repetitions("0"), None);
        assert_eq!(parse_repetitions("-3"), None);
        assert_eq!(parse_repetitions("q"), None);
    }

    #[test]
    fn on_enter_ticks_per_line_and_stops_at_the_end() {
        let input = std::io::Cursor::new(b"\n3\nwhat\n\nq\n\n".to_vec());
        let counter = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let seen = std::sync::Arc::clone(&counter);
        let mut ticks = OnEnter::new(input, None, move || {
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        });
        let got: Vec<Tick> = (0..5).map(|_| ticks.next_tick()).collect();
        assert_eq!(
            got,
            [
                Tick::Now(1),
                Tick::Now(3),
                Tick::Now(1),
                Tick::Stop(StopReason::EndOfInput),
                // After q, the line after it still ticks if asked; the watch stops at q.
                Tick::Now(1),
            ]
        );
        // One prompt per wait, one more after the line that was not understood.
        assert_eq!(counter.load(std::sync::atomic::Ordering::SeqCst), 6);
        assert_eq!(ticks.next_tick(), Tick::Stop(StopReason::EndOfInput));
    }

    #[test]
    fn every_interval_stops_when_its_time_is_up() {
        let mut ticks =
            EveryInterval::new(Duration::from_millis(20), Some(Duration::from_millis(70)));
        let mut now_ticks = 0;
        loop {
            match ticks.next_tick() {
                Tick::Now(1) => now_ticks += 1,
                Tick::Stop(reason) => {
                    assert_eq!(reason, StopReason::TimeUp);
                    break;
                }
                other => panic!("{other:?}"),
            }
        }
        // Ticks at 0, 20, 40 and 60 ms; the deadline at 70 ms ends it (a slow machine may
        // skip some, never add any).
        assert!((1..=4).contains(&now_ticks), "{now_ticks}");
    }
}
