//! The only JVMTI code: a safe [`JvmtiEnv`] over the agent's environment, typed errors, and the
//! capabilities the agent obtained.
//!
//! To add a JVMTI function: declare its slot in `sys.rs` (`jvmti_functions!`), then wrap it in
//! a safe method here that calls it through the `jvmti!` macro, which attaches the thread and
//! turns the returned `jvmtiError` into a [`JvmtiError`] naming the function.

mod sys;

pub use allocation_sampling::{AllocationSampling, SampleRecord, SampledObject};
pub use class_definitions::{ClassDefinitions, ClassRecord, DefinedClass};
pub use field_reads::{is_remove_like, ReadRecord, ReadWatch, MAX_READ_EVENTS};
pub use field_watch::{FieldWatch, WatchedField};
pub use heap::MAX_OBJECTS_VISITED;
/// Raw JNI field id, as JNI's GetFieldID returns it.
pub use jni::sys::jfieldID;
pub use sample_tags::{MAX_LIVE, MAX_STACKS};
pub use stacks::{CodeSourceOf, Frame, WatchRecord, MAX_FRAMES};
pub use thread_starts::StartWatch;

use std::fmt;
use std::ptr::NonNull;

use jni::JavaVM;

/// Calls `sys::Function(env, args...)` on an attached thread and maps its `jvmtiError` to
/// `Result<(), JvmtiError>` (see [`JvmtiEnv::call`]).
///
/// Expands to a call of an unsafe function, so it must sit in an `unsafe` block whose
/// `// Safety:` comment justifies the arguments.
macro_rules! jvmti {
    ($env:expr, $function:ident($($arg:expr),* $(,)?)) => {
        $env.call(stringify!($function), |raw| $crate::jvmti::sys::$function(raw, $($arg),*))
    };
}

mod access_watch;
mod allocation_sampling;
mod class_definitions;
mod classes;
mod events;
mod field_reads;
mod field_watch;
mod heap;
mod sample_tags;
mod stacks;
mod thread_starts;

/// The single place where JVMTI return codes become errors.
fn check(function: &'static str, code: sys::jvmtiError) -> Result<(), JvmtiError> {
    match JvmtiErrorCode::from_raw(code) {
        None => Ok(()),
        Some(code) => Err(JvmtiError::Call { function, code }),
    }
}

/// A JVMTI function failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JvmtiError {
    /// `function` returned `code`.
    #[error("JVMTI {function} failed with {code}")]
    Call {
        /// The JVMTI function, as named in the specification.
        function: &'static str,
        /// What it returned.
        code: JvmtiErrorCode,
    },
    /// Another field watch is active: heapgrowth runs one at a time.
    #[error("another JVMTI field watch is active")]
    Busy,
    /// Another class-definition recording is active: heapgrowth runs one at a time.
    #[error("another JVMTI class-definition recording is active")]
    ClassRecordingBusy,
    /// HotSpot refuses JVMTI calls from threads not attached to the JVM, and attaching this
    /// one failed.
    #[error("JVMTI {function}: cannot attach this thread to the JVM: {reason}")]
    AttachFailed {
        /// The JVMTI function about to be called.
        function: &'static str,
        /// Why attaching failed.
        reason: String,
    },
}

/// A `jvmtiError` other than `JVMTI_ERROR_NONE`. The variants are the codes heapgrowth's
/// wrappers can meet; the rest keep their number in [`JvmtiErrorCode::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JvmtiErrorCode {
    /// `JVMTI_ERROR_INVALID_THREAD` (10).
    InvalidThread,
    /// `JVMTI_ERROR_INVALID_OBJECT` (20).
    InvalidObject,
    /// `JVMTI_ERROR_INVALID_CLASS` (21).
    InvalidClass,
    /// `JVMTI_ERROR_INVALID_FIELDID` (25).
    InvalidFieldId,
    /// `JVMTI_ERROR_DUPLICATE` (40).
    Duplicate,
    /// `JVMTI_ERROR_NOT_FOUND` (41).
    NotFound,
    /// `JVMTI_ERROR_NOT_AVAILABLE` (98); also a function missing from the JVM's table.
    NotAvailable,
    /// `JVMTI_ERROR_MUST_POSSESS_CAPABILITY` (99): the agent lacks the capability.
    MustPossessCapability,
    /// `JVMTI_ERROR_NULL_POINTER` (100).
    NullPointer,
    /// `JVMTI_ERROR_ABSENT_INFORMATION` (101).
    AbsentInformation,
    /// `JVMTI_ERROR_ILLEGAL_ARGUMENT` (103).
    IllegalArgument,
    /// `JVMTI_ERROR_OUT_OF_MEMORY` (110).
    OutOfMemory,
    /// `JVMTI_ERROR_WRONG_PHASE` (112).
    WrongPhase,
    /// `JVMTI_ERROR_INTERNAL` (113).
    Internal,
    /// `JVMTI_ERROR_UNATTACHED_THREAD` (115).
    UnattachedThread,
    /// `JVMTI_ERROR_INVALID_ENVIRONMENT` (116).
    InvalidEnvironment,
    /// Any other code.
    Other(u32),
}

impl JvmtiErrorCode {
    /// `None` for `JVMTI_ERROR_NONE`.
    pub fn from_raw(code: u32) -> Option<JvmtiErrorCode> {
        use JvmtiErrorCode::*;
        Some(match code {
            sys::JVMTI_ERROR_NONE => return None,
            10 => InvalidThread,
            20 => InvalidObject,
            21 => InvalidClass,
            25 => InvalidFieldId,
            40 => Duplicate,
            41 => NotFound,
            sys::JVMTI_ERROR_NOT_AVAILABLE => NotAvailable,
            99 => MustPossessCapability,
            100 => NullPointer,
            101 => AbsentInformation,
            103 => IllegalArgument,
            110 => OutOfMemory,
            112 => WrongPhase,
            113 => Internal,
            115 => UnattachedThread,
            116 => InvalidEnvironment,
            other => Other(other),
        })
    }
}

impl fmt::Display for JvmtiErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use JvmtiErrorCode::*;
        let name = match self {
            InvalidThread => "JVMTI_ERROR_INVALID_THREAD",
            InvalidObject => "JVMTI_ERROR_INVALID_OBJECT",
            InvalidClass => "JVMTI_ERROR_INVALID_CLASS",
            InvalidFieldId => "JVMTI_ERROR_INVALID_FIELDID",
            Duplicate => "JVMTI_ERROR_DUPLICATE",
            NotFound => "JVMTI_ERROR_NOT_FOUND",
            NotAvailable => "JVMTI_ERROR_NOT_AVAILABLE",
            MustPossessCapability => "JVMTI_ERROR_MUST_POSSESS_CAPABILITY",
            NullPointer => "JVMTI_ERROR_NULL_POINTER",
            AbsentInformation => "JVMTI_ERROR_ABSENT_INFORMATION",
            IllegalArgument => "JVMTI_ERROR_ILLEGAL_ARGUMENT",
            OutOfMemory => "JVMTI_ERROR_OUT_OF_MEMORY",
            WrongPhase => "JVMTI_ERROR_WRONG_PHASE",
            Internal => "JVMTI_ERROR_INTERNAL",
            UnattachedThread => "JVMTI_ERROR_UNATTACHED_THREAD",
            InvalidEnvironment => "JVMTI_ERROR_INVALID_ENVIRONMENT",
            Other(code) => return write!(f, "JVMTI error {code}"),
        };
        f.write_str(name)
    }
}

/// The JVMTI capabilities heapgrowth's agent holds. The agent asks for each one the JVM can
/// give; which it got decides what later stages (attribution) can do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentCapabilities {
    /// `can_tag_objects`.
    pub tag_objects: bool,
    /// `can_generate_field_modification_events`: only an agent loaded at JVM start gets it.
    pub field_modification_events: bool,
    /// `can_generate_field_access_events`.
    pub field_access_events: bool,
    /// `can_get_line_numbers`.
    pub line_numbers: bool,
    /// `can_get_source_file_name`.
    pub source_file_name: bool,
    /// `can_generate_sampled_object_alloc_events` (JDK 11+).
    pub sampled_alloc_events: bool,
    /// `can_generate_object_free_events`.
    pub object_free_events: bool,
}

impl AgentCapabilities {
    fn from_raw(raw: &sys::jvmtiCapabilities) -> AgentCapabilities {
        AgentCapabilities {
            tag_objects: raw.has(sys::CAN_TAG_OBJECTS),
            field_modification_events: raw.has(sys::CAN_GENERATE_FIELD_MODIFICATION_EVENTS),
            field_access_events: raw.has(sys::CAN_GENERATE_FIELD_ACCESS_EVENTS),
            line_numbers: raw.has(sys::CAN_GET_LINE_NUMBERS),
            source_file_name: raw.has(sys::CAN_GET_SOURCE_FILE_NAME),
            sampled_alloc_events: raw.has(sys::CAN_GENERATE_SAMPLED_OBJECT_ALLOC_EVENTS),
            object_free_events: raw.has(sys::CAN_GENERATE_OBJECT_FREE_EVENTS),
        }
    }
}

/// A JVMTI environment that stays valid for the rest of the process: the agent's, which is
/// never disposed (the JVM is never destroyed either).
///
/// Unlike a `JNIEnv`, a `jvmtiEnv` is not tied to one thread, so this type is `Send` and `Sync`;
/// but HotSpot answers `JVMTI_ERROR_UNATTACHED_THREAD` to calls from threads that are not
/// attached to the JVM, so every call attaches the calling thread first (for the call only,
/// unless it was attached already).
pub struct JvmtiEnv {
    raw: NonNull<sys::jvmtiEnv>,
    vm: JavaVM,
}

impl fmt::Debug for JvmtiEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JvmtiEnv")
            .field("raw", &self.raw)
            .finish_non_exhaustive()
    }
}

// Safety: JVMTI environments may be used from any thread (JVMTI specification, "Environments");
// `call` attaches the thread first. `JavaVM` is Send and Sync itself.
unsafe impl Send for JvmtiEnv {}
// Safety: as above; JVMTI functions synchronise internally.
unsafe impl Sync for JvmtiEnv {}

impl JvmtiEnv {
    /// Wraps a raw environment pointer of the JVM `vm`; `None` if it is null.
    ///
    /// # Safety
    /// `raw` must be null or a JVMTI environment of version 1.2 or later that stays valid for
    /// the rest of the process (never disposed, JVM never destroyed), and `vm` a pointer to the
    /// JVM it belongs to.
    pub(crate) unsafe fn from_raw(
        raw: *mut std::ffi::c_void,
        vm: *mut jni::sys::JavaVM,
    ) -> Option<JvmtiEnv> {
        let raw = NonNull::new(raw.cast())?;
        // Safety: the caller guarantees `vm` is the live JVM; `from_raw` only checks for null.
        let vm = unsafe { JavaVM::from_raw(vm) }.ok()?;
        Some(JvmtiEnv { raw, vm })
    }

    /// Runs `f` with the raw environment on an attached thread and checks the code it returns:
    /// the one path every wrapper goes through (via the `jvmti!` macro).
    fn call(
        &self,
        function: &'static str,
        f: impl FnOnce(*mut sys::jvmtiEnv) -> sys::jvmtiError,
    ) -> Result<(), JvmtiError> {
        let _attached = self
            .vm
            .attach_current_thread()
            .map_err(|e| JvmtiError::AttachFailed {
                function,
                reason: e.to_string(),
            })?;
        check(function, f(self.raw.as_ptr()))
    }

    /// The capabilities this environment possesses (`GetCapabilities`).
    pub fn capabilities(&self) -> Result<AgentCapabilities, JvmtiError> {
        let mut raw = sys::jvmtiCapabilities::default();
        // Safety: `raw` is a writable jvmtiCapabilities for the duration of the call, and the
        // environment is live (type invariant).
        unsafe { jvmti!(self, GetCapabilities(&mut raw)) }?;
        Ok(AgentCapabilities::from_raw(&raw))
    }

    /// Switches `event` (a `JVMTI_EVENT_*` number) on or off for every thread
    /// (`SetEventNotificationMode` with a NULL thread).
    pub(crate) fn set_event_for_all_threads(&self, event: u32, on: bool) -> Result<(), JvmtiError> {
        let mode = if on {
            sys::JVMTI_ENABLE
        } else {
            sys::JVMTI_DISABLE
        };
        // Safety: NULL thread means all threads; an unknown event number is an error code, not
        // undefined behaviour; the environment is live (type invariant).
        unsafe {
            jvmti!(
                self,
                SetEventNotificationMode(mode, event, std::ptr::null_mut())
            )
        }
    }

    /// Clears the tag of every object in `tagged` (a recorder switching off), releasing the
    /// references; every one is tried, the first error is returned.
    pub(crate) fn untag_all(
        &self,
        tagged: impl IntoIterator<Item = jni::objects::GlobalRef>,
    ) -> Result<(), JvmtiError> {
        let mut untagged = Ok(());
        for object in tagged {
            // Safety: a live global reference; the environment is live (type invariant).
            let result = unsafe { jvmti!(self, SetTag(object.as_obj().as_raw(), 0)) };
            untagged = untagged.and(result);
        }
        untagged
    }

    /// The JVMTI version as `(major, minor, micro)`, for example `(17, 0, 0)` (`GetVersionNumber`).
    pub fn version(&self) -> Result<(u32, u32, u32), JvmtiError> {
        let mut version: sys::jint = 0;
        // Safety: `version` is a writable jint for the duration of the call; the environment is
        // live (type invariant).
        unsafe { jvmti!(self, GetVersionNumber(&mut version)) }?;
        // Layout from jvmti.h: 0x30000000 + major * 0x10000 + minor * 0x100 + micro.
        let v = version as u32;
        Ok(((v >> 16) & 0x0fff, (v >> 8) & 0xff, v & 0xff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capability_bits_follow_jvmti_h_declaration_order() {
        let mut raw = sys::jvmtiCapabilities::default();
        raw.set(sys::CAN_GENERATE_FIELD_MODIFICATION_EVENTS);
        raw.set(sys::CAN_GENERATE_SAMPLED_OBJECT_ALLOC_EVENTS);
        let caps = AgentCapabilities::from_raw(&raw);
        assert_eq!(
            caps,
            AgentCapabilities {
                field_modification_events: true,
                sampled_alloc_events: true,
                ..AgentCapabilities::default()
            }
        );
    }

    #[test]
    fn error_codes_map_to_named_variants() {
        assert_eq!(JvmtiErrorCode::from_raw(0), None);
        assert_eq!(
            JvmtiErrorCode::from_raw(99),
            Some(JvmtiErrorCode::MustPossessCapability)
        );
        assert_eq!(JvmtiErrorCode::from_raw(7), Some(JvmtiErrorCode::Other(7)));
        let err = check("SetTag", 99).unwrap_err();
        assert_eq!(
            err.to_string(),
            "JVMTI SetTag failed with JVMTI_ERROR_MUST_POSSESS_CAPABILITY"
        );
    }
}
