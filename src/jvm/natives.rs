//! The native methods of `dev.heapgrowth.attribution.LiveAttribution`, registered in every JVM
//! heapgrowth attributes in (the one it starts and a test JVM): reading and writing a field
//! through JNI. Reflection's `setAccessible` fails on the fields of JDK packages that are not
//! opened to the unnamed module (`java.util.concurrent.atomic`, `java.beans`, and in a test JVM
//! that nobody opened anything in, `java.lang`), and growing paths run through them; JNI field
//! access is not subject to module checks.
//!
//! The JDK hides some classes' fields from reflection (`jdk.internal.reflect.Reflection`'s
//! filter: every field of `ClassLoader`, `Class`, `Module`, on 17 and 25, also with
//! `--add-opens`), and paths of class-loader leaks run through them (`ClassLoader.classes`,
//! `ClassLoader.parallelLockMap`). `hiddenField` finds such a field through JNI, which does not
//! filter, and hands Java a real `java.lang.reflect.Field` for it (`ToReflectedField`).
//!
//! No panic crosses into the JVM: each method runs its body in [`entry`], and an error or a
//! panic becomes a pending `IllegalStateException`.

use std::ffi::c_void;

use jni::objects::{JClass, JFieldID, JObject, JObjectArray, JStaticFieldID, JString, JValue};
use jni::signature::ReturnType;
use jni::sys::{jboolean, jfieldID, jobject, JNI_FALSE, JNI_TRUE};
use jni::{JNIEnv, NativeMethod};

use super::boundary::{catch, entry, string, strings_or_empty, BoundaryError, CallError};
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
        method(
            "findLoadedClass",
            "(Ljava/lang/ClassLoader;Ljava/lang/String;)Ljava/lang/Class;".into(),
            find_loaded_class as *mut c_void,
        ),
        method(
            "hiddenField",
            format!("(Ljava/lang/Class;Ljava/lang/String;[Ljava/lang/String;Z){FIELD}"),
            hidden_field as *mut c_void,
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

/// `static native Field hiddenField(Class<?> declaring, String name, String[] descriptors,
/// boolean isStatic)`: the field `name` that `declaring` itself declares, with the first of
/// `descriptors` (JVM type descriptors, `Ljava/util/ArrayList;`) JNI finds it with, as a
/// `java.lang.reflect.Field`; null when JNI finds it with none of them. For fields reflection
/// hides: `GetFieldID` does not filter, and `ToReflectedField` builds the `Field` from the VM's
/// own field data, so its type and modifiers are the real ones.
extern "system" fn hidden_field<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    declaring: JClass<'local>,
    name: JString<'local>,
    descriptors: JObjectArray<'local>,
    is_static: jboolean,
) -> jobject {
    entry(&mut env, std::ptr::null_mut(), |env| {
        let name = string(env, &name)?
            .ok_or_else(|| BoundaryError::illegal_argument("hiddenField: no field name"))?;
        let is_static = is_static != JNI_FALSE;
        for descriptor in strings_or_empty(env, &descriptors)? {
            let Some(id) = find_field_id(env, &declaring, &name, &descriptor, is_static)? else {
                continue;
            };
            // GetFieldID also finds a field a superclass declares; the caller asked for the
            // one `declaring` declares (a field of that name higher up is another field).
            let field = to_reflected_field(env, &declaring, id, is_static)?;
            let result = env.call_method(&field, "getDeclaringClass", "()Ljava/lang/Class;", &[]);
            let owner = match catch(env, result) {
                Ok(owner) => owner.l()?,
                Err(CallError::Thrown(_)) | Err(CallError::Jni(_)) => continue,
            };
            if env.is_same_object(&owner, &declaring)? {
                return Ok(field.into_raw());
            }
        }
        Ok(std::ptr::null_mut())
    })
}

/// `static native Class<?> findLoadedClass(ClassLoader loader, String name)`: what
/// `loader.findLoadedClass(name)` returns, the class `loader` already loaded under that name, or
/// null. The method is protected (and final, so no loader overrides it): JNI calls it without
/// an access check, and, unlike `Class.forName`, it never runs the loader's `loadClass`, which
/// may define a class on demand.
extern "system" fn find_loaded_class<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    loader: JObject<'local>,
    name: JString<'local>,
) -> jobject {
    entry(&mut env, std::ptr::null_mut(), |env| {
        if loader.is_null() {
            return Err(BoundaryError::illegal_argument(
                "findLoadedClass: no loader",
            ));
        }
        let result = env.call_method(
            &loader,
            "findLoadedClass",
            "(Ljava/lang/String;)Ljava/lang/Class;",
            &[JValue::Object(&name)],
        );
        // An exception it threw stays pending for Java to see (`entry` throws nothing over it).
        Ok(result?.l()?.into_raw())
    })
}

/// `GetFieldID`/`GetStaticFieldID` of `name` with `descriptor` in `class`: `None` when the class
/// has no such field (the `NoSuchFieldError` is cleared); any other exception is an error.
fn find_field_id(
    env: &mut JNIEnv,
    class: &JClass,
    name: &str,
    descriptor: &str,
    is_static: bool,
) -> Result<Option<jfieldID>, BoundaryError> {
    let result = if is_static {
        env.get_static_field_id(class, name, descriptor)
            .map(|id| id.into_raw())
    } else {
        env.get_field_id(class, name, descriptor)
            .map(|id| id.into_raw())
    };
    match catch(env, result) {
        Ok(id) => Ok(Some(id)),
        Err(CallError::Thrown(thrown)) => {
            if env.is_instance_of(&thrown, "java/lang/NoSuchFieldError")? {
                Ok(None)
            } else {
                // Put it back: `entry` leaves a pending exception for Java to see.
                env.throw(thrown)?;
                Err(BoundaryError::illegal_state(
                    "hiddenField: GetFieldID threw",
                ))
            }
        }
        // A descriptor JNI could not even look up (malformed): no field with it.
        Err(CallError::Jni(_)) => Ok(None),
    }
}

/// `ToReflectedField`, which jni-rs does not wrap.
fn to_reflected_field<'local>(
    env: &mut JNIEnv<'local>,
    class: &JClass,
    id: jfieldID,
    is_static: bool,
) -> Result<JObject<'local>, JvmError> {
    let raw = env.get_raw();
    // Safety: `raw` is this thread's live JNIEnv (we are in a native method it called); the
    // function table of a JNI 1.2+ environment has ToReflectedField; `id` came from
    // GetFieldID/GetStaticFieldID on `class` (a live local reference) with the same
    // static-ness.
    let field = unsafe {
        let to_reflected = (**raw)
            .ToReflectedField
            .ok_or_else(|| JvmError::Jni("JNI has no ToReflectedField".into()))?;
        to_reflected(
            raw,
            class.as_raw(),
            id,
            if is_static { JNI_TRUE } else { JNI_FALSE },
        )
    };
    if field.is_null() {
        return Err(JvmError::Jni("ToReflectedField returned no field".into()));
    }
    // Safety: a non-null local reference ToReflectedField just returned, owned by this frame.
    Ok(unsafe { JObject::from_raw(field) })
}

/// `FromReflectedField`, which jni-rs does not wrap.
fn field_id(env: &mut JNIEnv, field: &JObject) -> Result<jfieldID, JvmError> {
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
