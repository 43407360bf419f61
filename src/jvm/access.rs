//! One way to reach a live JVM, for every front end: the JVM heapgrowth starts (`Jvm`) and a
//! test JVM that loaded `libheapgrowth.so` (the JUnit extension). Both hold heapgrowth's shared
//! Java classes (`Throwables`, to describe exceptions, and `LiveAttribution`, which follows
//! growing paths), and every call into Java goes through [`JavaAccess::with_env`] and has its
//! exceptions mapped by [`JavaAccess::unexpected`].

use jni::objects::{GlobalRef, JObject, JObjectArray, JString, JThrowable, JValue};
use jni::{JNIEnv, JavaVM};

use super::boundary::{
    as_class, catch, clear_pending, describe_minimal, load_class, string, strings, CallError,
};
use super::{natives, JavaException, JvmError};

/// Local references one call creates at most (strings, arrays, exceptions); the frame frees
/// them when the call returns, also on threads that stay attached.
pub(super) const LOCAL_FRAME_CAPACITY: i32 = 32;

const THROWABLES: &str = "dev/heapgrowth/glue/Throwables";
const LIVE_ATTRIBUTION: &str = "dev/heapgrowth/attribution/LiveAttribution";

/// A live JVM and heapgrowth's classes in it.
#[derive(Debug)]
pub struct JavaAccess {
    vm: JavaVM,
    throwables: GlobalRef,
    /// `dev.heapgrowth.attribution.LiveAttribution`, its native methods registered.
    pub(super) live_attribution: GlobalRef,
}

impl JavaAccess {
    /// Finds the shared classes through `env`'s class loader (the JVM's class path, or in a
    /// native method the loader of its class: the JUnit jar) and registers `LiveAttribution`'s
    /// native methods.
    pub(crate) fn new(env: &mut JNIEnv) -> Result<JavaAccess, JvmError> {
        let vm = env.get_java_vm()?;
        let throwables = load_class(env, THROWABLES)?;
        let live_attribution = load_class(env, LIVE_ATTRIBUTION)?;
        natives::register(env, as_class(&live_attribution))?;
        Ok(JavaAccess {
            vm,
            throwables,
            live_attribution,
        })
    }

    /// Runs `f` on this thread attached to the JVM (a thread already attached stays so, one
    /// that was not is detached afterwards, so no idle attached thread shows up in later heap
    /// dumps), inside a local reference frame. A Java exception `f` left pending is cleared.
    pub(crate) fn with_env<T>(
        &self,
        f: impl FnOnce(&mut JNIEnv) -> Result<T, JvmError>,
    ) -> Result<T, JvmError> {
        let mut env = self
            .vm
            .attach_current_thread()
            .map_err(|e| JvmError::Jni(format!("cannot attach this thread to the JVM: {e}")))?;
        env.with_local_frame(LOCAL_FRAME_CAPACITY, |env| {
            let result = f(env);
            // Calls take Java exceptions out of the thread where they map them to errors, but a
            // JNI helper (allocating a string, say) can fail with one still pending.
            clear_pending(env);
            result
        })
    }

    /// For calls that only throw if heapgrowth or the JVM is broken: any exception becomes
    /// [`JvmError::GlueFailed`].
    pub(crate) fn unexpected<T>(
        &self,
        env: &mut JNIEnv,
        operation: &'static str,
        result: jni::errors::Result<T>,
    ) -> Result<T, JvmError> {
        match catch(env, result) {
            Ok(value) => Ok(value),
            Err(CallError::Jni(e)) => Err(e.into()),
            Err(CallError::Thrown(thrown)) => Err(JvmError::GlueFailed {
                operation,
                exception: self.describe(env, &thrown),
            }),
        }
    }

    /// `LiveAttribution.codeSource(class)`: where `class` was loaded from (see
    /// [`crate::jvmti::Frame::code_source`]); `None` for the JDK's classes, and if it fails.
    pub(crate) fn code_source(&self, env: &mut JNIEnv, class: &JObject) -> Option<String> {
        let result = env.call_static_method(
            as_class(&self.live_attribution),
            "codeSource",
            "(Ljava/lang/Class;)Ljava/lang/String;",
            &[JValue::Object(class)],
        );
        let value = catch(env, result).ok()?.l().ok()?;
        string(env, &JString::from(value)).ok().flatten()
    }

    /// `Throwables.describe(throwable)` as a [`JavaException`]. Never fails: if describing
    /// throws too (say, out of memory), the class name alone is returned.
    pub(crate) fn describe(&self, env: &mut JNIEnv, throwable: &JThrowable) -> JavaException {
        let result = env.call_static_method(
            as_class(&self.throwables),
            "describe",
            "(Ljava/lang/Throwable;)[Ljava/lang/String;",
            &[JValue::Object(throwable)],
        );
        let lines = match catch(env, result) {
            Ok(value) => value.l().map_err(CallError::Jni).and_then(|array| {
                let array = JObjectArray::from(array);
                let lines = strings(env, &array);
                catch(env, lines)
            }),
            Err(e) => Err(e),
        };
        match lines {
            Ok(lines) if lines.len() >= 2 => {
                let mut lines = lines.into_iter();
                let class = lines.next().flatten().unwrap_or_default();
                let message = lines.next().flatten();
                JavaException {
                    class,
                    message,
                    stack: lines.flatten().collect(),
                }
            }
            _ => describe_minimal(env, throwable),
        }
    }
}
