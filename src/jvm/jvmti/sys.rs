//! Raw JVMTI declarations: just the types and function-table slots heapgrowth uses.
//!
//! The JVMTI function table is an array of function pointers in the order of the function
//! numbers in the JVMTI specification (function N sits at index N - 1; slot 1 is reserved). We
//! declare each function we use with its number and C signature in [`jvmti_functions!`]; adding
//! one is one line, copied from the specification (or `$JAVA_HOME/include/jvmti.h`).
#![allow(non_camel_case_types)]

/// `jint` from jni.h.
pub type jint = i32;
/// `jvmtiError` from jvmti.h (a C enum: an `int`).
pub type jvmtiError = u32;

/// The C `jvmtiInterface_1_` function table; opaque because we read it by slot number.
#[repr(C)]
pub struct jvmtiInterface_1_ {
    _opaque: [u8; 0],
}

/// The C `jvmtiEnv`: a pointer to the function table. Functions take a `*mut jvmtiEnv`.
pub type jvmtiEnv = *const jvmtiInterface_1_;

/// `JVMTI_ERROR_NONE`.
pub const JVMTI_ERROR_NONE: jvmtiError = 0;
/// `JVMTI_ERROR_NOT_AVAILABLE`, also returned by our wrappers for a missing table slot.
pub const JVMTI_ERROR_NOT_AVAILABLE: jvmtiError = 98;

/// `jvmtiCapabilities`: 128 one-bit fields in four `unsigned int`s, in the declaration order
/// of jvmti.h. Read bits with [`jvmtiCapabilities::has`] and the `CAN_*` bit numbers below.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct jvmtiCapabilities {
    words: [u32; 4],
}

impl jvmtiCapabilities {
    /// Whether the capability at bit `bit` (its position in jvmti.h's declaration) is set.
    pub fn has(&self, bit: u32) -> bool {
        let (word, within) = ((bit / 32) as usize, bit % 32);
        // GCC and Clang allocate bit-fields from the least significant bit on little-endian
        // targets and from the most significant one on big-endian targets.
        let shift = if cfg!(target_endian = "little") {
            within
        } else {
            31 - within
        };
        self.words[word] >> shift & 1 == 1
    }

    /// Sets bit `bit`.
    #[cfg(test)]
    pub fn set(&mut self, bit: u32) {
        let (word, within) = ((bit / 32) as usize, bit % 32);
        let shift = if cfg!(target_endian = "little") {
            within
        } else {
            31 - within
        };
        self.words[word] |= 1 << shift;
    }
}

// Bit numbers of the capabilities heapgrowth cares about: their declaration order in jvmti.h
// (JDK 17 and 25 agree; fields are only ever appended).
pub const CAN_TAG_OBJECTS: u32 = 0;
pub const CAN_GENERATE_FIELD_MODIFICATION_EVENTS: u32 = 1;
pub const CAN_GENERATE_FIELD_ACCESS_EVENTS: u32 = 2;
pub const CAN_GET_SOURCE_FILE_NAME: u32 = 11;
pub const CAN_GET_LINE_NUMBERS: u32 = 12;
pub const CAN_GENERATE_OBJECT_FREE_EVENTS: u32 = 32;
pub const CAN_GENERATE_SAMPLED_OBJECT_ALLOC_EVENTS: u32 = 43;

/// A function-table slot, untyped.
pub type AnyFn = unsafe extern "system" fn();

/// Reads slot `number` (the specification's function number) of `env`'s function table.
///
/// # Safety
/// `env` must be a live JVMTI environment of version 1.2 or later, and `number` a function
/// number that exists in JVMTI 1.2 (the table is at least that long).
unsafe fn slot(env: *mut jvmtiEnv, number: usize) -> Option<AnyFn> {
    // Safety: the caller guarantees `env` points to a valid `jvmtiEnv`, whose value points to a
    // function table with at least `number` pointer-sized slots; slots hold a function pointer
    // or NULL, which `Option<fn>` represents exactly.
    unsafe {
        let table = (*env).cast::<Option<AnyFn>>();
        *table.add(number - 1)
    }
}

/// Declares `unsafe fn Name(env, args...) -> jvmtiError` for each listed table slot.
macro_rules! jvmti_functions {
    ($( $(#[$doc:meta])* $number:literal => fn $name:ident($($arg:ident: $ty:ty),* $(,)?); )*) => {
        $(
            $(#[$doc])*
            ///
            /// Returns `JVMTI_ERROR_NOT_AVAILABLE` if the JVM's table has no such function.
            ///
            /// # Safety
            /// `env` must be a live JVMTI environment, and every argument valid as the JVMTI
            /// specification requires for this function (pointers writable for outputs, live
            /// references, and so on).
            #[allow(non_snake_case, clippy::too_many_arguments)]
            pub unsafe fn $name(env: *mut jvmtiEnv, $($arg: $ty),*) -> jvmtiError {
                type Typed = unsafe extern "system" fn(*mut jvmtiEnv, $($ty),*) -> jvmtiError;
                // Safety: the caller guarantees `env` is live; $number is a JVMTI 1.2 function.
                match unsafe { slot(env, $number) } {
                    None => JVMTI_ERROR_NOT_AVAILABLE,
                    // Safety: slot $number holds a function with exactly this C signature
                    // (declared from the specification), and the caller vouches for the
                    // arguments.
                    Some(f) => unsafe { std::mem::transmute::<AnyFn, Typed>(f)(env, $($arg),*) },
                }
            }
        )*
    };
}

/// `jlong` from jni.h.
pub type jlong = i64;
/// `jlocation`: a bytecode index.
pub type jlocation = jlong;
/// JNI reference types, as `jni-sys` declares them.
pub use jni::sys::{jclass, jfieldID, jmethodID, jobject, jvalue, JNIEnv};
/// `jthread` from jvmti.h: a `jobject`.
pub type jthread = jobject;

/// `jvmtiFrameInfo`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct jvmtiFrameInfo {
    /// The frame's method.
    pub method: jmethodID,
    /// The executing bytecode index.
    pub location: jlocation,
}

/// `jvmtiLineNumberEntry`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct jvmtiLineNumberEntry {
    /// First bytecode index of the line.
    pub start_location: jlocation,
    /// The source line.
    pub line_number: jint,
}

/// `JVMTI_ENABLE` / `JVMTI_DISABLE` (`jvmtiEventMode`).
pub const JVMTI_ENABLE: u32 = 1;
/// See [`JVMTI_ENABLE`].
pub const JVMTI_DISABLE: u32 = 0;
/// `JVMTI_EVENT_FIELD_MODIFICATION`.
pub const JVMTI_EVENT_FIELD_MODIFICATION: u32 = 64;
/// The first event number: event N's callback sits at index N - 50 of `jvmtiEventCallbacks`.
pub const JVMTI_MIN_EVENT_TYPE_VAL: u32 = 50;
/// Entries of `jvmtiEventCallbacks` up to `SampledObjectAlloc` (86), as in JDK 17's jvmti.h;
/// later JDKs append entries, and `SetEventCallbacks` treats missing ones as NULL.
pub const EVENT_CALLBACK_SLOTS: usize = 37;

/// `jvmtiEventFieldModification`.
pub type FieldModificationCallback = unsafe extern "system" fn(
    jvmti_env: *mut jvmtiEnv,
    jni_env: *mut JNIEnv,
    thread: jthread,
    method: jmethodID,
    location: jlocation,
    field_klass: jclass,
    object: jobject,
    field: jfieldID,
    signature_type: std::ffi::c_char,
    new_value: jvalue,
);

/// `JVMTI_EVENT_FIELD_ACCESS`.
pub const JVMTI_EVENT_FIELD_ACCESS: u32 = 63;

/// `jvmtiEventFieldAccess`.
pub type FieldAccessCallback = unsafe extern "system" fn(
    jvmti_env: *mut jvmtiEnv,
    jni_env: *mut JNIEnv,
    thread: jthread,
    method: jmethodID,
    location: jlocation,
    field_klass: jclass,
    object: jobject,
    field: jfieldID,
);

/// `JVMTI_EVENT_SAMPLED_OBJECT_ALLOC`.
pub const JVMTI_EVENT_SAMPLED_OBJECT_ALLOC: u32 = 86;

/// `jvmtiEventSampledObjectAlloc`.
pub type SampledObjectAllocCallback = unsafe extern "system" fn(
    jvmti_env: *mut jvmtiEnv,
    jni_env: *mut JNIEnv,
    thread: jthread,
    object: jobject,
    object_klass: jclass,
    size: jlong,
);

/// `jvmtiEventCallbacks`: one optional function pointer per event, by event number.
#[repr(C)]
pub struct jvmtiEventCallbacks {
    /// Slot `event - JVMTI_MIN_EVENT_TYPE_VAL` holds that event's callback.
    pub slots: [Option<AnyFn>; EVENT_CALLBACK_SLOTS],
}

/// `SetEventNotificationMode` (2) is variadic in C, so it can't go through
/// [`jvmti_functions!`]; `thread` NULL means all threads.
///
/// # Safety
/// `env` must be a live JVMTI environment and `thread` NULL or a live thread reference.
#[allow(non_snake_case)]
pub unsafe fn SetEventNotificationMode(
    env: *mut jvmtiEnv,
    mode: u32,
    event: u32,
    thread: jthread,
) -> jvmtiError {
    type Typed = unsafe extern "C" fn(*mut jvmtiEnv, u32, u32, jthread, ...) -> jvmtiError;
    // Safety: the caller guarantees `env` is live; 2 is a JVMTI 1.2 function.
    match unsafe { slot(env, 2) } {
        None => JVMTI_ERROR_NOT_AVAILABLE,
        // Safety: slot 2 is `jvmtiError SetEventNotificationMode(jvmtiEnv*, jvmtiEventMode,
        // jvmtiEvent, jthread, ...)`; the enums are C ints.
        Some(f) => unsafe { std::mem::transmute::<AnyFn, Typed>(f)(env, mode, event, thread) },
    }
}

/// `jvmtiHeapReferenceKind` values heapgrowth looks at.
pub const JVMTI_HEAP_REFERENCE_FIELD: u32 = 2;
/// See [`JVMTI_HEAP_REFERENCE_FIELD`].
pub const JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT: u32 = 3;
/// See [`JVMTI_HEAP_REFERENCE_FIELD`].
pub const JVMTI_HEAP_REFERENCE_STACK_LOCAL: u32 = 24;
/// See [`JVMTI_HEAP_REFERENCE_FIELD`].
pub const JVMTI_HEAP_REFERENCE_JNI_LOCAL: u32 = 25;
/// A heap reference callback's answer: visit the referree's own references.
pub const JVMTI_VISIT_OBJECTS: jint = 0x100;
/// A heap reference callback's answer: stop the whole walk.
pub const JVMTI_VISIT_ABORT: jint = 0x8000;

/// `jvmtiHeapReferenceInfoStackLocal`; `jvmtiHeapReferenceInfoJniLocal` is its first four
/// fields.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct jvmtiHeapReferenceInfoStackLocal {
    /// Tag of the thread whose stack holds the reference.
    pub thread_tag: jlong,
    /// Its thread id.
    pub thread_id: jlong,
    /// Frame depth.
    pub depth: jint,
    /// The frame's method.
    pub method: jmethodID,
    /// Bytecode index (stack locals only).
    pub location: jlocation,
    /// Local slot (stack locals only).
    pub slot: jint,
}

/// `jvmtiHeapReferenceInfo`, a union whose largest member is eight `jlong`s.
#[repr(C)]
pub union jvmtiHeapReferenceInfo {
    /// For `JVMTI_HEAP_REFERENCE_STACK_LOCAL` and `_JNI_LOCAL`.
    pub stack_local: jvmtiHeapReferenceInfoStackLocal,
    /// Other kinds' members, for size.
    pub other: [jlong; 8],
}

/// `jvmtiHeapReferenceCallback`.
pub type HeapReferenceCallback = unsafe extern "system" fn(
    reference_kind: u32,
    reference_info: *const jvmtiHeapReferenceInfo,
    class_tag: jlong,
    referrer_class_tag: jlong,
    size: jlong,
    tag_ptr: *mut jlong,
    referrer_tag_ptr: *mut jlong,
    length: jint,
    user_data: *mut std::ffi::c_void,
) -> jint;

/// `jvmtiHeapCallbacks`: the heap iteration callback, the reference callback, three value
/// callbacks, then eleven reserved slots.
#[repr(C)]
pub struct jvmtiHeapCallbacks {
    /// `heap_iteration_callback` (unused).
    pub heap_iteration_callback: Option<AnyFn>,
    /// `heap_reference_callback`.
    pub heap_reference_callback: Option<HeapReferenceCallback>,
    /// The value callbacks and reserved slots, all NULL.
    pub rest: [Option<AnyFn>; 14],
}

jvmti_functions! {
    /// `FollowReferences` (115).
    115 => fn FollowReferences(heap_filter: jint, klass: jclass, initial_object: jobject, callbacks: *const jvmtiHeapCallbacks, user_data: *const std::ffi::c_void);
    /// `SetFieldAccessWatch` (41).
    41 => fn SetFieldAccessWatch(klass: jclass, field: jfieldID);
    /// `ClearFieldAccessWatch` (42).
    42 => fn ClearFieldAccessWatch(klass: jclass, field: jfieldID);
    /// `SetFieldModificationWatch` (43).
    43 => fn SetFieldModificationWatch(klass: jclass, field: jfieldID);
    /// `ClearFieldModificationWatch` (44).
    44 => fn ClearFieldModificationWatch(klass: jclass, field: jfieldID);
    /// `Deallocate` (47): frees memory JVMTI allocated for a result.
    47 => fn Deallocate(mem: *mut u8);
    /// `GetClassSignature` (48).
    48 => fn GetClassSignature(klass: jclass, signature_ptr: *mut *mut std::ffi::c_char, generic_ptr: *mut *mut std::ffi::c_char);
    /// `GetSourceFileName` (50).
    50 => fn GetSourceFileName(klass: jclass, source_name_ptr: *mut *mut std::ffi::c_char);
    /// `GetMethodName` (64).
    64 => fn GetMethodName(method: jmethodID, name_ptr: *mut *mut std::ffi::c_char, signature_ptr: *mut *mut std::ffi::c_char, generic_ptr: *mut *mut std::ffi::c_char);
    /// `GetMethodDeclaringClass` (65).
    65 => fn GetMethodDeclaringClass(method: jmethodID, declaring_class_ptr: *mut jclass);
    /// `GetLineNumberTable` (70).
    70 => fn GetLineNumberTable(method: jmethodID, entry_count_ptr: *mut jint, table_ptr: *mut *mut jvmtiLineNumberEntry);
    /// `GetStackTrace` (104); `thread` NULL means the current thread.
    104 => fn GetStackTrace(thread: jthread, start_depth: jint, max_frame_count: jint, frame_buffer: *mut jvmtiFrameInfo, count_ptr: *mut jint);
    /// `GetTag` (106).
    106 => fn GetTag(object: jobject, tag_ptr: *mut jlong);
    /// `SetTag` (107).
    107 => fn SetTag(object: jobject, tag: jlong);
    /// `GetObjectsWithTags` (114).
    114 => fn GetObjectsWithTags(tag_count: jint, tags: *const jlong, count_ptr: *mut jint, object_result_ptr: *mut *mut jobject, tag_result_ptr: *mut *mut jlong);
    /// `SetEventCallbacks` (122).
    122 => fn SetEventCallbacks(callbacks: *const jvmtiEventCallbacks, size_of_callbacks: jint);
    /// `GetVersionNumber` (88).
    88 => fn GetVersionNumber(version_ptr: *mut jint);
    /// `GetCapabilities` (89): the capabilities this environment possesses.
    89 => fn GetCapabilities(capabilities_ptr: *mut jvmtiCapabilities);
}

jvmti_functions! {
    /// `GetLoadedClasses` (78): every class loaded now, hidden classes included.
    78 => fn GetLoadedClasses(class_count_ptr: *mut jint, classes_ptr: *mut *mut jclass);
    /// `GetClassLoader` (57): the class's defining loader (NULL for the boot loader).
    57 => fn GetClassLoader(klass: jclass, classloader_ptr: *mut jobject);
}

/// `JVMTI_EVENT_CLASS_LOAD`: a class was created (defined), on the thread that defined it.
/// Not `ClassPrepare`: HotSpot links a class lazily, so a class defined and never used is
/// never prepared.
pub const JVMTI_EVENT_CLASS_LOAD: u32 = 55;

/// `void (JNICALL *jvmtiEventClassLoad)(jvmtiEnv*, JNIEnv*, jthread thread, jclass klass)`.
pub type ClassLoadCallback = unsafe extern "system" fn(
    jvmti_env: *mut jvmtiEnv,
    jni_env: *mut JNIEnv,
    thread: jthread,
    klass: jclass,
);

/// `JVMTI_EVENT_OBJECT_FREE`: an object with a tag was freed (allocation sampling's live count).
pub const JVMTI_EVENT_OBJECT_FREE: u32 = 83;

/// `void (JNICALL *jvmtiEventObjectFree)(jvmtiEnv*, jlong tag)`.
pub type ObjectFreeCallback = unsafe extern "system" fn(jvmti_env: *mut jvmtiEnv, tag: jlong);

/// `jvmtiHeapIterationCallback`: one object of a heap iteration.
pub type HeapIterationCallback = unsafe extern "system" fn(
    class_tag: jlong,
    size: jlong,
    tag_ptr: *mut jlong,
    length: jint,
    user_data: *mut std::ffi::c_void,
) -> jint;

/// A heap filter: leave untagged objects out (`JVMTI_HEAP_FILTER_UNTAGGED`).
pub const JVMTI_HEAP_FILTER_UNTAGGED: jint = 0x8;

jvmti_functions! {
    /// `IterateThroughHeap` (116): every object in the heap that passes the filter.
    116 => fn IterateThroughHeap(heap_filter: jint, klass: jclass, callbacks: *const jvmtiHeapCallbacks, user_data: *const std::ffi::c_void);
}
