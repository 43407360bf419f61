//! Java strings and string arrays to Rust and back, written once.

use jni::objects::{JObject, JObjectArray, JString};
use jni::JNIEnv;

/// A Java string as a Rust one; `None` for Java `null`.
pub fn string(env: &mut JNIEnv, value: &JString) -> jni::errors::Result<Option<String>> {
    if value.is_null() {
        return Ok(None);
    }
    Ok(Some(env.get_string(value)?.into()))
}

/// A Java `String[]` as Rust strings; `None` for a `null` element.
pub fn strings(env: &mut JNIEnv, array: &JObjectArray) -> jni::errors::Result<Vec<Option<String>>> {
    let length = env.get_array_length(array)?;
    let mut out = Vec::with_capacity(length as usize);
    for i in 0..length {
        let element = JString::from(env.get_object_array_element(array, i)?);
        out.push(string(env, &element)?);
        env.delete_local_ref(element)?;
    }
    Ok(out)
}

/// A Java `String[]` as Rust strings, a `null` element as the empty string.
pub fn strings_or_empty(
    env: &mut JNIEnv,
    array: &JObjectArray,
) -> jni::errors::Result<Vec<String>> {
    Ok(strings(env, array)?
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect())
}

/// A new Java `String[]` of `values`.
pub fn new_string_array<'local, S: AsRef<str>>(
    env: &mut JNIEnv<'local>,
    values: &[S],
) -> jni::errors::Result<JObjectArray<'local>> {
    let array = env.new_object_array(values.len() as i32, "java/lang/String", JObject::null())?;
    for (i, value) in values.iter().enumerate() {
        let value = env.new_string(value.as_ref())?;
        env.set_object_array_element(&array, i as i32, &value)?;
        env.delete_local_ref(value)?;
    }
    Ok(array)
}
