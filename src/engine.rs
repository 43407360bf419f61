//! Runs scenarios end to end: loops, a live heap dump per snapshot into a private directory,
//! the dump read and diffed, the dump deleted.
//!
//! The loop is written once, against [`Driver`]: the command line drives Java `Runnable`s
//! ([`run`]); other front ends (a Rust closure calling Java, a JUnit test method) implement
//! [`Driver`] and call [`search`].

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::attribution::{attribution_loops, Attribution};
use crate::growth::{
    ConfirmationCut, GrowingNode, GrowthSearch, IgnoreRule, NextStep, SearchConfig, SearchOutcome,
    DEFAULT_WARMUP_LOOPS,
};
use crate::heap::HeapGraph;
use crate::hprof::HprofError;
use crate::jvm::{Jvm, JvmError, JvmOptions, Scenario};
use crate::report::{ScenarioReport, Timings};
use crate::tempdir::PrivateTempDir;

/// The time one scenario's search may take (loops, dumps and their analysis; attribution not
/// included) before confirmation stops where it is. A minute lets a test whose loop takes 50
/// ms reach the confirmation loops; a slower one is reported as confirmed over fewer loops,
/// and the report says so.
pub const DEFAULT_TIME_BUDGET: Duration = Duration::from_secs(60);

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
    /// Paths left out of the search, reported as ignored. The default is heapgrowth's rules
    /// for known JDK growth ([`IgnoreRule::known_jdk_growth`]); add to them rather than
    /// replacing them unless that growth should count.
    pub ignore_rules: Vec<IgnoreRule>,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            warmup: DEFAULT_WARMUP_LOOPS,
            search: SearchConfig::default(),
            time_budget: DEFAULT_TIME_BUDGET,
            ignore_rules: IgnoreRule::known_jdk_growth(),
        }
    }
}

impl SearchSettings {
    /// Checks settings that cannot work.
    pub fn validate(&self) -> Result<(), EngineError> {
        if self.search.loops_per_snapshot == 0 || self.search.max_snapshots < 2 {
            return Err(EngineError::InvalidOptions(
                "--loops-per-snapshot must be at least 1 and --max-snapshots at least 2".into(),
            ));
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
    /// `ForkJoinPool`, threads the scenario started), so a dump doesn't catch it half done.
    fn settle(&mut self) -> Result<(), JvmError>;
    /// Runs a full collection and waits for the cleanup it starts (see [`run_gap`]).
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
}

impl Driver for JavaScenario<'_> {
    fn run_loops(&mut self, count: u32) -> Result<(), JvmError> {
        self.scenario.run_loops(count)
    }
    fn loops_run(&self) -> u32 {
        self.scenario.loops_run()
    }
    fn settle(&mut self) -> Result<(), JvmError> {
        self.scenario.settle()
    }
    fn collect_garbage(&mut self) -> Result<(), JvmError> {
        self.scenario.collect_garbage()
    }
    fn dump_heap(&mut self, path: &Path) -> Result<(), JvmError> {
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

/// Starts the JVM and runs every scenario of `options`.
pub fn run(options: &RunOptions) -> Result<Vec<ScenarioReport>, EngineError> {
    options.settings.validate()?;
    let progress = Progress::new(options.progress);
    progress.show(format_args!("starting the JVM"));
    let jvm = Jvm::start(&options.jvm)?;
    let dumps = PrivateTempDir::new("dumps")?;
    let reports = options
        .scenarios
        .iter()
        .map(|class_name| {
            progress.show(format_args!("{class_name}: opening"));
            match jvm.open_scenario(class_name) {
                Ok(scenario) => search(
                    &mut JavaScenario {
                        jvm: &jvm,
                        scenario,
                        attribution: options.attribution,
                    },
                    class_name,
                    &options.settings,
                    dumps.path(),
                    &progress,
                ),
                Err(error) => {
                    ScenarioReport::failed(class_name, describe(ScenarioError::Jvm(error)))
                }
            }
        })
        .collect();
    progress.clear();
    Ok(reports)
}

/// Runs the growth search on one scenario: warm-up, snapshots into `dumps` (each deleted once
/// read), confirmation. Never fails as a whole: a failing scenario gives a report with its
/// error.
pub fn search(
    driver: &mut dyn Driver,
    name: &str,
    settings: &SearchSettings,
    dumps: &Path,
    progress: &Progress,
) -> ScenarioReport {
    let mut timings = Timings::default();
    let mut attributions = Vec::new();
    let result = search_inner(driver, name, settings, dumps, &mut timings, progress)
        .inspect(|outcome| {
            attributions = attribute(driver, name, outcome, &mut timings, progress);
        })
        .map_err(describe);
    ScenarioReport {
        scenario: name.to_owned(),
        result,
        attributions,
        timings,
    }
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

fn search_inner(
    driver: &mut dyn Driver,
    name: &str,
    settings: &SearchSettings,
    dumps: &Path,
    timings: &mut Timings,
    progress: &Progress,
) -> Result<SearchOutcome, ScenarioError> {
    progress.show(format_args!("{name}: warm-up"));
    let started = Instant::now();
    let mut budget = Budget::new(settings.time_budget, started);
    driver.run_loops(settings.warmup)?;
    budget.ran_loops(settings.warmup, started.elapsed());
    let mut search =
        GrowthSearch::with_ignore_rules(settings.search, settings.ignore_rules.clone());
    for snapshot in 1.. {
        let loops = driver.loops_run();
        let path = dumps.join(format!("snapshot-{snapshot}.hprof"));
        let snapshot_started = Instant::now();
        progress.show(format_args!(
            "{name}: loop {loops}, snapshot {snapshot}: settling"
        ));
        driver.settle()?;
        progress.show(format_args!(
            "{name}: loop {loops}, snapshot {snapshot}: dumping"
        ));
        let started = Instant::now();
        driver.dump_heap(&path)?;
        timings.dump.push(elapsed_ms(started));

        progress.show(format_args!(
            "{name}: loop {loops}, snapshot {snapshot}: reading"
        ));
        let started = Instant::now();
        let graph = HeapGraph::open(&path);
        // The dump holds every secret in the heap: delete it as soon as it has been read.
        let next = match graph {
            Ok(graph) => {
                timings.parse.push(elapsed_ms(started));
                progress.show(format_args!(
                    "{name}: loop {loops}, snapshot {snapshot}: analysing"
                ));
                let started = Instant::now();
                let next = search.add_snapshot(&graph, loops);
                timings.analysis.push(elapsed_ms(started));
                drop(graph);
                let _ = std::fs::remove_file(&path);
                next
            }
            Err(source) => {
                let _ = std::fs::remove_file(&path);
                return Err(ScenarioError::Dump {
                    path: path.display().to_string(),
                    source,
                });
            }
        };
        budget.took_snapshot(snapshot_started.elapsed());
        match next {
            NextStep::RunLoops(requested) => {
                let count = budget.affordable_loops(requested);
                if count < requested {
                    search.stop_after_next_snapshot(ConfirmationCut::TimeBudget);
                    if count == 0 {
                        break;
                    }
                }
                progress.show(format_args!("{name}: loop {loops}, running {count} loops"));
                let started = Instant::now();
                run_gap(driver, count, settings.search.loops_per_snapshot)?;
                budget.ran_loops(count, started.elapsed());
            }
            NextStep::Done => break,
        }
    }
    Ok(search.finish())
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
    let mut text = error.to_string();
    if let ScenarioError::Jvm(jvm_error) = &error {
        if let Some(exception) = jvm_error.java_exception() {
            text.push('\n');
            text.push_str(exception.stack_trace().trim_end());
        }
    }
    text
}

fn elapsed_ms(started: Instant) -> u64 {
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
