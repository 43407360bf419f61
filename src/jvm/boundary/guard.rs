//! The panic guard of every native method: no panic may unwind into the JVM's frames, and an
//! error becomes a pending Java exception.

use std::panic::{catch_unwind, AssertUnwindSafe};

use jni::JNIEnv;

use crate::jvm::JvmError;

/// The Java exception a [`BoundaryError`] becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThrowAs {
    /// `java.lang.IllegalStateException`.
    IllegalState,
    /// `java.lang.IllegalArgumentException`.
    IllegalArgument,
    /// `dev.heapgrowth.junit.SettingsFileException`.
    SettingsFile,
}

impl ThrowAs {
    /// The class to throw, as JNI names it.
    pub fn class(self) -> &'static str {
        match self {
            ThrowAs::IllegalState => "java/lang/IllegalStateException",
            ThrowAs::IllegalArgument => "java/lang/IllegalArgumentException",
            ThrowAs::SettingsFile => "dev/heapgrowth/junit/SettingsFileException",
        }
    }
}

/// Why a native method failed: the exception [`entry`] throws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundaryError {
    /// The exception's class.
    pub throw: ThrowAs,
    /// The exception's message.
    pub message: String,
}

impl BoundaryError {
    /// An `IllegalStateException` with `message`.
    pub fn illegal_state(message: impl Into<String>) -> BoundaryError {
        BoundaryError {
            throw: ThrowAs::IllegalState,
            message: message.into(),
        }
    }

    /// An `IllegalArgumentException` with `message`.
    pub fn illegal_argument(message: impl Into<String>) -> BoundaryError {
        BoundaryError {
            throw: ThrowAs::IllegalArgument,
            message: message.into(),
        }
    }

    /// A `SettingsFileException` with `message`.
    pub fn settings_file(message: impl Into<String>) -> BoundaryError {
        BoundaryError {
            throw: ThrowAs::SettingsFile,
            message: message.into(),
        }
    }
}

impl From<JvmError> for BoundaryError {
    /// An `IllegalStateException` with the error's text.
    fn from(error: JvmError) -> BoundaryError {
        BoundaryError::illegal_state(error.to_string())
    }
}

impl From<jni::errors::Error> for BoundaryError {
    /// As the [`JvmError`] it converts to.
    fn from(error: jni::errors::Error) -> BoundaryError {
        JvmError::from(error).into()
    }
}

impl From<String> for BoundaryError {
    /// An `IllegalStateException` with `message`.
    fn from(message: String) -> BoundaryError {
        BoundaryError::illegal_state(message)
    }
}

/// Runs the body of a native method: its value, or `on_error` (what Java then ignores) with a
/// pending exception. An error is thrown as its [`ThrowAs`], a panic as an
/// `IllegalStateException` "heapgrowth panicked (a bug): ..."; either way an exception the
/// body left pending takes precedence (throwing over it is illegal).
pub fn entry<'local, T>(
    env: &mut JNIEnv<'local>,
    on_error: T,
    body: impl FnOnce(&mut JNIEnv<'local>) -> Result<T, BoundaryError>,
) -> T {
    let error = match catch_unwind(AssertUnwindSafe(|| body(env))) {
        Ok(Ok(value)) => return value,
        Ok(Err(error)) => error,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            BoundaryError::illegal_state(format!("heapgrowth panicked (a bug): {what}"))
        }
    };
    if !env.exception_check().unwrap_or(false) {
        let _ = env.throw_new(error.throw.class(), error.message);
    }
    on_error
}

/// Runs the body of a native method that must never throw (the JVM is exiting): `None` if it
/// panicked.
pub fn entry_quiet<T>(body: impl FnOnce() -> T) -> Option<T> {
    catch_unwind(AssertUnwindSafe(body)).ok()
}
