//! Calls into heapgrowth's Java glue (`jvm-glue/.../dev/heapgrowth/glue`), the scenario host of
//! the JVM heapgrowth starts. Every call's result goes through [`catch`], which takes a pending
//! Java exception out of the thread; the callers then map it to a typed [`JvmError`].

use std::sync::Arc;
use std::time::Duration;

use jni::objects::{GlobalRef, JObject, JString, JThrowable, JValue};
use jni::JNIEnv;

use super::access::JavaAccess;
use super::boundary::{as_class, catch, load_class, string, CallError};
use super::{JavaException, JvmError};

const SCENARIO_HOST: &str = "dev/heapgrowth/glue/ScenarioHost";
const SCENARIO_THREAD: &str = "dev/heapgrowth/glue/ScenarioThread";
const SCENARIO_FAILURE: &str = "dev/heapgrowth/glue/ScenarioFailure";
const SCENARIO_TIMEOUT: &str = "dev/heapgrowth/glue/ScenarioTimeout";
const SETUP_EXCEPTION: &str = "dev/heapgrowth/glue/ScenarioSetupException";
const HEAP_DUMPER: &str = "dev/heapgrowth/glue/HeapDumper";
const SETTLER: &str = "dev/heapgrowth/settle/Settler";
const RECORDING_HANDLER: &str = "dev/heapgrowth/attribution/RecordingHandler";
const EXIT_WATCH: &str = "dev/heapgrowth/glue/ExitWatch";

/// The glue classes, pinned with global references.
#[derive(Debug)]
pub(crate) struct Glue {
    scenario_host: GlobalRef,
    scenario_failure: GlobalRef,
    scenario_timeout: GlobalRef,
    setup_exception: GlobalRef,
    heap_dumper: GlobalRef,
    settler: GlobalRef,
    /// The classes every front end has, and the JVM.
    pub(super) access: Arc<JavaAccess>,
}

impl Glue {
    /// Loads every glue class now: besides caching them, this makes the JVM open the glue jar,
    /// after which the extracted file may be deleted (the open jar stays readable).
    pub(crate) fn load(env: &mut JNIEnv, access: Arc<JavaAccess>) -> Result<Glue, JvmError> {
        let glue = Glue {
            scenario_host: load_class(env, SCENARIO_HOST)?,
            scenario_failure: load_class(env, SCENARIO_FAILURE)?,
            scenario_timeout: load_class(env, SCENARIO_TIMEOUT)?,
            setup_exception: load_class(env, SETUP_EXCEPTION)?,
            heap_dumper: load_class(env, HEAP_DUMPER)?,
            settler: load_class(env, SETTLER)?,
            access,
        };
        load_class(env, SCENARIO_THREAD)?;
        load_class(env, RECORDING_HANDLER)?;
        let exit_watch = load_class(env, EXIT_WATCH)?;
        super::exit::register(env, as_class(&exit_watch))?;
        let installed = env.call_static_method(as_class(&exit_watch), "install", "()V", &[]);
        glue.unexpected(env, "installing the exit watch", installed)?;
        Ok(glue)
    }

    /// `System.getProperty("java.version")`.
    pub(crate) fn java_version(&self, env: &mut JNIEnv) -> Result<String, JvmError> {
        let key = env.new_string("java.version")?;
        let result = env.call_static_method(
            "java/lang/System",
            "getProperty",
            "(Ljava/lang/String;)Ljava/lang/String;",
            &[JValue::Object(&key)],
        );
        let value = self.unexpected(env, "reading java.version", result)?.l()?;
        Ok(string(env, &JString::from(value))?.unwrap_or_default())
    }

    /// `ScenarioHost.open(className, classpath, timeoutMillis)`.
    pub(crate) fn open(
        &self,
        env: &mut JNIEnv,
        class_name: &str,
        classpath: &[String],
        time_limit: Duration,
    ) -> Result<GlobalRef, JvmError> {
        let name = env.new_string(class_name)?;
        let length = i32::try_from(classpath.len())
            .map_err(|_| JvmError::Jni("classpath too long".into()))?;
        let entries = env.new_object_array(length, "java/lang/String", JObject::null())?;
        for (i, entry) in classpath.iter().enumerate() {
            let entry = env.new_string(entry)?;
            env.set_object_array_element(&entries, i as i32, entry)?;
        }
        let result = env.call_static_method(
            as_class(&self.scenario_host),
            "open",
            "(Ljava/lang/String;[Ljava/lang/String;J)Ldev/heapgrowth/glue/ScenarioHost;",
            &[
                JValue::Object(&name),
                JValue::Object(&entries),
                JValue::Long(millis(time_limit)),
            ],
        );
        let thrown = match catch(env, result) {
            Ok(host) => return Ok(env.new_global_ref(host.l()?)?),
            Err(CallError::Jni(e)) => return Err(e.into()),
            Err(CallError::Thrown(thrown)) => thrown,
        };
        let class = class_name.to_string();
        if let Some(timed_out) = self.timed_out(env, &thrown, class_name, time_limit)? {
            return Err(timed_out);
        }
        if env.is_instance_of(&thrown, as_class(&self.setup_exception))? {
            let problem = self.call_string(env, &thrown, "problem", "reading the setup problem")?;
            return Err(match problem.as_deref() {
                Some("CLASS_NOT_FOUND") => JvmError::ClassNotFound { class },
                Some("NOT_RUNNABLE") => JvmError::NotRunnable { class },
                Some("ABSTRACT") => JvmError::AbstractClass { class },
                Some("NO_PUBLIC_NO_ARG_CONSTRUCTOR") => {
                    JvmError::NoPublicNoArgConstructor { class }
                }
                Some("CLASS_LOAD_FAILED") => {
                    let exception = self.cause(env, &thrown)?;
                    JvmError::ClassLoadFailed { class, exception }
                }
                _ => JvmError::GlueFailed {
                    operation: "opening the scenario",
                    exception: self.describe(env, &thrown),
                },
            });
        }
        if env.is_instance_of(&thrown, as_class(&self.scenario_failure))? {
            let exception = self.cause(env, &thrown)?;
            return Err(JvmError::ConstructorThrew { class, exception });
        }
        Err(JvmError::GlueFailed {
            operation: "opening the scenario",
            exception: self.describe(env, &thrown),
        })
    }

    /// `host.runLoops(count, timeoutMillis)`: the total number of loops run so far.
    pub(crate) fn run_loops(
        &self,
        env: &mut JNIEnv,
        host: &GlobalRef,
        class_name: &str,
        count: u32,
        time_left: Duration,
        time_limit: Duration,
    ) -> Result<u32, JvmError> {
        let count = i32::try_from(count)
            .map_err(|_| JvmError::Jni(format!("loop count {count} exceeds Java's int range")))?;
        let result = env.call_method(
            host,
            "runLoops",
            "(IJ)I",
            &[JValue::Int(count), JValue::Long(millis(time_left).max(1))],
        );
        let thrown = match catch(env, result) {
            Ok(total) => return Ok(total.i()? as u32),
            Err(CallError::Jni(e)) => return Err(e.into()),
            Err(CallError::Thrown(thrown)) => thrown,
        };
        if let Some(timed_out) = self.timed_out(env, &thrown, class_name, time_limit)? {
            return Err(timed_out);
        }
        if env.is_instance_of(&thrown, as_class(&self.scenario_failure))? {
            let result = env.call_method(&thrown, "loopNumber", "()I", &[]);
            let loop_number = self
                .unexpected(env, "reading the loop number", result)?
                .i()? as u32;
            let exception = self.cause(env, &thrown)?;
            return Err(JvmError::ScenarioThrew {
                class: class_name.to_string(),
                loop_number,
                exception,
            });
        }
        Err(JvmError::GlueFailed {
            operation: "running loops",
            exception: self.describe(env, &thrown),
        })
    }

    /// `host.close()`.
    pub(crate) fn close(&self, env: &mut JNIEnv, host: &GlobalRef) -> Result<(), JvmError> {
        let result = env.call_method(host, "close", "()V", &[]);
        self.unexpected(env, "closing the scenario", result)?;
        Ok(())
    }

    /// `host.settle()`: waits for the scenario's background work; whether it settled.
    pub(crate) fn settle(&self, env: &mut JNIEnv, host: &JObject) -> Result<bool, JvmError> {
        let result = env.call_method(host, "settle", "()Z", &[]);
        Ok(self
            .unexpected(env, "waiting for background work", result)?
            .z()?)
    }

    /// `host.collectGarbage()`: a full collection, then waits for the cleanup it starts.
    pub(crate) fn collect_garbage(&self, env: &mut JNIEnv, host: &JObject) -> Result<(), JvmError> {
        let result = env.call_method(host, "collectGarbage", "()V", &[]);
        self.unexpected(env, "collecting garbage", result)?;
        Ok(())
    }

    /// `new Settler()`: one that waits for the threads started from now on.
    pub(crate) fn new_settler(&self, env: &mut JNIEnv) -> Result<GlobalRef, JvmError> {
        let result = env.new_object(as_class(&self.settler), "()V", &[]);
        let settler = self.unexpected(env, "creating a settler", result)?;
        Ok(env.new_global_ref(settler)?)
    }

    /// `HeapDumper.dumpHeap(path)`.
    pub(crate) fn dump_heap(&self, env: &mut JNIEnv, path: &str) -> Result<(), JvmError> {
        let path = env.new_string(path)?;
        let result = env.call_static_method(
            as_class(&self.heap_dumper),
            "dumpHeap",
            "(Ljava/lang/String;)V",
            &[JValue::Object(&path)],
        );
        match catch(env, result) {
            Ok(_) => Ok(()),
            Err(CallError::Jni(e)) => Err(e.into()),
            Err(CallError::Thrown(thrown)) => Err(JvmError::HeapDumpFailed {
                reason: self.describe(env, &thrown).to_string(),
            }),
        }
    }

    /// The error for a `ScenarioTimeout` (the scenario thread's stack as its stack), or `None`
    /// for any other throwable.
    fn timed_out(
        &self,
        env: &mut JNIEnv,
        thrown: &JThrowable,
        class_name: &str,
        time_limit: Duration,
    ) -> Result<Option<JvmError>, JvmError> {
        if !env.is_instance_of(thrown, as_class(&self.scenario_timeout))? {
            return Ok(None);
        }
        let result = env.call_method(thrown, "loopNumber", "()I", &[]);
        let loop_number = self
            .unexpected(env, "reading the loop number", result)?
            .i()? as u32;
        Ok(Some(JvmError::ScenarioTimedOut {
            class: class_name.to_string(),
            loop_number,
            seconds: time_limit.as_secs(),
            stack: self.describe(env, thrown),
        }))
    }

    /// For calls that only throw if heapgrowth or the JVM is broken (see
    /// [`JavaAccess::unexpected`]).
    pub(super) fn unexpected<T>(
        &self,
        env: &mut JNIEnv,
        operation: &'static str,
        result: jni::errors::Result<T>,
    ) -> Result<T, JvmError> {
        self.access.unexpected(env, operation, result)
    }

    fn call_string(
        &self,
        env: &mut JNIEnv,
        object: &JObject,
        method: &str,
        operation: &'static str,
    ) -> Result<Option<String>, JvmError> {
        let result = env.call_method(object, method, "()Ljava/lang/String;", &[]);
        let value = self.unexpected(env, operation, result)?.l()?;
        Ok(string(env, &JString::from(value))?)
    }

    /// The cause of a glue exception (the user's throwable), described.
    fn cause(&self, env: &mut JNIEnv, thrown: &JThrowable) -> Result<JavaException, JvmError> {
        let result = env.call_method(thrown, "getCause", "()Ljava/lang/Throwable;", &[]);
        let cause = JThrowable::from(
            self.unexpected(env, "reading an exception's cause", result)?
                .l()?,
        );
        if cause.is_null() {
            return Ok(self.describe(env, thrown));
        }
        Ok(self.describe(env, &cause))
    }

    fn describe(&self, env: &mut JNIEnv, throwable: &JThrowable) -> JavaException {
        self.access.describe(env, throwable)
    }
}

/// A duration in milliseconds for Java's `long`, saturating.
fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}
