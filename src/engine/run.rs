//! `heapgrowth run`'s engine: the JVM started in this process, every scenario a Java
//! `Runnable` looped through [`search`], and the reports so far kept for the moment the JVM ends
//! the process under the run.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use super::{
    describe, search, settle_kept_dumps, Driver, EngineError, Progress, ScenarioError,
    SearchSettings,
};
use crate::attribution::Attribution;
use crate::growth::GrowingNode;
use crate::jvm::{on_jvm_end, Jvm, JvmEnd, JvmError, JvmOptions, Scenario, START_FAILED_REASON};
use crate::line::escape_line;
use crate::report::ScenarioReport;
use crate::tempdir::PrivateTempDir;

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
    /// Where to move the heap dumps `settings.keep_dumps` keeps: the last two of each scenario
    /// that grows or fails ([`DumpPolicy::Failed`](super::DumpPolicy::Failed), `--keep-dumps
    /// failed`), or every dump of every scenario, whatever it found
    /// ([`DumpPolicy::All`](super::DumpPolicy::All), `--keep-dumps all`); `None`: every dump is
    /// deleted.
    pub keep_dumps_in: Option<PathBuf>,
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
        }
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
    let settings = &options.settings;
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
                settings,
                dumps.path(),
                &progress,
            ),
            Err(error) => ScenarioReport::failed(class_name, describe(ScenarioError::Jvm(error))),
        };
        let failed = report.has_growth() || report.result.is_err();
        let keep_in = options.keep_dumps_in.as_deref();
        settle_kept_dumps(
            &mut report,
            keep_in.filter(|_| settings.keep_dumps.moves(failed)),
        );
        let mut state = lock(&state);
        state.activity = Activity::Finished;
        state.finished.push(report);
    }
    progress.clear();
    let reports = std::mem::take(&mut lock(&state).finished);
    Ok(reports)
}
