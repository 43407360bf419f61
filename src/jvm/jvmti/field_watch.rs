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
    /// The watched fields' ids.
    fields: Vec<usize>,
    filter_by_tag: bool,
    /// Only writes of a reference to a new object allocation sampling tagged (the value's tag
    /// is recorded as the write's pair).
    filter_by_value: bool,
    stacks: Vec<RawStack>,
    /// Per stack: the index in `fields` of the field written, and the object allocation
    /// sampling saw the writing thread make last (see [`super::allocation_sampling`]).
    writes: Vec<(usize, Option<sys::jlong>)>,
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
    /// Each watched field and its class; on stop, cleared from the first, while `active`.
    watched: Vec<(GlobalRef, sys::jfieldID)>,
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
        self.watch_fields_writes(jni, &[(class, field)], owners)
    }

    /// Starts recording the stack of every write to `fields` (of any object) whose new value is
    /// an object allocation sampling tagged, with that object's tag: the writes that link a
    /// new object (`parent.left = node`). Needs allocation sampling running, and the
    /// capabilities of [`JvmtiEnv::watch_field_writes`].
    pub fn watch_sampled_values_written<'e>(
        &'e self,
        jni: &mut JNIEnv,
        fields: &[(&JClass, WatchedField)],
    ) -> Result<FieldWatch<'e>, JvmtiError> {
        self.start_watch(jni, fields, &[], true)
    }

    /// [`JvmtiEnv::watch_field_writes`] on several fields at once (an owner's fields, each
    /// declared by `class` or one of its superclasses); the record says which field each write
    /// was to.
    pub fn watch_fields_writes<'e>(
        &'e self,
        jni: &mut JNIEnv,
        fields: &[(&JClass, WatchedField)],
        owners: &[JObject],
    ) -> Result<FieldWatch<'e>, JvmtiError> {
        self.start_watch(jni, fields, owners, false)
    }

    fn start_watch<'e>(
        &'e self,
        jni: &mut JNIEnv,
        fields: &[(&JClass, WatchedField)],
        owners: &[JObject],
        by_value: bool,
    ) -> Result<FieldWatch<'e>, JvmtiError> {
        let raw = |field: &WatchedField| match *field {
            WatchedField::Instance(id) => id.into_raw(),
            WatchedField::Static(id) => id.into_raw(),
        };
        {
            let mut active = ACTIVE.lock().unwrap_or_else(|p| p.into_inner());
            if active.is_some() {
                return Err(JvmtiError::Busy);
            }
            *active = Some(Recording {
                fields: fields.iter().map(|(_, f)| raw(f) as usize).collect(),
                filter_by_tag: !owners.is_empty(),
                filter_by_value: by_value,
                stacks: Vec::new(),
                writes: Vec::new(),
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
        // From here the drop of `watch` clears what was set, and the recording.
        let mut watch = FieldWatch {
            env: self,
            watched: Vec::new(),
            tagged: Vec::new(),
            active: true,
        };
        for (class, field) in fields {
            watch.watched.push((global(class, jni)?, raw(field)));
        }
        for owner in owners {
            let owner = global(owner, jni)?;
            // Safety: `owner` is a live global reference; the environment is live.
            unsafe { jvmti!(self, SetTag(owner.as_obj().as_raw(), WATCH_TAG)) }?;
            watch.tagged.push(owner);
        }
        self.install_callbacks()?;
        for (set, (class, field)) in watch.watched.iter().enumerate() {
            // Safety: the class reference is live, `field` is one of its fields (the caller got
            // it from GetFieldID/GetStaticFieldID on this class).
            let result = unsafe {
                jvmti!(
                    self,
                    SetFieldModificationWatch(class.as_obj().as_raw(), *field)
                )
            };
            if let Err(error) = result {
                // Only the watches set are cleared on drop.
                watch.watched.truncate(set);
                return Err(error);
            }
        }
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
        let (fields, paired) = recording.writes.into_iter().unzip();
        Ok(WatchRecord {
            stacks,
            dropped: recording.dropped,
            fields,
            paired,
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
        let mut cleared = Ok(());
        for (class, field) in &self.watched {
            // Safety: the class reference is live and the watch was set on (class, field).
            let result = unsafe {
                jvmti!(
                    self.env,
                    ClearFieldModificationWatch(class.as_obj().as_raw(), *field)
                )
            };
            cleared = cleared.and(result);
        }
        let untagged = self.env.untag_all(self.tagged.drain(..));
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
    jni: *mut sys::JNIEnv,
    _thread: sys::jthread,
    _method: sys::jmethodID,
    _location: sys::jlocation,
    _field_klass: sys::jclass,
    object: sys::jobject,
    field: sys::jfieldID,
    signature_type: c_char,
    new_value: sys::jvalue,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // A reference written ('L' object, '[' array): the value is the union's `l`.
        let value = if signature_type as u8 == b'L' || signature_type as u8 == b'[' {
            // Safety: for these signature types the JVM set the union's object member.
            unsafe { new_value.l }
        } else {
            std::ptr::null_mut()
        };
        // Safety: the JVM passes its live environment and the references of this event.
        unsafe { record_write(jvmti, jni, object, field, value) }
    }));
}

/// # Safety
/// `jvmti` must be the live environment of the event, `object` and `value` NULL or live
/// references.
unsafe fn record_write(
    jvmti: *mut sys::jvmtiEnv,
    jni: *mut sys::JNIEnv,
    object: sys::jobject,
    field: sys::jfieldID,
    value: sys::jobject,
) {
    let mut active = ACTIVE.lock().unwrap_or_else(|p| p.into_inner());
    let Some(recording) = active.as_mut() else {
        return;
    };
    let Some(index) = recording.fields.iter().position(|&f| f == field as usize) else {
        return;
    };
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
    let mut value_tag: sys::jlong = 0;
    if recording.filter_by_value {
        // Safety: live environment and reference (caller).
        if value.is_null()
            || unsafe { sys::GetTag(jvmti, value, &mut value_tag) } != sys::JVMTI_ERROR_NONE
            || !super::allocation_sampling::is_sample_tag(value_tag)
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
        // Lock order: the watch's, then sampling's (sampling never takes the watch's).
        let paired = if recording.filter_by_value {
            Some(value_tag)
        } else {
            super::allocation_sampling::last_sample_on(jni)
        };
        recording.writes.push((index, paired));
    }
}
