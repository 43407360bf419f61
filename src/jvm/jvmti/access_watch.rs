//! A field-access watch on one field, set and cleared in one place: the read watch
//! ([`super::field_reads`]) and the thread-start watch ([`super::thread_starts`]) share the
//! JVM's one `FieldAccess` event.

use std::panic::{catch_unwind, AssertUnwindSafe};

use jni::objects::{GlobalRef, JClass};
use jni::JNIEnv;

use super::sys;
use super::{JvmtiEnv, JvmtiError};

/// A field-access watch on one field of a class with the `FieldAccess` event on: what the read
/// watch and the thread-start watch ([`super::thread_starts`]) set and clear alike. Dropping it
/// switches it off.
pub(super) struct AccessWatch<'e> {
    pub(super) env: &'e JvmtiEnv,
    class: GlobalRef,
    field: sys::jfieldID,
    active: bool,
}

impl<'e> AccessWatch<'e> {
    /// Holds `class` for the watch; sets nothing yet.
    pub(super) fn new(
        env: &'e JvmtiEnv,
        jni: &mut JNIEnv,
        class: &JClass,
        field: sys::jfieldID,
    ) -> Result<AccessWatch<'e>, JvmtiError> {
        let class = jni
            .new_global_ref(class)
            .map_err(|e| JvmtiError::AttachFailed {
                function: "NewGlobalRef",
                reason: e.to_string(),
            })?;
        Ok(AccessWatch {
            env,
            class,
            field,
            active: false,
        })
    }

    /// Sets the watch and switches the event on. `field` must be one of the class's fields
    /// (the callers get it from `GetFieldID`/`GetStaticFieldID` on that class).
    pub(super) fn set(&mut self) -> Result<(), JvmtiError> {
        self.env.install_callbacks()?;
        // Safety: the class reference is live, `field` is one of its fields (above).
        unsafe {
            jvmti!(
                self.env,
                SetFieldAccessWatch(self.class.as_obj().as_raw(), self.field)
            )
        }?;
        self.active = true;
        self.env
            .set_event_for_all_threads(sys::JVMTI_EVENT_FIELD_ACCESS, true)
    }

    /// Switches the event off and clears the watch, unless `cleared` says the callback did
    /// already; both steps are attempted, the first error is returned.
    pub(super) fn switch_off(&mut self, cleared: bool) -> Result<(), JvmtiError> {
        if !self.active {
            return Ok(());
        }
        self.active = false;
        let disabled = self
            .env
            .set_event_for_all_threads(sys::JVMTI_EVENT_FIELD_ACCESS, false);
        if cleared {
            return disabled;
        }
        // Safety: the class reference is live and the watch was set on (class, field).
        let cleared = unsafe {
            jvmti!(
                self.env,
                ClearFieldAccessWatch(self.class.as_obj().as_raw(), self.field)
            )
        };
        disabled.and(cleared)
    }
}

impl Drop for AccessWatch<'_> {
    fn drop(&mut self) {
        let _ = catch_unwind(AssertUnwindSafe(|| self.switch_off(false)));
    }
}
