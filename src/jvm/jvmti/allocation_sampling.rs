//! Sampled allocation events with interval 0 (every allocation): the allocation stacks of
//! objects of a few classes, kept for the objects that end up retained by a growing node. The
//! last-resort recorder of attribution.
//!
//! While sampling runs, each new object of a watched class (class objects tagged
//! [`CLASS_TAG`]) gets a tag that names its allocation stack in a table of distinct stacks
//! ([`SampleTag`]: no table per object). Afterwards the caller hands over the objects now under
//! the node: their tags pick their stacks. The cap is on sampled objects still alive
//! ([`MAX_LIVE`], counted down by `ObjectFree`), so short-lived objects of the same classes
//! (churn) do not use it up before the survivors come. Every tag set here is reset to 0 before
//! [`AllocationSampling::stop`] returns.
//!
//! Its twin, `attach/agent_sampling.rs`, samples allocations in a JVM heapgrowth attached to,
//! through the C agent: nothing of heapgrowth's Rust runs in an attached JVM, so the same
//! recording is written twice, here in process and there in C.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

use jni::objects::{GlobalRef, JClass, JObject};
use jni::JNIEnv;

use super::sample_tags::{next_session, LiveCount, SampleTag, MAX_LIVE, MAX_SERIAL, MAX_STACKS};
use super::stacks::{current_stack, CodeSourceOf, Frame, RawStack};
use super::sys;
use super::{JvmtiEnv, JvmtiError};

/// Tag of the watched classes' class objects: [`class_tag`] of this kind and the class's
/// index among the watched ones.
const CLASS_TAG: sys::jlong = 1;
/// Tag of the link classes' class objects (see [`JvmtiEnv::sample_allocations`]).
const LINK_CLASS_TAG: sys::jlong = 2;
/// Tag of the class objects of classes that are both watched and links.
const BOTH_CLASS_TAG: sys::jlong = 3;
/// The high bits of every class tag; the low 16 bits are the index (bits 2..16) and the kind
/// (bits 0..2: [`CLASS_TAG`], [`LINK_CLASS_TAG`], [`BOTH_CLASS_TAG`]). Its top bits (0x484) are not sampling's mark (0x485, see [`SampleTag`]).
const CLASS_TAG_BASE: sys::jlong = 0x4847_414c_4c43_0000;
/// Watched classes past this index share it (their objects' class is not told).
const MAX_CLASS_INDEX: usize = 0x3fff;

/// The tag of a class object of `kind`, the `index`th watched class (0 for a link only).
fn class_tag(kind: sys::jlong, index: usize) -> sys::jlong {
    CLASS_TAG_BASE | ((index.min(MAX_CLASS_INDEX) as sys::jlong) << 2) | kind
}

/// The kind and index of a class tag set by [`class_tag`], `None` for any other tag.
fn class_of_tag(tag: sys::jlong) -> Option<(sys::jlong, usize)> {
    let kind = tag & 3;
    (tag & !0xffff == CLASS_TAG_BASE && kind != 0).then_some((kind, ((tag & 0xffff) >> 2) as usize))
}

/// The live count of the session running (lock-free, for `ObjectFree`).
static LIVE: LiveCount = LiveCount::new();
/// The last session started (its tags carry it).
static LAST_SESSION: AtomicU8 = AtomicU8::new(0);

struct Sampling {
    session: u8,
    next_serial: u32,
    /// The distinct allocation stacks with the class tag of the objects allocated there: a
    /// sampled object's tag holds its index here.
    table: Vec<SampledStack>,
    /// Index of each entry of `table`.
    interned: HashMap<(RawStack, sys::jlong), u16>,
    /// Objects sampled (tagged) in all.
    recorded: u64,
    dropped: u64,
    /// Of `dropped`, those not recorded because the stack table was full.
    dropped_for_stacks: u64,
    /// Whether `ObjectFree` counts frees (else the live count only grows).
    frees_counted: bool,
    /// The most sampled objects alive at once, as the count saw it.
    peak_live: u64,
    /// The tag of the last object of a watched (not only link) class each thread allocated, by the
    /// thread's `JNIEnv` (one per thread): what a field watch pairs a write with.
    last_on_thread: HashMap<usize, sys::jlong>,
}

/// One entry of a session's stack table.
struct SampledStack {
    stack: RawStack,
    class_tag: sys::jlong,
    /// Objects sampled at this stack (of this kind), alive or not.
    count: u64,
}

/// What allocation sampling saw, for the objects under the node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampleRecord {
    /// The sampled objects found, in tag (allocation) order.
    pub objects: Vec<SampledObject>,
    /// The allocation stack of each of `objects`, innermost frame first.
    pub stacks: Vec<Vec<Frame>>,
    /// Objects sampled in all (found or not, alive or not).
    pub recorded: usize,
    /// New objects of the sampled classes not recorded because of a cap.
    pub dropped: u64,
    /// Of `dropped`, those not recorded because the table of distinct stacks was full
    /// ([`MAX_STACKS`]); the others met the cap on live sampled objects ([`MAX_LIVE`]).
    pub dropped_for_stacks: u64,
    /// Whether the JVM reported the sampled objects it freed (`ObjectFree`), so the cap counted
    /// live objects; else it counted every sampled object.
    pub frees_counted: bool,
    /// The most sampled objects alive at once, as far as the frees seen tell.
    pub peak_live: u64,
    /// Whether the walk below the node stopped at its bound (2,000,000 objects), so objects
    /// further down were not looked at.
    pub walk_cut: bool,
}

/// One sampled object found under the node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampledObject {
    /// Its tag while sampling ran (what `last_sample_on` gave a field watch).
    pub tag: i64,
    /// Whether it is of a link class.
    pub link: bool,
    /// Whether it is of one of the (non-link) classes asked for, the node's growing ones.
    pub watched: bool,
    /// Whether it is one of the node's objects itself (an array the add replaced).
    pub node: bool,
    /// The tag of the sampled object it was first reached from, if it was reached from one.
    pub referrer: Option<i64>,
    /// How many sampled objects of its kind (link or not) were allocated at the same stack,
    /// alive or not: the copies of an array replaced on every add.
    pub allocated_here: u64,
    /// Its class's name (`Class.getTypeName`: `a.B$C`, `java.lang.Object[]`) if it is of a
    /// watched class, to tell which of the node's children it belongs to.
    pub class: Option<String>,
}

static SAMPLING: Mutex<Option<Sampling>> = Mutex::new(None);

/// Allocation sampling in place; dropping it switches it off (without results).
pub struct AllocationSampling<'e> {
    env: &'e JvmtiEnv,
    classes: Vec<GlobalRef>,
    /// The watched classes' names, by index (see [`class_tag`]).
    names: Vec<String>,
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
    /// Starts recording the allocation stack of every new object of `classes` and of `links`
    /// (exact classes, not subclasses; a class may be in both). Links are the classes whose
    /// objects are allocated by the call that links an object under a node (a container's
    /// entries, an array copied on every add); their objects are marked in the record. Needs
    /// `can_generate_sampled_object_alloc_events` and `can_tag_objects`.
    pub fn sample_allocations<'e>(
        &'e self,
        jni: &mut JNIEnv,
        classes: &[JClass],
        links: &[JClass],
    ) -> Result<AllocationSampling<'e>, JvmtiError> {
        {
            let mut active = SAMPLING.lock().unwrap_or_else(|p| p.into_inner());
            if active.is_some() {
                return Err(JvmtiError::Busy);
            }
            let session = next_session(LAST_SESSION.load(Ordering::SeqCst));
            LAST_SESSION.store(session, Ordering::SeqCst);
            LIVE.start(session);
            *active = Some(Sampling {
                session,
                next_serial: 0,
                table: Vec::new(),
                interned: HashMap::new(),
                recorded: 0,
                dropped: 0,
                dropped_for_stacks: 0,
                frees_counted: false,
                peak_live: 0,
                last_on_thread: HashMap::new(),
            });
        }
        let mut sampling = AllocationSampling {
            env: self,
            classes: Vec::new(),
            names: Vec::new(),
            active: true,
        };
        for class in classes {
            let name = jni
                .call_method(class, "getTypeName", "()Ljava/lang/String;", &[])
                .and_then(|name| name.l())
                .and_then(|name| jni.get_string(&name.into()).map(String::from))
                .map_err(|e| JvmtiError::AttachFailed {
                    function: "Class.getTypeName",
                    reason: e.to_string(),
                })?;
            sampling.names.push(name);
        }
        let tagged = classes
            .iter()
            .enumerate()
            .map(|(i, class)| (class, class_tag(CLASS_TAG, i)))
            .chain(
                links
                    .iter()
                    .map(|class| (class, class_tag(LINK_CLASS_TAG, 0))),
            );
        for (class, mut tag) in tagged {
            let class = jni
                .new_global_ref(class)
                .map_err(|e| JvmtiError::AttachFailed {
                    function: "NewGlobalRef",
                    reason: e.to_string(),
                })?;
            let mut was: sys::jlong = 0;
            // Safety: a live global reference; the environment is live; `was` is writable.
            unsafe { jvmti!(self, GetTag(class.as_obj().as_raw(), &mut was)) }?;
            if let (Some((LINK_CLASS_TAG, _)), Some((CLASS_TAG | BOTH_CLASS_TAG, index))) =
                (class_of_tag(tag), class_of_tag(was))
            {
                tag = class_tag(BOTH_CLASS_TAG, index);
            }
            // Safety: as above.
            unsafe { jvmti!(self, SetTag(class.as_obj().as_raw(), tag)) }?;
            sampling.classes.push(class);
        }
        self.install_callbacks()?;
        // Frees make the cap one on live objects; without them it counts every sampled object
        // (and the record says so).
        let frees = self.capabilities()?.object_free_events
            && self
                .set_event_for_all_threads(sys::JVMTI_EVENT_OBJECT_FREE, true)
                .is_ok();
        if let Some(active) = SAMPLING.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
            active.frees_counted = frees;
        }
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
    ) -> Result<SampleRecord, JvmtiError> {
        self.switch_off()?;
        let Some(sampling) = SAMPLING.lock().unwrap_or_else(|p| p.into_inner()).take() else {
            return Ok(SampleRecord::default());
        };
        let session = sampling.session;
        let mine = move |tag: sys::jlong| SampleTag::of_session(tag, session);
        let node_tags = self.env.tags_of(node_objects);
        let found = if below {
            self.env.tags_reachable_where(node_objects, &mine)
        } else {
            self.env.tags_of(node_objects).map(|tags| {
                let found = tags.into_iter().filter(|tag| mine(*tag)).collect();
                (found, HashMap::new(), false)
            })
        };
        // Every sampled object still alive gets tag 0 again, found or not, error or not.
        let untagged = self.env.untag_where(&mine);
        let (found, referrers, walk_cut) = found?;
        untagged?;
        let node_tags: HashSet<sys::jlong> = node_tags?.into_iter().collect();
        // Tags sort by serial: allocation order.
        let mut kept_tags: Vec<sys::jlong> = found.into_iter().collect();
        kept_tags.sort_unstable();
        let entry_of = |tag: &sys::jlong| {
            SampleTag::decode(*tag).and_then(|t| sampling.table.get(usize::from(t.stack)))
        };
        let kept_tags: Vec<(sys::jlong, &SampledStack)> = kept_tags
            .iter()
            .filter_map(|tag| entry_of(tag).map(|entry| (*tag, entry)))
            .collect();
        let objects = kept_tags
            .iter()
            .map(|(tag, entry)| {
                let (kind, index) = class_of_tag(entry.class_tag).unwrap_or((CLASS_TAG, 0));
                let watched = kind != LINK_CLASS_TAG;
                SampledObject {
                    tag: *tag,
                    link: kind != CLASS_TAG,
                    watched,
                    node: node_tags.contains(tag),
                    referrer: referrers.get(tag).copied(),
                    allocated_here: entry.count,
                    class: (watched && index < MAX_CLASS_INDEX)
                        .then(|| self.names.get(index).cloned())
                        .flatten(),
                }
            })
            .collect();
        let kept: Vec<RawStack> = kept_tags
            .iter()
            .map(|(_, entry)| entry.stack.clone())
            .collect();
        let stacks = self.env.resolve(jni, &kept, code_source)?;
        Ok(SampleRecord {
            objects,
            stacks,
            recorded: usize::try_from(sampling.recorded).unwrap_or(usize::MAX),
            dropped: sampling.dropped,
            dropped_for_stacks: sampling.dropped_for_stacks,
            frees_counted: sampling.frees_counted,
            peak_live: sampling.peak_live,
            walk_cut,
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
        // Frees stop counting before the event goes off: a late free is ignored, not miscounted.
        LIVE.stop();
        let frees_off = self
            .env
            .set_event_for_all_threads(sys::JVMTI_EVENT_OBJECT_FREE, false);
        let untagged = self.env.untag_all(self.classes.drain(..));
        // Without the capability the event was never on, and switching it off fails: no error.
        let frees_off = match frees_off {
            Err(JvmtiError::Call { .. }) => Ok(()),
            other => other,
        };
        disabled.and(frees_off).and(untagged)
    }
}

impl Drop for AllocationSampling<'_> {
    fn drop(&mut self) {
        if self.active {
            let _ = catch_unwind(AssertUnwindSafe(|| self.switch_off()));
            // Tags on sampled objects go with the objects; the ones still alive keep a tag of
            // a session that has ended, which no later session reads as its own.
            *SAMPLING.lock().unwrap_or_else(|p| p.into_inner()) = None;
        }
    }
}

/// Whether `tag` is one the sampling running gives a new object (see
/// [`JvmtiEnv::sample_allocations`]): what a value-filtered field watch keeps. Lock-free.
pub(super) fn is_sample_tag(tag: sys::jlong) -> bool {
    let session = LIVE.session();
    session != 0 && SampleTag::of_session(tag, session)
}

/// The JVM's `ObjectFree` callback: one sampled object less alive. Touches one atomic only (no
/// lock: see `sample_tags`), and never unwinds into the JVM.
pub(super) unsafe extern "system" fn on_object_free(_jvmti: *mut sys::jvmtiEnv, tag: sys::jlong) {
    let _ = catch_unwind(|| LIVE.freed(tag));
}

/// The tag of the last object of a watched (not only link) class the thread whose `JNIEnv` is `jni`
/// allocated while sampling runs, if any: a field watch's callback, on the same thread, pairs
/// the write it records with the object the code made just before (best effort: the code may
/// have made another one between). Takes the sampling lock; callers may hold the field watch's
/// (that order only).
pub(super) fn last_sample_on(jni: *mut sys::JNIEnv) -> Option<sys::jlong> {
    let active = SAMPLING.lock().unwrap_or_else(|p| p.into_inner());
    active
        .as_ref()?
        .last_on_thread
        .get(&(jni as usize))
        .copied()
}

/// The JVM's `SampledObjectAlloc` callback: thin, and never unwinds into the JVM.
pub(super) unsafe extern "system" fn on_sampled_object_alloc(
    jvmti: *mut sys::jvmtiEnv,
    jni: *mut sys::JNIEnv,
    _thread: sys::jthread,
    object: sys::jobject,
    object_klass: sys::jclass,
    _size: sys::jlong,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // Safety: the JVM passes its live environment and this event's references.
        unsafe { record_allocation(jvmti, jni, object, object_klass) }
    }));
}

/// # Safety
/// `jvmti` must be the event's live environment, `object` and `class` its live references.
unsafe fn record_allocation(
    jvmti: *mut sys::jvmtiEnv,
    jni: *mut sys::JNIEnv,
    object: sys::jobject,
    class: sys::jclass,
) {
    let mut class_tag: sys::jlong = 0;
    // Safety: caller. Checked before the lock: most allocations are of other classes.
    if unsafe { sys::GetTag(jvmti, class, &mut class_tag) } != sys::JVMTI_ERROR_NONE {
        return;
    }
    let Some((kind, _)) = class_of_tag(class_tag) else {
        return;
    };
    let mut active = SAMPLING.lock().unwrap_or_else(|p| p.into_inner());
    let Some(sampling) = active.as_mut() else {
        return;
    };
    if LIVE.live() >= MAX_LIVE || sampling.next_serial > MAX_SERIAL {
        sampling.dropped += 1;
        return;
    }
    // Safety: caller; on the allocating thread.
    let Some(stack) = (unsafe { current_stack(jvmti) }) else {
        return;
    };
    let Some(index) = intern(sampling, stack, class_tag) else {
        sampling.dropped += 1;
        sampling.dropped_for_stacks += 1;
        return;
    };
    let Some(tag) = (SampleTag {
        session: sampling.session,
        serial: sampling.next_serial,
        stack: index,
    })
    .encode() else {
        sampling.dropped += 1;
        return;
    };
    // Safety: caller.
    if unsafe { sys::SetTag(jvmti, object, tag) } == sys::JVMTI_ERROR_NONE {
        LIVE.tagged();
        sampling.peak_live = sampling.peak_live.max(LIVE.live());
        sampling.next_serial += 1;
        sampling.recorded += 1;
        sampling.table[usize::from(index)].count += 1;
        if kind != LINK_CLASS_TAG {
            sampling.last_on_thread.insert(jni as usize, tag);
        }
    }
}

/// The index of `(stack, class_tag)` in the session's stack table, added if new; `None` when
/// it is new and the table holds [`MAX_STACKS`] already.
fn intern(sampling: &mut Sampling, stack: RawStack, class_tag: sys::jlong) -> Option<u16> {
    let key = (stack, class_tag);
    if let Some(&index) = sampling.interned.get(&key) {
        return Some(index);
    }
    if sampling.table.len() >= MAX_STACKS {
        return None;
    }
    let index = u16::try_from(sampling.table.len()).ok()?;
    sampling.table.push(SampledStack {
        stack: key.0.clone(),
        class_tag,
        count: 0,
    });
    sampling.interned.insert(key, index);
    Some(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_tag_gives_back_its_kind_and_index() {
        for kind in [CLASS_TAG, LINK_CLASS_TAG, BOTH_CLASS_TAG] {
            for index in [0, 1, 7, MAX_CLASS_INDEX - 1] {
                assert_eq!(class_of_tag(class_tag(kind, index)), Some((kind, index)));
            }
        }
        // Past the last index: they share it, and their objects' class is not told.
        assert_eq!(
            class_of_tag(class_tag(CLASS_TAG, MAX_CLASS_INDEX + 5)),
            Some((CLASS_TAG, MAX_CLASS_INDEX))
        );
        // Not a class tag: a sampled object's, none, another recorder's.
        let sampled = SampleTag {
            session: 1,
            serial: 0,
            stack: 0,
        };
        assert_eq!(class_of_tag(sampled.encode().unwrap()), None);
        assert_eq!(class_of_tag(0), None);
        assert_eq!(class_of_tag(CLASS_TAG_BASE), None);
        assert_eq!(class_of_tag(0x4847_414c_4c43_4c01 + 0x1_0000), None);
        // No class tag is a sampled object's.
        for kind in [CLASS_TAG, LINK_CLASS_TAG, BOTH_CLASS_TAG] {
            for index in [0, MAX_CLASS_INDEX] {
                assert_eq!(SampleTag::decode(class_tag(kind, index)), None);
            }
        }
    }
}
