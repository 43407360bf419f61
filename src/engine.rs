//! Runs scenarios end to end: loops, a live heap dump per snapshot into a private directory,
//! the dump read and diffed, the dump deleted.
//!
//! The loop is written once, against [`Driver`]: the command line drives Java `Runnable`s
//! ([`run`]); other front ends (a Rust closure calling Java, a JUnit test method) implement
//! [`Driver`] and call [`search`].

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Instant;

use crate::attribution::{attribution_loops, Attribution};
use crate::growth::{
    GrowingNode, GrowthSearch, NextStep, SearchConfig, SearchOutcome, DEFAULT_WARMUP_LOOPS,
};
use crate::heap::HeapGraph;
use crate::hprof::HprofError;
use crate::jvm::{Jvm, JvmError, JvmOptions, Scenario};
use crate::report::{ScenarioReport, Timings};
use crate::tempdir::PrivateTempDir;

/// How many loops to run and when to look, for every front end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopSettings {
    /// Loops before the first snapshot.
    pub warmup: u32,
    /// Loops per snapshot and number of snapshots.
    pub search: SearchConfig,
}

impl Default for LoopSettings {
    fn default() -> Self {
        LoopSettings {
            warmup: DEFAULT_WARMUP_LOOPS,
            search: SearchConfig::default(),
        }
    }
}

impl LoopSettings {
    /// Checks settings that cannot work.
    pub fn validate(&self) -> Result<(), EngineError> {
        if self.search.loops_per_snapshot == 0 || self.search.max_snapshots < 2 {
            return Err(EngineError::InvalidOptions(
                "--loops-per-snapshot must be at least 1 and --max-snapshots at least 2".into(),
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
    /// Loops and snapshots.
    pub loops: LoopSettings,
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
            loops: LoopSettings::default(),
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
    options.loops.validate()?;
    let progress = Progress::new(options.progress);
    progress.show(format_args!("starting the JVM"));
    let jvm = Jvm::start(&options.jvm)?;
    let dumps = PrivateTempDir::new("heapgrowth-dumps")?;
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
                    &options.loops,
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
    settings: &LoopSettings,
    dumps: &Path,
    progress: &Progress,
) -> ScenarioReport {
    let mut timings = Timings::default();
    let mut attributions = Vec::new();
    let result = search_inner(driver, name, settings, dumps, &mut timings, progress)
        .inspect(|outcome| {
            attributions = attribute(driver, name, outcome, settings, &mut timings, progress);
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
    settings: &LoopSettings,
    timings: &mut Timings,
    progress: &Progress,
) -> Vec<Option<Attribution>> {
    let loops = attribution_loops(settings.search.loops_per_snapshot);
    outcome
        .growing
        .iter()
        .map(|node| {
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
    settings: &LoopSettings,
    dumps: &Path,
    timings: &mut Timings,
    progress: &Progress,
) -> Result<SearchOutcome, ScenarioError> {
    progress.show(format_args!("{name}: warm-up"));
    driver.run_loops(settings.warmup)?;
    let mut search = GrowthSearch::new(settings.search);
    for snapshot in 1.. {
        let loops = driver.loops_run();
        let path = dumps.join(format!("snapshot-{snapshot}.hprof"));
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
        match next {
            NextStep::RunLoops(count) => {
                progress.show(format_args!("{name}: loop {loops}, running {count} loops"));
                driver.run_loops(count)?;
            }
            NextStep::Done => break,
        }
    }
    Ok(search.finish())
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
