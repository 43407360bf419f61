//! The JNI entry points of the `libheapgrowth.so` cdylib, called by the JUnit extension
//! (`jvm-glue/src/junit/java/dev/heapgrowth/junit/NativeEngine.java`).
//!
//! Here the JVM already runs (the test JVM of Gradle, Surefire or any JUnit Platform launcher)
//! and loaded this library with `System.load`; heapgrowth does not start a JVM. The entry
//! points stay thin: `JavaTestMethod` is an [`engine::Driver`] whose loops call back into the
//! extension (which invokes the test method) and whose heap dumps the extension writes; the
//! search and the reports are the engine's and the report layer's, and the baseline gate is
//! [`crate::report::gate`], which the cargo harness shares.
//!
//! This is the cdylib's counterpart of [`crate::jvm`] (which starts a JVM of its own): its JNI
//! calls into Java go through `JavaTestMethod::call`, the one place that checks for and clears
//! a pending Java exception.
//!
//! No panic may cross into the JVM: every entry point runs its body under `guarded`, which
//! turns a panic or an error into a pending Java exception.
//!
//! The test JVM can end under a search (a cancelled CI build sends SIGTERM or SIGHUP): it runs
//! its shutdown hooks and exits, and no Rust destructor deletes the heap dumps. The extension's
//! shutdown hook calls `NativeEngine.closing()`, which stops new dumps, waits for the one being
//! written and deletes every private directory of this process (see `DumpGate`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use jni::objects::{JClass, JIntArray, JObject, JObjectArray, JString, JValue};
use jni::sys::{jint, jobjectArray, jstring};
use jni::JNIEnv;

use crate::attribution::Attribution;
use crate::engine::{self, Driver, Progress, SearchSettings};
use crate::growth::{GrowingNode, IgnoreRule, RuleOrigin};
use crate::jvm::{JavaAccess, JavaException, JvmError, LiveAgent, LiveScenario, PathStart};
use crate::line::escape_line;
use crate::report::gate::{judge, Baseline, GateStatus, Judgement};
use crate::report::{render_html, render_scenario, to_json, ScenarioReport, StackDepth};
use crate::tempdir::{self, PrivateTempDir};

mod baseline_file;
mod outcome;

/// Local references one callback creates at most; the frame frees them when it returns.
const LOCAL_FRAME_CAPACITY: i32 = 16;

/// The Java exception thrown for an error of heapgrowth itself (not of the test).
const ERROR_CLASS: &str = "java/lang/IllegalStateException";

/// The contract between this library and the extension's `NativeEngine` class: bump it whenever
/// a native method's signature changes, so that a jar and a library that don't match fail with
/// a message instead of crashing the JVM.
const JUNIT_API_VERSION: jint = 7;

/// `NativeEngine.apiVersion()`: `JUNIT_API_VERSION`, checked right after `System.load`.
#[no_mangle]
pub extern "system" fn Java_dev_heapgrowth_junit_NativeEngine_apiVersion<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
) -> jint {
    guarded(&mut env, |_| Ok(JUNIT_API_VERSION)).unwrap_or(-1)
}

/// `NativeEngine.closing()`, from the extension's JVM shutdown hook: no heap dump starts after
/// it, the one being written is waited for (up to `SHUTDOWN_DUMP_WAIT`) and every private
/// directory of this process is deleted, with the dumps in it.
#[no_mangle]
pub extern "system" fn Java_dev_heapgrowth_junit_NativeEngine_closing<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
) {
    guarded(&mut env, |_| {
        match DUMPS.close(SHUTDOWN_DUMP_WAIT, tempdir::delete_all_now) {
            DumpsAtClose::None => {}
            DumpsAtClose::Finished => eprintln!(
                "heapgrowth: the JVM is shutting down: waited for the heap dump in progress and \
                 deleted it"
            ),
            DumpsAtClose::StillRunning => eprintln!(
                "heapgrowth: the JVM is shutting down: a heap dump still running after {} s was \
                 deleted while being written",
                SHUTDOWN_DUMP_WAIT.as_secs()
            ),
        }
        Ok(())
    });
}

/// `NativeEngine.search(callback, name, settings, ignoreRules, ignoreFile, baseline, agentPath,
/// keepDumpsDir)`: runs the growth search on the test method behind `callback` and returns
/// `[status, message, fullText, json, normalized, stale, html, counts]` (see `GateResult`).
/// `settings` holds warm-up, loops per snapshot, detection snapshots, confirmation loops and the
/// time budget in seconds, a negative one meaning "the default of `heapgrowth run`", then 1 for
/// JFR old-object samples instead of heap dumps (absent from older extensions: 0);
/// `ignoreRules` the test's ignore rules (`PATTERN [REASON]`), `ignoreFile` a file of more (or
/// null); `baseline` is the test's accepted blocks (or null); `agentPath` the `-agentpath:`
/// library (or null); `keepDumpsDir` where the last two dumps of a failing test go (or null:
/// none are kept).
#[no_mangle]
pub extern "system" fn Java_dev_heapgrowth_junit_NativeEngine_search<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    callback: JObject<'local>,
    name: JString<'local>,
    settings: JIntArray<'local>,
    ignore_rules: JObjectArray<'local>,
    ignore_file: JString<'local>,
    baseline: JString<'local>,
    agent_path: JString<'local>,
    keep_dumps_dir: JString<'local>,
) -> jobjectArray {
    guarded(&mut env, |env| {
        let name = read_string(env, &name)?.unwrap_or_default();
        let mut numbers = [-1; 6];
        if !settings.is_null() {
            let length = env.get_array_length(&settings).map_err(|e| e.to_string())?;
            let length = (length.max(0) as usize).min(numbers.len());
            env.get_int_array_region(&settings, 0, &mut numbers[..length])
                .map_err(|e| e.to_string())?;
        }
        let rules = if ignore_rules.is_null() {
            Vec::new()
        } else {
            java_strings(env, &ignore_rules).map_err(|e| e.to_string())?
        };
        let ignore_file = read_string(env, &ignore_file)?;
        let baseline = read_string(env, &baseline)?;
        let vm = env.get_java_vm().map_err(|e| e.to_string())?;
        // Without the agent, attribution has only recording proxies; an agent that was asked
        // for but cannot be used is an error the report says rather than a silent fallback.
        let agent = match read_string(env, &agent_path)? {
            None => Ok(None),
            Some(path) => crate::jvm::loaded_agent(Path::new(&path), &vm).map(Some),
        };
        let access = java_access(env);
        let (agent, live, no_attribution) = match (&agent, access) {
            (Ok(agent), Ok(access)) => (
                agent.as_ref().map(|(jvmti, capabilities)| LiveAgent {
                    jvmti,
                    capabilities: *capabilities,
                }),
                Some(access),
                None,
            ),
            (Err(reason), _) => (None, None, Some(reason.clone())),
            (_, Err(reason)) => (None, None, Some(reason)),
        };
        let keep_dumps_dir = read_string(env, &keep_dumps_dir)?.map(PathBuf::from);
        let settings = SearchSettings {
            keep_dumps: if keep_dumps_dir.is_some() {
                engine::DumpPolicy::Failed
            } else {
                engine::DumpPolicy::Never
            },
            ..search_settings(numbers, &rules, ignore_file.as_deref())?
        };
        let dumps = DUMPS.dump_directory()?;
        let mut driver = JavaTestMethod {
            env: &mut *env,
            callback: &callback,
            loops_run: 0,
            agent,
            live,
            no_attribution,
        };
        let mut report = engine::search(
            &mut driver,
            &name,
            &settings,
            dumps.path(),
            &Progress::new(false),
        );
        let judgement = judge(
            &report,
            &Baseline::parse(baseline.as_deref().unwrap_or_default()),
        );
        // Kept only for a test that fails (an error, or growth the baseline lacks).
        let failed = report.result.is_err() || !judgement.passes();
        engine::settle_kept_dumps(&mut report, keep_dumps_dir.as_deref().filter(|_| failed));
        drop(dumps);
        // Only the annotation's rules: an ignore file's are shared by every test, so a rule
        // that fits one test matches nothing in the others.
        let from_annotation = RuleOrigin::User(ANNOTATION_RULES.into());
        for rule in crate::report::unmatched_rules(std::slice::from_ref(&report)) {
            if rule.origin == from_annotation {
                let warning = crate::report::unmatched_rule_warning(rule);
                eprintln!("heapgrowth: {name}: warning: {warning}");
            }
        }
        let result = gate(&report, &judgement);
        string_array(env, &result.into_fields())
    })
    .unwrap_or(std::ptr::null_mut())
}

/// `NativeEngine.writeReport(path, text)`: writes one of the extension's report files as every
/// front end writes its reports (`crate::output`): the path checked (not a directory or a
/// special file, not through another user's symbolic link, in a directory that takes a new
/// file), then a new temporary file renamed over it. An error is thrown as the
/// `IllegalStateException` every native method throws, with one line that names the file.
#[no_mangle]
pub extern "system" fn Java_dev_heapgrowth_junit_NativeEngine_writeReport<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    path: JString<'local>,
    text: JString<'local>,
) {
    guarded(&mut env, |env| {
        let path = read_string(env, &path)?.ok_or("writeReport: no path")?;
        let text = read_string(env, &text)?.unwrap_or_default();
        let path = PathBuf::from(path);
        let checked = crate::output::check_outputs(&[("report file", &path)], &[])
            .map_err(|e| e.to_string())?;
        crate::output::write_file(&checked[0].target, text.as_bytes()).map_err(|e| {
            format!(
                "cannot write the report file {}: {e}",
                crate::line::escape_line(&path.display().to_string())
            )
        })
    });
}

/// `NativeEngine.agentStatus(agentPath)`: one line saying which JVMTI capabilities heapgrowth's
/// agent has in this JVM, or why there is none. `agentPath` is the library named by the JVM's
/// `-agentpath:` option, or null.
#[no_mangle]
pub extern "system" fn Java_dev_heapgrowth_junit_NativeEngine_agentStatus<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    agent_path: JString<'local>,
) -> jstring {
    guarded(&mut env, |env| {
        let status = match read_string(env, &agent_path)? {
            None => NO_AGENT.to_owned(),            Some(path) => {
                let vm = env.get_java_vm().map_err(|e| e.to_string())?;
                match crate::jvm::loaded_agent(Path::new(&path), &vm) {
                    Ok((_, caps)) => format!(
                        "heapgrowth's JVMTI agent loaded at JVM start: tag objects {}, field-modification events {}, \
                         line numbers {}",
                        yes(caps.tag_objects),
                        yes(caps.field_modification_events),
                        yes(caps.line_numbers)
                    ),
                    Err(reason) => reason,
                }
            }
        };
        env.new_string(status)
            .map(JString::into_raw)
            .map_err(|e| e.to_string())
    })
    .unwrap_or(std::ptr::null_mut())
}

/// heapgrowth's shared classes in the test JVM, from the extension's jar (JNI's `FindClass` in
/// a native method of `NativeEngine` uses its class loader).
fn java_access(env: &mut JNIEnv) -> Result<Arc<JavaAccess>, String> {
    JavaAccess::new(env).map(Arc::new).map_err(|e| {
        format!(
            "{e} (this heapgrowth-junit jar was not built by scripts/package-java.sh?); \
             attribution needs it"
        )
    })
}

const NO_AGENT: &str = "heapgrowth's JVMTI agent is not loaded (no -agentpath: option): \
    attribution can only put recording proxies in fields, which the test code can see, and \
    cannot watch fields or sample allocations; the Gradle plugin and the Maven plugin's \
    prepare-agent goal add the agent";

fn yes(value: bool) -> &'static str {
    if value {
        "yes"
    } else {
        "no"
    }
}

/// Runs `body`; an error or a panic becomes a pending Java exception (and `None`).
fn guarded<'local, T>(
    env: &mut JNIEnv<'local>,
    body: impl FnOnce(&mut JNIEnv<'local>) -> Result<T, String>,
) -> Option<T> {
    let outcome = catch_unwind(AssertUnwindSafe(|| body(env)));
    let message = match outcome {
        Ok(Ok(value)) => return Some(value),
        Ok(Err(message)) => message,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            format!("heapgrowth panicked (a bug): {what}")
        }
    };
    // An exception the body left pending takes precedence (throwing over it is illegal).
    if !env.exception_check().unwrap_or(false) {
        let _ = env.throw_new(ERROR_CLASS, message);
    }
    None
}

/// The settings of one test: `[warmup, loopsPerSnapshot, maxSnapshots, confirmLoops,
/// timeBudgetSeconds, jfr]` (negative: the default), the built-in ignore rules, then those of
/// `ignore_file`, then the test's own `rules`.
fn search_settings(
    [warmup, loops_per_snapshot, max_snapshots, confirm_loops, time_budget, jfr]: [jint; 6],
    rules: &[String],
    ignore_file: Option<&str>,
) -> Result<SearchSettings, String> {
    let mut settings = SearchSettings::default();
    let set = |value: jint, field: &mut u32| {
        if value >= 0 {
            *field = value as u32;
        }
    };
    set(warmup, &mut settings.warmup);
    set(loops_per_snapshot, &mut settings.search.loops_per_snapshot);
    set(max_snapshots, &mut settings.search.max_snapshots);
    set(confirm_loops, &mut settings.search.confirm_loops);
    if time_budget >= 0 {
        settings.time_budget = std::time::Duration::from_secs(time_budget as u64);
    }
    settings.jfr = jfr == 1;
    // The project's file, found in the test JVM's working directory (the project directory
    // under Gradle and Maven), then the one the build names.
    let files: Vec<PathBuf> = ignore_file.map(PathBuf::from).into_iter().collect();
    settings
        .ignore_rules
        .extend(crate::settings::ignore_file_rules(Path::new("."), &files)?);
    for rule in rules {
        let origin = RuleOrigin::User(ANNOTATION_RULES.into());
        settings.ignore_rules.push(
            IgnoreRule::parse(rule, origin)
                .map_err(|e| format!("@HeapGrowthTest(ignore = {rule:?}): {e}"))?,
        );
    }
    settings.validate().map_err(|e| e.to_string())?;
    Ok(settings)
}

/// Where the rules of a test's `@HeapGrowthTest(ignore = ...)` come from, as reports say.
const ANNOTATION_RULES: &str = "@HeapGrowthTest(ignore)";

/// The JUnit test method, looped through the extension's `LoopCallback`:
/// `int runLoops(int count)` (the total so far, or minus the number of the loop that threw),
/// `String[] failure()` (class, message, stack lines of what it threw) and
/// `void dumpHeap(String path)`.
struct JavaTestMethod<'a, 'local> {
    env: &'a mut JNIEnv<'local>,
    callback: &'a JObject<'local>,
    loops_run: u32,
    /// heapgrowth's agent, when attribution can run.
    agent: Option<LiveAgent<'a>>,
    /// The attribution class, when attribution can run.
    live: Option<Arc<JavaAccess>>,
    /// Why attribution cannot run in this JVM (no agent), if so.
    no_attribution: Option<String>,
}

/// The test method as attribution sees it: its paths start at the test class's loader (static
/// fields), the test thread and the test instance (`LoopCallback.pathStart()`).
impl LiveScenario for JavaTestMethod<'_, '_> {
    fn path_start(&mut self) -> Result<PathStart, JvmError> {
        let Some(java) = self.live.clone() else {
            return Err(JvmError::Jni("attribution is not available".into()));
        };
        let callback = self.callback;
        let [loader, thread, instance, scenario_class] = self.env.with_local_frame(
            LOCAL_FRAME_CAPACITY,
            |env| -> Result<[Option<jni::objects::GlobalRef>; 4], JvmError> {
                let result = env.call_method(callback, "pathStart", "()[Ljava/lang/Object;", &[]);
                if env.exception_check().unwrap_or(false) {
                    let _ = env.exception_clear();
                    return Err(JvmError::Jni("LoopCallback.pathStart() threw".into()));
                }
                let array = JObjectArray::from(result?.l()?);
                let mut refs = [None, None, None, None];
                for (i, slot) in refs.iter_mut().enumerate() {
                    let element = env.get_object_array_element(&array, i as i32)?;
                    if !element.is_null() {
                        *slot = Some(env.new_global_ref(element)?);
                    }
                }
                Ok(refs)
            },
        )?;
        let (Some(loader), Some(thread)) = (loader, thread) else {
            return Err(JvmError::Jni(
                "the test class has no class loader to follow static fields from".into(),
            ));
        };
        Ok(PathStart {
            java,
            loader,
            thread,
            instance,
            scenario_class,
        })
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

impl JavaTestMethod<'_, '_> {
    /// Calls `method` on the callback in a local frame; a Java exception it throws is taken out
    /// of the thread and returned as its `toString()`.
    fn call(
        &mut self,
        method: &str,
        signature: &str,
        args: &[JValue],
    ) -> Result<CallResult, JvmError> {
        let callback = self.callback;
        self.env.with_local_frame(
            LOCAL_FRAME_CAPACITY,
            |env| -> Result<CallResult, JvmError> {
                let result = env.call_method(callback, method, signature, args);
                if env.exception_check().unwrap_or(false) {
                    let thrown = env.exception_occurred();
                    let _ = env.exception_clear();
                    let text = thrown
                        .ok()
                        .and_then(|thrown| {
                            let text = env
                                .call_method(&thrown, "toString", "()Ljava/lang/String;", &[])
                                .ok()?;
                            read_string(env, &JString::from(text.l().ok()?))
                                .ok()
                                .flatten()
                        })
                        .unwrap_or_else(|| "a Java exception".into());
                    return Ok(CallResult::Threw(text));
                }
                Ok(match result? {
                    jni::objects::JValueGen::Object(object) if !object.is_null() => {
                        CallResult::Strings(
                            java_strings(env, &JObjectArray::from(object))
                                .map_err(|e| JvmError::Jni(e.to_string()))?,
                        )
                    }
                    jni::objects::JValueGen::Int(value) => CallResult::Int(value),
                    jni::objects::JValueGen::Bool(value) => CallResult::Int(i32::from(value)),
                    _ => CallResult::Int(0),
                })
            },
        )
    }
}

enum CallResult {
    Int(i32),
    Strings(Vec<String>),
    Threw(String),
}

impl Driver for JavaTestMethod<'_, '_> {
    fn run_loops(&mut self, count: u32) -> Result<(), JvmError> {
        let count = i32::try_from(count)
            .map_err(|_| JvmError::Jni(format!("loop count {count} too large")))?;
        match self.call("runLoops", "(I)I", &[JValue::Int(count)])? {
            CallResult::Int(total) if total >= 0 => {
                self.loops_run = total as u32;
                Ok(())
            }
            CallResult::Int(failed_loop) => {
                self.loops_run = failed_loop.unsigned_abs();
                let exception = match self.call("failure", "()[Ljava/lang/String;", &[])? {
                    CallResult::Strings(lines) => {
                        let mut lines = lines.into_iter();
                        let class = lines.next().unwrap_or_default();
                        let message = lines.next().filter(|m| !m.is_empty());
                        JavaException {
                            class,
                            message,
                            stack: lines.collect(),
                        }
                    }
                    _ => JavaException {
                        class: "java.lang.Throwable".into(),
                        message: None,
                        stack: Vec::new(),
                    },
                };
                Err(JvmError::ScenarioThrew {
                    class: "the test method".into(),
                    loop_number: self.loops_run,
                    exception,
                })
            }
            CallResult::Threw(text) => Err(JvmError::Jni(format!(
                "the extension's loop callback threw {text}"
            ))),
            CallResult::Strings(_) => Err(JvmError::Jni("runLoops returned no int".into())),
        }
    }
    fn loops_run(&self) -> u32 {
        self.loops_run
    }

    fn settle(&mut self) -> Result<bool, JvmError> {
        // `boolean settle()`: whether it settled in time; a dump is taken either way.
        match self.call("settle", "()Z", &[])? {
            CallResult::Threw(text) => Err(JvmError::Jni(format!(
                "the extension's settle callback threw {text}"
            ))),
            CallResult::Int(settled) => Ok(settled != 0),
            CallResult::Strings(_) => Err(JvmError::Jni("settle returned no boolean".into())),
        }
    }

    fn collect_garbage(&mut self) -> Result<(), JvmError> {
        match self.call("collectGarbage", "()V", &[])? {
            CallResult::Threw(text) => Err(JvmError::Jni(format!(
                "the extension's collectGarbage callback threw {text}"
            ))),
            _ => Ok(()),
        }
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
        let path_text = path.to_str().ok_or(JvmError::InvalidPath {
            path: path.to_path_buf(),
            reason: "not valid UTF-8",
        })?;
        let path_string = self.env.new_string(path_text)?;
        let dump = DUMPS.begin_dump(path);
        let outcome = dump.and_then(|dump| {
            let outcome = self.call(
                "dumpHeap",
                "(Ljava/lang/String;)V",
                &[JValue::Object(&path_string)],
            );
            dump.finish()?;
            outcome
        });
        let _ = self.env.delete_local_ref(path_string);
        match outcome? {
            CallResult::Threw(reason) => Err(JvmError::HeapDumpFailed { reason }),
            _ if !path.is_file() => Err(JvmError::HeapDumpFailed {
                reason: format!(
                    "the JVM reported success but wrote no file at {}",
                    path.display()
                ),
            }),
            _ => Ok(()),
        }
    }
}

/// How long the shutdown hook waits for a heap dump being written. A CI runner that cancels a
/// build sends SIGKILL soon after SIGTERM (GitHub Actions 2.5 s after, `docker stop` 10 s), and
/// a hook still waiting then deletes nothing; two seconds covers the dump of a test JVM's heap
/// of several hundred megabytes. After them the directory is deleted anyway, which is still
/// safe: the file's name goes at once (the JVM writes the rest into an unlinked file that
/// vanishes with the process) and a dump that has not opened its file yet cannot create it in a
/// directory that is gone. Waiting only spares the JVM writing into a deleted file.
const SHUTDOWN_DUMP_WAIT: Duration = Duration::from_secs(2);

/// Why no heap dump is taken once the JVM is shutting down: the search fails with this.
const CLOSING_REASON: &str = "the test JVM is shutting down (SIGTERM, SIGHUP, Ctrl-C or \
    System.exit): heapgrowth takes no more heap dumps and has deleted the ones it took";

/// What the shutdown hook (`NativeEngine.closing()`) and the searches of this JVM agree on:
/// whether the JVM is closing and how many heap dumps are being written. One lock for both, so
/// a dump either starts before the hook closes the gate (and the hook waits for it) or sees the
/// gate closed and does not start.
///
/// The hook thread waits in native code, where it does not keep the JVM from reaching a
/// safepoint, so the dump (a VM operation) finishes while it waits; the lock is never held
/// while Java code runs, and the wait is bounded.
struct DumpGate {
    state: Mutex<GateState>,
    /// Signalled each time a dump ends.
    dump_ended: Condvar,
}

struct GateState {
    closing: bool,
    in_progress: u32,
}

/// The gate of this process: one JVM, one shutdown.
static DUMPS: DumpGate = DumpGate::new();

/// What the shutdown hook found when it closed the gate.
#[derive(Debug, PartialEq, Eq)]
enum DumpsAtClose {
    /// No dump was being written.
    None,
    /// The dumps being written finished within the wait (and were deleted).
    Finished,
    /// A dump was still being written when the wait ended; its directory was deleted anyway.
    StillRunning,
}

impl DumpGate {
    const fn new() -> DumpGate {
        DumpGate {
            state: Mutex::new(GateState {
                closing: false,
                in_progress: 0,
            }),
            dump_ended: Condvar::new(),
        }
    }

    /// Locks the gate, also after a panic elsewhere poisoned it: each critical section leaves
    /// the two fields consistent.
    fn lock(&self) -> MutexGuard<'_, GateState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new private directory for one search's heap dumps, unless the JVM is closing. Created
    /// under the gate's lock, so the hook's deletion, which runs under it too, cannot miss it.
    fn dump_directory(&self) -> Result<PrivateTempDir, String> {
        let gate = self.lock();
        if gate.closing {
            return Err(format!("heapgrowth cannot start: {CLOSING_REASON}"));
        }
        let dir = PrivateTempDir::new("dumps")
            .map_err(|e| format!("cannot create a private directory for heap dumps: {e}"))?;
        drop(gate);
        Ok(dir)
    }

    /// Counts a dump to `path` as being written, unless the JVM is closing.
    fn begin_dump(&self, path: &Path) -> Result<DumpInProgress<'_>, JvmError> {
        let mut gate = self.lock();
        if gate.closing {
            return Err(JvmError::HeapDumpFailed {
                reason: CLOSING_REASON.into(),
            });
        }
        gate.in_progress += 1;
        Ok(DumpInProgress {
            gate: self,
            path: path.to_path_buf(),
            counted: true,
        })
    }

    /// Closes the gate: no dump starts after this; waits up to `wait` for the dumps being
    /// written, then runs `delete_all` ([`tempdir::delete_all_now`] in the JVM) under the lock,
    /// so that a search which has not made its directory yet finds the gate closed.
    fn close(&self, wait: Duration, delete_all: impl FnOnce()) -> DumpsAtClose {
        let mut gate = self.lock();
        gate.closing = true;
        let found = if gate.in_progress == 0 {
            DumpsAtClose::None
        } else {
            let (waited, timeout) = self
                .dump_ended
                .wait_timeout_while(gate, wait, |gate| gate.in_progress > 0)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            gate = waited;
            if timeout.timed_out() {
                DumpsAtClose::StillRunning
            } else {
                DumpsAtClose::Finished
            }
        };
        delete_all();
        drop(gate);
        found
    }
}

/// A heap dump being written, counted in its [`DumpGate`] until [`finish`](Self::finish)ed or
/// dropped.
struct DumpInProgress<'g> {
    gate: &'g DumpGate,
    path: PathBuf,
    counted: bool,
}

impl DumpInProgress<'_> {
    /// The dump has returned. If the JVM started closing meanwhile, the file is deleted at once
    /// (it holds every secret in the heap and nothing will read it) and the search fails.
    fn finish(mut self) -> Result<(), JvmError> {
        if self.end() {
            return Err(JvmError::HeapDumpFailed {
                reason: CLOSING_REASON.into(),
            });
        }
        Ok(())
    }

    /// Uncounts the dump (once), deleting its file first if the JVM is closing; returns
    /// whether it is.
    fn end(&mut self) -> bool {
        let mut gate = self.gate.lock();
        if gate.closing {
            // Before uncounting: the hook deletes the directory only once no dump is counted.
            let _ = std::fs::remove_file(&self.path);
        }
        if self.counted {
            self.counted = false;
            gate.in_progress -= 1;
            self.gate.dump_ended.notify_all();
        }
        gate.closing
    }
}

impl Drop for DumpInProgress<'_> {
    /// A dump abandoned by an early return or a panic must not keep the hook waiting.
    fn drop(&mut self) {
        self.end();
    }
}

/// The run judged against the baseline (accepted growth paths in normalized form).
#[derive(Debug, PartialEq, Eq)]
struct GateResult {
    /// `clean` (nothing grows, or only accepted paths), `growing` (a path not in the baseline
    /// grows), `inconclusive` (nothing new grew, but the search could not judge: the time budget
    /// ended it too early) or `error`.
    status: &'static str,
    /// The test failure's message: the tree report of the new paths only (or the error).
    message: String,
    /// The tree report of every growing node, for `build/reports/heapgrowth/`.
    full_text: String,
    /// The JSON report.
    json: String,
    /// The normalized report of this run: what a baseline rewrite writes.
    normalized: String,
    /// Baseline blocks that no longer grow, separated by blank lines ("" if none).
    stale: String,
    /// The HTML report of the test (`<test>.html` in the report directory).
    html: String,
    /// `"NEW ACCEPTED STALE"`: growing nodes the baseline lacks, growing nodes it accepts, and
    /// its blocks that no longer grow, for the reports' and the index's baseline column.
    counts: String,
}

impl GateResult {
    fn into_fields(self) -> [String; 8] {
        [
            self.status.to_owned(),
            self.message,
            self.full_text,
            self.json,
            self.normalized,
            self.stale,
            self.html,
            self.counts,
        ]
    }
}

/// The results for the extension, from the report and its judgement against the baseline.
fn gate(report: &ScenarioReport, judgement: &Judgement) -> GateResult {
    let full_text = render_scenario(report, StackDepth::default());
    let json = to_json(std::slice::from_ref(report));
    let html = render_html(std::slice::from_ref(report));
    let normalized = crate::report::render_normalized(report);
    let status = GateStatus::of(report, judgement);
    if status == GateStatus::Error {
        return GateResult {
            status: status.label(),
            message: full_text.clone(),
            full_text,
            json,
            normalized,
            stale: String::new(),
            html,
            counts: "0 0 0".into(),
        };
    }
    // Nothing new grew, but the search could not judge: not clean. The extension reports the
    // test as skipped with this message, and rewrites no baseline from it.
    if let GateStatus::Inconclusive(why) = &status {
        return GateResult {
            status: status.label(),
            message: format!(
                "heapgrowth could not judge {}: {}",
                escape_line(&report.scenario),
                escape_line(why)
            ),
            full_text,
            json,
            normalized,
            stale: String::new(),
            html,
            counts: "0 0 0".into(),
        };
    }
    let mut message = render_scenario(&judgement.new_only(report), StackDepth::default());
    let accepted = judgement.accepted();
    if accepted > 0 {
        message.push_str(&format!(
            "\n{accepted} more growing node(s) are accepted by the baseline.\n"
        ));
    }
    GateResult {
        status: status.label(),
        message,
        full_text,
        json,
        normalized,
        stale: judgement.stale.join("\n"),
        html,
        counts: format!(
            "{} {accepted} {}",
            judgement.new.iter().filter(|&&new| new).count(),
            judgement.stale.len()
        ),
    }
}

fn read_string(env: &mut JNIEnv, value: &JString) -> Result<Option<String>, String> {
    if value.is_null() {
        return Ok(None);
    }
    env.get_string(value)
        .map(|s| Some(s.into()))
        .map_err(|e| e.to_string())
}

fn java_strings(env: &mut JNIEnv, array: &JObjectArray) -> jni::errors::Result<Vec<String>> {
    let length = env.get_array_length(array)?;
    let mut out = Vec::with_capacity(length as usize);
    for i in 0..length {
        let element = JString::from(env.get_object_array_element(array, i)?);
        out.push(if element.is_null() {
            String::new()
        } else {
            env.get_string(&element)?.into()
        });
        env.delete_local_ref(element)?;
    }
    Ok(out)
}

fn string_array(env: &mut JNIEnv, values: &[String]) -> Result<jobjectArray, String> {
    let build = |env: &mut JNIEnv| -> jni::errors::Result<jobjectArray> {
        let array =
            env.new_object_array(values.len() as i32, "java/lang/String", JObject::null())?;
        for (i, value) in values.iter().enumerate() {
            let string = env.new_string(value)?;
            env.set_object_array_element(&array, i as i32, &string)?;
            env.delete_local_ref(string)?;
        }
        Ok(array.into_raw())
    };
    build(env).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::normalized_node;

    // Issue 11: SIGTERM or SIGHUP while a dump is written must not leave the dump.
    #[test]
    fn closing_waits_for_the_dump_being_written_deletes_it_and_lets_no_dump_start() {
        let gate = DumpGate::new();
        let dir = PrivateTempDir::new("test").unwrap();
        let file = dir.path().join("snapshot-1.hprof");
        let dump = gate.begin_dump(&file).unwrap();
        let (found, finished) = std::thread::scope(|scope| {
            // The JVM creates the file, and is still writing it when the hook closes the gate.
            std::fs::write(&file, b"every secret").unwrap();
            let writer = scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(200));
                std::fs::write(&file, b"every secret in the heap").unwrap();
                dump.finish()
            });
            std::thread::sleep(Duration::from_millis(20));
            let found = gate.close(Duration::from_secs(30), || {
                assert!(!file.exists(), "deleting before the dump returned");
            });
            (found, writer.join().unwrap())
        });
        assert_eq!(found, DumpsAtClose::Finished);
        let error = finished.unwrap_err().to_string();
        assert!(error.contains("the test JVM is shutting down"), "{error}");
        assert!(!file.exists(), "the dump finished after closing stayed");
        assert!(gate.begin_dump(&file).is_err());
        assert!(gate.dump_directory().unwrap_err().contains("shutting down"));
    }

    #[test]
    fn closing_stops_waiting_for_a_dump_that_does_not_return_and_deletes_anyway() {
        let gate = DumpGate::new();
        let dump = gate
            .begin_dump(Path::new("/nonexistent/snapshot-1.hprof"))
            .unwrap();
        let mut deleted = false;
        let found = gate.close(Duration::from_millis(50), || deleted = true);
        assert_eq!((found, deleted), (DumpsAtClose::StillRunning, true));
        drop(dump);
        assert_eq!(gate.lock().in_progress, 0);
        let mut deleted_again = false;
        assert_eq!(
            gate.close(Duration::from_secs(30), || deleted_again = true),
            DumpsAtClose::None
        );
        assert!(deleted_again);
    }

    #[test]
    fn negative_loop_settings_mean_the_defaults_and_bad_ones_are_refused() {
        assert_eq!(
            search_settings([-1; 6], &[], None).unwrap(),
            SearchSettings::default()
        );
        let custom = search_settings([0, 3, 4, 200, 10, 1], &[], None).unwrap();
        assert_eq!(
            (
                custom.warmup,
                custom.search.loops_per_snapshot,
                custom.search.max_snapshots,
                custom.search.confirm_loops,
                custom.time_budget.as_secs(),
                custom.jfr,
            ),
            (0, 3, 4, 200, 10, true)
        );
        assert!(search_settings([-1, 0, -1, -1, -1, -1], &[], None).is_err());
        assert!(search_settings([-1, -1, -1, -1, 0, -1], &[], None).is_err());
    }

    #[test]
    fn a_tests_ignore_rules_come_after_the_built_in_ones_and_bad_ones_are_refused() {
        let settings =
            search_settings([-1; 6], &["com.example.Cache.* warms up".into()], None).unwrap();
        let last = settings.ignore_rules.last().unwrap();
        assert_eq!(
            (last.pattern.as_str(), last.reason.as_str()),
            ("com.example.Cache.*", "warms up")
        );
        assert_eq!(
            settings.ignore_rules.len(),
            IgnoreRule::built_in().len() + 1
        );
        let error = search_settings([-1; 6], &["*".into()], None).unwrap_err();
        assert!(
            error.starts_with("@HeapGrowthTest(ignore = \"*\"): "),
            "{error}"
        );
        let missing = search_settings([-1; 6], &[], Some("/nonexistent/ignore.txt")).unwrap_err();
        assert!(missing.contains("/nonexistent/ignore.txt"), "{missing}");
    }

    // Issue 11: these errors said neither the file nor where it went wrong.
    #[test]
    fn an_ignore_file_that_is_a_directory_or_not_utf8_is_one_line_naming_it() {
        let dir = PrivateTempDir::new("test").unwrap();
        let path = dir.path().display().to_string();
        assert_eq!(
            search_settings([-1; 6], &[], Some(&path)).unwrap_err(),
            format!("ignore file {path} is a directory")
        );
        let latin1 = dir.path().join("ignore.txt");
        std::fs::write(&latin1, b"com.example.A.b caf\xe9\n").unwrap();
        let latin1 = latin1.display().to_string();
        assert_eq!(
            search_settings([-1; 6], &[], Some(&latin1)).unwrap_err(),
            format!("ignore file {latin1} is not UTF-8 at byte 19")
        );
    }

    fn growing(field: &str) -> GrowingNode {
        use crate::growth::{
            ChildGrowth, Confirmation, GrowthKind, PathStep, RetainedGrowth, StepKind,
        };
        let step = |kind, owner: &str, name: &str, target: &str| PathStep {
            kind,
            owner: owner.into(),
            name: name.into(),
            target: target.into(),
            objects: 1,
            source: String::new(),
        };
        GrowingNode {
            path: vec![
                step(StepKind::GcRoot, "", "Class", ""),
                step(
                    StepKind::StaticField,
                    "com.example.Cart",
                    field,
                    "java.util.ArrayList",
                ),
            ],
            kinds: vec![GrowthKind::Objects],
            history: Vec::new(),
            confirmed: Confirmation {
                from_loop: 17,
                to_loop: 1088,
                snapshots: 3,
                cut: None,
            },
            retained: RetainedGrowth::default(),
            children: vec![ChildGrowth {
                step: step(
                    StepKind::ArrayEntry,
                    "java.util.ArrayList",
                    "[x]",
                    "com.example.Item",
                ),
                objects: 6,
                new: 2,
                bytes: 96,
                new_bytes: 32,
                below: 6,
                new_below: 2,
            }],
        }
    }

    fn report_growing(fields: &[&str]) -> ScenarioReport {
        ScenarioReport {
            scenario: "com.example.CartTest.leaks".into(),
            result: Ok(crate::growth::SearchOutcome {
                loops: 23,
                snapshots: 7,
                growing: fields.iter().map(|field| growing(field)).collect(),
                ..Default::default()
            }),
            attributions: Vec::new(),
            timings: Default::default(),
            kept_dumps: Vec::new(),
            dumps_not_kept: None,
            subject: Default::default(),
            loop_unit: Default::default(),
            not_attributed: None,
            class_trends: Vec::new(),
            old_objects: None,
            cut_short: None,
            settling_cut_short: Vec::new(),
        }
    }

    /// The gate as `search` runs it: the report judged against `baseline`.
    fn gated(report: &ScenarioReport, baseline: &str) -> GateResult {
        gate(report, &judge(report, &Baseline::parse(baseline)))
    }

    #[test]
    fn the_gate_passes_accepted_paths_fails_new_ones_and_lists_stale_ones() {
        let report = report_growing(&["AUDIT", "HISTORY"]);
        let baseline = format!(
            "## com.example.CartTest.leaks\n{}\n{}",
            normalized_node(&growing("AUDIT"), None),
            normalized_node(&growing("REMOVED"), None)
        );
        let result = gated(&report, &baseline);
        assert_eq!(result.status, "growing");
        assert!(
            result.message.contains("Cart.HISTORY"),
            "{}",
            result.message
        );
        assert!(
            !result.message.contains("Cart.AUDIT"),
            "accepted path in the failure: {}",
            result.message
        );
        assert!(result
            .message
            .contains("1 more growing node(s) are accepted"));
        assert!(result.stale.contains("Cart.REMOVED") && !result.stale.contains("Cart.AUDIT"));
        // One new (HISTORY), one accepted (AUDIT), one stale (REMOVED).
        assert_eq!(result.counts, "1 1 1");
        assert!(
            result.full_text.contains("Cart.AUDIT") && result.full_text.contains("Cart.HISTORY")
        );
        // The page, like the full text, shows every growing node.
        assert!(result.html.contains("Cart.AUDIT") && result.html.contains("Cart.HISTORY"));

        let all_accepted = gated(&report_growing(&["AUDIT"]), &baseline);
        assert_eq!(all_accepted.status, "clean");
        assert_eq!(all_accepted.counts, "0 1 1");
        // The rewrite content is the normalized report, which the baseline reads back.
        let rewritten = Baseline::parse(&all_accepted.normalized);
        let judged = judge(&report_growing(&["AUDIT"]), &rewritten);
        assert!(judged.passes() && judged.stale.is_empty(), "{judged:?}");
    }

    #[test]
    fn a_search_the_time_budget_cut_before_it_could_judge_is_inconclusive_not_clean() {
        let mut report = report_growing(&[]);
        if let Ok(outcome) = &mut report.result {
            outcome.cut = Some(crate::growth::ConfirmationCut::TimeBudget);
        }
        let result = gated(&report, "");
        assert_eq!(result.status, "inconclusive");
        assert_eq!(
            result.message,
            "heapgrowth could not judge com.example.CartTest.leaks: the time budget ran out after \
             7 snapshot(s), before the search could judge"
        );
        assert!(result
            .full_text
            .contains("\nNot judged: the time budget ran out"));
        // A cut search that found growth fails as any other.
        let mut growing = report_growing(&["AUDIT"]);
        if let Ok(outcome) = &mut growing.result {
            outcome.cut = Some(crate::growth::ConfirmationCut::TimeBudget);
        }
        assert_eq!(gated(&growing, "").status, "growing");
    }

    #[test]
    fn an_error_report_fails_the_gate_with_its_message() {
        let report = ScenarioReport::failed("T.m", "heap dump failed: disk full".into());
        let result = gated(&report, "GcRoot(Class)\n");
        assert_eq!(result.status, "error");
        assert!(result.message.contains("disk full"));
    }
}
