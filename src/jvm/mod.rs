//! Starting a JVM in this process and driving scenarios in it.
//!
//! All raw JNI lives in this module (the glue calls in `glue.rs`; the one exception path, panic
//! guard and string marshalling in `boundary/`) and all raw JVMTI in [`crate::jvmti`]; what is
//! public here is safe.
//!
//! ```no_run
//! use heapgrowth::jvm::{Jvm, JvmOptions};
//! # fn main() -> Result<(), heapgrowth::jvm::JvmError> {
//! let jvm = Jvm::start(&JvmOptions {
//!     classpath: vec!["build/classes".into()],
//!     ..JvmOptions::default()
//! })?;
//! let mut scenario = jvm.open_scenario("com.example.CartScenario")?;
//! scenario.run_loops(3)?;
//! jvm.dump_heap(std::path::Path::new("/tmp/private-dir/after-3.hprof"))?;
//! # Ok(()) }
//! ```
//!
//! A process can create one JVM only, ever: the JVM cannot be destroyed and created again.
//! Dropping [`Jvm`] therefore leaves the JVM running (idle) until the process exits.

mod access;
mod agent;
#[doc(hidden)]
pub mod boundary;
pub(crate) mod embedded;
mod error;
mod exit;
mod glue;
mod jdk;
pub mod jvmti;
mod live_paths;
mod natives;
pub(crate) mod test_callback;

use std::ffi::OsStr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jni::objects::GlobalRef;
use jni::{JNIEnv, JavaVM};

use self::access::LOCAL_FRAME_CAPACITY;

pub use self::access::JavaAccess;
#[doc(hidden)]
pub use self::agent::loaded_agent;
pub use self::error::{JavaException, JvmError};
pub use self::exit::{on_jvm_end, ExitCall, JvmEnd, JVM_ENDED_EXIT_STATUS, START_FAILED_REASON};
pub use self::jdk::{find_jdk, Jdk, JdkSource, MIN_JAVA_FEATURE_VERSION};
pub use self::live_paths::{
    ActiveClassDefinitions, ActiveSampling, ActiveStartWatch, ActiveWatch, LiveAgent, LiveNode,
    LiveScenario, OwnerFields, PathStart, Recorder,
};
pub use crate::jvmti::AgentCapabilities;
use crate::jvmti::JvmtiEnv;
use crate::tempdir::PrivateTempDir;

use self::agent::AgentLibrary;
use self::glue::Glue;

/// How to start the JVM.
#[derive(Debug, Clone, Default)]
pub struct JvmOptions {
    /// The JDK to use (`--java-home`); else `JAVA_HOME`, else `java` on PATH.
    pub java_home: Option<PathBuf>,
    /// Directories and jars holding the scenario classes. They are given to each scenario's
    /// own class loader, not to the JVM's class path.
    pub classpath: Vec<PathBuf>,
    /// Extra JVM options (`--jvm-arg`), for example `-Xmx2g`.
    pub jvm_args: Vec<String>,
    /// Directories and jars put on the JVM's system class path (`-Djava.class.path`) after
    /// heapgrowth's glue, for code that finds classes through the system class loader, such as
    /// j4rs. Default: none.
    pub system_classpath: Vec<PathBuf>,
    /// Start the JVM without heapgrowth's JVMTI agent (`--no-agent`): attribution then has only
    /// recording proxies, as in a test JVM started without `-agentpath:`.
    pub without_agent: bool,
    /// How long one scenario may run its constructor and loops, over its whole life
    /// (`--scenario-timeout`); then it is given up ([`JvmError::ScenarioTimedOut`]). `None`:
    /// no limit.
    pub scenario_timeout: Option<Duration>,
    /// Start the JVM's attach listener with it (`-XX:+StartAttachListener`), for `--jfr`,
    /// which records the JVM through it: with `-Xrs` no SIGQUIT can start it later. The JVM's
    /// JFR repository then goes into a private directory of heapgrowth's too, added to the
    /// user's own `-XX:FlightRecorderOptions` if there is one.
    pub start_attach_listener: bool,
}

/// Whether this process already tried to create its one JVM.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StartState {
    NotStarted,
    Started,
    /// `JNI_CreateJavaVM` ran and failed. HotSpot keeps part of its state from such an attempt
    /// (a retry "succeeds" with the first attempt's class path), so there is no second try.
    CreateFailed,
}

static START_STATE: Mutex<StartState> = Mutex::new(StartState::NotStarted);

const RETRY_REFUSED: &str = "an earlier attempt to create the JVM in this process failed, \
                             and a JVM cannot be created again in the same process";

/// Puts the JFR repository of the JVM started with `args` into `repository`. By default the
/// JVM writes a recording's chunks under `java.io.tmpdir` (`/tmp/<date>_<pid>`, readable by
/// every user), where they stayed when a run was interrupted, and the empty directory after
/// every run. HotSpot keeps only the last `-XX:FlightRecorderOptions` given, so the repository
/// is added to the user's own (`--jvm-arg=-XX:FlightRecorderOptions:old-object-queue-size=N`)
/// rather than beside it; one that names a repository itself is left as it is, and so are all
/// when the path cannot be written in the option's syntax.
fn with_private_jfr_repository(args: &mut Vec<String>, repository: &Path) {
    let Some(path) = repository.to_str().filter(|p| !p.contains([',', '='])) else {
        return;
    };
    let user_option = args.iter_mut().rev().find(|arg| {
        arg.strip_prefix("-XX:FlightRecorderOptions")
            .is_some_and(|rest| rest.starts_with([':', '=']))
    });
    match user_option {
        Some(option) if option.contains("repository=") => {}
        Some(option) => {
            let has_values = option.len() > "-XX:FlightRecorderOptions:".len();
            option.push_str(if has_values { "," } else { "" });
            option.push_str("repository=");
            option.push_str(path);
        }
        None => args.push(format!("-XX:FlightRecorderOptions:repository={path}")),
    }
}

/// What scenarios share with the [`Jvm`]; kept alive by whichever lives longer.
#[derive(Debug)]
struct Runtime {
    glue: Glue,
}

impl Runtime {
    /// Runs `f` on this thread attached to the JVM, inside a local reference frame.
    fn with_env<T>(
        &self,
        f: impl FnOnce(&mut JNIEnv, &Glue) -> Result<T, JvmError>,
    ) -> Result<T, JvmError> {
        self.glue.access.with_env(|env| f(env, &self.glue))
    }
}

/// The JVM running in this process, with heapgrowth's glue and (unless
/// [`JvmOptions::without_agent`]) its JVMTI agent loaded.
#[derive(Debug)]
pub struct Jvm {
    runtime: Arc<Runtime>,
    jdk: Jdk,
    java_version: String,
    agent: Option<Agent>,
    classpath: Vec<PathBuf>,
    scenario_timeout: Option<Duration>,
    /// Holds the JVM's JFR repository when it records itself ([`with_private_jfr_repository`]).
    _jfr_repository: Option<PrivateTempDir>,
}

/// A limit far beyond any run, for "no limit": Java's wait takes a finite time.
const NO_TIME_LIMIT: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// heapgrowth's JVMTI agent in the JVM.
#[derive(Debug)]
struct Agent {
    jvmti: JvmtiEnv,
    capabilities: AgentCapabilities,
    _library: AgentLibrary,
}

impl Jvm {
    /// Finds the JDK, starts its JVM in this process with heapgrowth's glue and agent, and
    /// checks that the agent got its JVMTI environment.
    ///
    /// Fails with [`JvmError::AlreadyStarted`] if this process already started a JVM.
    pub fn start(options: &JvmOptions) -> Result<Jvm, JvmError> {
        // Held for the whole start, so two threads cannot both try to create the JVM.
        let mut state = START_STATE
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match *state {
            StartState::NotStarted => {}
            StartState::Started => return Err(JvmError::AlreadyStarted),
            StartState::CreateFailed => {
                return Err(JvmError::StartFailed {
                    reason: RETRY_REFUSED.into(),
                })
            }
        }
        reject_class_path_options(&options.jvm_args)?;
        let jdk = find_jdk(options.java_home.as_deref())?;

        let extracted = embedded::extract().map_err(|e| JvmError::StartFailed {
            reason: format!(
                "cannot extract heapgrowth's JVM glue into a private temporary directory: {e}"
            ),
        })?;
        let agent_library = if options.without_agent {
            None
        } else {
            Some(AgentLibrary::load(&extracted.agent_library)?)
        };
        let mut args = vec![
            // Only the glue: scenario classes go to a class loader of their own per scenario.
            format!(
                "-Djava.class.path={}",
                system_classpath(&extracted.glue_jar, &options.system_classpath)?
            ),
            // No JVM handlers for SIGINT/SIGTERM: ours must delete the heap dumps on Ctrl-C.
            "-Xrs".to_owned(),
            // No --add-opens: attribution reads fields through JNI, which module access checks
            // don't apply to, as in a test JVM that nobody opened for us.
        ];
        if agent_library.is_some() {
            args.push(format!("-agentpath:{}", utf8(&extracted.agent_library)?));
        }
        if options.start_attach_listener {
            args.push("-XX:+StartAttachListener".to_owned());
        }
        args.extend(options.jvm_args.iter().cloned());
        let jfr_repository = if options.start_attach_listener {
            let dir = PrivateTempDir::new("jfr-repository").map_err(|e| JvmError::StartFailed {
                reason: format!("cannot create a private directory for JFR's repository: {e}"),
            })?;
            // A directory inside ours: the JVM makes it, and deletes it again when it checks
            // the option at start.
            with_private_jfr_repository(&mut args, &dir.path().join("jfr"));
            Some(dir)
        } else {
            None
        };

        let vm = create_java_vm(&jdk.libjvm, &args).inspect_err(|e| {
            if !matches!(e, JvmError::AlreadyStarted) {
                *state = StartState::CreateFailed;
            }
        })?;
        exit::started();
        *state = StartState::Started;
        drop(state);

        // The glue does not exist before this, so attach directly rather than through
        // `Runtime::with_env`.
        let (glue, java_version) = {
            let mut env = vm
                .attach_current_thread()
                .map_err(|e| JvmError::Jni(format!("cannot attach this thread to the JVM: {e}")))?;
            env.with_local_frame(LOCAL_FRAME_CAPACITY, |env| {
                let result = JavaAccess::new(env).and_then(|access| {
                    let glue = Glue::load(env, Arc::new(access))?;
                    let version = glue.java_version(env)?;
                    Ok((glue, version))
                });
                boundary::clear_pending(env);
                result
            })?
        };
        let agent = match agent_library {
            Some(library) => {
                let jvmti = library.jvmti_env(&vm)?;
                Some(Agent {
                    capabilities: jvmti.capabilities()?,
                    jvmti,
                    _library: library,
                })
            }
            None => None,
        };
        // The JVM has mapped the agent and opened the glue jar (Glue::load loaded every glue
        // class; an open jar stays readable after its file is deleted), so delete the extracted
        // files now instead of when `Jvm` drops, which may be never (a `Jvm` in a static).
        drop(extracted);
        Ok(Jvm {
            runtime: Arc::new(Runtime { glue }),
            jdk,
            java_version,
            agent,
            classpath: options.classpath.clone(),
            scenario_timeout: options.scenario_timeout,
            _jfr_repository: jfr_repository,
        })
    }

    /// The Java version, for example `17.0.15`.
    pub fn java_version(&self) -> &str {
        &self.java_version
    }

    /// The JDK the JVM came from.
    pub fn jdk(&self) -> &Jdk {
        &self.jdk
    }

    /// The JVMTI capabilities heapgrowth's agent obtained (none without the agent).
    /// `field_modification_events` is only there because the agent was loaded with
    /// `-agentpath:` at JVM start.
    pub fn capabilities(&self) -> AgentCapabilities {
        self.agent
            .as_ref()
            .map_or_else(AgentCapabilities::default, |agent| agent.capabilities)
    }

    /// The agent's JVMTI environment, unless the JVM was started without it.
    pub fn jvmti(&self) -> Option<&JvmtiEnv> {
        self.agent.as_ref().map(|agent| &agent.jvmti)
    }

    /// The agent as attribution uses it, unless the JVM was started without it.
    pub fn live_agent(&self) -> Option<live_paths::LiveAgent<'_>> {
        self.agent.as_ref().map(|agent| live_paths::LiveAgent {
            jvmti: &agent.jvmti,
            capabilities: agent.capabilities,
        })
    }

    /// Opens scenario `class_name` from [`JvmOptions::classpath`] (see [`Jvm::open_scenario_in`]).
    pub fn open_scenario(&self, class_name: &str) -> Result<Scenario, JvmError> {
        self.open_scenario_in(class_name, &self.classpath)
    }

    /// Loads `class_name` from `classpath` in a new class loader (so its static state does not
    /// depend on other scenarios), checks it is a concrete `Runnable` with a public no-arg
    /// constructor, and constructs one instance on a new thread `heapgrowth-scenario`, where all
    /// its loops will run.
    pub fn open_scenario_in(
        &self,
        class_name: &str,
        classpath: &[PathBuf],
    ) -> Result<Scenario, JvmError> {
        let entries = classpath
            .iter()
            .map(|entry| absolute_classpath_entry(entry))
            .collect::<Result<Vec<_>, _>>()?;
        let time_limit = self.scenario_timeout.unwrap_or(NO_TIME_LIMIT);
        let deadline = Instant::now() + time_limit;
        let host = self
            .runtime
            .with_env(|env, glue| glue.open(env, class_name, &entries, time_limit))?;
        Ok(Scenario {
            class_name: class_name.to_string(),
            loops_run: 0,
            host: Some(host),
            runtime: Arc::clone(&self.runtime),
            time_limit,
            deadline,
        })
    }

    /// A [`Settler`] that waits for the threads started from now on.
    pub fn settler(&self) -> Result<Settler, JvmError> {
        let settler = self.runtime.with_env(|env, glue| glue.new_settler(env))?;
        Ok(Settler {
            settler,
            runtime: Arc::clone(&self.runtime),
        })
    }

    /// Writes a heap dump of the live objects to `path`
    /// (`HotSpotDiagnosticMXBean.dumpHeap(path, live = true)`, which runs a full GC first).
    /// `path` must end with `.hprof` (the JVM insists) and must not exist yet.
    pub fn dump_heap(&self, path: &Path) -> Result<(), JvmError> {
        if path.extension() != Some(OsStr::new("hprof")) {
            return Err(JvmError::HeapDumpFailed {
                reason: format!("{}: the file name must end with .hprof", path.display()),
            });
        }
        if path.symlink_metadata().is_ok() {
            return Err(JvmError::HeapDumpFailed {
                reason: format!("{} already exists", path.display()),
            });
        }
        let absolute = std::path::absolute(path).map_err(|e| JvmError::HeapDumpFailed {
            reason: format!("{}: {e}", path.display()),
        })?;
        let absolute_str = utf8(&absolute)?;
        self.runtime
            .with_env(|env, glue| glue.dump_heap(env, absolute_str))?;
        if !absolute.is_file() {
            return Err(JvmError::HeapDumpFailed {
                reason: format!(
                    "the JVM reported success but wrote no file at {}",
                    absolute.display()
                ),
            });
        }
        Ok(())
    }
}

/// A scenario opened in the JVM: its own class loader, its thread, and one instance.
///
/// Dropping it stops the thread and releases the instance and the loader, so its objects
/// become garbage.
#[derive(Debug)]
pub struct Scenario {
    class_name: String,
    loops_run: u32,
    /// `None` only during drop.
    host: Option<GlobalRef>,
    runtime: Arc<Runtime>,
    /// [`JvmOptions::scenario_timeout`], and when it runs out for this scenario.
    time_limit: Duration,
    deadline: Instant,
}

impl Scenario {
    /// The scenario class's name.
    pub fn class_name(&self) -> &str {
        &self.class_name
    }

    /// Runs `run()` `count` more times on the scenario's thread, blocking until done. If a
    /// loop throws, the rest are not run and the error names the loop.
    pub fn run_loops(&mut self, count: u32) -> Result<(), JvmError> {
        if count == 0 {
            return Ok(());
        }
        let Some(host) = &self.host else {
            return Err(JvmError::Jni("scenario already closed".into()));
        };
        if u64::from(self.loops_run) + u64::from(count) > i32::MAX as u64 {
            return Err(JvmError::TooManyLoops {
                class: self.class_name.clone(),
                loops: u64::from(self.loops_run) + u64::from(count),
            });
        }
        let time_left = self.deadline.saturating_duration_since(Instant::now());
        let result = self.runtime.with_env(|env, glue| {
            glue.run_loops(
                env,
                host,
                &self.class_name,
                count,
                time_left,
                self.time_limit,
            )
        });
        match result {
            Ok(total) => {
                self.loops_run = total;
                Ok(())
            }
            Err(error) => {
                if let JvmError::ScenarioThrew { loop_number, .. }
                | JvmError::ScenarioTimedOut { loop_number, .. } = &error
                {
                    self.loops_run = *loop_number;
                }
                Err(error)
            }
        }
    }

    /// Loops run over the scenario's life, including one that threw. Loop numbers count from 1.
    pub fn loops_run(&self) -> u32 {
        self.loops_run
    }

    /// Waits, up to two seconds, for work the loops handed to other threads (the common
    /// `ForkJoinPool`, threads started since the scenario opened) to be idle, and out the tick
    /// of its timer threads (up to 1.5 s). Whether it settled within those bounds.
    pub fn settle(&mut self) -> Result<bool, JvmError> {
        let Some(host) = &self.host else {
            return Err(JvmError::Jni("scenario already closed".into()));
        };
        self.runtime
            .with_env(|env, glue| glue.settle(env, host.as_obj()))
    }

    /// Runs a full collection and waits for the cleanup it starts (cleared references handed
    /// to their queues, cleaner threads idle).
    pub fn collect_garbage(&mut self) -> Result<(), JvmError> {
        let Some(host) = &self.host else {
            return Err(JvmError::Jni("scenario already closed".into()));
        };
        self.runtime
            .with_env(|env, glue| glue.collect_garbage(env, host.as_obj()))
    }
}

/// Waits for the background work of code run on this JVM since it was made (see
/// [`Jvm::settler`]); for front ends whose scenario is not a glue `ScenarioHost`.
pub struct Settler {
    settler: GlobalRef,
    runtime: Arc<Runtime>,
}

impl Settler {
    /// Waits, up to two seconds, for the common `ForkJoinPool` and the threads started since
    /// this settler was made to be idle, and out the tick of their timer threads (up to 1.5 s).
    /// Whether it settled within those bounds.
    pub fn settle(&self) -> Result<bool, JvmError> {
        self.runtime
            .with_env(|env, glue| glue.settle(env, self.settler.as_obj()))
    }

    /// Runs a full collection and waits for the cleanup it starts.
    pub fn collect_garbage(&self) -> Result<(), JvmError> {
        self.runtime
            .with_env(|env, glue| glue.collect_garbage(env, self.settler.as_obj()))
    }
}

impl Drop for Scenario {
    fn drop(&mut self) {
        let Some(host) = self.host.take() else { return };
        // Never panic in drop; a failure to close leaves a daemon thread idle, nothing worse.
        let _ = catch_unwind(AssertUnwindSafe(|| {
            let _ = self.runtime.with_env(|env, glue| {
                let closed = glue.close(env, &host);
                // Deleted while this thread is attached, instead of GlobalRef's drop attaching
                // again.
                drop(host);
                closed
            });
        }));
    }
}

/// `-Djava.class.path` and friends would replace the glue jar and break heapgrowth; scenario
/// classes belong in [`JvmOptions::classpath`].
fn reject_class_path_options(jvm_args: &[String]) -> Result<(), JvmError> {
    for arg in jvm_args {
        if arg.starts_with("-Djava.class.path=")
            || arg == "-cp"
            || arg == "-classpath"
            || arg.starts_with("--class-path")
        {
            return Err(JvmError::StartFailed {
                reason: format!("JVM option {arg} is not allowed: pass scenario classes with --classpath instead"),
            });
        }
    }
    Ok(())
}

/// `entry`, which must exist, as an absolute path in UTF-8: the JVM then resolves it the same
/// way whatever the current directory is later.
fn absolute_classpath_entry(entry: &Path) -> Result<String, JvmError> {
    if !entry.exists() {
        return Err(JvmError::ClasspathEntryMissing {
            path: entry.to_path_buf(),
        });
    }
    let absolute = std::path::absolute(entry).map_err(|_| JvmError::InvalidPath {
        path: entry.to_path_buf(),
        reason: "cannot be made absolute",
    })?;
    Ok(utf8(&absolute)?.to_owned())
}

/// The glue jar, then `extra` ([`JvmOptions::system_classpath`]) made absolute, joined with `:`.
fn system_classpath(glue_jar: &Path, extra: &[PathBuf]) -> Result<String, JvmError> {
    let mut joined = utf8(glue_jar)?.to_owned();
    for entry in extra {
        let text = absolute_classpath_entry(entry)?;
        if text.contains(':') {
            return Err(JvmError::InvalidPath {
                path: entry.clone(),
                reason: "contains ':', the class path separator",
            });
        }
        joined.push(':');
        joined.push_str(&text);
    }
    Ok(joined)
}

fn utf8(path: &Path) -> Result<&str, JvmError> {
    path.to_str().ok_or_else(|| JvmError::InvalidPath {
        path: path.to_path_buf(),
        reason: "not valid UTF-8",
    })
}

/// Loads `libjvm` and calls its `JNI_CreateJavaVM` with `options` and our `exit` and `abort`
/// hooks (see [`exit`]), which jni-rs's `InitArgsBuilder` cannot pass (they need the option's
/// `extraInfo`). The library stays loaded for the life of the process, as the JVM does.
fn create_java_vm(libjvm: &Path, options: &[String]) -> Result<JavaVM, JvmError> {
    use jni::sys::{JavaVMInitArgs, JavaVMOption, JNI_FALSE, JNI_OK, JNI_VERSION_1_8};
    let invalid = |reason: String| JvmError::StartFailed { reason };
    let strings = options
        .iter()
        .map(|option| {
            std::ffi::CString::new(option.as_str())
                .map(|text| (text, std::ptr::null_mut()))
                .map_err(|_| {
                    invalid(format!(
                        "invalid JVM option {option:?}: it contains a NUL byte"
                    ))
                })
        })
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .chain(exit::hook_options())
        .collect::<Vec<_>>();
    let mut raw_options: Vec<JavaVMOption> = strings
        .iter()
        .map(|(text, extra)| JavaVMOption {
            optionString: text.as_ptr().cast_mut(),
            extraInfo: *extra,
        })
        .collect();
    let mut init_args = JavaVMInitArgs {
        version: JNI_VERSION_1_8,
        nOptions: raw_options.len() as i32,
        options: raw_options.as_mut_ptr(),
        // An option the JVM does not know is an error, not silently dropped.
        ignoreUnrecognized: JNI_FALSE,
    };
    // Safety: loading libjvm runs its initialisers, which is what starting a JVM means.
    let library = unsafe { libloading::Library::new(libjvm) }
        .map_err(|e| invalid(format!("cannot load {}: {e}", libjvm.display())))?;
    type CreateJavaVm = unsafe extern "system" fn(
        *mut *mut jni::sys::JavaVM,
        *mut *mut std::ffi::c_void,
        *mut std::ffi::c_void,
    ) -> jni::sys::jint;
    // Safety: JNI_CreateJavaVM has this signature in every JDK (jni.h).
    let create = unsafe { library.get::<CreateJavaVm>(b"JNI_CreateJavaVM\0") }
        .map_err(|e| invalid(format!("{} has no JNI_CreateJavaVM: {e}", libjvm.display())))?;
    // Rust's runtime handles SIGSEGV and SIGBUS to report stack overflows; the JVM would chain
    // to that handler for every fault it does not handle itself, and Rust's handler then lets
    // the fault kill the process: no hs_err report, no abort hook, dumps left behind. The JVM's
    // own handlers (installed now) report a stack overflow too.
    // Safety: resetting two handlers to their default before the JVM installs its own.
    unsafe {
        libc::signal(libc::SIGSEGV, libc::SIG_DFL);
        libc::signal(libc::SIGBUS, libc::SIG_DFL);
    }
    let mut vm: *mut jni::sys::JavaVM = std::ptr::null_mut();
    let mut env: *mut std::ffi::c_void = std::ptr::null_mut();
    // Safety: the arguments point at `raw_options` and `strings`, alive until this returns
    // (the JVM copies what it keeps); `vm` and `env` are out-parameters.
    let code = unsafe {
        create(
            &mut vm,
            &mut env,
            (&mut init_args as *mut JavaVMInitArgs).cast(),
        )
    };
    if code != JNI_OK {
        return Err(start_error(code));
    }
    // The JVM runs code of libjvm from now until the process ends.
    std::mem::forget(library);
    // Safety: `vm` is the JavaVM that JNI_CreateJavaVM just created.
    unsafe { JavaVM::from_raw(vm) }.map_err(|e| invalid(format!("the JVM handle is unusable: {e}")))
}

/// Explains `JNI_CreateJavaVM`'s failure code. The JVM prints its own reason on stderr first.
fn start_error(code: jni::sys::jint) -> JvmError {
    use jni::sys::{JNI_EEXIST, JNI_EINVAL, JNI_ENOMEM, JNI_ERR, JNI_EVERSION};
    let reason = match code {
        JNI_EEXIST => return JvmError::AlreadyStarted,
        JNI_ERR => "JNI_CreateJavaVM returned JNI_ERR: the JVM rejected an option or could not \
                    initialise (see its message above)"
            .into(),
        JNI_EINVAL => "JNI_CreateJavaVM returned JNI_EINVAL: an option is invalid (check the \
                       --jvm-arg values; the JVM's message is above)"
            .into(),
        JNI_ENOMEM => {
            "JNI_CreateJavaVM returned JNI_ENOMEM: not enough memory (check -Xmx and -Xms)".into()
        }
        JNI_EVERSION => "JNI_CreateJavaVM returned JNI_EVERSION: this JVM lacks JNI 1.8".into(),
        other => format!("JNI_CreateJavaVM failed with code {other}"),
    };
    JvmError::StartFailed { reason }
}

#[cfg(test)]
mod tests {
    use super::with_private_jfr_repository;
    use std::path::Path;

    fn args_with_repository(user: &[&str], repository: &str) -> Vec<String> {
        let mut args: Vec<String> = ["-Xrs"].iter().chain(user).map(|a| a.to_string()).collect();
        with_private_jfr_repository(&mut args, Path::new(repository));
        args
    }

    #[test]
    fn the_jfr_repository_joins_the_users_flight_recorder_options() {
        assert_eq!(
            args_with_repository(&["-Xmx1g"], "/tmp/hg/jfr"),
            [
                "-Xrs",
                "-Xmx1g",
                "-XX:FlightRecorderOptions:repository=/tmp/hg/jfr"
            ]
        );
        // HotSpot keeps only the last option given: the repository goes into the user's.
        assert_eq!(
            args_with_repository(
                &["-XX:FlightRecorderOptions:old-object-queue-size=4096"],
                "/r"
            ),
            [
                "-Xrs",
                "-XX:FlightRecorderOptions:old-object-queue-size=4096,repository=/r"
            ]
        );
        assert_eq!(
            args_with_repository(
                &[
                    "-XX:FlightRecorderOptions=stackdepth=96",
                    "-XX:FlightRecorderOptions=stackdepth=128"
                ],
                "/r"
            ),
            [
                "-Xrs",
                "-XX:FlightRecorderOptions=stackdepth=96",
                "-XX:FlightRecorderOptions=stackdepth=128,repository=/r"
            ]
        );
        assert_eq!(
            args_with_repository(&["-XX:FlightRecorderOptions:"], "/r"),
            ["-Xrs", "-XX:FlightRecorderOptions:repository=/r"]
        );
        // The user's own repository, or a path the option cannot hold: left alone.
        let own = ["-XX:FlightRecorderOptions:repository=/mine,stackdepth=96"];
        assert_eq!(args_with_repository(&own, "/r")[1..], own);
        assert_eq!(
            args_with_repository(&["-Xmx1g"], "/tmp/a,b/jfr"),
            ["-Xrs", "-Xmx1g"]
        );
        // Another flag that only starts alike is not the option.
        assert_eq!(
            args_with_repository(&["-XX:FlightRecorderOptionsX=1"], "/r"),
            [
                "-Xrs",
                "-XX:FlightRecorderOptionsX=1",
                "-XX:FlightRecorderOptions:repository=/r"
            ]
        );
    }
}
