//! Runs scenarios end to end: loops, a live heap dump per snapshot into a private directory,
//! the dump read and diffed, the dump deleted.
//!
//! The loop is written once, against [`Driver`]: the command line drives Java `Runnable`s
//! ([`run`]); other front ends (a Rust closure calling Java, a JUnit test method) implement
//! [`Driver`] and call [`search`].

use std::collections::VecDeque;
use std::io::{IsTerminal, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::attribution::{attribution_loops, Attribution};
use crate::growth::old_objects::{OldObjectConfig, OldObjectSearch};
use crate::growth::{
    ConfirmationCut, GrowingNode, GrowthSearch, IgnoreRule, NextStep, SearchConfig, SearchOutcome,
    DEFAULT_WARMUP_LOOPS, MAX_SNAPSHOTS_PER_SEARCH,
};
use crate::hprof::HprofError;
use crate::jvm::{on_jvm_end, Jvm, JvmEnd, JvmError, JvmOptions, Scenario, START_FAILED_REASON};
use crate::line::escape_line;
use crate::old_object_session::{attach_to_this_process, OldObjectSession, RecordingError};
use crate::report::{LoopUnit, ScenarioReport, Subject, Timings};
use crate::tempdir::PrivateTempDir;

/// The time one scenario's search may take (loops, dumps and their analysis; attribution not
/// included) before confirmation stops where it is. A minute lets a test whose loop takes 50
/// ms reach the confirmation loops; a slower one is reported as confirmed over fewer loops,
/// and the report says so.
pub const DEFAULT_TIME_BUDGET: Duration = Duration::from_secs(60);

/// How long a search waits before it retakes a snapshot to check a candidate whose growth is a
/// few new children ([`NextStep::Retake`]): the settler's bound for the tick of a timer
/// thread (`Settler.PERIOD_BOUND_MILLIS`). A structure such a thread empties on its tick, and
/// that a snapshot caught before the tick because the settle was cut short at that bound, has
/// been emptied by then.
pub const RETAKE_AFTER: Duration = Duration::from_millis(1_500);

/// Numbers the heap dumps of this process.
static NEXT_DUMP: AtomicU64 = AtomicU64::new(1);

/// Objects in the last heap dump read of the JVM in this process (0: none yet). A process has
/// at most one JVM, whose heap changes little from one scenario or test method to the next, so
/// a search's first dump is read while written with this as its expected size instead of the
/// usual way after it (a JUnit test's first dump: 7 to 15 ms after the dump, against 2).
static OWN_JVM_DUMP_OBJECTS: AtomicUsize = AtomicUsize::new(0);

/// How long one scenario may run (constructor, loops, snapshots, attribution) before it is
/// given up as blocked: five times the default time budget, room for slow CI machines and
/// attribution, and still an end to a deadlock inside a CI job's own limit.
pub const DEFAULT_SCENARIO_TIMEOUT: Duration = Duration::from_secs(300);

/// The most `--loops-per-snapshot` may ask for: the gap doubles with each detection snapshot,
/// and a scenario's loops must stay in Java's `int` range.
pub const MAX_LOOPS_PER_SNAPSHOT: u32 = 1000;

/// The most `--confirm-loops` may ask for: confirmation runs up to four times more loops
/// than the last gap, and the total must stay in a `u32`.
pub const MAX_CONFIRM_LOOPS: u32 = 100_000_000;

/// How to search, for every front end: loops, snapshots, time budget, ignore rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchSettings {
    /// Loops before the first snapshot.
    pub warmup: u32,
    /// Loops per snapshot, detection snapshots and confirmation loops.
    pub search: SearchConfig,
    /// How long one scenario's search may take.
    pub time_budget: Duration,
    /// Keep the last two heap dumps of the search in the private directory, listed in
    /// [`ScenarioReport::kept_dumps`], for [`settle_kept_dumps`] to move when the scenario
    /// fails, or delete (`keepDumps = failed`). Default: every dump is deleted once read.
    pub keep_last_dumps: bool,
    /// Keep every heap dump of the search, not only the last two (`--keep-dumps all`: to diff
    /// them later, or open them in another tool).
    pub keep_all_dumps: bool,
    /// Paths left out of the search, reported as ignored. The default is heapgrowth's rules
    /// for known growth of the JDK and of common libraries ([`IgnoreRule::built_in`]); add to
    /// them rather than replacing them unless that growth should count.
    pub ignore_rules: Vec<IgnoreRule>,
    /// JFR old-object samples instead of heap dumps (`--jfr`, for heaps too big to dump): the
    /// loops run in intervals of [`JFR_INTERVAL`], each ended by a dump of the recording (see
    /// [`crate::old_object_session`]). The JVM needs its Flight Recorder and a JDK's `jfr` tool.
    pub jfr: bool,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            warmup: DEFAULT_WARMUP_LOOPS,
            search: SearchConfig::default(),
            time_budget: DEFAULT_TIME_BUDGET,
            keep_last_dumps: false,
            keep_all_dumps: false,
            ignore_rules: IgnoreRule::built_in(),
            jfr: false,
        }
    }
}

impl SearchSettings {
    /// Checks settings that cannot work.
    pub fn validate(&self) -> Result<(), EngineError> {
        let search = &self.search;
        if !(1..=MAX_LOOPS_PER_SNAPSHOT).contains(&search.loops_per_snapshot) {
            return Err(EngineError::InvalidOptions(format!(
                "--loops-per-snapshot must be between 1 and {MAX_LOOPS_PER_SNAPSHOT} (the gap \
                 between snapshots doubles from there)"
            )));
        }
        if !(2..=MAX_SNAPSHOTS_PER_SEARCH).contains(&search.max_snapshots) {
            return Err(EngineError::InvalidOptions(format!(
                "--max-snapshots must be between 2 and {MAX_SNAPSHOTS_PER_SEARCH}"
            )));
        }
        if self.warmup > MAX_CONFIRM_LOOPS {
            return Err(EngineError::InvalidOptions(format!(
                "--warmup must be at most {MAX_CONFIRM_LOOPS}"
            )));
        }
        if self.search.confirm_loops > MAX_CONFIRM_LOOPS {
            return Err(EngineError::InvalidOptions(format!(
                "--confirm-loops must be at most {MAX_CONFIRM_LOOPS} (the loop count is kept \
                 in 32 bits; --time-budget bounds how long confirmation runs)"
            )));
        }
        if self.time_budget.is_zero() {
            return Err(EngineError::InvalidOptions(
                "--time-budget must be more than 0 seconds".into(),
            ));
        }
        Ok(())
    }
}

/// What to run and how, for [`run`].
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// How to start the JVM.
    pub jvm: JvmOptions,
    /// Scenario classes, run one after the other.
    pub scenarios: Vec<String>,
    /// Loops, snapshots, time budget, ignore rules.
    pub settings: SearchSettings,
    /// Show progress on stderr (only when it is a terminal).
    pub progress: bool,
    /// Attribute each growing node to the code that grows it (`--no-attribution` clears it).
    pub attribution: bool,
    /// Where to keep the last two heap dumps of each scenario that grows or fails
    /// (`--keep-dumps failed`); `None`: every dump is deleted.
    pub keep_dumps_in: Option<PathBuf>,
    /// With `keep_dumps_in`: keep every dump of every scenario, whatever it found
    /// (`--keep-dumps all`).
    pub keep_every_dump: bool,
}

impl RunOptions {
    /// Defaults for everything but the JVM and the scenarios.
    pub fn new(jvm: JvmOptions, scenarios: Vec<String>) -> RunOptions {
        RunOptions {
            jvm,
            scenarios,
            settings: SearchSettings::default(),
            progress: true,
            attribution: true,
            keep_dumps_in: None,
            keep_every_dump: false,
        }
    }
}

/// Errors that stop a whole run (a failing scenario only fails its own report).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The JVM could not be found or started.
    #[error(transparent)]
    Jvm(#[from] JvmError),
    /// The private directory for heap dumps could not be created.
    #[error("cannot create a private directory for heap dumps: {0}")]
    TempDir(#[from] std::io::Error),
    /// Options that can't work.
    #[error("{0}")]
    InvalidOptions(String),
}

/// Why one scenario failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioError {
    /// The JVM refused the scenario or the scenario threw.
    #[error(transparent)]
    Jvm(#[from] JvmError),
    /// A JVM heapgrowth attached to failed a request, or ended (`heapgrowth watch`).
    #[error(transparent)]
    Attach(#[from] crate::attach::AttachError),
    /// The heap dump could not be read.
    #[error("cannot read heap dump {path}: {source}")]
    Dump {
        /// The dump file (already deleted).
        path: String,
        /// What was wrong with it.
        source: HprofError,
    },
}

/// One scenario as the engine sees it: something that runs loops, in a JVM that can dump its
/// heap.
pub trait Driver {
    /// Runs `count` more loops.
    fn run_loops(&mut self, count: u32) -> Result<(), JvmError>;
    /// Loops run so far.
    fn loops_run(&self) -> u32;
    /// Waits, up to a bound, for work the loops handed to other threads to finish (the common
    /// `ForkJoinPool`, threads the scenario started, the tick of its timer threads), so a dump
    /// doesn't catch it half done. Whether it finished within its bounds: `false` when it was
    /// cut short (the report says so).
    fn settle(&mut self) -> Result<bool, JvmError>;
    /// Runs a full collection and waits for the cleanup it starts (the engine runs one a fixed
    /// number of loops before every dump).
    fn collect_garbage(&mut self) -> Result<(), JvmError>;
    /// Writes a live heap dump of the scenario's JVM to `path` (a new `.hprof` file).
    fn dump_heap(&mut self, path: &Path) -> Result<(), JvmError>;
    /// Runs `loops` more loops with a recorder on `node` and says which code grew it; `None`
    /// when attribution is switched off. Drivers without access to the scenario's objects keep
    /// this default.
    fn attribute(&mut self, node: &GrowingNode, loops: u32) -> Option<Attribution> {
        let _ = (node, loops);
        Some(Attribution::not_attributed(
            "this front end gives attribution no access to the scenario's JVM objects",
        ))
    }
}

/// A Java `Runnable` opened with [`Jvm::open_scenario`].
struct JavaScenario<'j> {
    jvm: &'j Jvm,
    scenario: Scenario,
    /// Whether to run the attribution phase (`--no-attribution` switches it off).
    attribution: bool,
    /// Where the run is, for the report when the JVM ends the process.
    state: &'j Mutex<RunState>,
}

impl Driver for JavaScenario<'_> {
    fn run_loops(&mut self, count: u32) -> Result<(), JvmError> {
        let first = self.scenario.loops_run() + 1;
        lock(self.state).activity = Activity::Loops {
            first,
            last: first.saturating_add(count.saturating_sub(1)),
        };
        self.scenario.run_loops(count)
    }
    fn loops_run(&self) -> u32 {
        self.scenario.loops_run()
    }
    fn settle(&mut self) -> Result<bool, JvmError> {
        self.scenario.settle()
    }
    fn collect_garbage(&mut self) -> Result<(), JvmError> {
        self.scenario.collect_garbage()
    }
    fn dump_heap(&mut self, path: &Path) -> Result<(), JvmError> {
        lock(self.state).activity = Activity::Dump {
            after_loop: self.scenario.loops_run(),
        };
        self.jvm.dump_heap(path)
    }
    fn attribute(&mut self, node: &GrowingNode, loops: u32) -> Option<Attribution> {
        self.attribution.then(|| {
            crate::attribution::live::attribute(
                self.jvm.live_agent(),
                &mut self.scenario,
                node,
                loops,
            )
        })
    }
}

/// Where a run is: kept up to date for the moment the JVM ends the process under it (scenario
/// code calling `System.exit`, a crash), when the reports so far must still be written.
#[derive(Default)]
struct RunState {
    finished: Vec<ScenarioReport>,
    /// The scenario running now (or the last one, once [`Activity::Finished`]).
    current: Option<String>,
    activity: Activity,
}

/// What the current scenario is doing.
#[derive(Clone, Copy, Default)]
enum Activity {
    #[default]
    Opening,
    Loops {
        first: u32,
        last: u32,
    },
    Dump {
        after_loop: u32,
    },
    /// Its report is done; a thread it started may still run.
    Finished,
}

/// Never held across a call into the JVM: the exit hook, which runs while Java threads are
/// stopped, takes it too.
fn lock(state: &Mutex<RunState>) -> MutexGuard<'_, RunState> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl RunState {
    /// The finished reports and the current scenario's, failed with how the JVM ended.
    fn reports_at_end(&self, how: &JvmEnd) -> Vec<ScenarioReport> {
        let mut reports = self.finished.clone();
        if let Some(scenario) = &self.current {
            let loop_number = match how {
                JvmEnd::Exited {
                    call: Some(call), ..
                } if call.loop_number > 0 => Some(call.loop_number),
                _ => None,
            };
            let during = match (loop_number, self.activity) {
                (Some(number), _) => format!("in loop {number}"),
                (None, Activity::Opening) => "while it was being opened".into(),
                (None, Activity::Loops { first, last }) if first == last => {
                    format!("in loop {first}")
                }
                (None, Activity::Loops { first, last }) => {
                    format!("during loops {first} to {last}")
                }
                (None, Activity::Dump { after_loop }) => {
                    format!("during the heap dump after loop {after_loop}")
                }
                (None, Activity::Finished) => "after the end".into(),
            };
            let message = format!(
                "the JVM ended the run {during} of {}: {}; nothing after it ran",
                escape_line(scenario),
                how.describe()
            );
            reports.push(ScenarioReport::failed(scenario, message));
        }
        reports
    }
}

/// Starts the JVM and runs every scenario of `options`.
///
/// When the JVM ends the process under the run (scenario code calling `System.exit` or
/// `Runtime.halt`, a JVM that fails during start-up or crashes), `on_jvm_end` gets what the
/// run would have returned: the reports so far, the current scenario's failed with how the JVM
/// ended (or the start-up error). It runs on a JVM thread that cannot call Java; the process
/// then deletes every private temporary directory and exits with status 2.
pub fn run(
    options: &RunOptions,
    on_jvm_end_do: impl Fn(Result<Vec<ScenarioReport>, EngineError>) + Send + Sync + 'static,
) -> Result<Vec<ScenarioReport>, EngineError> {
    options.settings.validate()?;
    let state = Arc::new(Mutex::new(RunState::default()));
    let shared = Arc::clone(&state);
    on_jvm_end(move |how| {
        on_jvm_end_do(match how {
            JvmEnd::StartFailed => Err(EngineError::Jvm(JvmError::StartFailed {
                reason: START_FAILED_REASON.into(),
            })),
            _ => Ok(lock(&shared).reports_at_end(how)),
        })
    });
    let progress = Progress::new(options.progress);
    progress.show(format_args!("starting the JVM"));
    let jvm = Jvm::start(&JvmOptions {
        start_attach_listener: options.jvm.start_attach_listener || options.settings.jfr,
        ..options.jvm.clone()
    })?;
    let dumps = PrivateTempDir::new("dumps")?;
    let settings = SearchSettings {
        keep_last_dumps: options.settings.keep_last_dumps || options.keep_dumps_in.is_some(),
        keep_all_dumps: options.settings.keep_all_dumps
            || (options.keep_every_dump && options.keep_dumps_in.is_some()),
        ..options.settings.clone()
    };
    for class_name in &options.scenarios {
        {
            let mut state = lock(&state);
            state.current = Some(class_name.clone());
            state.activity = Activity::Opening;
        }
        progress.show(format_args!("{class_name}: opening"));
        let mut report = match jvm.open_scenario(class_name) {
            Ok(scenario) => search(
                &mut JavaScenario {
                    jvm: &jvm,
                    scenario,
                    attribution: options.attribution,
                    state: &state,
                },
                class_name,
                &settings,
                dumps.path(),
                &progress,
            ),
            Err(error) => ScenarioReport::failed(class_name, describe(ScenarioError::Jvm(error))),
        };
        let failed = report.has_growth() || report.result.is_err();
        let keep_in = options.keep_dumps_in.as_deref();
        settle_kept_dumps(
            &mut report,
            keep_in.filter(|_| failed || options.keep_every_dump),
        );
        let mut state = lock(&state);
        state.activity = Activity::Finished;
        state.finished.push(report);
    }
    progress.clear();
    let reports = std::mem::take(&mut lock(&state).finished);
    Ok(reports)
}

/// Runs the growth search on one scenario: warm-up, snapshots into `dumps` (each deleted once
/// read), confirmation, attribution; with [`SearchSettings::jfr`], JFR old-object samples
/// instead of heap dumps. Never fails as a whole: a failing scenario gives a report with its
/// error.
pub fn search(
    driver: &mut dyn Driver,
    name: &str,
    settings: &SearchSettings,
    dumps: &Path,
    progress: &Progress,
) -> ScenarioReport {
    if settings.jfr {
        return sample_old_objects(driver, name, settings, progress);
    }
    let mut timings = Timings::default();
    let mut attributions = Vec::new();
    let mut kept = VecDeque::new();
    let mut settling_cut_short = Vec::new();
    let result = warm_up(driver, name, settings, progress)
        .and_then(|budget| {
            let mut source = LoopedScenario {
                driver: &mut *driver,
                name,
                tail: settings.search.loops_per_snapshot,
                budget,
                snapshot_started: Instant::now(),
                progress,
                settling_cut_short: &mut settling_cut_short,
            };
            search_snapshots(
                &mut source,
                name,
                settings,
                dumps,
                &mut timings,
                &mut kept,
                progress,
            )
        })
        .inspect(|outcome| {
            attributions = attribute(driver, name, outcome, &mut timings, progress);
        })
        .map_err(describe);
    ScenarioReport {
        result,
        attributions,
        timings,
        kept_dumps: kept.into(),
        settling_cut_short,
        ..ScenarioReport::failed(name, String::new())
    }
}

/// Loop time between two dumps of the JFR recording (`--jfr`): samples are taken by allocated
/// bytes, so an interval must allocate enough to sample, and it should be long next to the
/// dump and its reading (about half a second).
pub const JFR_INTERVAL: Duration = Duration::from_secs(1);

/// Dumps of the recording after which a scenario none of whose classes qualified is clean: the
/// sample preset of the class trend needs 3 qualifying dumps in a row after its rise shows,
/// which took 9 to 10 dumps for a leak of 4 KiB per millisecond loop beside 16 KiB of garbage
/// (`run --jfr` and a JUnit test); 16 leaves room for one that allocates less.
pub const MAX_JFR_DUMPS: u32 = 16;

/// The most loops of one interval. What a leak keeps, every collection and every dump's walk
/// of the heap for paths to GC roots (JFR's own, at a safepoint) must go over again: the
/// bundled example, a microsecond a loop, kept 3 million loops' worth of items by its ninth
/// one-second interval, whose dump then took 2 s and the process 1.1 GB (16 dumps never
/// ended within 300 s on a quiet machine). 20,000 loops of it allocate about 10 MB, plenty for
/// samples, and 16 intervals of them keep about 2 million objects.
pub const MAX_JFR_LOOPS_PER_INTERVAL: u32 = 20_000;

/// When the heap walks of a dump (the collection and the recording's dump) take longer than
/// an interval of loops, the next interval runs half the loops, down to a sixteenth of
/// [`MAX_JFR_LOOPS_PER_INTERVAL`]: the heap they walk grows with what the scenario keeps,
/// and halving bounds what is added after that. Not less: a first dump of the recording
/// takes 100 to 400 ms whatever the heap (JFR starting up), and a leak needs loops to show
/// (one run here halved down to nothing and read flat counts as clean).
const JFR_DUMP_COST_SHARE: f64 = 1.0;

/// How many batches an interval's loops run in: the clock is read between batches, so an
/// interval (and the time budget) is kept to within a tenth of an interval's loops.
const JFR_BATCHES_PER_INTERVAL: u32 = 10;

/// `--jfr`: the scenario's loops with a JFR old-object recording running in its JVM, attached
/// to from this process, one dump of the recording after each [`JFR_INTERVAL`] of loops (at
/// most [`MAX_JFR_LOOPS_PER_INTERVAL`]) and a full collection (a sample counts once a
/// collection ran after it). It ends when a class's samples qualify in the class trend or
/// survivors are spread over the recording, after [`MAX_JFR_DUMPS`] dumps, or when the time
/// budget runs out: an interval is cut where its loops and the dump after them would pass
/// the budget, so the run ends within it but for the dump in progress. The growing classes'
/// allocation stacks are the attribution.
fn sample_old_objects(
    driver: &mut dyn Driver,
    name: &str,
    settings: &SearchSettings,
    progress: &Progress,
) -> ScenarioReport {
    let started = Instant::now();
    let deadline = started + settings.time_budget;
    progress.show(format_args!("{name}: warm-up"));
    if let Err(error) = driver.run_loops(settings.warmup) {
        return ScenarioReport::failed(name, describe(ScenarioError::Jvm(error)));
    }
    let search = OldObjectSearch::new(OldObjectConfig {
        ignore_rules: settings.ignore_rules.clone(),
        ..OldObjectConfig::default()
    })
    .expect("the sample preset is valid");
    let session = attach_to_this_process()
        .map_err(RecordingError::from)
        .and_then(|jvm| OldObjectSession::start(&jvm, search));
    let mut session = match session {
        Ok(session) => session,
        Err(error) => return ScenarioReport::failed(name, escape_line(&error.to_string())),
    };
    let mut per_loop = started.elapsed() / settings.warmup.max(1);
    let mut most_loops = MAX_JFR_LOOPS_PER_INTERVAL;
    // The last dump's whole cost: collection, recording dump, reading.
    let mut dump_cost = Duration::ZERO;
    // The dumps taken when the time budget ended the sampling undecided.
    let mut budget_cut = None;
    let result = loop {
        // The loops stop where the dump after them, as long as the last, still ends in time.
        let interval_end =
            (Instant::now() + JFR_INTERVAL).min(deadline - dump_cost.min(settings.time_budget));
        if Instant::now() >= interval_end {
            budget_cut = Some(session.dumps());
            break Ok(());
        }
        let first = driver.loops_run() + 1;
        progress.show(format_args!(
            "{name}: loops from {first}: JFR dump {} next",
            session.dumps() + 1
        ));
        let ran = run_until(driver, interval_end, most_loops, &mut per_loop);
        let dump_started = Instant::now();
        if let Err(error) = ran.and_then(|()| driver.collect_garbage()) {
            break Err(describe(ScenarioError::Jvm(error)));
        }
        session.collected();
        if let Err(error) = session.sample() {
            break Err(error);
        }
        dump_cost = dump_started.elapsed();
        // What grows with the heap: the collection and the recording's dump, not the
        // reading, which is the `jfr` tool's start-up.
        let heap_walks = dump_started.elapsed() - session.last_read_time();
        if heap_walks.as_secs_f64() > JFR_DUMP_COST_SHARE * JFR_INTERVAL.as_secs_f64() {
            most_loops = (most_loops / 2).max(MAX_JFR_LOOPS_PER_INTERVAL / 16);
        }
        if session.found_growth() || session.dumps() >= MAX_JFR_DUMPS {
            break Ok(());
        }
    };
    let mut report = session.finish(
        name,
        Subject::Scenario,
        LoopUnit::Loops,
        driver.loops_run(),
        result,
    );
    if let (Some(dumps), Some(samples)) = (budget_cut, report.old_objects.as_mut()) {
        samples.stopped_early = Some(format!(
            "the time budget ({} s) ran out after {dumps} of the {MAX_JFR_DUMPS} JFR dumps a \
             search takes, with no class selected yet: growth that needs more dumps to show is \
             not ruled out (give it a larger time budget)",
            settings.time_budget.as_secs()
        ));
    }
    report
}

/// Runs loops in batches until `end` or `most` loops, whichever comes first, at least one;
/// `per_loop` is the time one took so far, updated.
fn run_until(
    driver: &mut dyn Driver,
    end: Instant,
    most: u32,
    per_loop: &mut Duration,
) -> Result<(), JvmError> {
    let mut ran = 0;
    while ran < most {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() && ran > 0 {
            break;
        }
        let batch = loops_for(JFR_INTERVAL / JFR_BATCHES_PER_INTERVAL, *per_loop)
            .min(loops_for(left, *per_loop))
            .min(most - ran);
        let started = Instant::now();
        driver.run_loops(batch)?;
        *per_loop = started.elapsed() / batch;
        ran += batch;
    }
    Ok(())
}

/// Loops that take about `interval` at `per_loop` each, at least one; at most a million, so
/// that a loop that does nothing measurable still reaches its dump.
fn loops_for(interval: Duration, per_loop: Duration) -> u32 {
    const MOST: u32 = 1_000_000;
    let per_loop = per_loop.as_secs_f64().max(1e-9);
    (interval.as_secs_f64() / per_loop).clamp(1.0, f64::from(MOST)) as u32
}

/// Attribution: the loops again, one growing node at a time, with a recorder on it.
fn attribute(
    driver: &mut dyn Driver,
    name: &str,
    outcome: &SearchOutcome,
    timings: &mut Timings,
    progress: &Progress,
) -> Vec<Option<Attribution>> {
    outcome
        .growing
        .iter()
        .map(|node| {
            let loops = attribution_loops(node);
            let target = node
                .path
                .last()
                .map(ToString::to_string)
                .unwrap_or_default();
            progress.show(format_args!("{name}: attributing {target}"));
            let started = Instant::now();
            let found = driver.attribute(node, loops);
            timings.attribution.push(elapsed_ms(started));
            found
        })
        .collect()
}

/// Runs the growth search over the snapshots of `source` (heap dumps given, a JVM attached
/// to), with the same reading, analysis and deletion of dumps as [`search`]. `settings`'
/// warm-up and time budget are the source's business.
pub fn search_source(
    source: &mut dyn SnapshotSource,
    name: &str,
    settings: &SearchSettings,
    dumps: &Path,
    progress: &Progress,
) -> ScenarioReport {
    let mut timings = Timings::default();
    let mut kept = VecDeque::new();
    let result = search_snapshots(
        source,
        name,
        settings,
        dumps,
        &mut timings,
        &mut kept,
        progress,
    )
    .map_err(describe);
    ScenarioReport {
        result,
        timings,
        kept_dumps: kept.into(),
        subject: source.subject(),
        loop_unit: source.unit(),
        not_attributed: source.not_attributed(),
        ..ScenarioReport::failed(name, String::new())
    }
}

/// Where the snapshots of one search come from: a scenario heapgrowth runs in loops (a
/// [`Driver`], in [`search`]), heap dumps the user gives, a running JVM heapgrowth attached
/// to. [`search_source`] reads each snapshot, feeds it to the growth search and deletes it.
pub trait SnapshotSource {
    /// What the source is, for the report.
    fn subject(&self) -> Subject;
    /// What the source's positions count.
    fn unit(&self) -> LoopUnit;
    /// Where the source is now: loops run, dumps read, snapshots taken.
    fn position(&self) -> u32;
    /// The next snapshot: a heap dump the source writes to `new_dump` (a new file in the
    /// private directory), or one that already exists.
    fn take_snapshot(&mut self, new_dump: &Path) -> Result<Snapshot, ScenarioError>;
    /// Gets ready for the next snapshot, after the search asked for `requested` more loops
    /// (a source that runs no loops moves on by one).
    fn advance(&mut self, requested: u32) -> Result<Advance, ScenarioError>;
    /// Called after each snapshot has been analysed, with the search so far (to show progress).
    fn after_snapshot(&mut self, search: &GrowthSearch) {
        let _ = search;
    }
    /// Whether every snapshot the source has must be read, even once the search has what it
    /// needs (dumps the user gave: the report then shows the last one's values).
    fn reads_to_the_end(&self) -> bool {
        false
    }
    /// Why the source cannot attribute growth, said once in the report; `None` where it can.
    fn not_attributed(&self) -> Option<String> {
        None
    }
    /// Gets ready to take the snapshot a search asks for before confirming candidates
    /// ([`NextStep::Retake`]): the same position again, after [`RETAKE_AFTER`]. `false` when
    /// it cannot (a source that runs no loops, no time left); the candidates are then
    /// confirmed as they stand.
    fn prepare_retake(&mut self) -> Result<bool, ScenarioError> {
        Ok(false)
    }
    /// Whether the source's dumps are of the JVM in this process, not of another JVM or files:
    /// a search of such a source expects its first dump to hold about as many objects as the
    /// last dump of that JVM any search read.
    fn dumps_this_process(&self) -> bool {
        false
    }
    /// Whether [`take_snapshot`](Self::take_snapshot) writes new dumps (a JVM dumping), which
    /// are read as they are written; a source of existing files (`diff`) says no, and no
    /// thread then watches for a file that never comes.
    fn writes_dumps(&self) -> bool {
        true
    }
}

/// A reader of the dump `source` is about to write at `new_dump`, for a source that writes
/// dumps; `None` for one that reads existing files.
pub(crate) fn follower_for(
    source: &dyn SnapshotSource,
    new_dump: &Path,
    expected_objects: Option<usize>,
) -> Option<crate::hprof::DumpFollower> {
    source
        .writes_dumps()
        .then(|| crate::hprof::DumpFollower::start(new_dump, expected_objects))
}

/// About how many objects a search's next dump holds, for reading it while it is written: the
/// last dump's count, and before a search's first dump, for a source that dumps the JVM in this
/// process, the last count any search read of it (kept in `shared`).
struct ObjectCountHint {
    last: Option<usize>,
    shared: Option<&'static AtomicUsize>,
}

impl ObjectCountHint {
    fn new(shared: Option<&'static AtomicUsize>) -> ObjectCountHint {
        let last = shared
            .map(|count| count.load(Ordering::Relaxed))
            .filter(|&count| count > 0);
        ObjectCountHint { last, shared }
    }

    fn expected(&self) -> Option<usize> {
        self.last
    }

    fn read(&mut self, objects: usize) {
        self.last = Some(objects);
        if let Some(shared) = self.shared {
            shared.store(objects, Ordering::Relaxed);
        }
    }
}

/// A snapshot a [`SnapshotSource`] took.
#[derive(Debug)]
pub enum Snapshot {
    /// A heap dump written to the path the source was given, in this many milliseconds; it is
    /// deleted once read.
    Written {
        /// How long the dump took (the JVM's full collection included).
        dump_ms: u64,
    },
    /// A heap dump that already exists (the user's file): read, never deleted.
    Existing(PathBuf),
    /// No snapshot will come (the watched JVM ended while dumping): the search ends with the
    /// snapshots it has, and the report says why.
    None(ConfirmationCut),
}

/// What a [`SnapshotSource`] can do after a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advance {
    /// The next snapshot can be taken.
    Ready,
    /// One more snapshot can be taken, and confirmation stops after it.
    Last(ConfirmationCut),
    /// No snapshot will come.
    End(ConfirmationCut),
}

/// Warm-up loops before the first snapshot; the time budget starts with them.
fn warm_up(
    driver: &mut dyn Driver,
    name: &str,
    settings: &SearchSettings,
    progress: &Progress,
) -> Result<Budget, ScenarioError> {
    progress.show(format_args!("{name}: warm-up"));
    let started = Instant::now();
    let mut budget = Budget::new(settings.time_budget, started);
    driver.run_loops(settings.warmup)?;
    budget.ran_loops(settings.warmup, started.elapsed());
    Ok(budget)
}

/// A [`Driver`]'s scenario as a [`SnapshotSource`]: a snapshot is a settle and a live dump, and
/// the loops between snapshots run within the time budget.
struct LoopedScenario<'a> {
    driver: &'a mut dyn Driver,
    name: &'a str,
    /// Loops run after the full collection before a dump ([`run_gap`]).
    tail: u32,
    budget: Budget,
    /// When the last snapshot started: its whole cost (settle, dump, read, analysis) sizes
    /// the room left for the next.
    snapshot_started: Instant,
    progress: &'a Progress,
    /// The loops at which a snapshot's settling was cut short, for the report.
    settling_cut_short: &'a mut Vec<u32>,
}

impl SnapshotSource for LoopedScenario<'_> {
    fn subject(&self) -> Subject {
        Subject::Scenario
    }

    fn unit(&self) -> LoopUnit {
        LoopUnit::Loops
    }

    fn position(&self) -> u32 {
        self.driver.loops_run()
    }

    fn take_snapshot(&mut self, new_dump: &Path) -> Result<Snapshot, ScenarioError> {
        let (name, loops) = (self.name, self.driver.loops_run());
        self.snapshot_started = Instant::now();
        self.progress
            .show(format_args!("{name}: loop {loops}: settling"));
        // A retake's settle is at the loops of the snapshot before: listed once.
        if !self.driver.settle()? && self.settling_cut_short.last() != Some(&loops) {
            self.settling_cut_short.push(loops);
        }
        self.progress
            .show(format_args!("{name}: loop {loops}: dumping"));
        let started = Instant::now();
        self.driver.dump_heap(new_dump)?;
        Ok(Snapshot::Written {
            dump_ms: elapsed_ms(started),
        })
    }

    fn dumps_this_process(&self) -> bool {
        // Every driver's JVM is the one in this process (JNI allows one).
        true
    }

    fn prepare_retake(&mut self) -> Result<bool, ScenarioError> {
        self.budget.took_snapshot(self.snapshot_started.elapsed());
        if !self.budget.affords(RETAKE_AFTER) {
            return Ok(false);
        }
        let (name, loops) = (self.name, self.driver.loops_run());
        self.progress.show(format_args!(
            "{name}: loop {loops}: waiting {} ms to take the snapshot again",
            RETAKE_AFTER.as_millis()
        ));
        std::thread::sleep(RETAKE_AFTER);
        Ok(true)
    }

    fn advance(&mut self, requested: u32) -> Result<Advance, ScenarioError> {
        self.budget.took_snapshot(self.snapshot_started.elapsed());
        let count = self.budget.affordable_loops(requested);
        if count == 0 {
            return Ok(Advance::End(ConfirmationCut::TimeBudget));
        }
        let (name, loops) = (self.name, self.driver.loops_run());
        self.progress
            .show(format_args!("{name}: loop {loops}, running {count} loops"));
        let started = Instant::now();
        run_gap(self.driver, count, self.tail)?;
        self.budget.ran_loops(count, started.elapsed());
        Ok(if count < requested {
            Advance::Last(ConfirmationCut::TimeBudget)
        } else {
            Advance::Ready
        })
    }
}

/// The snapshot loop every front end shares: take a snapshot, read it, analyse it, delete it,
/// and advance the source as far as the search asks.
fn search_snapshots(
    source: &mut dyn SnapshotSource,
    name: &str,
    settings: &SearchSettings,
    dumps: &Path,
    timings: &mut Timings,
    kept: &mut VecDeque<PathBuf>,
    progress: &Progress,
) -> Result<SearchOutcome, ScenarioError> {
    let mut search =
        GrowthSearch::with_ignore_rules(settings.search, settings.ignore_rules.clone());
    let unit = source.unit().singular();
    let mut object_count =
        ObjectCountHint::new(source.dumps_this_process().then_some(&OWN_JVM_DUMP_OBJECTS));
    // Whether this snapshot is the retake of the one before (NextStep::Retake): never kept, as
    // a kept dump stands for the loops of a snapshot (`diff --loops`).
    let mut retaking = false;
    for snapshot in 1.. {
        let position = source.position();
        // Unique in the process: a file a failed dump could not remove does not stop the next.
        let new_dump = dumps.join(format!(
            "snapshot-{}.hprof",
            NEXT_DUMP.fetch_add(1, Ordering::Relaxed)
        ));
        // Reads the dump while the source writes it: writing is most of a dump's time, on
        // one of the JVM's threads.
        let follower = follower_for(source, &new_dump, object_count.expected());
        let abandon = |follower: Option<crate::hprof::DumpFollower>| {
            if let Some(follower) = follower {
                follower.abandon();
            }
        };
        let (path, written, follower) = match source.take_snapshot(&new_dump) {
            Ok(Snapshot::Written { dump_ms }) => {
                timings.dump.push(dump_ms);
                (new_dump, true, follower)
            }
            Ok(Snapshot::Existing(path)) => {
                drop(follower);
                (path, false, None)
            }
            Ok(Snapshot::None(cut)) => {
                let _ = std::fs::remove_file(&new_dump);
                abandon(follower);
                search.stop_after_next_snapshot(cut);
                break;
            }
            Err(error) => {
                // A dump that failed half way (a full disk) holds secrets too, and its space is
                // what the next dump needs: deleted, and let go of by the follower, at once.
                let _ = std::fs::remove_file(&new_dump);
                abandon(follower);
                return Err(error);
            }
        };
        progress.show(format_args!(
            "{name}: {unit} {position}, snapshot {snapshot}: reading"
        ));
        let started = Instant::now();
        let graph = match follower {
            Some(follower) => follower.finish(),
            None => crate::hprof::open(&path),
        };
        // The dump holds every secret in the heap: delete it as soon as it has been read.
        let done = |path: PathBuf, kept: &mut VecDeque<PathBuf>| {
            if written {
                let limit = if retaking {
                    0
                } else {
                    kept_dumps_limit(settings)
                };
                done_with(path, limit, kept);
            }
        };
        let next = match graph {
            Ok(graph) => {
                timings.parse.push(elapsed_ms(started));
                object_count.read(graph.object_count());
                progress.show(format_args!(
                    "{name}: {unit} {position}, snapshot {snapshot}: analysing"
                ));
                let started = Instant::now();
                let next = search.add_snapshot(&graph, position);
                timings.analysis.push(elapsed_ms(started));
                drop(graph);
                done(path, kept);
                source.after_snapshot(&search);
                next
            }
            Err(source) => {
                let shown = path.display().to_string();
                done(path, kept);
                return Err(ScenarioError::Dump {
                    path: shown,
                    source,
                });
            }
        };
        let next = match next {
            NextStep::Retake if !source.prepare_retake()? => {
                search.skip_retake();
                NextStep::Done
            }
            next => next,
        };
        retaking = next == NextStep::Retake;
        match next {
            // The same position again, after the wait.
            NextStep::Retake => {}
            NextStep::RunLoops(requested) => match source.advance(requested)? {
                Advance::Ready => {}
                Advance::Last(cut) => search.stop_after_next_snapshot(cut),
                Advance::End(cut) => {
                    search.stop_after_next_snapshot(cut);
                    break;
                }
            },
            NextStep::Done if source.reads_to_the_end() => {
                if let Advance::End(_) = source.advance(0)? {
                    break;
                }
            }
            NextStep::Done => break,
        }
    }
    let mut outcome = search.finish();
    if source.reads_to_the_end() {
        // Its snapshots were all read whatever the search said: none was taken for a reason.
        outcome.looked_longer = None;
    }
    Ok(outcome)
}

/// How many of the latest dumps a search keeps.
fn kept_dumps_limit(settings: &SearchSettings) -> usize {
    match (settings.keep_all_dumps, settings.keep_last_dumps) {
        (true, _) => usize::MAX,
        (false, true) => KEPT_DUMPS,
        (false, false) => 0,
    }
}

/// A dump that has been read: deleted, as it holds every secret in the heap, unless it is one
/// of the latest `limit`.
fn done_with(path: PathBuf, limit: usize, kept: &mut VecDeque<PathBuf>) {
    if limit == 0 {
        let _ = std::fs::remove_file(&path);
        return;
    }
    kept.push_back(path);
    while kept.len() > limit {
        if let Some(old) = kept.pop_front() {
            let _ = std::fs::remove_file(old);
        }
    }
}

/// Whether a front end keeps the last two heap dumps of a failing scenario or test.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeepDumps {
    /// Every dump is deleted once read (the default: dumps hold every secret in the heap).
    #[default]
    Never,
    /// The last two dumps of a failing scenario are kept, owner-only.
    Failed,
}

/// How many dumps `keepDumps = failed` keeps: the last two, between which the growth was seen.
const KEPT_DUMPS: usize = 2;

/// What a front end does with the dumps a search kept ([`SearchSettings::keep_last_dumps`])
/// once it knows whether to keep them: moved into `keep_in` (owner-only, one directory per
/// scenario), or else deleted now, so that the report names no dump that is gone with the
/// private directory.
pub fn settle_kept_dumps(report: &mut ScenarioReport, keep_in: Option<&Path>) {
    match keep_in {
        Some(dir) => keep_dumps(report, dir),
        None => {
            for dump in report.kept_dumps.drain(..) {
                let _ = std::fs::remove_file(dump);
            }
        }
    }
}

/// Moves the dumps a search kept ([`SearchSettings::keep_last_dumps`]) out of the private
/// directory into `dir/<scenario>/`, owner-only (directory 0700, files 0600), and records where
/// in [`ScenarioReport::kept_dumps`], or why not in [`ScenarioReport::dumps_not_kept`] (those
/// not moved go with the private directory).
fn keep_dumps(report: &mut ScenarioReport, dir: &Path) {
    match move_kept_dumps(&report.kept_dumps, dir, &report.scenario) {
        Ok(moved) => report.kept_dumps = moved,
        Err(error) => {
            // Those not moved go with the private directory.
            report.kept_dumps.clear();
            report.dumps_not_kept = Some(error);
        }
    }
}

fn move_kept_dumps(kept: &[PathBuf], dir: &Path, scenario: &str) -> Result<Vec<PathBuf>, String> {
    if kept.is_empty() {
        return Ok(Vec::new());
    }
    let target = dir.join(unused_dir_name(dir, &file_name_of(scenario)));
    let fail = |e: std::io::Error| {
        format!(
            "cannot keep the heap dumps in {}: {e}",
            escape_line(&target.display().to_string())
        )
    };
    // The directory may be shared (`/tmp/dumps`): the scenario's own is made exclusively and
    // checked, so that no link another user planted there takes the dumps elsewhere.
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned());
    crate::output::private_dir_in(dir, &name.unwrap_or_default()).map_err(fail)?;
    let mut moved = Vec::new();
    // Numbers as wide as the last one, so that a shell's `*.hprof` lists them in order.
    let width = kept.len().to_string().len();
    for (number, path) in kept.iter().enumerate() {
        let to = target.join(format!("snapshot-{:0width$}.hprof", number + 1));
        // A rename keeps the file's 0600; across file systems, copy with the same mode.
        if std::fs::rename(path, &to).is_err() {
            let _ = std::fs::remove_file(&to);
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&to)
                .map_err(fail)?;
            let mut from = std::fs::File::open(path).map_err(fail)?;
            std::io::copy(&mut from, &mut out).map_err(fail)?;
            let _ = std::fs::remove_file(path);
        }
        std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o600)).map_err(fail)?;
        moved.push(to);
    }
    Ok(moved)
}

/// `name`, or `name-2`, `name-3`, ...: the first that is not a directory already holding
/// something in `dir`. The same scenario run twice (twice in one invocation, or again the next
/// day) keeps each run's dumps beside the last's, and a run never overwrites or mixes with
/// the dumps of another. Anything else under the name (a link, a file) is left for
/// [`crate::output::private_dir_in`] to refuse.
fn unused_dir_name(dir: &Path, name: &str) -> String {
    let holds_something = |candidate: &str| {
        let path = dir.join(candidate);
        std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_dir())
            && std::fs::read_dir(&path).map_or(true, |mut entries| entries.next().is_some())
    };
    let mut candidate = name.to_owned();
    let mut number = 1;
    while holds_something(&candidate) && number < MAX_RUNS_KEPT_UNDER_ONE_NAME {
        number += 1;
        candidate = format!("{name}-{number}");
    }
    candidate
}

/// Runs of one scenario whose dumps [`unused_dir_name`] keeps apart; past that, the last name
/// is reused (and the dumps there replaced), so a name never grows without end.
const MAX_RUNS_KEPT_UNDER_ONE_NAME: u32 = 1000;

/// `name` as one file name: path separators and control characters replaced.
fn file_name_of(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// Runs the `count` loops between two snapshots, with a full collection `tail` loops before
/// the end. Some garbage is cleaned up only after the collection that finds it, when the code
/// holding it next runs (a `WeakHashMap` expunges stale entries on its next use; a cleaner
/// thread unlinks its cleanables): a dump holds what the loops since the last collection left.
/// With the collection at a fixed distance before every dump, that is the same amount at
/// every snapshot, however far apart snapshots are, and is not mistaken for growth.
fn run_gap(driver: &mut dyn Driver, count: u32, tail: u32) -> Result<(), JvmError> {
    if count <= tail {
        return driver.run_loops(count);
    }
    driver.run_loops(count - tail)?;
    driver.collect_garbage()?;
    driver.run_loops(tail)
}

/// What is left of a scenario's time budget, and what loops and snapshots have cost so far.
struct Budget {
    deadline: Instant,
    loops: u64,
    loop_time: Duration,
    /// The last snapshot's cost (settle, dump, read, analysis). The next one must fit too,
    /// and costs more when the heap grows: twice as much is kept for it.
    snapshot_time: Duration,
}

impl Budget {
    fn new(budget: Duration, started: Instant) -> Budget {
        Budget {
            deadline: started + budget,
            loops: 0,
            loop_time: Duration::ZERO,
            snapshot_time: Duration::ZERO,
        }
    }

    fn ran_loops(&mut self, count: u32, took: Duration) {
        self.loops += u64::from(count);
        self.loop_time += took;
    }

    fn took_snapshot(&mut self, took: Duration) {
        self.snapshot_time = took;
    }

    /// Whether waiting `wait` and then one more snapshot fit before the deadline.
    fn affords(&self, wait: Duration) -> bool {
        self.deadline.saturating_duration_since(Instant::now()) >= wait + self.snapshot_time * 2
    }

    /// How many of `requested` loops fit before the deadline with one more snapshot after
    /// them, at the average loop time so far.
    fn affordable_loops(&self, requested: u32) -> u32 {
        let left = self
            .deadline
            .saturating_duration_since(Instant::now())
            .saturating_sub(self.snapshot_time * 2);
        if self.loops == 0 || self.loop_time.is_zero() {
            return if left.is_zero() { 0 } else { requested };
        }
        let per_loop = self.loop_time.as_secs_f64() / self.loops as f64;
        let fit = (left.as_secs_f64() / per_loop).floor();
        if fit >= f64::from(requested) {
            requested
        } else {
            fit as u32
        }
    }
}

/// The error's one-line message, then the Java stack when there is one.
fn describe(error: ScenarioError) -> String {
    // One line, whatever the names in it hold (a class name may contain a newline).
    let mut text = escape_line(&error.to_string());
    if let ScenarioError::Jvm(jvm_error) = &error {
        if let Some(exception) = jvm_error.java_exception() {
            text.push('\n');
            text.push_str(exception.stack_trace().trim_end());
        }
    }
    text
}

pub(crate) fn elapsed_ms(started: Instant) -> u64 {
    started.elapsed().as_millis() as u64
}

/// One status line on stderr, rewritten in place; silent when stderr is not a terminal.
pub struct Progress {
    enabled: bool,
}

impl Progress {
    /// Progress shown only if `wanted` and stderr is a terminal.
    pub fn new(wanted: bool) -> Progress {
        Progress {
            enabled: wanted && std::io::stderr().is_terminal(),
        }
    }

    fn show(&self, message: std::fmt::Arguments) {
        if self.enabled {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[2K{message}");
            let _ = stderr.flush();
        }
    }

    fn clear(&self) {
        if self.enabled {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::FieldType;
    use crate::hprof::builder::{HeapBuilder, Value};

    /// A scenario without a JVM: its heap is a static `Queue.pending` array of `items(loops,
    /// loops at the dump before)` items, written as a heap dump; its first settle is cut short.
    struct SyntheticQueue<F: Fn(u32, u32) -> u32> {
        items: F,
        loops: u32,
        loops_at_last_dump: u32,
        settles: u32,
    }

    impl<F: Fn(u32, u32) -> u32> Driver for SyntheticQueue<F> {
        fn run_loops(&mut self, count: u32) -> Result<(), JvmError> {
            self.loops += count;
            Ok(())
        }
        fn loops_run(&self) -> u32 {
            self.loops
        }
        fn settle(&mut self) -> Result<bool, JvmError> {
            self.settles += 1;
            Ok(self.settles > 1)
        }
        fn collect_garbage(&mut self) -> Result<(), JvmError> {
            Ok(())
        }
        fn dump_heap(&mut self, path: &Path) -> Result<(), JvmError> {
            let items = (self.items)(self.loops, self.loops_at_last_dump);
            self.loops_at_last_dump = self.loops;
            let mut h = HeapBuilder::new();
            let object = h.class_named("java.lang.Object");
            let item = h.class("com.example.Item", Some(object), &[]);
            let elements: Vec<_> = (0..items).map(|_| Some(h.instance(item, &[]))).collect();
            let array = h.object_array("java.lang.Object[]", &elements);
            let queue = h.class("com.example.Queue", Some(object), &[]);
            h.static_field(queue, "pending", FieldType::Object);
            h.set_static(queue, "pending", Value::Ref(array));
            std::fs::write(path, h.write()).map_err(|e| JvmError::Jni(e.to_string()))
        }
    }

    /// The report of `search` over a [`SyntheticQueue`] of `items`, every dump kept.
    fn search_queue(items: impl Fn(u32, u32) -> u32) -> ScenarioReport {
        let dumps = PrivateTempDir::new("test").unwrap();
        let mut queue = SyntheticQueue {
            items,
            loops: 0,
            loops_at_last_dump: 0,
            settles: 0,
        };
        let settings = SearchSettings {
            keep_all_dumps: true,
            ..SearchSettings::default()
        };
        // The kept dumps go with the private directory.
        search(
            &mut queue,
            "com.example.Queue",
            &settings,
            dumps.path(),
            &Progress::new(false),
        )
    }

    #[test]
    fn a_queue_drained_on_a_tick_the_settles_missed_is_gone_when_retaken_and_clean() {
        // Each dump holds the loops since the dump before, as a timer's queue caught before its
        // tick at every snapshot does; the retake (no loops since) finds it empty.
        let report = search_queue(|loops, before| loops - before);
        let outcome = report.result.as_ref().unwrap();
        assert!(outcome.growing.is_empty(), "{:?}", outcome.growing);
        assert_eq!(outcome.gone_on_retake.len(), 1);
        assert_eq!(
            outcome.gone_on_retake[0].path.last().unwrap().to_string(),
            "STATIC_FIELD Queue.pending -> instance of java.lang.Object[]"
        );
        assert_eq!(report.verdict(), Some(crate::report::Verdict::Clean));
        // One dump more than the snapshots: the retake, never kept (a kept dump stands for the
        // loops of a snapshot, for `diff --loops`).
        assert_eq!(report.timings.dump.len() as u32, outcome.snapshots + 1);
        assert_eq!(report.kept_dumps.len() as u32, outcome.snapshots);
        // The first settle was cut short, before the snapshot after the 3 warm-up loops.
        assert_eq!(report.settling_cut_short, [3]);
    }

    #[test]
    fn a_slow_leak_holds_when_retaken_and_a_leak_of_an_item_a_loop_is_not_retaken() {
        let slow = search_queue(|loops, _| loops / 10);
        let outcome = slow.result.as_ref().unwrap();
        assert_eq!(outcome.growing.len(), 1, "{:?}", outcome.gone_on_retake);
        assert_eq!(slow.timings.dump.len() as u32, outcome.snapshots + 1);
        let leak = search_queue(|loops, _| loops);
        let outcome = leak.result.as_ref().unwrap();
        assert_eq!(outcome.growing.len(), 1);
        assert_eq!(leak.timings.dump.len() as u32, outcome.snapshots);
    }

    #[test]
    fn a_search_of_this_process_jvm_expects_the_last_count_any_search_read() {
        static SHARED: AtomicUsize = AtomicUsize::new(0);
        let mut first = ObjectCountHint::new(Some(&SHARED));
        assert_eq!(first.expected(), None, "no dump read yet");
        first.read(104_000);
        first.read(105_000);
        assert_eq!(first.expected(), Some(105_000));
        let mut next = ObjectCountHint::new(Some(&SHARED));
        assert_eq!(next.expected(), Some(105_000), "the next test's first dump");
        // Another JVM's dumps (watch) neither use nor change it.
        let mut other = ObjectCountHint::new(None);
        assert_eq!(other.expected(), None);
        other.read(3_000_000);
        assert_eq!(
            ObjectCountHint::new(Some(&SHARED)).expected(),
            Some(105_000)
        );
        next.read(99_000);
        assert_eq!(ObjectCountHint::new(Some(&SHARED)).expected(), Some(99_000));
    }

    /// A source that writes its dumps, as a JVM does.
    struct Dumping;

    impl SnapshotSource for Dumping {
        fn subject(&self) -> Subject {
            Subject::Jvm
        }
        fn unit(&self) -> LoopUnit {
            LoopUnit::Loops
        }
        fn position(&self) -> u32 {
            0
        }
        fn take_snapshot(&mut self, _new_dump: &Path) -> Result<Snapshot, ScenarioError> {
            Ok(Snapshot::Written { dump_ms: 0 })
        }
        fn advance(&mut self, _requested: u32) -> Result<Advance, ScenarioError> {
            Ok(Advance::End(ConfirmationCut::TimeBudget))
        }
    }

    #[test]
    fn a_source_that_writes_dumps_gets_them_read_as_written() {
        let dir = PrivateTempDir::new("test").unwrap();
        let follower = follower_for(&Dumping, &dir.path().join("snapshot-1.hprof"), None);
        assert!(
            follower.is_some(),
            "a JVM's dump is read while it is written"
        );
    }

    fn report_with_dumps(dir: &Path, count: usize) -> ScenarioReport {
        let mut report = ScenarioReport::failed("com.example/Odd\nName", "x".into());
        for n in 0..count {
            let path = dir.join(format!("snapshot-{}.hprof", 40 + n));
            std::fs::write(&path, b"JAVA PROFILE 1.0.2\0").unwrap();
            report.kept_dumps.push(path);
        }
        report
    }

    #[test]
    fn only_the_last_two_dumps_are_kept() {
        let dir = PrivateTempDir::new("test").unwrap();
        let mut kept = VecDeque::new();
        for n in 0..4 {
            let path = dir.path().join(format!("{n}.hprof"));
            std::fs::write(&path, b"dump").unwrap();
            done_with(path, KEPT_DUMPS, &mut kept);
        }
        assert_eq!(
            Vec::from(kept),
            vec![dir.path().join("2.hprof"), dir.path().join("3.hprof")]
        );
        assert!(!dir.path().join("0.hprof").exists() && !dir.path().join("1.hprof").exists());
        done_with(dir.path().join("3.hprof"), 0, &mut VecDeque::new());
        assert!(!dir.path().join("3.hprof").exists());
    }

    #[test]
    fn kept_dumps_move_owner_only_or_say_why_not() {
        let private = PrivateTempDir::new("test").unwrap();
        let reports = PrivateTempDir::new("test").unwrap();
        let mut report = report_with_dumps(private.path(), 2);
        keep_dumps(&mut report, reports.path());
        // One directory per scenario, its name one path component.
        let target = reports.path().join("com.example_Odd_Name");
        assert_eq!(
            report.kept_dumps,
            vec![
                target.join("snapshot-1.hprof"),
                target.join("snapshot-2.hprof")
            ]
        );
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&target), 0o700);
        assert_eq!(mode(&report.kept_dumps[0]), 0o600);
        assert_eq!(report.dumps_not_kept, None);

        // A file where the directory should be: the report stands and says why.
        let blocked = reports.path().join("blocked");
        std::fs::write(&blocked, b"").unwrap();
        let mut report = report_with_dumps(private.path(), 1);
        keep_dumps(&mut report, &blocked);
        assert!(report.kept_dumps.is_empty());
        let why = report.dumps_not_kept.unwrap();
        assert!(why.contains("cannot keep the heap dumps in"), "{why}");
    }

    #[test]
    fn a_second_run_of_a_scenario_keeps_its_dumps_beside_the_firsts() {
        let private = PrivateTempDir::new("test").unwrap();
        let reports = PrivateTempDir::new("test").unwrap();
        let mut runs = Vec::new();
        for run in 1..=3 {
            let mut report = report_with_dumps(private.path(), 2);
            std::fs::write(&report.kept_dumps[0], format!("run {run}")).unwrap();
            keep_dumps(&mut report, reports.path());
            assert_eq!(report.dumps_not_kept, None);
            runs.push(report.kept_dumps);
        }
        let dir_of = |run: usize| {
            runs[run][0]
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_owned()
        };
        assert_eq!(dir_of(0), "com.example_Odd_Name");
        assert_eq!(dir_of(1), "com.example_Odd_Name-2");
        assert_eq!(dir_of(2), "com.example_Odd_Name-3");
        // Nothing overwritten: each run's first dump is its own.
        for (run, kept) in runs.iter().enumerate() {
            assert_eq!(
                std::fs::read_to_string(&kept[0]).unwrap(),
                format!("run {}", run + 1)
            );
        }
        // An empty directory under the name is used, not skipped.
        std::fs::create_dir(reports.path().join("Empty")).unwrap();
        assert_eq!(unused_dir_name(reports.path(), "Empty"), "Empty");
    }

    #[test]
    fn dumps_not_to_keep_are_deleted_and_not_named() {
        let private = PrivateTempDir::new("test").unwrap();
        let mut report = report_with_dumps(private.path(), 2);
        let dumps = report.kept_dumps.clone();
        settle_kept_dumps(&mut report, None);
        assert!(report.kept_dumps.is_empty());
        assert!(dumps.iter().all(|dump| !dump.exists()));
        assert_eq!(report.dumps_not_kept, None);
        // Kept: moved, as keep_dumps does.
        let reports = PrivateTempDir::new("test").unwrap();
        let mut report = report_with_dumps(private.path(), 1);
        settle_kept_dumps(&mut report, Some(reports.path()));
        assert_eq!(report.kept_dumps.len(), 1);
        assert!(report.kept_dumps[0].starts_with(reports.path()));
        assert!(report.kept_dumps[0].exists());
    }
}
