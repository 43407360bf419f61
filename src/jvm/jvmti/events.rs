//! The JVMTI event callbacks heapgrowth installs, one table for every recorder: the field
//! watch's, the removing-read watch's, allocation sampling's (and its `ObjectFree` count) and
//! the class-definition recorder's handlers.

use super::allocation_sampling::{on_object_free, on_sampled_object_alloc};
use super::class_definitions::on_class_load;
use super::field_reads::on_field_access;
use super::field_watch::on_field_modification;
use super::sys;
use super::{JvmtiEnv, JvmtiError};

impl JvmtiEnv {
    /// Sets the event callbacks heapgrowth uses (field modification and access, sampled
    /// allocation); the
    /// events themselves stay off until a recorder enables them.
    pub(super) fn install_callbacks(&self) -> Result<(), JvmtiError> {
        let mut callbacks = sys::jvmtiEventCallbacks {
            slots: [None; sys::EVENT_CALLBACK_SLOTS],
        };
        let field: sys::FieldModificationCallback = on_field_modification;
        let alloc: sys::SampledObjectAllocCallback = on_sampled_object_alloc;
        let read: sys::FieldAccessCallback = on_field_access;
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
            callbacks.slots
                [(sys::JVMTI_EVENT_FIELD_ACCESS - sys::JVMTI_MIN_EVENT_TYPE_VAL) as usize] = Some(
                std::mem::transmute::<sys::FieldAccessCallback, sys::AnyFn>(read),
            );
        }
        let load: sys::ClassLoadCallback = on_class_load;
        // Safety: as above, for the ClassLoad slot and its handler.
        callbacks.slots[(sys::JVMTI_EVENT_CLASS_LOAD - sys::JVMTI_MIN_EVENT_TYPE_VAL) as usize] =
            Some(unsafe { std::mem::transmute::<sys::ClassLoadCallback, sys::AnyFn>(load) });
        let free: sys::ObjectFreeCallback = on_object_free;
        // Safety: as above, for the ObjectFree slot and its handler.
        callbacks.slots[(sys::JVMTI_EVENT_OBJECT_FREE - sys::JVMTI_MIN_EVENT_TYPE_VAL) as usize] =
            Some(unsafe { std::mem::transmute::<sys::ObjectFreeCallback, sys::AnyFn>(free) });
        let size = std::mem::size_of::<sys::jvmtiEventCallbacks>() as sys::jint;
        // Safety: `callbacks` is a valid table of `size` bytes, copied by the JVM.
        unsafe { jvmti!(self, SetEventCallbacks(&callbacks, size)) }
    }
}
