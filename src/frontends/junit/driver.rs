//! The JUnit test method as the engine's [`Driver`]: its loops, settling and heap dumps are
//! calls into the extension's `LoopCallback` (through [`TestCallback`]), and each heap dump is
//! counted in the process's [`DumpGate`](super::dump_gate::DumpGate) while it is written, so
//! that the shutdown hook waits for it.

use std::path::Path;
use std::sync::Arc;

use crate::attribution::Attribution;
use crate::engine::Driver;
use crate::growth::GrowingNode;
use crate::jvm::test_callback::{LoopsRun, TestCallback};
use crate::jvm::{JavaAccess, JvmError, LiveAgent, LiveScenario, PathStart};

use super::dump_gate::DUMPS;

/// The JUnit test method, looped through the extension's `LoopCallback`.
pub(super) struct TestMethod<'a, 'local> {
    pub(super) callback: TestCallback<'a, 'local>,
    pub(super) loops_run: u32,
    /// heapgrowth's agent, when attribution can run.
    pub(super) agent: Option<LiveAgent<'a>>,
    /// The attribution class, when attribution can run.
    pub(super) live: Option<Arc<JavaAccess>>,
    /// Why attribution cannot run in this JVM (no agent), if so.
    pub(super) no_attribution: Option<String>,
    /// Whether a loop of the test method threw: the extension then rethrows what it threw,
    /// and no baseline is rewritten from the run.
    pub(super) threw: bool,
}

/// The test method as attribution sees it: its paths start at the test class's loader (static
/// fields), the test thread and the test instance (`LoopCallback.pathStart()`).
impl LiveScenario for TestMethod<'_, '_> {
    fn path_start(&mut self) -> Result<PathStart, JvmError> {
        let Some(java) = self.live.clone() else {
            return Err(JvmError::Jni("attribution is not available".into()));
        };
        self.callback.path_start(&java)
    }

    fn run_loops(&mut self, count: u32) -> Result<(), JvmError> {
        Driver::run_loops(self, count)
    }

    fn settle(&mut self) -> Result<(), JvmError> {
        Driver::settle(self).map(|_settled| ())
    }

    fn collect_garbage(&mut self) -> Result<(), JvmError> {
        Driver::collect_garbage(self)
    }
}

impl Driver for TestMethod<'_, '_> {
    fn run_loops(&mut self, count: u32) -> Result<(), JvmError> {
        match self.callback.run_loops(count)? {
            LoopsRun::Total(total) => {
                self.loops_run = total;
                Ok(())
            }
            LoopsRun::Threw(failed_loop) => {
                self.loops_run = failed_loop;
                self.threw = true;
                Err(JvmError::ScenarioThrew {
                    class: "the test method".into(),
                    loop_number: self.loops_run,
                    exception: self.callback.failure(),
                })
            }
        }
    }

    fn loops_run(&self) -> u32 {
        self.loops_run
    }

    fn settle(&mut self) -> Result<bool, JvmError> {
        // Whether it settled in time; a dump is taken either way.
        self.callback.settle()
    }

    fn collect_garbage(&mut self) -> Result<(), JvmError> {
        self.callback.collect_garbage()
    }

    fn attribute(&mut self, node: &GrowingNode, loops: u32) -> Option<Attribution> {
        // Without the attribution classes, or with an agent that cannot be used, the reason
        // is what is wrong.
        match (&self.live, &self.no_attribution) {
            (Some(_), None) => Some(crate::attribution::live::attribute(
                self.agent, self, node, loops,
            )),
            (_, reason) => {
                Some(Attribution::not_attributed(reason.clone().unwrap_or_else(
                    || "attribution is not available in this JVM".to_owned(),
                )))
            }
        }
    }

    fn dump_heap(&mut self, path: &Path) -> Result<(), JvmError> {
        if path.to_str().is_none() {
            return Err(JvmError::InvalidPath {
                path: path.to_path_buf(),
                reason: "not valid UTF-8",
            });
        }
        let dump = DUMPS.begin_dump(path)?;
        let written = self.callback.dump_heap(path);
        // The gate's verdict first: a dump that ended after the JVM started closing is deleted
        // and fails the search, whatever the JVM said of it.
        dump.finish()?;
        written?;
        if !path.is_file() {
            return Err(JvmError::HeapDumpFailed {
                reason: format!(
                    "the JVM reported success but wrote no file at {}",
                    path.display()
                ),
            });
        }
        Ok(())
    }
}
