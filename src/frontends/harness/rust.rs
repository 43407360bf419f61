//! Rust-written scenarios (feature `j4rs`): a closure that calls Java through j4rs on the
//! trial's JVM, run in loops by the engine like a Java `Runnable`.
//!
//! j4rs attaches to the JVM heapgrowth started (it looks for an existing JVM before creating
//! one) when two things hold: its jar is on the JVM's system class path (its classes are found
//! through the system class loader), and `JAVA_HOME` names the JDK whose `libjvm.so` runs (j4rs
//! loads `libjvm.so` from `JAVA_HOME` to find the running JVM; loading the same file again gives
//! the same library). This module arranges both.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread;

use crate::engine::{search, Driver, Progress, SearchSettings};
use crate::jvm::{find_jdk, Jvm, JvmError, JvmOptions, Settler};
use crate::report::ScenarioReport;
use crate::tempdir::PrivateTempDir;

/// A Rust scenario as the harness keeps it: one call is one loop.
pub(super) type RustScenarioFn = Arc<dyn Fn(&j4rs::Jvm) -> Result<(), String> + Send + Sync>;

/// Where j4rs's build script copies its jar, relative to the directory of the binaries
/// (`target/debug/jassets/`); j4rs itself looks for it the same way.
const JASSETS_DIR: &str = "jassets";
/// The name j4rs gives its jar: `j4rs-<version>-jar-with-dependencies.jar`.
const JAR_PREFIX: &str = "j4rs-";
const JAR_SUFFIX: &str = "-jar-with-dependencies.jar";
/// The thread that runs a Rust scenario's loops, attached to the JVM through j4rs.
const THREAD_NAME: &str = "heapgrowth-rust-scenario";

/// Runs the growth search on Rust scenario `name` in this process's one JVM.
///
/// `jvm` is the trial's JVM configuration: its `classpath` (the user's Java classes) goes on
/// the system class path too, next to j4rs's jar, since j4rs finds classes through the system
/// class loader.
pub(super) fn scenario_report(
    scenario: &RustScenarioFn,
    name: &str,
    mut jvm: JvmOptions,
    loops: &SearchSettings,
    j4rs_jar: Option<&Path>,
) -> Result<ScenarioReport, String> {
    let jar = match j4rs_jar {
        Some(jar) => jar.to_owned(),
        None => find_j4rs_jar()?,
    };
    let jdk = find_jdk(jvm.java_home.as_deref()).map_err(|e| e.to_string())?;
    // j4rs loads libjvm.so from JAVA_HOME to find the running JVM, so JAVA_HOME must name the
    // JDK started here. Set now, while the trial's process still has one thread: the JVM's
    // threads read the environment once it runs.
    std::env::set_var("JAVA_HOME", &jdk.home);
    jvm.java_home = Some(jdk.home.clone());
    jvm.system_classpath.push(jar);
    jvm.system_classpath.extend(jvm.classpath.iter().cloned());
    jvm.start_attach_listener |= loops.jfr;
    let jvm = Jvm::start(&jvm).map_err(|e| format!("cannot start the JVM for {name}: {e}"))?;
    if jvm.jdk().home != jdk.home {
        return Err(format!(
            "the JVM runs from {} but JAVA_HOME, which j4rs uses, is {}",
            jvm.jdk().home.display(),
            jdk.home.display()
        ));
    }
    let dumps = PrivateTempDir::new("dumps")
        .map_err(|e| format!("cannot create a private directory for heap dumps: {e}"))?;
    thread::scope(|scope| {
        let (requests, worker_requests) = channel();
        let (worker_done, done) = channel();
        thread::Builder::new()
            .name(THREAD_NAME.into())
            .spawn_scoped(scope, move || {
                run_worker(scenario, name, &worker_requests, &worker_done)
            })
            .map_err(|e| format!("cannot start a thread for {name}: {e}"))?;
        // The worker's first message says whether j4rs attached.
        match done.recv() {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => return Err(error.to_string()),
            Err(_) => return Err(format!("the thread of {name} ended before attaching")),
        }
        let settler = jvm
            .settler()
            .map_err(|e| format!("cannot prepare {name}: {e}"))?;
        let mut driver = RustScenario {
            jvm: &jvm,
            name,
            requests,
            done,
            loops_run: 0,
            settler,
        };
        let report = search(
            &mut driver,
            name,
            loops,
            dumps.path(),
            &Progress::new(false),
        );
        // Dropping the driver closes the channel: the worker detaches and ends.
        drop(driver);
        Ok(report)
    })
}

/// The engine's side of a Rust scenario: asks the worker thread for loops, dumps the heap
/// itself.
struct RustScenario<'a> {
    jvm: &'a Jvm,
    name: &'a str,
    /// Loops to run.
    requests: Sender<u32>,
    /// After each request: loops run so far, or why a loop failed.
    done: Receiver<Result<u32, JvmError>>,
    loops_run: u32,
    /// Made before the first loop: waits for the threads the loops start.
    settler: Settler,
}

impl Driver for RustScenario<'_> {
    fn run_loops(&mut self, count: u32) -> Result<(), JvmError> {
        if count == 0 {
            return Ok(());
        }
        let ended = || JvmError::RustScenarioFailed {
            name: self.name.to_owned(),
            loop_number: self.loops_run,
            message: format!("its thread {THREAD_NAME} ended"),
        };
        self.requests.send(count).map_err(|_| ended())?;
        match self.done.recv().map_err(|_| ended())? {
            Ok(total) => {
                self.loops_run = total;
                Ok(())
            }
            Err(error) => {
                if let JvmError::RustScenarioFailed { loop_number, .. } = &error {
                    self.loops_run = *loop_number;
                }
                Err(error)
            }
        }
    }

    fn loops_run(&self) -> u32 {
        self.loops_run
    }

    fn settle(&mut self) -> Result<bool, JvmError> {
        self.settler.settle()
    }

    fn collect_garbage(&mut self) -> Result<(), JvmError> {
        self.settler.collect_garbage()
    }

    fn dump_heap(&mut self, path: &Path) -> Result<(), JvmError> {
        self.jvm.dump_heap(path)
    }
}

/// The scenario's thread: attaches through j4rs (reporting the outcome first), then runs the
/// loops each request asks for until the channel closes. The j4rs `Jvm` detaches the thread
/// when it drops.
fn run_worker(
    scenario: &RustScenarioFn,
    name: &str,
    requests: &Receiver<u32>,
    done: &Sender<Result<u32, JvmError>>,
) {
    let failed = |loop_number: u32, message: String| JvmError::RustScenarioFailed {
        name: name.to_owned(),
        loop_number,
        message,
    };
    // j4rs panics when it cannot load libjvm.so.
    let attached = catch_unwind(j4rs::Jvm::attach_thread)
        .map_err(|panic| panic_message(panic.as_ref()))
        .and_then(|result| result.map_err(|e| e.to_string()));
    let j4rs = match attached {
        Ok(j4rs) => j4rs,
        Err(message) => {
            let _ = done.send(Err(JvmError::Jni(format!(
                "j4rs cannot attach to the JVM for {name}: {message}"
            ))));
            return;
        }
    };
    if done.send(Ok(0)).is_err() {
        return;
    }
    let mut loops_run = 0;
    for count in requests {
        let mut result = Ok(());
        for _ in 0..count {
            loops_run += 1;
            let outcome =
                catch_unwind(AssertUnwindSafe(|| scenario(&j4rs))).unwrap_or_else(|panic| {
                    Err(format!("panicked: {}", panic_message(panic.as_ref())))
                });
            if let Err(message) = outcome {
                result = Err(failed(loops_run, message));
                break;
            }
        }
        if done.send(result.map(|()| loops_run)).is_err() {
            return;
        }
    }
}

fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// j4rs's jar, where its build script put it: `jassets/j4rs-<version>-jar-with-dependencies.jar`
/// in the first directory above this binary that has a `jassets` directory (`target/debug/`
/// for a test binary in `target/debug/deps/`), as j4rs looks for it.
fn find_j4rs_jar() -> Result<PathBuf, String> {
    let exe = std::env::current_exe()
        .and_then(|exe| exe.canonicalize())
        .map_err(|e| format!("cannot find this binary to look for j4rs's jar: {e}"))?;
    let jassets = exe
        .ancestors()
        .skip(1)
        .map(|dir| dir.join(JASSETS_DIR))
        .find(|dir| dir.is_dir())
        .ok_or_else(|| {
            format!(
                "no {JASSETS_DIR} directory (where j4rs's build puts its jar) above {}; \
                 pass the jar with Harness::j4rs_jar",
                exe.display()
            )
        })?;
    let mut jars: Vec<PathBuf> = std::fs::read_dir(&jassets)
        .map_err(|e| format!("cannot read {}: {e}", jassets.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with(JAR_PREFIX) && name.ends_with(JAR_SUFFIX))
        })
        .collect();
    match jars.len() {
        1 => Ok(jars.remove(0)),
        0 => Err(format!(
            "no {JAR_PREFIX}*{JAR_SUFFIX} in {}; pass the jar with Harness::j4rs_jar",
            jassets.display()
        )),
        _ => Err(format!(
            "several j4rs jars in {}; pass the one of the j4rs version in use with Harness::j4rs_jar",
            jassets.display()
        )),
    }
}
