//! The JUnit extension's side of a test run, seen from the engine: the `LoopCallback` object
//! whose methods run the test method as loops and dump the heap, and the `TestOutcome` object
//! the search returns. Every call into Java here goes through [`boundary::catch`], so that the
//! JUnit front end (`frontends/junit`) makes no raw JNI call.

use std::path::Path;
use std::sync::Arc;

use jni::objects::{GlobalRef, JObject, JObjectArray, JString, JValue, JValueGen};
use jni::JNIEnv;

use super::boundary::{self, CallError};
use super::{JavaAccess, JavaException, JvmError, PathStart};
use crate::jvmti::{AgentCapabilities, JvmtiEnv};

/// Local references one callback creates at most; the frame frees them when it returns.
const LOCAL_FRAME_CAPACITY: i32 = 16;

/// The Java class the search returns (`dev.heapgrowth.junit.TestOutcome`).
const TEST_OUTCOME_CLASS: &str = "dev/heapgrowth/junit/TestOutcome";

/// `TestOutcome(String status, String message, String summary, String[] notices)`.
const TEST_OUTCOME_CONSTRUCTOR: &str =
    "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;[Ljava/lang/String;)V";

/// What `LoopCallback.runLoops(count)` reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopsRun {
    /// Every loop returned: the loops run so far, in all.
    Total(u32),
    /// Loop number `.0` (counted from 1 over the whole run) threw; `failure()` says what.
    Threw(u32),
}

/// The extension's `LoopCallback` of one test method, in the thread that called the search.
pub struct TestCallback<'a, 'local> {
    env: &'a mut JNIEnv<'local>,
    callback: &'a JObject<'local>,
}

/// What one call into the callback gave.
enum Returned {
    Int(i32),
    Strings(Vec<String>),
    Nothing,
    /// The call threw: the throwable's `toString()`.
    Threw(String),
}

impl<'a, 'local> TestCallback<'a, 'local> {
    /// The callback object `callback` (a `dev.heapgrowth.junit.LoopCallback`), called through
    /// `env`.
    pub fn new(env: &'a mut JNIEnv<'local>, callback: &'a JObject<'local>) -> Self {
        TestCallback { env, callback }
    }

    /// `int runLoops(int count)`: runs `count` more loops of the test method.
    pub fn run_loops(&mut self, count: u32) -> Result<LoopsRun, JvmError> {
        let count = i32::try_from(count)
            .map_err(|_| JvmError::Jni(format!("loop count {count} too large")))?;
        match self.call("runLoops", "(I)I", &[JValue::Int(count)])? {
            Returned::Int(total) if total >= 0 => Ok(LoopsRun::Total(total as u32)),
            Returned::Int(failed_loop) => Ok(LoopsRun::Threw(failed_loop.unsigned_abs())),
            Returned::Threw(text) => Err(JvmError::Jni(format!(
                "the extension's loop callback threw {text}"
            ))),
            _ => Err(JvmError::Jni("runLoops returned no int".into())),
        }
    }

    /// `String[] failure()`: what the failed loop threw (class, message, stack lines); a bare
    /// `java.lang.Throwable` when the callback cannot say.
    pub fn failure(&mut self) -> JavaException {
        match self.call("failure", "()[Ljava/lang/String;", &[]) {
            Ok(Returned::Strings(lines)) => {
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
        }
    }

    /// `boolean settle()`: whether the work the loops handed to other threads ended in time.
    pub fn settle(&mut self) -> Result<bool, JvmError> {
        match self.call("settle", "()Z", &[])? {
            Returned::Threw(text) => Err(JvmError::Jni(format!(
                "the extension's settle callback threw {text}"
            ))),
            Returned::Int(settled) => Ok(settled != 0),
            _ => Err(JvmError::Jni("settle returned no boolean".into())),
        }
    }

    /// `void collectGarbage()`: a full collection, and the cleanup it starts.
    pub fn collect_garbage(&mut self) -> Result<(), JvmError> {
        match self.call("collectGarbage", "()V", &[])? {
            Returned::Threw(text) => Err(JvmError::Jni(format!(
                "the extension's collectGarbage callback threw {text}"
            ))),
            _ => Ok(()),
        }
    }

    /// `void dumpHeap(String path)`: a live heap dump to `path`; an exception it throws is the
    /// dump's failure.
    pub fn dump_heap(&mut self, path: &Path) -> Result<(), JvmError> {
        let path_text = path.to_str().ok_or(JvmError::InvalidPath {
            path: path.to_path_buf(),
            reason: "not valid UTF-8",
        })?;
        let callback = self.callback;
        let returned = self.env.with_local_frame(
            LOCAL_FRAME_CAPACITY,
            |env| -> Result<Returned, JvmError> {
                let path_string = env.new_string(path_text);
                let path_string = match boundary::catch(env, path_string) {
                    Ok(string) => string,
                    Err(error) => return Err(call_error(env, error)),
                };
                call_in_frame(
                    env,
                    callback,
                    "dumpHeap",
                    "(Ljava/lang/String;)V",
                    &[JValue::Object(&path_string)],
                )
            },
        )?;
        match returned {
            Returned::Threw(reason) => Err(JvmError::HeapDumpFailed { reason }),
            _ => Ok(()),
        }
    }

    /// `Object[] pathStart()`: where attribution starts following a path (the test class's
    /// loader, the loops' thread, the test instance, the test class), pinned.
    pub fn path_start(&mut self, java: &Arc<JavaAccess>) -> Result<PathStart, JvmError> {
        let callback = self.callback;
        let [loader, thread, instance, scenario_class] = self.env.with_local_frame(
            LOCAL_FRAME_CAPACITY,
            |env| -> Result<[Option<GlobalRef>; 4], JvmError> {
                let result = env.call_method(callback, "pathStart", "()[Ljava/lang/Object;", &[]);
                let array = match boundary::catch(env, result) {
                    Ok(value) => JObjectArray::from(value.l()?),
                    Err(CallError::Thrown(_)) => {
                        return Err(JvmError::Jni("LoopCallback.pathStart() threw".into()))
                    }
                    Err(CallError::Jni(e)) => return Err(e.into()),
                };
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
            java: Arc::clone(java),
            loader,
            thread,
            instance,
            scenario_class,
        })
    }

    /// Calls `method` on the callback in a local frame.
    fn call(
        &mut self,
        method: &str,
        signature: &str,
        args: &[JValue],
    ) -> Result<Returned, JvmError> {
        let callback = self.callback;
        self.env.with_local_frame(LOCAL_FRAME_CAPACITY, |env| {
            call_in_frame(env, callback, method, signature, args)
        })
    }
}

/// Calls `method` on `callback`; a Java exception it throws is taken out of the thread and
/// returned as its `toString()`.
fn call_in_frame<'local>(
    env: &mut JNIEnv<'local>,
    callback: &JObject,
    method: &str,
    signature: &str,
    args: &[JValue],
) -> Result<Returned, JvmError> {
    let result = env.call_method(callback, method, signature, args);
    let value = match boundary::catch(env, result) {
        Ok(value) => value,
        Err(CallError::Thrown(thrown)) => return Ok(Returned::Threw(to_string(env, &thrown))),
        Err(CallError::Jni(e)) => return Err(e.into()),
    };
    Ok(match value {
        JValueGen::Object(object) if !object.is_null() => Returned::Strings(
            boundary::strings_or_empty(env, &JObjectArray::from(object))
                .map_err(|e| JvmError::Jni(e.to_string()))?,
        ),
        JValueGen::Int(value) => Returned::Int(value),
        JValueGen::Bool(value) => Returned::Int(i32::from(value)),
        _ => Returned::Nothing,
    })
}

/// A JNI failure as an error; a Java exception (taken out of the thread) as its `toString()`.
fn call_error(env: &mut JNIEnv, error: CallError) -> JvmError {
    match error {
        CallError::Thrown(thrown) => JvmError::Jni(to_string(env, &thrown)),
        CallError::Jni(e) => e.into(),
    }
}

/// `thrown.toString()`, or "a Java exception" when even that fails.
fn to_string(env: &mut JNIEnv, thrown: &JObject) -> String {
    let text = env.call_method(thrown, "toString", "()Ljava/lang/String;", &[]);
    let text = boundary::catch(env, text)
        .ok()
        .and_then(|text| text.l().ok())
        .and_then(|text| boundary::string(env, &JString::from(text)).ok().flatten());
    boundary::clear_pending(env);
    text.unwrap_or_else(|| "a Java exception".into())
}

/// A new `dev.heapgrowth.junit.TestOutcome(status, message, summary, notices)`, what the
/// extension's `NativeEngine.search` returns. `status` is the name of a `TestOutcome.Status`.
pub fn new_test_outcome<'local>(
    env: &mut JNIEnv<'local>,
    status: &str,
    message: &str,
    summary: &str,
    notices: &[String],
) -> Result<JObject<'local>, JvmError> {
    let built = (|| -> jni::errors::Result<JObject<'local>> {
        let status = JObject::from(env.new_string(status)?);
        let message = JObject::from(env.new_string(message)?);
        let summary = JObject::from(env.new_string(summary)?);
        let notices = JObject::from(boundary::new_string_array(env, notices)?);
        env.new_object(
            TEST_OUTCOME_CLASS,
            TEST_OUTCOME_CONSTRUCTOR,
            &[
                JValue::Object(&status),
                JValue::Object(&message),
                JValue::Object(&summary),
                JValue::Object(&notices),
            ],
        )
    })();
    match boundary::catch(env, built) {
        Ok(outcome) => Ok(outcome),
        Err(CallError::Thrown(thrown)) => Err(JvmError::Jni(format!(
            "cannot create the test's outcome: {}",
            to_string(env, &thrown)
        ))),
        Err(CallError::Jni(e)) => Err(e.into()),
    }
}

/// The JVMTI environment and capabilities of heapgrowth's agent that this JVM (the test JVM
/// `env` belongs to) loaded from `path` with `-agentpath:`; the inner error is why there are
/// none, as one line.
#[allow(clippy::type_complexity)]
pub fn agent_of_this_jvm(
    env: &mut JNIEnv,
    path: &Path,
) -> Result<Result<(JvmtiEnv, AgentCapabilities), String>, JvmError> {
    let vm = env.get_java_vm()?;
    Ok(super::loaded_agent(path, &vm))
}
