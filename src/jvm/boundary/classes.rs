//! heapgrowth's Java classes, found and pinned.

use jni::objects::{GlobalRef, JClass};
use jni::JNIEnv;

use super::exceptions::{catch, describe_minimal, CallError};
use crate::jvm::JvmError;

/// A pinned class as the `JClass` JNI calls take.
pub fn as_class(global: &GlobalRef) -> &JClass<'static> {
    <&JClass>::from(global.as_obj())
}

/// Loads heapgrowth's class `name` (`dev/heapgrowth/...`) and pins it.
pub fn load_class(env: &mut JNIEnv, name: &str) -> Result<GlobalRef, JvmError> {
    let found = env.find_class(name);
    match catch(env, found) {
        Ok(class) => Ok(env.new_global_ref(class)?),
        Err(CallError::Thrown(thrown)) => {
            let exception = describe_minimal(env, &thrown);
            Err(JvmError::StartFailed {
                reason: format!("heapgrowth's Java class {name} cannot be loaded: {exception}"),
            })
        }
        Err(CallError::Jni(e)) => Err(e.into()),
    }
}
