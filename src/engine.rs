//! Runs scenarios end to end: loops in the JVM, a live heap dump per snapshot into a private
//! directory, the dump read and diffed, the dump deleted.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Instant;

use crate::growth::{GrowthSearch, NextStep, SearchConfig, SearchOutcome, DEFAULT_WARMUP_LOOPS};
use crate::heap::HeapGraph;
use crate::hprof::HprofError;
use crate::jvm::{Jvm, JvmError, JvmOptions};
use crate::report::{ScenarioReport, Timings};
use crate::tempdir::PrivateTempDir;

/// What to run and how.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// How to start the JVM.
    pub jvm: JvmOptions,
    /// Scenario classes, run one after the other.
    pub scenarios: Vec<String>,
    /// Loops before the first snapshot.
    pub warmup: u32,
    /// Loops per snapshot and number of snapshots.
    pub search: SearchConfig,
    /// Show progress on stderr (only when it is a terminal).
    pub progress: bool,
}

impl RunOptions {
    /// Defaults for everything but the JVM and the scenarios.
    pub fn new(jvm: JvmOptions, scenarios: Vec<String>) -> RunOptions {
        RunOptions { jvm, scenarios, warmup: DEFAULT_WARMUP_LOOPS, search: SearchConfig::default(), progress: true }
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
enum ScenarioError {
    #[error(transparent)]
    Jvm(#[from] JvmError),
    #[error("cannot read heap dump {path}: {source}")]
    Dump { path: String, source: HprofError },
}

/// Starts the JVM and runs every scenario of `options`.
pub fn run(options: &RunOptions) -> Result<Vec<ScenarioReport>, EngineError> {
    if options.search.loops_per_snapshot == 0 || options.search.max_snapshots < 2 {
        return Err(EngineError::InvalidOptions(
            "--loops-per-snapshot must be at least 1 and --max-snapshots at least 2".into(),
        ));
    }
    let progress = Progress { enabled: options.progress && std::io::stderr().is_terminal() };
    progress.show(format_args!("starting the JVM"));
    let jvm = Jvm::start(&options.jvm)?;
    let dumps = PrivateTempDir::new("heapgrowth-dumps")?;
    let reports = options
        .scenarios
        .iter()
        .map(|scenario| {
            let mut timings = Timings::default();
            let result =
                run_scenario(&jvm, scenario, options, dumps.path(), &mut timings, &progress).map_err(describe);
            ScenarioReport { scenario: scenario.clone(), result, timings }
        })
        .collect();
    progress.clear();
    Ok(reports)
}

fn run_scenario(
    jvm: &Jvm,
    class_name: &str,
    options: &RunOptions,
    dumps: &Path,
    timings: &mut Timings,
    progress: &Progress,
) -> Result<SearchOutcome, ScenarioError> {
    progress.show(format_args!("{class_name}: warm-up"));
    let mut scenario = jvm.open_scenario(class_name)?;
    scenario.run_loops(options.warmup)?;
    let mut search = GrowthSearch::new(options.search);
    for snapshot in 1.. {
        let loops = scenario.loops_run();
        let path = dumps.join(format!("snapshot-{snapshot}.hprof"));
        progress.show(format_args!("{class_name}: loop {loops}, snapshot {snapshot}: dumping"));
        let started = Instant::now();
        jvm.dump_heap(&path)?;
        timings.dump.push(elapsed_ms(started));

        progress.show(format_args!("{class_name}: loop {loops}, snapshot {snapshot}: reading"));
        let started = Instant::now();
        let graph = HeapGraph::open(&path);
        // The dump is only needed while it is read; it holds every secret in the heap.
        let next = match graph {
            Ok(graph) => {
                timings.parse.push(elapsed_ms(started));
                progress.show(format_args!("{class_name}: loop {loops}, snapshot {snapshot}: analysing"));
                let started = Instant::now();
                let next = search.add_snapshot(&graph, loops);
                timings.analysis.push(elapsed_ms(started));
                drop(graph);
                let _ = std::fs::remove_file(&path);
                next
            }
            Err(source) => {
                let _ = std::fs::remove_file(&path);
                return Err(ScenarioError::Dump { path: path.display().to_string(), source });
            }
        };
        match next {
            NextStep::RunLoops(count) => {
                progress.show(format_args!("{class_name}: loop {loops}, running {count} loops"));
                scenario.run_loops(count)?;
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
struct Progress {
    enabled: bool,
}

impl Progress {
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
