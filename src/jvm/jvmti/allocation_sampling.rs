//! Sampled allocation events with interval 0 (every allocation): the allocation stacks of
//! objects of a few classes, kept for the objects that end up retained by a growing node. The
//! last-resort recorder of attribution.
//!
//! While sampling runs, each new object of a watched class (class objects tagged
//! [`CLASS_TAG`]) gets a fresh tag and its stack is kept under that tag. Afterwards the caller
//! hands over the objects now under the node: their tags pick their stacks. Every tag set here
//! is reset to 0 before [`AllocationSampling::stop`] returns.
//!
//! Its twin, `attach/agent_sampling.rs`, samples allocations in a JVM heapgrowth attached to,
//! through the C agent: nothing of heapgrowth's Rust runs in an attached JVM, so the same
//! recording is written twice, here in process and there in C.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use jni::objects::{GlobalRef, JClass, JObject};
use jni::JNIEnv;

use super::stacks::{current_stack, CodeSourceOf, RawStack, WatchRecord, MAX_EVENTS};
use super::sys;
use super::{JvmtiEnv, JvmtiError};

/// Tag of the watched classes' class objects.
const CLASS_TAG: sys::jlong = 0x4847_414c_4c43_4c01;
/// First tag given to a sampled object; each gets the next one.
const FIRST_OBJECT_TAG: sys::jlong = 0x4847_414c_4c00_0000;

struct Sampling {
    next_tag: sys::jlong,
    stacks: HashMap<sys::jlong, RawStack>,
    dropped: u64,
}

static SAMPLING: Mutex<Option<Sampling>> = Mutex::new(None);

/// Allocation sampling in place; dropping it switches it off (without results).
pub struct AllocationSampling<'e> {
    env: &'e JvmtiEnv,
    classes: Vec<GlobalRef>,
    active: bool,
}

impl std::fmt::Debug for AllocationSampling<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AllocationSampling")
            .field("classes", &self.classes.len())
            .finish_non_exhaustive()
    }
}

impl JvmtiEnv {
    /// Starts recording the allocation stack of every new object of `classes` (exact classes,
    /// not subclasses). Needs `can_generate_sampled_object_alloc_events` and `can_tag_objects`.
    pub fn sample_allocations<'e>(
        &'e self,
        jni: &mut JNIEnv,
        classes: &[JClass],
    ) -> Result<AllocationSampling<'e>, JvmtiError> {
        {
            let mut active = SAMPLING.lock().unwrap_or_else(|p| p.into_inner());
            if active.is_some() {
                return Err(JvmtiError::Busy);
            }
            *active = Some(Sampling {
                next_tag: FIRST_OBJECT_TAG,
                stacks: HashMap::new(),
                dropped: 0,
            });
        }
        let mut sampling = AllocationSampling {
            env: self,
            classes: Vec::new(),
            active: true,
        };
        for class in classes {
            let class = jni
                .new_global_ref(class)
                .map_err(|e| JvmtiError::AttachFailed {
                    function: "NewGlobalRef",
                    reason: e.to_string(),
                })?;
            // Safety: a live global reference; the environment is live.
            unsafe { jvmti!(self, SetTag(class.as_obj().as_raw(), CLASS_TAG)) }?;
            sampling.classes.push(class);
        }
        self.install_callbacks()?;
        self.set_event_for_all_threads(sys::JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, true)?;
        Ok(sampling)
    }
}

impl AllocationSampling<'_> {
    /// Switches sampling off and returns the allocation stacks of the objects sampled while it
    /// ran that are among `node_objects` or (with `below`) reachable from them through fields
    /// and array elements: the new objects now under a growing node, wherever below it they
    /// are. Resets every tag it set. `jni` must be the current thread's environment, inside a
    /// local frame.
    pub fn stop(
        mut self,
        jni: &mut JNIEnv,
        node_objects: &[JObject],
        below: bool,
        code_source: &mut CodeSourceOf,
    ) -> Result<WatchRecord, JvmtiError> {
        self.switch_off()?;
        let Some(sampling) = SAMPLING.lock().unwrap_or_else(|p| p.into_inner()).take() else {
            return Ok(WatchRecord::default());
        };
        let sampled: HashSet<sys::jlong> = sampling.stacks.keys().copied().collect();
        let found = if below {
            self.env.tags_reachable_from(node_objects, &sampled)
        } else {
            self.env.tags_of(node_objects).map(|tags| {
                tags.into_iter()
                    .filter(|tag| sampled.contains(tag))
                    .collect()
            })
        };
        // Every sampled object still alive gets tag 0 again, found or not, error or not.
        let tags: Vec<sys::jlong> = sampled.iter().copied().collect();
        let untagged = self.env.objects_with_tags(jni, &tags, |_| false);
        let found = found?;
        untagged?;
        let mut kept_tags: Vec<sys::jlong> = found.into_iter().collect();
        kept_tags.sort_unstable();
        let kept: Vec<RawStack> = kept_tags
            .iter()
            .map(|tag| sampling.stacks[tag].clone())
            .collect();
        let stacks = self.env.resolve(jni, &kept, code_source)?;
        Ok(WatchRecord {
            stacks,
            dropped: sampling.dropped,
        })
    }

    fn switch_off(&mut self) -> Result<(), JvmtiError> {
        if !self.active {
            return Ok(());
        }
        self.active = false;
        let disabled = self
            .env
            .set_event_for_all_threads(sys::JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, false);
        let mut untagged = Ok(());
        for class in self.classes.drain(..) {
            // Safety: a live global reference.
            untagged =
                untagged.and(unsafe { jvmti!(self.env, SetTag(class.as_obj().as_raw(), 0)) });
        }
        disabled.and(untagged)
    }
}

impl Drop for AllocationSampling<'_> {
    fn drop(&mut self) {
        if self.active {
            let _ = catch_unwind(AssertUnwindSafe(|| self.switch_off()));
            // Tags on sampled objects go with the objects; the ones still alive keep a tag
            // nobody reads (only `stop` could find them, and it was not called).
            *SAMPLING.lock().unwrap_or_else(|p| p.into_inner()) = None;
        }
    }
}

/// The JVM's `SampledObjectAlloc` callback: thin, and never unwinds into the JVM.
pub(super) unsafe extern "system" fn on_sampled_object_alloc(
    jvmti: *mut sys::jvmtiEnv,
    _jni: *mut sys::JNIEnv,
    _thread: sys::jthread,
    object: sys::jobject,
    object_klass: sys::jclass,
    _size: sys::jlong,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // Safety: the JVM passes its live environment and this event's references.
        unsafe { record_allocation(jvmti, object, object_klass) }
    }));
}

/// # Safety
/// `jvmti` must be the event's live environment, `object` and `class` its live references.
unsafe fn record_allocation(jvmti: *mut sys::jvmtiEnv, object: sys::jobject, class: sys::jclass) {
    let mut class_tag: sys::jlong = 0;
    // Safety: caller. Checked before the lock: most allocations are of other classes.
    if unsafe { sys::GetTag(jvmti, class, &mut class_tag) } != sys::JVMTI_ERROR_NONE
        || class_tag != CLASS_TAG
    {
        return;
    }
    let mut active = SAMPLING.lock().unwrap_or_else(|p| p.into_inner());
    let Some(sampling) = active.as_mut() else {
        return;
    };
    if sampling.stacks.len() >= MAX_EVENTS {
        sampling.dropped += 1;
        return;
    }
    // Safety: caller; on the allocating thread.
    let Some(stack) = (unsafe { current_stack(jvmti) }) else {
        return;
    };
    let tag = sampling.next_tag;
    // Safety: caller.
    if unsafe { sys::SetTag(jvmti, object, tag) } == sys::JVMTI_ERROR_NONE {
        sampling.next_tag += 1;
        sampling.stacks.insert(tag, stack);
    }
}
