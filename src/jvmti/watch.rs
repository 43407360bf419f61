//! Field-modification watches that record the stack of every write to one field, filtered to
//! tagged objects: the JVMTI side of attribution.
//!
//! One watch is active at a time in the process. The JVM calls [`on_field_modification`] on the
//! writing thread; it stays thin (a tag compare and a `GetStackTrace` into a buffer) and never
//! unwinds into the JVM. Method ids are turned into names after the watch is stopped.

use std::collections::HashMap;
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use jni::objects::{GlobalRef, JClass, JFieldID, JObject, JStaticFieldID};
use jni::JNIEnv;

use super::sys;
use super::{JvmtiEnv, JvmtiError};

/// The tag heapgrowth puts on watched objects ("HG" and a marker); nothing else in the JVM
/// tags objects through this environment.
const WATCH_TAG: sys::jlong = 0x4847_5741_5443_4801;
/// Frames kept per recorded event: enough to pass the JDK's and a library's own frames and
/// reach the caller's.
pub const MAX_FRAMES: usize = 64;
/// Writes recorded at most per watch, so a hot field cannot exhaust memory.
pub(super) const MAX_EVENTS: usize = 20_000;

/// What the callback needs, shared with it through [`ACTIVE`].
struct Recording {
    field: usize,
    filter_by_tag: bool,
    stacks: Vec<RawStack>,
    dropped: u64,
}

static ACTIVE: Mutex<Option<Recording>> = Mutex::new(None);

/// One frame of a recorded stack, resolved to names.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    /// Declaring class, `pkg.Outer$Inner`.
    pub class: String,
    /// Method name.
    pub method: String,
    /// Source file, if the class has one.
    pub file: Option<String>,
    /// Source line, if the method has a line number table.
    pub line: Option<i32>,
    /// Where the class was loaded from, its code source's URL (`file:/app/classes/`,
    /// `file:/repo/guava.jar`); `None` for the JDK's own classes.
    pub code_source: Option<String>,
}

/// Finds a class's code source (see [`Frame::code_source`]) for [`FieldWatch::stop`] and
/// [`super::AllocationSampling::stop`]: heapgrowth's Java helper, which recording proxies use
/// too, so both name code sources alike.
pub type CodeSourceOf<'a> = dyn FnMut(&mut JNIEnv, &JObject) -> Option<String> + 'a;

impl std::fmt::Display for Frame {
    /// `pkg.Class.method(File.java:LINE)`, as Java prints stack frames.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}(", self.class, self.method)?;
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{file}:{line})"),
            (Some(file), None) => write!(f, "{file})"),
            // JFR's stacks have lines but no files.
            (None, Some(line)) => write!(f, "line {line})"),
            (None, None) => f.write_str("Unknown Source)"),
        }
    }
}

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

/// What a stopped watch recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WatchRecord {
    /// One stack per recorded write, innermost frame first.
    pub stacks: Vec<Vec<Frame>>,
    /// Writes not recorded because of the cap.
    pub dropped: u64,
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

/// What a frame needs of its method, looked up once per method.
pub(super) struct MethodNames {
    pub(super) class: String,
    pub(super) method: String,
    file: Option<String>,
    lines: Vec<sys::jvmtiLineNumberEntry>,
    code_source: Option<String>,
}

/// Raw frames as `GetStackTrace` gave them: method id (as an address) and bytecode index.
pub(super) type RawStack = Vec<(usize, sys::jlocation)>;

impl JvmtiEnv {
    /// Sets the event callbacks heapgrowth uses (field modification, sampled allocation); the
    /// events themselves stay off until a recorder enables them.
    pub(super) fn install_callbacks(&self) -> Result<(), JvmtiError> {
        let mut callbacks = sys::jvmtiEventCallbacks {
            slots: [None; sys::EVENT_CALLBACK_SLOTS],
        };
        let field: sys::FieldModificationCallback = on_field_modification;
        let alloc: sys::SampledObjectAllocCallback = super::sampling::on_sampled_object_alloc;
        // Safety: function pointers of one ABI; the JVM calls each slot with its event's
        // signature, which each handler has.
        unsafe {
            callbacks.slots
                [(sys::JVMTI_EVENT_FIELD_MODIFICATION - sys::JVMTI_MIN_EVENT_TYPE_VAL) as usize] =
                Some(std::mem::transmute::<
                    sys::FieldModificationCallback,
                    sys::AnyFn,
                >(field));
            callbacks.slots[(sys::JVMTI_EVENT_SAMPLED_OBJECT_ALLOC - sys::JVMTI_MIN_EVENT_TYPE_VAL)
                as usize] = Some(std::mem::transmute::<
                sys::SampledObjectAllocCallback,
                sys::AnyFn,
            >(alloc));
        }
        let size = std::mem::size_of::<sys::jvmtiEventCallbacks>() as sys::jint;
        // Safety: `callbacks` is a valid table of `size` bytes, copied by the JVM.
        unsafe { jvmti!(self, SetEventCallbacks(&callbacks, size)) }
    }

    /// Names for recorded stacks. `jni` must be the current thread's environment, inside a
    /// local frame (one local reference per distinct method's class, deleted as it goes).
    pub(super) fn resolve(
        &self,
        jni: &mut JNIEnv,
        raw: &[RawStack],
        code_source: &mut CodeSourceOf,
    ) -> Result<Vec<Vec<Frame>>, JvmtiError> {
        let mut names: HashMap<usize, MethodNames> = HashMap::new();
        let mut stacks = Vec::with_capacity(raw.len());
        for raw in raw {
            let mut frames = Vec::with_capacity(raw.len());
            for &(method, location) in raw {
                if let std::collections::hash_map::Entry::Vacant(slot) = names.entry(method) {
                    slot.insert(self.method_names(jni, method as sys::jmethodID, code_source)?);
                }
                let names = &names[&method];
                let line = names
                    .lines
                    .iter()
                    .filter(|entry| entry.start_location <= location)
                    .max_by_key(|entry| entry.start_location)
                    .map(|entry| entry.line_number);
                frames.push(Frame {
                    class: names.class.clone(),
                    method: names.method.clone(),
                    file: names.file.clone(),
                    line,
                    code_source: names.code_source.clone(),
                });
            }
            stacks.push(frames);
        }
        Ok(stacks)
    }

    /// Class name, method name, source file, line table and code source of `method`.
    pub(super) fn method_names(
        &self,
        jni: &mut JNIEnv,
        method: sys::jmethodID,
        code_source: &mut CodeSourceOf,
    ) -> Result<MethodNames, JvmtiError> {
        let mut class: sys::jclass = std::ptr::null_mut();
        // Safety: `method` was reported by GetStackTrace while its class was loaded; classes
        // with a live method on a recorded stack are not unloaded while the scenario's loader
        // lives. `class` is writable.
        unsafe { jvmti!(self, GetMethodDeclaringClass(method, &mut class)) }?;
        // Safety: `class` is a local reference JVMTI just returned; owning it frees it.
        let class = unsafe { JObject::from_raw(class) };
        let mut signature: *mut c_char = std::ptr::null_mut();
        // Safety: the class reference is live; a NULL generic pointer is allowed.
        unsafe {
            jvmti!(
                self,
                GetClassSignature(class.as_raw(), &mut signature, std::ptr::null_mut())
            )
        }?;
        // Safety: JVMTI returned a NUL-terminated string it allocated.
        let signature = unsafe { self.take_string(signature) };
        let mut name: *mut c_char = std::ptr::null_mut();
        // Safety: `method` is valid (see above); NULL for the outputs we don't want.
        unsafe {
            jvmti!(
                self,
                GetMethodName(
                    method,
                    &mut name,
                    std::ptr::null_mut(),
                    std::ptr::null_mut()
                )
            )
        }?;
        // Safety: as above.
        let name = unsafe { self.take_string(name) };
        let mut file: *mut c_char = std::ptr::null_mut();
        // Safety: live class reference; absent information is an error code, not UB.
        let file = match unsafe { jvmti!(self, GetSourceFileName(class.as_raw(), &mut file)) } {
            // Safety: as above.
            Ok(()) => Some(unsafe { self.take_string(file) }),
            Err(_) => None,
        };
        let mut count: sys::jint = 0;
        let mut table: *mut sys::jvmtiLineNumberEntry = std::ptr::null_mut();
        // Safety: `method` is valid; native methods answer with an error code.
        let lines =
            match unsafe { jvmti!(self, GetLineNumberTable(method, &mut count, &mut table)) } {
                Ok(()) if !table.is_null() => {
                    // Safety: JVMTI allocated `count` entries at `table`.
                    let lines = unsafe { std::slice::from_raw_parts(table, count.max(0) as usize) }
                        .to_vec();
                    // Safety: `table` was allocated by JVMTI and is freed once.
                    let _ = unsafe { jvmti!(self, Deallocate(table.cast())) };
                    lines
                }
                _ => Vec::new(),
            };
        let code_source = code_source(jni, &class);
        let _ = jni.delete_local_ref(class);
        Ok(MethodNames {
            class: class_name(&signature),
            method: name,
            file,
            lines,
            code_source,
        })
    }

    /// Copies and frees a string JVMTI allocated; empty for NULL.
    ///
    /// # Safety
    /// `raw` must be NULL or a NUL-terminated string allocated by this environment, not used
    /// afterwards.
    unsafe fn take_string(&self, raw: *mut c_char) -> String {
        if raw.is_null() {
            return String::new();
        }
        // Safety: the caller guarantees a NUL-terminated string.
        let text = unsafe { CStr::from_ptr(raw) }
            .to_string_lossy()
            .into_owned();
        // Safety: allocated by JVMTI, freed once.
        let _ = unsafe { jvmti!(self, Deallocate(raw.cast())) };
        text
    }
}

/// `Lpkg/Outer$Inner;` → `pkg.Outer$Inner`; arrays as `[Ljava/lang/Object;` stay readable.
fn class_name(signature: &str) -> String {
    signature
        .strip_prefix('L')
        .and_then(|s| s.strip_suffix(';'))
        .unwrap_or(signature)
        .replace('/', ".")
}

/// The JVM's `FieldModification` callback: thin, and never unwinds into the JVM.
#[allow(clippy::too_many_arguments)]
unsafe extern "system" fn on_field_modification(
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

/// Up to [`MAX_FRAMES`] frames of the current thread.
///
/// # Safety
/// `jvmti` must be a live environment and the thread attached (an event callback's).
pub(super) unsafe fn current_stack(jvmti: *mut sys::jvmtiEnv) -> Option<RawStack> {
    let mut frames = [sys::jvmtiFrameInfo {
        method: std::ptr::null_mut(),
        location: 0,
    }; MAX_FRAMES];
    let mut count: sys::jint = 0;
    // Safety: NULL thread is the current thread; the buffer holds MAX_FRAMES frames.
    let code = unsafe {
        sys::GetStackTrace(
            jvmti,
            std::ptr::null_mut(),
            0,
            MAX_FRAMES as sys::jint,
            frames.as_mut_ptr(),
            &mut count,
        )
    };
    if code != sys::JVMTI_ERROR_NONE {
        return None;
    }
    Some(
        frames[..count.max(0) as usize]
            .iter()
            .map(|f| (f.method as usize, f.location))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_signatures_become_java_names() {
        assert_eq!(
            class_name("Lcorpus/app/Registry$Entry;"),
            "corpus.app.Registry$Entry"
        );
        assert_eq!(class_name("I"), "I");
    }

    #[test]
    fn frames_print_as_java_does() {
        let frame = Frame {
            class: "a.B".into(),
            method: "run".into(),
            file: Some("B.java".into()),
            line: Some(12),
            code_source: None,
        };
        assert_eq!(frame.to_string(), "a.B.run(B.java:12)");
        let native = Frame {
            line: None,
            file: None,
            ..frame
        };
        assert_eq!(native.to_string(), "a.B.run(Unknown Source)");
    }
}
