//! The native methods of `dev.heapgrowth.attribution.LiveAttribution`, registered in every JVM
//! heapgrowth attributes in (the one it starts and a test JVM): reading and writing a field
//! through JNI. Reflection's `setAccessible` fails on the fields of JDK packages that are not
//! opened to the unnamed module (`java.util.concurrent.atomic`, `java.beans`, and in a test JVM
//! that nobody opened anything in, `java.lang`), and growing paths run through them; JNI field
//! access is not subject to module checks.
//!
//! No panic crosses into the JVM: each method runs its body in [`entry`], and an error or a
//! panic becomes a pending `IllegalStateException`.

use std::ffi::c_void;

use jni::objects::{JClass, JFieldID, JObject, JStaticFieldID, JValue};
use jni::signature::ReturnType;
use jni::sys::jobject;
use jni::{JNIEnv, NativeMethod};

use super::boundary::entry;
use super::JvmError;

const FIELD: &str = "Ljava/lang/reflect/Field;";

/// Binds `LiveAttribution`'s native methods to the functions below.
pub(super) fn register(env: &mut JNIEnv, class: &JClass) -> Result<(), JvmError> {
    let method = |name: &str, sig: String, fn_ptr: *mut c_void| NativeMethod {
        name: name.into(),
        sig: sig.into(),
        fn_ptr,
    };
    let methods = [
        method(
            "readField",
            format!("(Ljava/lang/Class;{FIELD}Ljava/lang/Object;)Ljava/lang/Object;"),
            read_field as *mut c_void,
        ),
        method(
            "writeField",
            format!("(Ljava/lang/Class;{FIELD}Ljava/lang/Object;Ljava/lang/Object;)V"),
            write_field as *mut c_void,
        ),
    ];
    Ok(env.register_native_methods(class, &methods)?)
}

/// `static native Object readField(Class<?> declaring, Field field, Object owner)`: the value
/// of reference field `field` of `owner`, or of the static field when `owner` is null.
extern "system" fn read_field<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    declaring: JClass<'local>,
    field: JObject<'local>,
    owner: JObject<'local>,
) -> jobject {
    entry(&mut env, std::ptr::null_mut(), |env| {
        let id = field_id(env, &field)?;
        let value = if owner.is_null() {
            // Safety: the id came from FromReflectedField on a static field of `declaring`.
            let id = unsafe { JStaticFieldID::from_raw(id) };
            env.get_static_field_unchecked(
                &declaring,
                id,
                jni::signature::JavaType::Object(String::new()),
            )?
        } else {
            // Safety: the id came from FromReflectedField on a field of `owner`'s class.
            let id = unsafe { JFieldID::from_raw(id) };
            env.get_field_unchecked(&owner, id, ReturnType::Object)?
        };
        Ok(value.l()?.into_raw())
    })
}

/// `static native void writeField(Class<?> declaring, Field field, Object owner, Object value)`.
extern "system" fn write_field<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    declaring: JClass<'local>,
    field: JObject<'local>,
    owner: JObject<'local>,
    value: JObject<'local>,
) {
    entry(&mut env, (), |env| {
        let id = field_id(env, &field)?;
        if owner.is_null() {
            // Safety: as in `read_field`.
            let id = unsafe { JStaticFieldID::from_raw(id) };
            env.set_static_field(&declaring, id, JValue::Object(&value))?;
        } else {
            // Safety: as in `read_field`.
            let id = unsafe { JFieldID::from_raw(id) };
            env.set_field_unchecked(&owner, id, JValue::Object(&value))?;
        }
        Ok(())
    });
}

/// `FromReflectedField`, which jni-rs does not wrap.
fn field_id(env: &mut JNIEnv, field: &JObject) -> Result<jni::sys::jfieldID, JvmError> {
    if field.is_null() {
        return Err(JvmError::Jni("readField/writeField: no field".into()));
    }
    let raw = env.get_raw();
    // Safety: `raw` is this thread's live JNIEnv (we are in a native method it called); the
    // function table of a JNI 1.2+ environment has FromReflectedField; `field` is a live
    // local reference to a `java.lang.reflect.Field`.
    let id = unsafe {
        let from_reflected = (**raw)
            .FromReflectedField
            .ok_or_else(|| JvmError::Jni("JNI has no FromReflectedField".into()))?;
        from_reflected(raw, field.as_raw())
    };
    if id.is_null() {
        return Err(JvmError::Jni(
            "FromReflectedField returned no field id".into(),
        ));
    }
    Ok(id)
}
