//! The stacks of the calls of `Thread.start()`, seen through a field-access watch: what keeps a
//! group of threads (a running thread is a GC root; the call that starts it keeps it).
//!
//! Why not a breakpoint on `start`: `can_generate_breakpoint_events` is only granted at OnLoad
//! (HotSpot's "onload solo" set), and HotSpot lets it make the compilers keep every local
//! alive (`can_access_local_variables`), a cost to every JVM the agent runs in, and one that
//! changes what stays reachable. A field-access watch needs a capability the agent holds
//! already: `start()` reads a field of its thread before anything else, the thread's status
//! (`Thread.threadStatus` on JDK 17, `Thread.holder` on JDK 19 and later), on every JDK, and
//! the event names the method reading it. The callback keeps the reads made by `start`'s own
//! methods (ids given) and records the stack there; every other read of the field returns
//! after two compares.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use jni::objects::{JClass, JFieldID, JMethodID};
use jni::JNIEnv;

use super::access_watch::AccessWatch;
use super::stacks::{current_stack, CodeSourceOf, RawStack, WatchRecord, MAX_EVENTS};
use super::sys;
use super::{JvmtiEnv, JvmtiError};

/// What the callback needs, shared with it through [`STARTING`].
struct Starting {
    field: usize,
    /// The ids of the start methods (`start()`, `start(ThreadContainer)`).
    methods: Vec<usize>,
    stacks: Vec<RawStack>,
    /// Per stack: the object allocation sampling saw the starting thread make last.
    paired: Vec<Option<sys::jlong>>,
    dropped: u64,
}

static STARTING: Mutex<Option<Starting>> = Mutex::new(None);

/// A thread-start watch in place: stop it with [`StartWatch::stop`]; dropping it stops it too
/// (without resolving the stacks).
pub struct StartWatch<'e> {
    access: AccessWatch<'e>,
}

impl std::fmt::Debug for StartWatch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartWatch").finish_non_exhaustive()
    }
}

impl JvmtiEnv {
    /// Starts recording the stack of every read of `field` (an instance field of `class`, the
    /// thread class) made by one of `methods` (its start methods). Needs
    /// `can_generate_field_access_events`; one at a time, and not beside a
    /// [`JvmtiEnv::watch_removing_reads`] (one field-access event switch).
    pub fn watch_thread_starts<'e>(
        &'e self,
        jni: &mut JNIEnv,
        class: &JClass,
        field: JFieldID,
        methods: &[JMethodID],
    ) -> Result<StartWatch<'e>, JvmtiError> {
        let field = field.into_raw();
        let access = AccessWatch::new(self, jni, class, field)?;
        {
            let mut starting = STARTING.lock().unwrap_or_else(|p| p.into_inner());
            if starting.is_some() {
                return Err(JvmtiError::Busy);
            }
            *starting = Some(Starting {
                field: field as usize,
                methods: methods.iter().map(|m| m.into_raw() as usize).collect(),
                stacks: Vec::new(),
                paired: Vec::new(),
                dropped: 0,
            });
        }
        // From here the drop of `watch` clears the recording (and the watch once set).
        let mut watch = StartWatch { access };
        watch.access.set()?;
        Ok(watch)
    }
}

impl StartWatch<'_> {
    /// Switches the watch off and resolves the recorded stacks to names. `jni` as for
    /// [`super::FieldWatch::stop`]. The record's `fields` are all 0 (one field).
    pub fn stop(
        mut self,
        jni: &mut JNIEnv,
        code_source: &mut CodeSourceOf,
    ) -> Result<WatchRecord, JvmtiError> {
        self.access.switch_off(false)?;
        let starting = STARTING.lock().unwrap_or_else(|p| p.into_inner()).take();
        let Some(starting) = starting else {
            return Ok(WatchRecord::default());
        };
        let stacks = self
            .access
            .env
            .resolve(jni, &starting.stacks, code_source)?;
        Ok(WatchRecord {
            fields: vec![0; stacks.len()],
            stacks,
            dropped: starting.dropped,
            paired: starting.paired,
        })
    }
}

impl Drop for StartWatch<'_> {
    fn drop(&mut self) {
        let _ = catch_unwind(AssertUnwindSafe(|| self.access.switch_off(false)));
        *STARTING.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// The thread-start part of the JVM's `FieldAccess` callback (called from
/// [`super::field_reads::on_field_access`], which catches panics): thin, a field and a method
/// compare before anything else.
///
/// # Safety
/// `jvmti` must be the live environment of the event, `jni` the event thread's environment.
pub(super) unsafe fn record_start_read(
    jvmti: *mut sys::jvmtiEnv,
    jni: *mut sys::JNIEnv,
    method: sys::jmethodID,
    field: sys::jfieldID,
) {
    let mut starting = STARTING.lock().unwrap_or_else(|p| p.into_inner());
    let Some(starting) = starting.as_mut() else {
        return;
    };
    if starting.field != field as usize || !starting.methods.contains(&(method as usize)) {
        return;
    }
    if starting.stacks.len() >= MAX_EVENTS {
        starting.dropped += 1;
        return;
    }
    // Safety: live environment (caller), on the event's thread.
    if let Some(stack) = unsafe { current_stack(jvmti) } {
        starting.stacks.push(stack);
        // Lock order: this recorder's, then sampling's (sampling never takes this one's).
        starting
            .paired
            .push(super::allocation_sampling::last_sample_on(jni));
    }
}
