//! The class-definition recorder: the stack of the code that defined each class a set of class
//! loaders defines while it is on (JVMTI `ClassLoad`, sent on the defining thread when the class
//! is created; `ClassPrepare` would miss a class defined and never used, since HotSpot links
//! lazily), and which of those classes are still loaded afterwards.
//!
//! The node's loaders are tagged [`LOADER_TAG`]; the callback keeps a class when its defining
//! loader (`GetClassLoader`) has that tag (or every class, for a node that is the set of classes
//! itself), records the stack and tags the class object
//! `DEFINED_TAG_BASE + serial`. After the loops and a full collection (the caller runs it), the
//! classes still tagged are the ones still loaded: an unloaded class's tag goes with it.
//! One recording is active at a time; the callback stays thin and never unwinds into the JVM.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use jni::objects::{GlobalRef, JObject, JString};
use jni::JNIEnv;

use super::stacks::{current_stack, CodeSourceOf, Frame, RawStack, MAX_EVENTS};
use super::sys;
use super::{JvmtiEnv, JvmtiError};

/// The tag on the loaders whose classes are recorded ("HGLOADER").
const LOADER_TAG: sys::jlong = 0x4847_4c4f_4144_4552;
/// The tag of the n-th class recorded is this plus n ("HGDF" and a serial below 2^32).
const DEFINED_TAG_BASE: sys::jlong = 0x4847_4446_0000_0000;

/// What the callback records, shared with it through [`DEFINING`].
struct Defining {
    /// Only classes of the tagged loaders (else every class).
    filter_by_loader: bool,
    /// The stack of each class recorded, by serial.
    stacks: Vec<RawStack>,
    /// Classes of the loaders not recorded because of the cap.
    dropped: u64,
}

static DEFINING: Mutex<Option<Defining>> = Mutex::new(None);

/// A class-definition recording in place: stop it with [`ClassDefinitions::stop`]; dropping it
/// stops it too (the class tags stay until their classes are unloaded; nothing reads them).
pub struct ClassDefinitions<'e> {
    env: &'e JvmtiEnv,
    loaders: Vec<GlobalRef>,
    active: bool,
}

impl std::fmt::Debug for ClassDefinitions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClassDefinitions")
            .field("loaders", &self.loaders.len())
            .finish_non_exhaustive()
    }
}

/// A class defined while the recording was on and still loaded when it stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefinedClass {
    /// `Class.getName()`: `pkg.Name`, a hidden class `pkg.Name/0x...`.
    pub name: String,
    /// Its stack in [`ClassRecord::stacks`].
    pub stack: usize,
}

/// What a class-definition recording saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassRecord {
    /// The classes still loaded, in the order they were defined.
    pub survivors: Vec<DefinedClass>,
    /// The stack of every class recorded, by serial (survivors point into it).
    pub stacks: Vec<Vec<Frame>>,
    /// Classes the loaders defined during the recording (recorded ones).
    pub defined: u64,
    /// Classes not recorded because of the cap.
    pub dropped: u64,
}

impl JvmtiEnv {
    /// Starts recording the classes `loaders` define, or every class defined when `loaders` is
    /// empty (needs `can_tag_objects`). `ClassLoad` needs no capability of its own.
    pub fn record_class_definitions<'e>(
        &'e self,
        jni: &mut JNIEnv,
        loaders: &[JObject],
    ) -> Result<ClassDefinitions<'e>, JvmtiError> {
        {
            let mut defining = DEFINING.lock().unwrap_or_else(|p| p.into_inner());
            if defining.is_some() {
                return Err(JvmtiError::ClassRecordingBusy);
            }
            *defining = Some(Defining {
                filter_by_loader: !loaders.is_empty(),
                stacks: Vec::new(),
                dropped: 0,
            });
        }
        let mut recording = ClassDefinitions {
            env: self,
            loaders: Vec::new(),
            active: true,
        };
        for loader in loaders {
            let loader = jni
                .new_global_ref(loader)
                .map_err(|e| JvmtiError::AttachFailed {
                    function: "NewGlobalRef",
                    reason: e.to_string(),
                })?;
            // Safety: a live global reference; the environment is live.
            unsafe { jvmti!(self, SetTag(loader.as_obj().as_raw(), LOADER_TAG)) }?;
            recording.loaders.push(loader);
        }
        self.install_callbacks()?;
        self.set_event_for_all_threads(sys::JVMTI_EVENT_CLASS_LOAD, true)?;
        Ok(recording)
    }
}

impl ClassDefinitions<'_> {
    /// Switches the recording off and returns the classes still loaded (the caller ran a full
    /// collection first, so unloadable ones are gone) with the stacks that defined them.
    /// `jni` must be the current thread's environment, inside a local frame.
    pub fn stop(
        mut self,
        jni: &mut JNIEnv,
        code_source: &mut CodeSourceOf,
    ) -> Result<ClassRecord, JvmtiError> {
        self.switch_off()?;
        let recording = DEFINING.lock().unwrap_or_else(|p| p.into_inner()).take();
        let Some(recording) = recording else {
            return Ok(ClassRecord::default());
        };
        let tags: Vec<sys::jlong> = (0..recording.stacks.len() as sys::jlong)
            .map(|serial| DEFINED_TAG_BASE + serial)
            .collect();
        let found = RefCell::new(Vec::new());
        let classes = self.env.objects_with_tags(jni, &tags, |tag| {
            found.borrow_mut().push(tag);
            true
        })?;
        let mut survivors = Vec::with_capacity(classes.len());
        for (class, tag) in classes.into_iter().zip(found.into_inner()) {
            let name = jni
                .call_method(&class, "getName", "()Ljava/lang/String;", &[])
                .and_then(|name| name.l())
                .and_then(|name| {
                    let name = JString::from(name);
                    let text = jni.get_string(&name).map(String::from);
                    let _ = jni.delete_local_ref(name);
                    text
                });
            let _ = jni.delete_local_ref(class);
            let name = name.map_err(|e| JvmtiError::AttachFailed {
                function: "Class.getName",
                reason: e.to_string(),
            })?;
            survivors.push(DefinedClass {
                name,
                stack: (tag - DEFINED_TAG_BASE) as usize,
            });
        }
        survivors.sort_by_key(|class| class.stack);
        let stacks = self.env.resolve(jni, &recording.stacks, code_source)?;
        Ok(ClassRecord {
            survivors,
            defined: stacks.len() as u64,
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
            .set_event_for_all_threads(sys::JVMTI_EVENT_CLASS_LOAD, false);
        let untagged = self.env.untag_all(self.loaders.drain(..));
        disabled.and(untagged)
    }
}

impl Drop for ClassDefinitions<'_> {
    fn drop(&mut self) {
        if self.active {
            let _ = catch_unwind(AssertUnwindSafe(|| self.switch_off()));
            *DEFINING.lock().unwrap_or_else(|p| p.into_inner()) = None;
        }
    }
}

/// The JVM's `ClassLoad` callback: thin, and never unwinds into the JVM.
pub(super) unsafe extern "system" fn on_class_load(
    jvmti: *mut sys::jvmtiEnv,
    _jni: *mut sys::JNIEnv,
    _thread: sys::jthread,
    klass: sys::jclass,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // Safety: the JVM passes its live environment and the class of this event.
        unsafe { record_definition(jvmti, klass) }
    }));
}

/// Whether `klass`'s defining loader carries [`LOADER_TAG`].
///
/// # Safety
/// `jvmti` must be the live environment of the event and `klass` a live class reference.
unsafe fn defined_by_tagged_loader(jvmti: *mut sys::jvmtiEnv, klass: sys::jclass) -> bool {
    let mut loader: sys::jobject = std::ptr::null_mut();
    // Safety: live environment and class (caller); `loader` is writable. The local reference
    // it returns is freed when the callback returns.
    if unsafe { sys::GetClassLoader(jvmti, klass, &mut loader) } != sys::JVMTI_ERROR_NONE
        || loader.is_null()
    {
        return false;
    }
    let mut tag: sys::jlong = 0;
    // Safety: live environment and reference.
    let found = unsafe { sys::GetTag(jvmti, loader, &mut tag) };
    found == sys::JVMTI_ERROR_NONE && tag == LOADER_TAG
}

/// # Safety
/// `jvmti` must be the live environment of the event and `klass` a live class reference.
unsafe fn record_definition(jvmti: *mut sys::jvmtiEnv, klass: sys::jclass) {
    let mut defining = DEFINING.lock().unwrap_or_else(|p| p.into_inner());
    let Some(recording) = defining.as_mut() else {
        return;
    };
    // Safety: live environment and class (caller).
    if recording.filter_by_loader && !unsafe { defined_by_tagged_loader(jvmti, klass) } {
        return;
    }
    if recording.stacks.len() >= MAX_EVENTS {
        recording.dropped += 1;
        return;
    }
    // Safety: live environment (caller), on the event's thread.
    let Some(stack) = (unsafe { current_stack(jvmti) }) else {
        return;
    };
    let serial = recording.stacks.len() as sys::jlong;
    // Safety: live environment and class reference.
    if unsafe { sys::SetTag(jvmti, klass, DEFINED_TAG_BASE + serial) } == sys::JVMTI_ERROR_NONE {
        recording.stacks.push(stack);
    }
}
