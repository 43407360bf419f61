//! Field-access watches for the remove hint (issue 32): while a container watch is on, the
//! stacks of the reads of the same field of the same containers made from a remove-like method.
//!
//! A `remove(o)` that finds nothing writes nothing (`ArrayList.remove` reads `size` once and
//! returns `false`), so the write watch cannot see it; a read watch can. Reads are far more
//! frequent than writes (`size()`, every `get` and iterator step), and the JVM posts an event
//! for every read of the field of every object of the class while the watch is on, so the
//! callback stays thin: a field compare, a tag compare, the top [`TOP_FRAMES`] frames' method
//! names (cached per method id), and the whole stack only for a remove-like read. After
//! [`MAX_READ_EVENTS`] events it switches the event off itself ([`ReadRecord::cut`]).
//!
//! The owners' tag is the field watch's: start this watch after
//! [`JvmtiEnv::watch_field_writes`] on the same field and stop it before that one stops.

use std::collections::HashMap;
use std::ffi::CStr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use jni::objects::JClass;
use jni::JNIEnv;

use super::access_watch::AccessWatch;
use super::field_watch::WATCH_TAG;
use super::stacks::{current_stack, CodeSourceOf, Frame, RawStack, MAX_EVENTS};
use super::sys;
use super::{JvmtiEnv, JvmtiError, WatchedField};

/// Read events a watch takes before it switches itself off: a scenario that reads the field
/// millions of times a loop (a hot `size()`) would otherwise run many times slower while the
/// watch is on. At a few microseconds an event, about a second at most.
pub const MAX_READ_EVENTS: u64 = 200_000;
/// Innermost frames whose methods are looked at: the container's remove-like method (its own
/// read, or a helper such as `indexOf` it calls), or the caller's `removeListener`.
const TOP_FRAMES: usize = 4;

/// Whether a method of that name removes something from a container or registry: `remove`,
/// `removeElement`, `removeListener`, `removeFirstOccurrence`..., `unsubscribe`, `unregister`.
pub fn is_remove_like(method: &str) -> bool {
    let prefixed = |prefix: &str| {
        method
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_uppercase))
    };
    prefixed("remove") || prefixed("unsubscribe") || prefixed("unregister")
}

/// What the callback needs, shared with it through [`READING`].
struct Reading {
    field: usize,
    filter_by_tag: bool,
    events: u64,
    cut: bool,
    /// The callback cleared the watch when it cut it short.
    cleared: bool,
    remove_like: HashMap<usize, bool>,
    stacks: Vec<RawStack>,
}

static READING: Mutex<Option<Reading>> = Mutex::new(None);

/// A read watch in place: stop it with [`ReadWatch::stop`]; dropping it stops it too.
pub struct ReadWatch<'e> {
    access: AccessWatch<'e>,
}

impl std::fmt::Debug for ReadWatch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadWatch").finish_non_exhaustive()
    }
}

/// What a stopped read watch recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadRecord {
    /// One stack per remove-like read, innermost frame first.
    pub stacks: Vec<Vec<Frame>>,
    /// Whether the watch switched itself off after [`MAX_READ_EVENTS`] events.
    pub cut: bool,
}

impl JvmtiEnv {
    /// Starts recording the stacks of remove-like reads of `field` of `class`: of the objects
    /// the field watch tagged for an instance field, of the class for a static one. Needs
    /// `can_generate_field_access_events`.
    pub fn watch_removing_reads<'e>(
        &'e self,
        jni: &mut JNIEnv,
        class: &JClass,
        field: WatchedField,
    ) -> Result<ReadWatch<'e>, JvmtiError> {
        let (field, filter_by_tag) = match field {
            WatchedField::Instance(id) => (id.into_raw(), true),
            WatchedField::Static(id) => (id.into_raw(), false),
        };
        let access = AccessWatch::new(self, jni, class, field)?;
        {
            let mut reading = READING.lock().unwrap_or_else(|p| p.into_inner());
            if reading.is_some() {
                return Err(JvmtiError::Busy);
            }
            *reading = Some(Reading {
                field: field as usize,
                filter_by_tag,
                events: 0,
                cut: false,
                cleared: false,
                remove_like: HashMap::new(),
                stacks: Vec::new(),
            });
        }
        // From here the drop of `watch` clears the recording (and the watch once set).
        let mut watch = ReadWatch { access };
        watch.access.set()?;
        Ok(watch)
    }
}

impl ReadWatch<'_> {
    /// Switches the watch off and resolves the recorded stacks to names. `jni` as for
    /// [`super::FieldWatch::stop`].
    pub fn stop(
        mut self,
        jni: &mut JNIEnv,
        code_source: &mut CodeSourceOf,
    ) -> Result<ReadRecord, JvmtiError> {
        self.switch_off()?;
        let reading = READING.lock().unwrap_or_else(|p| p.into_inner()).take();
        let Some(reading) = reading else {
            return Ok(ReadRecord::default());
        };
        Ok(ReadRecord {
            stacks: self.access.env.resolve(jni, &reading.stacks, code_source)?,
            cut: reading.cut,
        })
    }

    fn switch_off(&mut self) -> Result<(), JvmtiError> {
        let cleared_by_cut = READING
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .is_some_and(|reading| reading.cleared);
        self.access.switch_off(cleared_by_cut)
    }
}

impl Drop for ReadWatch<'_> {
    fn drop(&mut self) {
        let _ = catch_unwind(AssertUnwindSafe(|| self.switch_off()));
        *READING.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// The JVM's `FieldAccess` callback: thin, and never unwinds into the JVM.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "system" fn on_field_access(
    jvmti: *mut sys::jvmtiEnv,
    jni: *mut sys::JNIEnv,
    _thread: sys::jthread,
    method: sys::jmethodID,
    _location: sys::jlocation,
    field_klass: sys::jclass,
    object: sys::jobject,
    field: sys::jfieldID,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // Safety: the JVM passes its live environment and the references of this event.
        unsafe { record_read(jvmti, field_klass, object, field) }
    }));
    // The thread-start watch shares the event (one callbacks table).
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // Safety: as above, on the event's thread.
        unsafe { super::thread_starts::record_start_read(jvmti, jni, method, field) }
    }));
}

/// # Safety
/// `jvmti` must be the live environment of the event, `klass` the field's live class and
/// `object` NULL or a live reference.
unsafe fn record_read(
    jvmti: *mut sys::jvmtiEnv,
    klass: sys::jclass,
    object: sys::jobject,
    field: sys::jfieldID,
) {
    let mut reading = READING.lock().unwrap_or_else(|p| p.into_inner());
    let Some(reading) = reading.as_mut() else {
        return;
    };
    if reading.field != field as usize || reading.cut {
        return;
    }
    reading.events += 1;
    if reading.events > MAX_READ_EVENTS {
        reading.cut = true;
        // The event off, and the watch cleared, so that the code reading the field runs
        // compiled again. Safety: live environment and class (caller); NULL thread means all
        // threads. An error leaves the event on, and every later event returns above.
        let _ = unsafe {
            sys::SetEventNotificationMode(
                jvmti,
                sys::JVMTI_DISABLE,
                sys::JVMTI_EVENT_FIELD_ACCESS,
                std::ptr::null_mut(),
            )
        };
        // Safety: as above; the watch was set on (klass, field).
        reading.cleared =
            unsafe { sys::ClearFieldAccessWatch(jvmti, klass, field) } == sys::JVMTI_ERROR_NONE;
        return;
    }
    if reading.filter_by_tag {
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
    if reading.stacks.len() >= MAX_EVENTS {
        return;
    }
    let mut top = [sys::jvmtiFrameInfo {
        method: std::ptr::null_mut(),
        location: 0,
    }; TOP_FRAMES];
    let mut count: sys::jint = 0;
    // Safety: NULL thread is the current thread; the buffer holds TOP_FRAMES frames.
    let code = unsafe {
        sys::GetStackTrace(
            jvmti,
            std::ptr::null_mut(),
            0,
            TOP_FRAMES as sys::jint,
            top.as_mut_ptr(),
            &mut count,
        )
    };
    if code != sys::JVMTI_ERROR_NONE {
        return;
    }
    let count = usize::try_from(count).unwrap_or(0).min(TOP_FRAMES);
    let removing = top[..count].iter().any(|frame| {
        *reading
            .remove_like
            .entry(frame.method as usize)
            // Safety: live environment (caller); the method id is of a frame on this stack.
            .or_insert_with(|| unsafe { method_is_remove_like(jvmti, frame.method) })
    });
    if !removing {
        return;
    }
    // Safety: live environment (caller), on the event's thread.
    if let Some(stack) = unsafe { current_stack(jvmti) } {
        reading.stacks.push(stack);
    }
}

/// # Safety
/// `jvmti` must be a live environment and `method` a live method id.
unsafe fn method_is_remove_like(jvmti: *mut sys::jvmtiEnv, method: sys::jmethodID) -> bool {
    let mut name: *mut std::ffi::c_char = std::ptr::null_mut();
    // Safety: live environment and method (caller); NULL for the parts not wanted.
    let code = unsafe {
        sys::GetMethodName(
            jvmti,
            method,
            &mut name,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    if code != sys::JVMTI_ERROR_NONE || name.is_null() {
        return false;
    }
    // Safety: a NUL-terminated string JVMTI allocated.
    let remove_like = is_remove_like(&unsafe { CStr::from_ptr(name) }.to_string_lossy());
    // Safety: allocated by JVMTI, freed once.
    let _ = unsafe { sys::Deallocate(jvmti, name.cast()) };
    remove_like
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_like_names() {
        for name in [
            "remove",
            "removeElement",
            "removeFirstOccurrence",
            "removeListener",
            "removePropertyChangeListener",
            "unsubscribe",
            "unregister",
            "unregisterListener",
        ] {
            assert!(is_remove_like(name), "{name}");
        }
        for name in [
            "removed",
            "removal",
            "size",
            "indexOf",
            "get",
            "unsubscribed",
        ] {
            assert!(!is_remove_like(name), "{name}");
        }
    }
}
