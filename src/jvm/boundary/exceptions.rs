//! The one exception path: a JNI call's result is checked for a Java exception here, and a
//! pending one is taken out of the thread (later JNI calls would be illegal otherwise).

use jni::objects::{JString, JThrowable};
use jni::JNIEnv;

use super::strings::string;
use crate::jvm::JavaException;

/// How a JNI call that can run Java code failed.
pub enum CallError<'local> {
    /// Java code threw; the exception is no longer pending.
    Thrown(JThrowable<'local>),
    /// JNI itself failed.
    Jni(jni::errors::Error),
}

/// The one place that checks a JNI result for a Java exception: if one is pending, it is
/// cleared (later JNI calls would be illegal otherwise) and returned.
pub fn catch<'local, T>(
    env: &mut JNIEnv<'local>,
    result: jni::errors::Result<T>,
) -> Result<T, CallError<'local>> {
    let error = match result {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    if !env.exception_check().unwrap_or(false) {
        return Err(CallError::Jni(error));
    }
    let thrown = env.exception_occurred();
    let _ = env.exception_clear();
    match thrown {
        Ok(thrown) if !thrown.is_null() => Err(CallError::Thrown(thrown)),
        _ => Err(CallError::Jni(error)),
    }
}

/// Clears a Java exception left pending: a JNI helper (allocating a string, say) can fail with
/// one still pending after the calls have taken theirs out through [`catch`].
pub fn clear_pending(env: &mut JNIEnv) {
    if env.exception_check().unwrap_or(false) {
        let _ = env.exception_clear();
    }
}

/// The throwable's class name only, for when the glue cannot describe it.
pub fn describe_minimal(env: &mut JNIEnv, throwable: &JThrowable) -> JavaException {
    let name = (|| -> jni::errors::Result<Option<String>> {
        let class = env.get_object_class(throwable)?;
        let name = env
            .call_method(&class, "getName", "()Ljava/lang/String;", &[])?
            .l()?;
        string(env, &JString::from(name))
    })();
    let name = catch(env, name).ok().flatten();
    JavaException {
        class: name.unwrap_or_else(|| "<unknown throwable>".into()),
        message: Some("(heapgrowth could not read the exception's details)".into()),
        stack: Vec::new(),
    }
}
