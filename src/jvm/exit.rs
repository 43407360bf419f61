//! The JVM ending under heapgrowth: scenario code calling `System.exit` or `Runtime.halt`, the
//! JVM failing during start-up, or crashing. Each ends the whole process from inside the JVM,
//! and nothing of ours would run: no report, and the heap dumps (every secret in the heap) left
//! on disk.
//!
//! The invocation API lets the embedder replace the JVM's last step: the `exit` option's hook
//! runs instead of the process exit after `System.exit`/`Runtime.halt` (on the VM thread, at a
//! safepoint: no JNI), and the `abort` option's hook runs before a start-up failure or a crash
//! ends the process. Both call the handler a front end set with [`on_jvm_end`] (which prints
//! what was found so far), then delete every private temporary directory and end the process
//! with status 2, as for any other error.
//!
//! What scenario code called is only known in Java: a shutdown hook of the glue
//! (`dev.heapgrowth.glue.ExitWatch`) finds the thread in `Runtime.exit` and tells us through
//! the native method below. `Runtime.halt` skips shutdown hooks, so for it only the loops the
//! engine was running are known.

use std::ffi::{c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, MutexGuard, OnceLock};

use jni::objects::{JClass, JString};
use jni::sys::jint;
use jni::{JNIEnv, NativeMethod};

use super::boundary::{entry_quiet, string};
use super::JvmError;
use crate::line::escape_line;
use crate::tempdir;

/// Why the JVM ended the process during start-up, as far as we know.
pub const START_FAILED_REASON: &str = "its message is above; check the --jvm-arg options";

/// Exit status of a run the JVM ended, as of any other error.
pub const JVM_ENDED_EXIT_STATUS: i32 = 2;

/// How the JVM ended the process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JvmEnd {
    /// `JNI_CreateJavaVM` failed in a way that ends the process (an impossible `-Xmx`, a heap
    /// too small to start); the JVM printed why on stderr.
    StartFailed,
    /// `System.exit`, `Runtime.exit` or `Runtime.halt` with this status.
    Exited {
        /// The status passed to `exit` or `halt`.
        status: i32,
        /// The call as Java saw it, when a shutdown hook could see it (not for `halt`).
        call: Option<ExitCall>,
    },
    /// The JVM aborted (a crash, a fatal error); its error report is on stderr.
    Aborted,
}

/// A `System.exit` or `Runtime.exit` call, found by the glue's shutdown hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitCall {
    /// `System.exit` or `Runtime.exit`.
    pub method: String,
    /// The frame that called it, as `StackTraceElement.toString()` gives it.
    pub caller: String,
    /// The calling thread's name.
    pub thread: String,
    /// The loop the scenario thread was running (counting from 1), when the caller was the
    /// scenario thread; 0 otherwise.
    pub loop_number: u32,
}

impl JvmEnd {
    /// One line, for a front end that knows nothing more (the engine says which scenario).
    pub fn describe(&self) -> String {
        match self {
            JvmEnd::StartFailed => format!("the JVM failed to start: {START_FAILED_REASON}"),
            JvmEnd::Exited {
                status,
                call: Some(call),
            } => format!(
                "{}({status}) was called at {} on thread {}",
                call.method,
                call.caller,
                escape_line(&call.thread)
            ),
            JvmEnd::Exited { status, call: None } => format!(
                "the JVM exited with status {status} without running shutdown hooks \
                 (Runtime.halt, or native code calling exit)"
            ),
            JvmEnd::Aborted => "the JVM aborted (its error report is above)".into(),
        }
    }
}

type Handler = Box<dyn Fn(&JvmEnd) + Send + Sync>;

/// The front end's handler; replaced by each [`on_jvm_end`].
static HANDLER: Mutex<Option<Handler>> = Mutex::new(None);
/// What the glue's shutdown hook saw, until the exit hook reads it.
static EXIT_CALL: Mutex<Option<ExitCall>> = Mutex::new(None);
/// Whether `JNI_CreateJavaVM` has returned; an abort before that is a start-up failure.
static STARTED: OnceLock<()> = OnceLock::new();

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Sets what runs when the JVM ends the process: typically printing the report so far. It runs
/// on a JVM thread that may not call JNI, must not block on anything a JVM thread holds, and
/// should write what it has and return; the process then deletes every private temporary
/// directory and exits with [`JVM_ENDED_EXIT_STATUS`]. Without a handler, the process writes
/// one line on stderr.
pub fn on_jvm_end(handler: impl Fn(&JvmEnd) + Send + Sync + 'static) {
    *lock(&HANDLER) = Some(Box::new(handler));
}

/// The `exit` and `abort` options for `JNI_CreateJavaVM`, with our hooks as their extra info.
pub(super) fn hook_options() -> [(CString, *mut c_void); 2] {
    [
        (c"exit".to_owned(), exit_hook as *mut c_void),
        (c"abort".to_owned(), abort_hook as *mut c_void),
    ]
}

/// Called once `JNI_CreateJavaVM` has succeeded: an abort from now on is a crash.
pub(super) fn started() {
    let _ = STARTED.set(());
}

/// The JVM's `exit` hook: called instead of `exit(status)` when Java code exits or halts.
extern "C" fn exit_hook(status: jint) {
    let call = lock(&EXIT_CALL).take();
    end(&JvmEnd::Exited { status, call });
}

/// The JVM's `abort` hook: called before the JVM ends the process after a fatal error.
extern "C" fn abort_hook() {
    if STARTED.get().is_some() {
        end(&JvmEnd::Aborted)
    } else {
        end(&JvmEnd::StartFailed)
    }
}

fn end(how: &JvmEnd) -> ! {
    // A panic must not unwind into the JVM's C++ frames; whatever happens, the files go.
    let _ = catch_unwind(AssertUnwindSafe(|| match &*lock(&HANDLER) {
        Some(handler) => handler(how),
        None => eprintln!("heapgrowth: {}", how.describe()),
    }));
    tempdir::delete_all_now();
    // `_exit`: `exit` would run libjvm's static destructors under the JVM's running threads.
    // Safety: `_exit` has no preconditions; it ends the process.
    unsafe { libc::_exit(JVM_ENDED_EXIT_STATUS) }
}

/// Binds `ExitWatch.exitCalled`, through which the glue's shutdown hook reports the call.
pub(super) fn register(env: &mut JNIEnv, class: &JClass) -> Result<(), JvmError> {
    let string = "Ljava/lang/String;";
    let methods = [NativeMethod {
        name: "exitCalled".into(),
        sig: format!("({string}{string}{string}I)V").into(),
        fn_ptr: exit_called as *mut c_void,
    }];
    Ok(env.register_native_methods(class, &methods)?)
}

/// `static native void exitCalled(String method, String caller, String thread, int loop)`.
extern "system" fn exit_called<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    method: JString<'local>,
    caller: JString<'local>,
    thread: JString<'local>,
    loop_number: jint,
) {
    // No panic may cross into the JVM, nor an exception (the JVM is exiting); a call we cannot
    // read is reported without it.
    let _ = entry_quiet(|| {
        let mut read = |s: &JString| -> Option<String> { string(&mut env, s).ok().flatten() };
        let call = ExitCall {
            method: read(&method)?,
            caller: read(&caller).unwrap_or_else(|| "an unknown place".into()),
            thread: read(&thread).unwrap_or_default(),
            loop_number: u32::try_from(loop_number).unwrap_or(0),
        };
        *lock(&EXIT_CALL) = Some(call);
        Some(())
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_descriptions_name_the_call() {
        let call = ExitCall {
            method: "System.exit".into(),
            caller: "corpus.bad.ExitsInRun.run(ExitsInRun.java:20)".into(),
            thread: "heapgrowth-scenario".into(),
            loop_number: 4,
        };
        let described = JvmEnd::Exited {
            status: 3,
            call: Some(call),
        }
        .describe();
        assert_eq!(
            described,
            "System.exit(3) was called at corpus.bad.ExitsInRun.run(ExitsInRun.java:20) on thread heapgrowth-scenario"
        );
        let halted = JvmEnd::Exited {
            status: 0,
            call: None,
        }
        .describe();
        assert!(halted.contains("Runtime.halt"), "{halted}");
    }
}
