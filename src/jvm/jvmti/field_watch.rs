//! Field-modification watches that record the stack of every write to one field, filtered to
//! tagged objects: the JVMTI side of attribution.
//!
//! One watch is active at a time in the process. The JVM calls [`on_field_modification`] on the
//! writing thread; it stays thin (a tag compare and a `GetStackTrace` into a buffer) and never
//! unwinds into the JVM. Method ids are turned into names after the watch is stopped.

use std::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use jni::objects::{GlobalRef, JClass, JFieldID, JObject, JStaticFieldID};
use jni::JNIEnv;

use super::stacks::{current_stack, CodeSourceOf, RawStack, WatchRecord, MAX_EVENTS};
use super::sys;
use super::{JvmtiEnv, JvmtiError};

/// The tag heapgrowth puts on watched objects ("HG" and a marker); nothing else in the JVM
/// tags objects through this environment.
pub(super) const WATCH_TAG: sys::jlong = 0x4847_5741_5443_4801;

/// What the callback needs, shared with it through [`ACTIVE`].
struct Recording {
    field: usize,
    filter_by_tag: bool,
    stacks: Vec<RawStack>,
    dropped: u64,
}

static ACTIVE: Mutex<Option<Recording>> = Mutex::new(None);

/// A field of `class` as JNI's `GetFieldID` / `GetStaticFieldID` found it.
#[derive(Clone, Copy)]
pub enum WatchedField {
    /// An instance field.
    Instance(JFieldID),
    /// A static field.
    Static(JStaticFieldID),
}

/// A field-modification watch in place: stop it with [`FieldWatch::stop`]; dropping it stops it
/// too (without resolving the stacks).
pub struct FieldWatch<'e> {
    env: &'e JvmtiEnv,
    class: GlobalRef,
    field: sys::jfieldID,
    tagged: Vec<GlobalRef>,
    active: bool,
}

impl std::fmt::Debug for FieldWatch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FieldWatch")
            .field("tagged", &self.tagged.len())
            .finish_non_exhaustive()
    }
}

impl JvmtiEnv {
    /// Starts recording the stack of every write to `field` of `class`: only writes into one
    /// of `owners` when `owners` is not empty (they are tagged for the time of the watch),
    /// every write otherwise (a static field). Needs `can_generate_field_modification_events`
    /// and `can_tag_objects`.
    pub fn watch_field_writes<'e>(
        &'e self,
        jni: &mut JNIEnv,
        class: &JClass,
        field: WatchedField,
        owners: &[JObject],
    ) -> Result<FieldWatch<'e>, JvmtiError> {
        let field = match field {
            WatchedField::Instance(id) => id.into_raw(),
            WatchedField::Static(id) => id.into_raw(),
        };
        {
            let mut active = ACTIVE.lock().unwrap_or_else(|p| p.into_inner());
            if active.is_some() {
                return Err(JvmtiError::Busy);
            }
            *active = Some(Recording {
                field: field as usize,
                filter_by_tag: !owners.is_empty(),
                stacks: Vec::new(),
                dropped: 0,
            });
        }
        let global = |object: &JObject, jni: &mut JNIEnv| {
            jni.new_global_ref(object)
                .map_err(|e| JvmtiError::AttachFailed {
                    function: "NewGlobalRef",
                    reason: e.to_string(),
                })
        };
        let mut watch = FieldWatch {
            env: self,
            class: match global(class, jni) {
                Ok(class) => class,
                Err(e) => {
                    *ACTIVE.lock().unwrap_or_else(|p| p.into_inner()) = None;
                    return Err(e);
                }
            },
            field,
            tagged: Vec::new(),
            active: true,
        };
        for owner in owners {
            let owner = global(owner, jni)?;
            // Safety: `owner` is a live global reference; the environment is live.
            unsafe { jvmti!(self, SetTag(owner.as_obj().as_raw(), WATCH_TAG)) }?;
            watch.tagged.push(owner);
        }
        self.install_callbacks()?;
        // Safety: the class reference is live, `field` is one of its fields (the caller got it
        // from GetFieldID/GetStaticFieldID on this class).
        unsafe {
            jvmti!(
                self,
                SetFieldModificationWatch(watch.class.as_obj().as_raw(), field)
            )
        }?;
        self.set_event_for_all_threads(sys::JVMTI_EVENT_FIELD_MODIFICATION, true)?;
        Ok(watch)
    }
}

impl FieldWatch<'_> {
    /// Switches the watch off, untags the owners, and resolves the recorded stacks to names.
    /// `jni` must be the current thread's environment, inside a local frame (resolution
    /// creates a local reference per distinct method's class).
    pub fn stop(
        mut self,
        jni: &mut JNIEnv,
        code_source: &mut CodeSourceOf,
    ) -> Result<WatchRecord, JvmtiError> {
        self.switch_off()?;
        let recording = ACTIVE.lock().unwrap_or_else(|p| p.into_inner()).take();
        let Some(recording) = recording else {
            return Ok(WatchRecord::default());
        };
        let stacks = self.env.resolve(jni, &recording.stacks, code_source)?;
        Ok(WatchRecord {
            stacks,
            dropped: recording.dropped,
        })
    }

    fn switch_off(&mut self) -> Result<(), JvmtiError> {
        if !self.active {
            return Ok(());
        }
        self.active = false;
        // Every step is attempted, the first error is returned.
        let disabled = self
            .env
            .set_event_for_all_threads(sys::JVMTI_EVENT_FIELD_MODIFICATION, false);
        // Safety: the class reference is live and the watch was set on (class, field).
        let cleared = unsafe {
            jvmti!(
                self.env,
                ClearFieldModificationWatch(self.class.as_obj().as_raw(), self.field)
            )
        };
        let mut untagged = Ok(());
        for owner in self.tagged.drain(..) {
            // Safety: `owner` is a live global reference.
            let result = unsafe { jvmti!(self.env, SetTag(owner.as_obj().as_raw(), 0)) };
            untagged = untagged.and(result);
        }
        disabled.and(cleared).and(untagged)
    }
}

impl Drop for FieldWatch<'_> {
    fn drop(&mut self) {
        if self.active {
            let _ = catch_unwind(AssertUnwindSafe(|| self.switch_off()));
            *ACTIVE.lock().unwrap_or_else(|p| p.into_inner()) = None;
        }
    }
}

/// The JVM's `FieldModification` callback: thin, and never unwinds into the JVM.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "system" fn on_field_modification(
    jvmti: *mut sys::jvmtiEnv,
    _jni: *mut sys::JNIEnv,
    _thread: sys::jthread,
    _method: sys::jmethodID,
    _location: sys::jlocation,
    _field_klass: sys::jclass,
    object: sys::jobject,
    field: sys::jfieldID,
    _signature_type: c_char,
    _new_value: sys::jvalue,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // Safety: the JVM passes its live environment and the references of this event.
        unsafe { record_write(jvmti, object, field) }
    }));
}

/// # Safety
/// `jvmti` must be the live environment of the event and `object` NULL or a live reference.
unsafe fn record_write(jvmti: *mut sys::jvmtiEnv, object: sys::jobject, field: sys::jfieldID) {
    let mut active = ACTIVE.lock().unwrap_or_else(|p| p.into_inner());
    let Some(recording) = active.as_mut() else {
        return;
    };
    if recording.field != field as usize {
        return;
    }
    if recording.filter_by_tag {
        if object.is_null() {
            return;
        }
        let mut tag: sys::jlong = 0;
        // Safety: live environment and reference (caller).
        if unsafe { sys::GetTag(jvmti, object, &mut tag) } != sys::JVMTI_ERROR_NONE
            || tag != WATCH_TAG
        {
            return;
        }
    }
    if recording.stacks.len() >= MAX_EVENTS {
        recording.dropped += 1;
        return;
    }
    // Safety: live environment (caller), on the event's thread.
    if let Some(stack) = unsafe { current_stack(jvmti) } {
        recording.stacks.push(stack);
    }
}
