//! The classes the JVM has loaded, for a path's `CLASS` step (a loader and a class it
//! defined): listed, not looked up by name, so following the path loads and defines nothing (a
//! loader's `loadClass` may define a class on demand), and hidden classes, which no name finds,
//! are among them.

use jni::objects::JClass;
use jni::JNIEnv;

use super::{sys, JvmtiEnv, JvmtiError};

impl JvmtiEnv {
    /// Every class loaded now (`GetLoadedClasses`), hidden classes and array classes included,
    /// as local references of `jni`'s frame (HotSpot grows a frame past its capacity).
    /// `_jni` is the thread's environment: the references live in its frame.
    pub fn loaded_classes<'l>(&self, _jni: &mut JNIEnv<'l>) -> Result<Vec<JClass<'l>>, JvmtiError> {
        let mut count: sys::jint = 0;
        let mut classes: *mut sys::jclass = std::ptr::null_mut();
        // Safety: both out-pointers are writable for the call; JVMTI allocates the array.
        unsafe { jvmti!(self, GetLoadedClasses(&mut count, &mut classes)) }?;
        let count = count.max(0) as usize;
        let mut out = Vec::with_capacity(count);
        for i in 0..count {
            // Safety: JVMTI returned `count` local references at `classes`; each is owned from
            // here on (freed with the caller's local frame).
            out.push(unsafe { JClass::from_raw(*classes.add(i)) });
        }
        if !classes.is_null() {
            // Safety: allocated by JVMTI, freed once.
            let _ = unsafe { jvmti!(self, Deallocate(classes.cast::<u8>())) };
        }
        Ok(out)
    }
}
