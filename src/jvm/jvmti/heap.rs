//! Walks of the live heap through `FollowReferences`, for what attribution cannot reach from
//! Java: the objects a running thread's frame holds in its local variables, and which sampled
//! objects are below a growing node.
//!
//! Both walks tag objects (a thread's stack roots, a sampled object found) and reset every tag
//! they set before they return. The callbacks stay thin and never unwind into the JVM.

use std::collections::{HashMap, HashSet};
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use jni::objects::JObject;
use jni::JNIEnv;

use super::sys;
use super::{JvmtiEnv, JvmtiError};

/// Tags of the threads whose frames [`JvmtiEnv::stack_locals`] looks at: this base plus the
/// thread's index.
const THREAD_TAG: sys::jlong = 0x4847_5448_0000_0000;
/// Tags of the objects those frames hold: this base plus a counter.
const LOCAL_TAG: sys::jlong = 0x4847_4c4f_0000_0000;
/// Objects [`JvmtiEnv::tags_reachable_from`] visits at most: a node whose objects reach a large
/// part of the heap is cut here rather than walking all of it.
pub const MAX_OBJECTS_VISITED: usize = 2_000_000;

impl JvmtiEnv {
    /// The objects that the local variables (and JNI locals) of the frames of method
    /// `class.method` hold, on any of `threads`, as local references of `jni`'s frame. Needs
    /// `can_tag_objects` only (unlike `GetLocalObject`, whose capability would keep every dead
    /// local alive and change what leaks).
    pub fn stack_locals<'local>(
        &self,
        jni: &mut JNIEnv<'local>,
        threads: &[JObject],
        class: &str,
        method: &str,
    ) -> Result<Vec<JObject<'local>>, JvmtiError> {
        for (i, thread) in threads.iter().enumerate() {
            // Safety: a live reference from the caller.
            unsafe { jvmti!(self, SetTag(thread.as_raw(), THREAD_TAG + i as sys::jlong)) }?;
        }
        let mut walk = LocalsWalk {
            threads: threads.len() as sys::jlong,
            next_tag: LOCAL_TAG,
            held_by: HashMap::new(),
        };
        let callbacks = sys::jvmtiHeapCallbacks {
            heap_iteration_callback: None,
            heap_reference_callback: Some(on_stack_root),
            rest: [None; 14],
        };
        // Safety: the callbacks and `walk` outlive the call, which runs them on this thread;
        // NULL class and initial object mean every root.
        let walked = unsafe {
            jvmti!(
                self,
                FollowReferences(
                    0,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    &callbacks,
                    (&mut walk as *mut LocalsWalk).cast()
                )
            )
        };
        let mut untagged = Ok(());
        for thread in threads {
            // Safety: as above.
            untagged = untagged.and(unsafe { jvmti!(self, SetTag(thread.as_raw(), 0)) });
        }
        // Every tag the walk set is reset below, whatever the frames' methods are.
        let tags: Vec<sys::jlong> = walk.held_by.keys().copied().collect();
        let mut wanted = HashSet::new();
        let mut names: HashMap<usize, bool> = HashMap::new();
        for (&tag, methods) in &walk.held_by {
            for &frame_method in methods {
                let matches = match names.get(&frame_method) {
                    Some(&matches) => matches,
                    None => {
                        let names_of =
                            self.method_names(jni, frame_method as sys::jmethodID, &mut |_, _| {
                                None
                            })?;
                        let matches = names_of.class == class && names_of.method == method;
                        names.insert(frame_method, matches);
                        matches
                    }
                };
                if matches {
                    wanted.insert(tag);
                }
            }
        }
        let objects = self.objects_with_tags(jni, &tags, |tag| wanted.contains(&tag))?;
        walked.and(untagged)?;
        Ok(objects)
    }

    /// Of `wanted`, the tags of `roots` and of the objects reachable from them through fields
    /// and array elements (not through classes, class loaders or statics), up to
    /// `MAX_OBJECTS_VISITED` (2,000,000) objects.
    pub fn tags_reachable_from(
        &self,
        roots: &[JObject],
        wanted: &HashSet<sys::jlong>,
    ) -> Result<HashSet<sys::jlong>, JvmtiError> {
        self.tags_reachable_with_referrers(roots, wanted)
            .map(|(found, _)| found)
    }

    /// [`JvmtiEnv::tags_reachable_from`], and for each found tag first reached from an object
    /// that has a wanted tag too, that referrer's tag: which sampled object holds which (the
    /// `ConcurrentLinkedQueue$Node` that holds an item).
    pub fn tags_reachable_with_referrers(
        &self,
        roots: &[JObject],
        wanted: &HashSet<sys::jlong>,
    ) -> Result<(HashSet<sys::jlong>, HashMap<sys::jlong, sys::jlong>), JvmtiError> {
        self.tags_reachable_where(roots, &|tag| wanted.contains(&tag))
            .map(|(found, referrers, _)| (found, referrers))
    }

    /// [`JvmtiEnv::tags_reachable_with_referrers`] with the wanted tags told by a test (allocation
    /// sampling's tags carry a mark), and whether the walk stopped at `MAX_OBJECTS_VISITED`.
    pub(super) fn tags_reachable_where(
        &self,
        roots: &[JObject],
        wanted: &dyn Fn(sys::jlong) -> bool,
    ) -> Result<ReachedTags, JvmtiError> {
        let mut walk = ReachWalk {
            wanted,
            found: self
                .tags_of(roots)?
                .into_iter()
                .filter(|tag| wanted(*tag))
                .collect(),
            referrers: HashMap::new(),
            visited: 0,
        };
        let callbacks = sys::jvmtiHeapCallbacks {
            heap_iteration_callback: None,
            heap_reference_callback: Some(on_reference_below),
            rest: [None; 14],
        };
        for root in roots {
            if walk.visited >= MAX_OBJECTS_VISITED {
                break;
            }
            // Safety: as in `stack_locals`; `root` is a live reference.
            unsafe {
                jvmti!(
                    self,
                    FollowReferences(
                        0,
                        std::ptr::null_mut(),
                        root.as_raw(),
                        &callbacks,
                        (&mut walk as *mut ReachWalk).cast()
                    )
                )
            }?;
        }
        let cut = walk.visited >= MAX_OBJECTS_VISITED;
        Ok((walk.found, walk.referrers, cut))
    }

    /// Resets to 0 the tag of every object in the heap whose tag `wanted` accepts, and returns
    /// how many it reset: allocation sampling's tags, which it does not list (one heap
    /// iteration over the tagged objects only). Needs `can_tag_objects`.
    pub(super) fn untag_where(
        &self,
        wanted: &dyn Fn(sys::jlong) -> bool,
    ) -> Result<u64, JvmtiError> {
        let mut walk = UntagWalk { wanted, reset: 0 };
        let iterate: sys::HeapIterationCallback = on_tagged_object;
        let callbacks = sys::jvmtiHeapCallbacks {
            // Safety: the JVM calls this slot with the heap iteration callback's signature,
            // which `on_tagged_object` has.
            heap_iteration_callback: Some(unsafe {
                std::mem::transmute::<sys::HeapIterationCallback, sys::AnyFn>(iterate)
            }),
            heap_reference_callback: None,
            rest: [None; 14],
        };
        // Safety: the callbacks and `walk` outlive the call, which runs them on this thread;
        // NULL class means objects of every class.
        unsafe {
            jvmti!(
                self,
                IterateThroughHeap(
                    sys::JVMTI_HEAP_FILTER_UNTAGGED,
                    std::ptr::null_mut(),
                    &callbacks,
                    (&mut walk as *mut UntagWalk).cast()
                )
            )
        }?;
        Ok(walk.reset)
    }

    /// The tag of each of `objects`.
    pub fn tags_of(&self, objects: &[JObject]) -> Result<Vec<sys::jlong>, JvmtiError> {
        objects
            .iter()
            .map(|object| {
                let mut tag: sys::jlong = 0;
                // Safety: a live reference from the caller; `tag` is writable.
                unsafe { jvmti!(self, GetTag(object.as_raw(), &mut tag)) }.map(|()| tag)
            })
            .collect()
    }

    /// Local references to the live objects tagged `tags`; every one of them gets tag 0 again,
    /// and those `keep` refuses are deleted at once.
    pub(super) fn objects_with_tags<'local>(
        &self,
        jni: &mut JNIEnv<'local>,
        tags: &[sys::jlong],
        keep: impl Fn(sys::jlong) -> bool,
    ) -> Result<Vec<JObject<'local>>, JvmtiError> {
        if tags.is_empty() {
            return Ok(Vec::new());
        }
        let mut count: sys::jint = 0;
        let mut objects: *mut sys::jobject = std::ptr::null_mut();
        let mut found_tags: *mut sys::jlong = std::ptr::null_mut();
        // Safety: `tags` holds `len` tags; JVMTI allocates both result arrays.
        unsafe {
            jvmti!(
                self,
                GetObjectsWithTags(
                    tags.len() as sys::jint,
                    tags.as_ptr(),
                    &mut count,
                    &mut objects,
                    &mut found_tags
                )
            )
        }?;
        let count = count.max(0) as usize;
        let mut kept = Vec::new();
        let mut result = Ok(());
        for i in 0..count {
            // Safety: JVMTI returned `count` local references and tags at these arrays.
            let (raw, tag) = unsafe { (*objects.add(i), *found_tags.add(i)) };
            // Safety: a live local reference just returned.
            result = result.and(unsafe { jvmti!(self, SetTag(raw, 0)) });
            // Safety: a local reference of this thread, owned from here on.
            let object = unsafe { JObject::from_raw(raw) };
            if keep(tag) {
                kept.push(object);
            } else {
                let _ = jni.delete_local_ref(object);
            }
        }
        for array in [objects.cast::<u8>(), found_tags.cast::<u8>()] {
            if !array.is_null() {
                // Safety: allocated by JVMTI, freed once.
                let _ = unsafe { jvmti!(self, Deallocate(array)) };
            }
        }
        result.map(|()| kept)
    }
}

/// The state of [`JvmtiEnv::stack_locals`]'s walk.
struct LocalsWalk {
    /// Threads tagged `THREAD_TAG + 0 .. threads`.
    threads: sys::jlong,
    next_tag: sys::jlong,
    /// Tag given to each object a frame of those threads holds → the methods of those frames.
    held_by: HashMap<sys::jlong, Vec<usize>>,
}

/// `FollowReferences` callback of [`JvmtiEnv::stack_locals`]: tags what the frames of our
/// threads hold and visits nothing (only roots are reported then).
#[allow(clippy::too_many_arguments)]
unsafe extern "system" fn on_stack_root(
    kind: u32,
    info: *const sys::jvmtiHeapReferenceInfo,
    _class_tag: sys::jlong,
    _referrer_class_tag: sys::jlong,
    _size: sys::jlong,
    tag_ptr: *mut sys::jlong,
    _referrer_tag_ptr: *mut sys::jlong,
    _length: sys::jint,
    user_data: *mut c_void,
) -> sys::jint {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        if kind != sys::JVMTI_HEAP_REFERENCE_STACK_LOCAL
            && kind != sys::JVMTI_HEAP_REFERENCE_JNI_LOCAL
        {
            return;
        }
        // Safety: `user_data` is the `LocalsWalk` that `stack_locals` passed, alive and used by
        // this thread only for the walk; for these kinds `info` holds a stack or JNI local
        // (whose first fields are the same), and `tag_ptr` the referree's tag.
        unsafe {
            let walk = &mut *user_data.cast::<LocalsWalk>();
            let local = (*info).stack_local;
            let thread = local.thread_tag - THREAD_TAG;
            if local.thread_tag < THREAD_TAG || thread >= walk.threads {
                return;
            }
            if *tag_ptr == 0 {
                *tag_ptr = walk.next_tag;
                walk.next_tag += 1;
            }
            // Only objects this walk tagged (an object of a thread's own, or held by two
            // frames, is tagged once).
            if (LOCAL_TAG..walk.next_tag).contains(&*tag_ptr) {
                walk.held_by
                    .entry(*tag_ptr)
                    .or_default()
                    .push(local.method as usize);
            }
        }
    }));
    0
}

/// What [`JvmtiEnv::tags_reachable_where`] found: the wanted tags, the referrer of each first
/// reached from a wanted object, and whether the walk was cut at `MAX_OBJECTS_VISITED`.
pub(super) type ReachedTags = (HashSet<sys::jlong>, HashMap<sys::jlong, sys::jlong>, bool);

/// The state of [`JvmtiEnv::untag_where`]'s iteration.
struct UntagWalk<'a> {
    wanted: &'a dyn Fn(sys::jlong) -> bool,
    reset: u64,
}

/// `IterateThroughHeap` callback of [`JvmtiEnv::untag_where`]: resets a wanted tag in place.
unsafe extern "system" fn on_tagged_object(
    _class_tag: sys::jlong,
    _size: sys::jlong,
    tag_ptr: *mut sys::jlong,
    _length: sys::jint,
    user_data: *mut c_void,
) -> sys::jint {
    catch_unwind(AssertUnwindSafe(|| {
        // Safety: `user_data` is the `UntagWalk` passed by `untag_where`, used by this thread
        // only; `tag_ptr` is the object's tag, writable during the callback.
        unsafe {
            let walk = &mut *user_data.cast::<UntagWalk>();
            if (walk.wanted)(*tag_ptr) {
                *tag_ptr = 0;
                walk.reset += 1;
            }
        }
        0
    }))
    .unwrap_or(sys::JVMTI_VISIT_ABORT)
}

/// The state of [`JvmtiEnv::tags_reachable_from`]'s walk.
struct ReachWalk<'a> {
    wanted: &'a dyn Fn(sys::jlong) -> bool,
    found: HashSet<sys::jlong>,
    /// Found tag → the wanted tag of the object it was first reached from.
    referrers: HashMap<sys::jlong, sys::jlong>,
    visited: usize,
}

/// `FollowReferences` callback of [`JvmtiEnv::tags_reachable_from`]: follows fields and array
/// elements only, notes the wanted tags it meets.
#[allow(clippy::too_many_arguments)]
unsafe extern "system" fn on_reference_below(
    kind: u32,
    _info: *const sys::jvmtiHeapReferenceInfo,
    _class_tag: sys::jlong,
    _referrer_class_tag: sys::jlong,
    _size: sys::jlong,
    tag_ptr: *mut sys::jlong,
    referrer_tag_ptr: *mut sys::jlong,
    _length: sys::jint,
    user_data: *mut c_void,
) -> sys::jint {
    catch_unwind(AssertUnwindSafe(|| {
        if kind != sys::JVMTI_HEAP_REFERENCE_FIELD
            && kind != sys::JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT
        {
            return 0;
        }
        // Safety: `user_data` is the `ReachWalk` passed by `tags_reachable_with_referrers`,
        // used by this thread only; `tag_ptr` is the referree's tag, `referrer_tag_ptr` NULL or
        // the referrer's.
        unsafe {
            let walk = &mut *user_data.cast::<ReachWalk>();
            if (walk.wanted)(*tag_ptr) {
                walk.found.insert(*tag_ptr);
                let referrer = if referrer_tag_ptr.is_null() {
                    0
                } else {
                    *referrer_tag_ptr
                };
                if (walk.wanted)(referrer) {
                    walk.referrers.entry(*tag_ptr).or_insert(referrer);
                }
            }
            walk.visited += 1;
            if walk.visited >= MAX_OBJECTS_VISITED {
                sys::JVMTI_VISIT_ABORT
            } else {
                sys::JVMTI_VISIT_OBJECTS
            }
        }
    }))
    .unwrap_or(sys::JVMTI_VISIT_ABORT)
}
