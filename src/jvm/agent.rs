//! The host's side of the JVMTI agent (`agent/heapgrowth_agent.c`): loading it so that failures
//! are reported as errors, and fetching the environment its `Agent_OnLoad` obtained, in the JVM
//! heapgrowth starts ([`AgentLibrary`]) and in a test JVM that loaded it with `-agentpath:`
//! ([`loaded_agent`]).

use std::ffi::{c_void, CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr::NonNull;

use super::JvmError;
use crate::jvmti::{AgentCapabilities, JvmtiEnv};

/// The agent library, loaded into this process.
///
/// We `dlopen` it ourselves before the JVM does: if it cannot be loaded (for example `$TMPDIR`
/// is on a `noexec` mount), the JVM would print a message and exit the whole process during
/// initialisation; loading it first turns that into a [`JvmError`]. The JVM's own `dlopen` of
/// the same path then returns this same library, whose `Agent_OnLoad` it runs.
#[derive(Debug)]
pub(crate) struct AgentLibrary {
    handle: NonNull<c_void>,
}

// Safety: the handle is only passed to dlsym, which is thread-safe; the library is never closed.
unsafe impl Send for AgentLibrary {}
// Safety: as above.
unsafe impl Sync for AgentLibrary {}

/// The function the agent exports (see heapgrowth_agent.c).
const ENV_FUNCTION: &CStr = c"heapgrowth_agent_jvmti_env";

impl AgentLibrary {
    pub(crate) fn load(path: &Path) -> Result<AgentLibrary, JvmError> {
        let c_path =
            CString::new(path.as_os_str().as_bytes()).map_err(|_| JvmError::InvalidPath {
                path: path.to_path_buf(),
                reason: "contains a NUL byte",
            })?;
        // Safety: `c_path` is a NUL-terminated path; the agent has no constructors that could
        // misbehave when loaded before the JVM (it only defines functions and a static).
        let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        match NonNull::new(handle) {
            Some(handle) => Ok(AgentLibrary { handle }),
            None => Err(JvmError::StartFailed {
                reason: format!(
                    "cannot load heapgrowth's JVMTI agent {}: {} (if the temporary directory is on a \
                     noexec file system, set TMPDIR to another directory)",
                    path.display(),
                    dl_error()
                ),
            }),
        }
        // The handle is never dlclose'd: the JVM keeps using the library until the process ends.
    }

    /// The JVMTI environment the agent's `Agent_OnLoad` obtained; call after the JVM started.
    pub(crate) fn jvmti_env(&self, vm: &jni::JavaVM) -> Result<JvmtiEnv, JvmError> {
        // Safety: `handle` came from a successful dlopen and is never closed; the name is
        // NUL-terminated.
        let symbol = unsafe { libc::dlsym(self.handle.as_ptr(), ENV_FUNCTION.as_ptr()) };
        if symbol.is_null() {
            return Err(JvmError::StartFailed {
                reason: format!(
                    "heapgrowth's JVMTI agent does not export {ENV_FUNCTION:?}: {}",
                    dl_error()
                ),
            });
        }
        // Safety: `symbol` is the agent's ENV_FUNCTION, looked up in the library just above.
        unsafe { agent_env(symbol, vm) }.ok_or_else(|| JvmError::StartFailed {
            reason: "heapgrowth's JVMTI agent got no JVMTI environment (was it loaded with -agentpath:?)".into(),
        })
    }
}

/// The JVMTI environment and capabilities of heapgrowth's agent that this JVM (`vm`, a test JVM)
/// loaded from `path` with `-agentpath:`, or why there are none, as one line.
pub fn loaded_agent(
    path: &Path,
    vm: &jni::JavaVM,
) -> Result<(JvmtiEnv, AgentCapabilities), String> {
    let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) else {
        return Err(format!("agent path {} contains a NUL byte", path.display()));
    };
    // Safety: RTLD_NOLOAD only looks up a library the JVM already loaded (it loads nothing and
    // runs no constructor); the handle is never closed, like the JVM's own.
    let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
    if handle.is_null() {
        return Err(format!(
            "-agentpath:{} is not loaded in this JVM",
            path.display()
        ));
    }
    // Safety: `handle` came from a successful dlopen; the name is NUL-terminated.
    let symbol = unsafe { libc::dlsym(handle, ENV_FUNCTION.as_ptr()) };
    if symbol.is_null() {
        return Err(format!(
            "-agentpath:{} is not heapgrowth's agent",
            path.display()
        ));
    }
    // Safety: `symbol` is the agent's ENV_FUNCTION, looked up in the library just above.
    let Some(jvmti) = (unsafe { agent_env(symbol, vm) }) else {
        return Err("heapgrowth's agent is loaded but got no JVMTI environment".into());
    };
    let capabilities = jvmti.capabilities().map_err(|e| {
        format!("heapgrowth's agent is loaded but its capabilities cannot be read: {e}")
    })?;
    Ok((jvmti, capabilities))
}

/// The JVMTI environment the agent's `Agent_OnLoad` obtained in `vm`, read through the agent's
/// exported function, or `None` if it got none.
///
/// # Safety
/// `symbol` must be the non-null address of the agent's [`ENV_FUNCTION`], from `dlsym` on the
/// agent library loaded in this process.
unsafe fn agent_env(symbol: *mut c_void, vm: &jni::JavaVM) -> Option<JvmtiEnv> {
    // Safety: the agent defines this symbol as `void *heapgrowth_agent_jvmti_env(void)`
    // (C calling convention, which is "system" on Linux).
    let get_env: unsafe extern "system" fn() -> *mut c_void =
        unsafe { std::mem::transmute(symbol) };
    // Safety: it takes no arguments and only reads a static set in Agent_OnLoad, which ran (or
    // not) before the JVM finished starting.
    let raw = unsafe { get_env() };
    // Safety: the pointer is NULL or the JVMTI 1.2 environment of the agent loaded with
    // -agentpath into `vm`, which it never disposes; the JVM is never destroyed.
    unsafe { JvmtiEnv::from_raw(raw, vm.get_java_vm_pointer()) }
}

/// The text of the last dl* error on this thread.
fn dl_error() -> String {
    // Safety: dlerror returns NULL or a NUL-terminated string valid until the next dl* call on
    // this thread; we copy it at once.
    unsafe {
        let message = libc::dlerror();
        if message.is_null() {
            "unknown error".into()
        } else {
            CStr::from_ptr(message).to_string_lossy().into_owned()
        }
    }
}
