//! `heapgrowth watch --pid PID`: the growth search on a JVM that runs by itself (a service
//! under load, a long integration test, an application the user drives by hand), through the
//! attach protocol ([`crate::attach`]).
//!
//! Between snapshots a class histogram (live instance counts after a full collection: cheap
//! next to a dump) feeds the class-trend rule of seed 000 ([`ClassTrend`]). Watching at an
//! interval, the first heap dump waits until a class qualifies as growing; from then on every
//! interval dumps, the dumps feed the same [`crate::growth::GrowthSearch`] as `run`'s, and
//! the watch ends once growth is confirmed (or on Ctrl-C, at the end of `--for`). Watching
//! interactively, every press of Enter dumps. Each dump goes into a private directory and is
//! deleted once read.

use std::io::BufRead;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::attach::{
    AgentLibrary, AttachError, AttachOptions, AttachedJvm, AttachedSampling, ClassHistogram,
    Target, MAX_SAMPLED_CLASSES,
};
use crate::attribution::attached;
use crate::engine::{
    elapsed_ms, search_source, Advance, Progress, ScenarioError, SearchSettings, Snapshot,
    SnapshotSource,
};
use crate::growth::{
    ClassTrend, ClassTrendConfig, ConfirmationCut, GrowthSearch, PathStep, SearchConfig,
    SearchOutcome, TrendRow, DEFAULT_MAX_SNAPSHOTS,
};
use crate::line::escape_line;
use crate::report::{confirmation_due, LoopUnit, ScenarioReport, Subject};
use crate::tempdir::PrivateTempDir;

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
            let mut report = report;
            if let (Some(_), Ok(outcome)) = (&last, &mut report.result) {
                // An earlier search of this watch was done and found nothing; the one the
                // watch ended holds no candidate, so that judgement stands.
                if outcome.unconfirmed.is_empty() {
                    outcome.cut = None;
                }
            }
            break report;
        }
        // Nothing confirmed: back to histograms until a class grows again.
        last = Some(report);
    };
    if let Some(reason) = watched.stopped {
        (watched.events)(WatchEvent::Stopped { reason });
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

/// The watched JVM as a [`SnapshotSource`]: each snapshot a live dump, each advance a tick and
/// a histogram.
struct Watched<'a> {
    jvm: AttachedJvm,
    trend: &'a mut ClassTrend,
    ticks: &'a mut dyn Ticks,
    events: &'a mut dyn FnMut(WatchEvent),
    /// Histograms taken.
    interval: u32,
    /// Repetitions (interactive) or intervals (periodic) so far.
    position: u32,
    /// `position` just before the current search's first dump: the search counts its loops
    /// from there, so that its geometric confirmation is relative to its own start, however
    /// long the watch ran before.
    origin: u32,
    /// Periodic: confirmation dumps wait for the intervals the search asks for (see
    /// [`Watched::advance`]); interactive: every Enter dumps.
    spaced_confirmation: bool,
    /// Whether the last snapshot left candidates to confirm.
    confirming: bool,
    stopped: Option<StopReason>,
    /// The agent, once extracted; `None` with attribution off.
    agent: Option<AgentLibrary>,
    sampling: Option<AttachedSampling>,
    /// The classes `sampling` samples.
    sampled: Vec<String>,
    /// Why there is no sampling, once that is known.
    no_sampling: Option<String>,
    sampling_interval: u32,
    /// Each candidate path of the current search, with the search's position when it became
    /// one (its confirmation dumps are at twice and four times that).
    candidate_since: Vec<(Vec<PathStep>, u32)>,
    /// The error that ended the watch because the JVM ended; the report so far stands.
    ended: Option<String>,
}

impl Watched<'_> {
    /// Waits for ticks and takes a histogram at each, until one is due for a dump: at once
    /// unless `gate`, else when a class qualifies. False when watching stopped first.
    fn look(&mut self, gate: bool) -> Result<bool, ScenarioError> {
        loop {
            match self.ticks.next_tick() {
                Tick::Stop(reason) => {
                    self.stopped = Some(reason);
                    return Ok(false);
                }
                Tick::Now(repetitions) => {
                    self.position = self.position.saturating_add(repetitions.max(1));
                }
            }
            let histogram = self.jvm.class_histogram(true)?;
            self.fold(&histogram);
            if !gate || !self.trend.selected_classes().is_empty() {
                return Ok(true);
            }
        }
    }

    fn fold(&mut self, histogram: &ClassHistogram) {
        self.interval += 1;
        self.trend.observe(
            histogram
                .classes
                .iter()
                .map(|class| (class.java_name(), class.instances, class.bytes)),
            histogram.total_bytes,
        );
        let selected = self.trend.selected_rows();
        if !selected.is_empty() && self.sampled.is_empty() {
            // Until a dump finds a node, the classes that grow in the histograms.
            let classes: Vec<String> = selected
                .iter()
                .take(MAX_SAMPLED_CLASSES)
                .map(|row| row.class.clone())
                .collect();
            self.start_sampling(classes);
        }
        (self.events)(WatchEvent::Histogram {
            interval: self.interval,
            selected: &selected,
            heap_bytes: histogram.total_bytes,
        });
    }

    /// Starts allocation sampling on `classes`, or starts it over on them: first on the
    /// classes the trend selects (the sampling must run while they grow, before the search has
    /// confirmed anything), then on the classes of the candidate nodes' growing children once
    /// a dump finds them (a node's objects need not be of a class that leads the trend: a
    /// lambda class among strings), while their confirmation dumps are still to come.
    fn start_sampling(&mut self, classes: Vec<String>) {
        if self.no_sampling.is_some() || classes.is_empty() {
            return;
        }
        let Some(agent) = &self.agent else { return };
        if let Some(running) = self.sampling.take() {
            // Best effort: the agent's watchdog stops it with its directory anyway.
            let _ = running.stop();
        }
        match AttachedSampling::start(&self.jvm, agent, &classes, self.sampling_interval) {
            Ok(sampling) => {
                self.sampling = Some(sampling);
                (self.events)(WatchEvent::SamplingStarted { classes: &classes });
                self.sampled = classes;
            }
            Err(error) => {
                self.no_sampling = Some(format!("allocation sampling did not start: {error}"))
            }
        }
    }

    /// Samples the candidates' classes if sampling does not watch them all yet: theirs first,
    /// then the trend's, up to [`MAX_SAMPLED_CLASSES`].
    fn sample_candidates(&mut self, nodes: &[crate::growth::GrowingNode]) {
        let mut classes = attached::sampled_classes(nodes);
        if classes.is_empty() || classes.iter().all(|class| self.sampled.contains(class)) {
            return;
        }
        for class in &self.sampled {
            if classes.len() < MAX_SAMPLED_CLASSES && !classes.contains(class) {
                classes.push(class.clone());
            }
        }
        self.start_sampling(classes);
    }

    /// Attributes the growing nodes of `report` from the samples, and stops the sampling.
    fn attribute(&mut self, report: &mut ScenarioReport) {
        let sampling = self.sampling.take();
        let Ok(outcome) = &report.result else {
            return;
        };
        if outcome.growing.is_empty() {
            return;
        }
        let samples = match &sampling {
            // The last dump ran a full collection: what is counted now is what survived it.
            Some(sampling) => sampling
                .report(false)
                .map_err(|error| format!("the allocation samples could not be read: {error}")),
            None => Err(self.no_sampling.clone().unwrap_or_else(|| {
                "no allocation sampling ran: no class kept growing in the class histograms".into()
            })),
        };
        match samples {
            Ok(samples) => {
                let source = attached::application_source(&samples);
                report.attributions = outcome
                    .growing
                    .iter()
                    .map(|node| Some(attached::attribute(&samples, node, source.as_deref())))
                    .collect();
            }
            Err(why) => report.not_attributed = Some(why),
        }
        if let Some(sampling) = sampling {
            // Best effort: the JVM may have ended; the agent's watchdog stops it then.
            let _ = sampling.stop();
        }
    }

    /// The report of a watch that stopped before any dump: nothing grew in the trend, which
    /// says so only once it had the values to select a class that grows.
    fn report_without_dumps(&self, name: &str, trend: &ClassTrendConfig) -> ScenarioReport {
        let cut_short = too_few_histograms(self.interval, trend.values_to_select());
        ScenarioReport {
            result: Ok(SearchOutcome::default()),
            cut_short,
            ..self.failed(name, String::new())
        }
    }

    fn failed(&self, name: &str, error: impl ToString) -> ScenarioReport {
        ScenarioReport {
            subject: Subject::Jvm,
            loop_unit: self.unit(),
            ..ScenarioReport::failed(name, escape_line(&error.to_string()))
        }
    }
}

impl SnapshotSource for Watched<'_> {
    fn subject(&self) -> Subject {
        Subject::Jvm
    }

    fn unit(&self) -> LoopUnit {
        if self.spaced_confirmation {
            LoopUnit::Intervals
        } else {
            LoopUnit::Snapshots
        }
    }

    fn position(&self) -> u32 {
        self.position - self.origin
    }

    fn take_snapshot(&mut self, new_dump: &Path) -> Result<Snapshot, ScenarioError> {
        let started = Instant::now();
        match self.jvm.dump_heap(new_dump, true) {
            Ok(_) => {}
            // The JVM ended mid-dump: the search so far is the report, and says so.
            Err(error) if !self.jvm.is_running() => {
                self.ended = Some(error.to_string());
                return Ok(Snapshot::None(ConfirmationCut::WatchEnded));
            }
            Err(error) => return Err(error.into()),
        }
        Ok(Snapshot::Written {
            dump_ms: elapsed_ms(started),
        })
    }

    /// Detection dumps at every tick: the search needs consecutive snapshots to see records.
    /// A periodic watch confirms at the intervals the search asks for, twice and four times
    /// its age, as `run` confirms over geometrically spaced loops: a structure that churns
    /// with a period near the interval (a list cleared every few hundred milliseconds,
    /// dumped every 300 ms) can gain at each of a few consecutive ticks by aliasing alone,
    /// and seen that far apart it no longer does. Histograms go on at every tick between.
    fn advance(&mut self, requested: u32) -> Result<Advance, ScenarioError> {
        let target = if self.spaced_confirmation && self.confirming {
            self.position.saturating_add(requested.max(1))
        } else {
            self.position.saturating_add(1)
        };
        while self.position < target {
            match self.look(false) {
                Ok(true) => {}
                Ok(false) => return Ok(Advance::End(ConfirmationCut::WatchEnded)),
                // The JVM ended: the search so far is the report, and says so.
                Err(error) if !self.jvm.is_running() => {
                    self.ended = Some(error.to_string());
                    return Ok(Advance::End(ConfirmationCut::WatchEnded));
                }
                Err(error) => return Err(error),
            }
        }
        Ok(Advance::Ready)
    }

    fn after_snapshot(&mut self, search: &GrowthSearch) {
        let nodes = search.candidate_nodes();
        self.confirming = !nodes.is_empty();
        let position = self.position();
        self.candidate_since
            .retain(|(path, _)| nodes.iter().any(|node| node.path == *path));
        for node in &nodes {
            if !self
                .candidate_since
                .iter()
                .any(|(path, _)| *path == node.path)
            {
                self.candidate_since.push((node.path.clone(), position));
            }
        }
        let mut candidates: Vec<(Vec<PathStep>, ConfirmationDue)> = self
            .candidate_since
            .iter()
            .map(|(path, since)| {
                let due = if self.spaced_confirmation {
                    let (first, second) = confirmation_due(*since);
                    ConfirmationDue::AtIntervals(self.origin + first, self.origin + second)
                } else {
                    ConfirmationDue::NextSnapshots
                };
                (path.clone(), due)
            })
            .collect();
        candidates.sort_by(|a, b| a.0.cmp(&b.0));
        (self.events)(WatchEvent::Snapshot {
            interval: self.interval,
            candidates: &candidates,
        });
        self.sample_candidates(&nodes);
    }

    fn not_attributed(&self) -> Option<String> {
        None
    }
}

/// Ticks at a fixed interval, until `for_at_most` has passed or an interrupt asks to stop.
#[derive(Debug)]
pub struct EveryInterval {
    interval: Duration,
    next: Instant,
    deadline: Option<Instant>,
}

impl EveryInterval {
    /// The first tick comes at once, the next `interval` later, and so on.
    pub fn new(interval: Duration, for_at_most: Option<Duration>) -> EveryInterval {
        let now = Instant::now();
        EveryInterval {
            interval,
            next: now,
            deadline: for_at_most.map(|d| now + d),
        }
    }
}

/// How often a wait checks for Ctrl-C.
const STOP_POLL: Duration = Duration::from_millis(50);

impl Ticks for EveryInterval {
    fn next_tick(&mut self) -> Tick {
        loop {
            if crate::tempdir::stop_requested() {
                return Tick::Stop(StopReason::Interrupted);
            }
            let now = Instant::now();
            if self.deadline.is_some_and(|deadline| now >= deadline) {
                return Tick::Stop(StopReason::TimeUp);
            }
            if now >= self.next {
                // A look that took longer than the interval is not caught up with a burst.
                self.next = (self.next + self.interval).max(now);
                return Tick::Now(1);
            }
            let until = self.deadline.map_or(self.next, |d| d.min(self.next));
            std::thread::sleep(until.saturating_duration_since(now).min(STOP_POLL));
        }
    }
}

/// Ticks at each line of input: an empty line is one repetition of the scenario, a number
/// that many; `q` or the end of input stops. Ctrl-C stops too.
pub struct OnEnter {
    lines: mpsc::Receiver<String>,
    deadline: Option<Instant>,
    prompt: Box<dyn FnMut() + Send>,
}

impl std::fmt::Debug for OnEnter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnEnter").finish_non_exhaustive()
    }
}

impl OnEnter {
    /// Reads lines of `input` on a thread of its own (so that Ctrl-C is seen while waiting);
    /// `prompt` is called before each wait.
    pub fn new(
        input: impl BufRead + Send + 'static,
        for_at_most: Option<Duration>,
        prompt: impl FnMut() + Send + 'static,
    ) -> OnEnter {
        let (send, lines) = mpsc::channel();
        std::thread::Builder::new()
            .name("heapgrowth-input".into())
            .spawn(move || {
                for line in input.lines() {
                    let Ok(line) = line else { break };
                    if send.send(line).is_err() {
                        break;
                    }
                }
            })
            .expect("a thread to read input");
        OnEnter {
            lines,
            deadline: for_at_most.map(|d| Instant::now() + d),
            prompt: Box::new(prompt),
        }
    }
}

impl Ticks for OnEnter {
    fn next_tick(&mut self) -> Tick {
        (self.prompt)();
        loop {
            if crate::tempdir::stop_requested() {
                return Tick::Stop(StopReason::Interrupted);
            }
            if self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline)
            {
                return Tick::Stop(StopReason::TimeUp);
            }
            match self.lines.recv_timeout(STOP_POLL) {
                Ok(line) => match parse_repetitions(&line) {
                    Some(count) => return Tick::Now(count),
                    None if line.trim().eq_ignore_ascii_case("q") => {
                        return Tick::Stop(StopReason::EndOfInput)
                    }
                    // Anything else: ask again.
                    None => (self.prompt)(),
                },
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Tick::Stop(StopReason::EndOfInput)
                }
            }
        }
    }
}

/// An empty line is one repetition; a positive number that many.
fn parse_repetitions(line: &str) -> Option<u32> {
    let line = line.trim();
    if line.is_empty() {
        return Some(1);
    }
    line.parse::<u32>().ok().filter(|&n| n > 0)
}

/// Why a watch that ended after `histograms` class histograms is not judged, if the class trend
/// needs more (`needed`) to see a class grow.
fn too_few_histograms(histograms: u32, needed: usize) -> Option<String> {
    (histograms < needed as u32).then(|| {
        format!(
            "watching ended after {histograms} class histogram(s): the class trend needs \
             {needed} to see a class grow"
        )
    })
}

#[cfg(test)]
mod tests {
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
