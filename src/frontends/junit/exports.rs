//! The JNI exports of the `libheapgrowth.so` cdylib, the native methods of the extension's
//! `NativeEngine` class. Each is a few lines: its body runs in [`boundary::entry`], which turns
//! an error into the Java exception the extension threw for it and lets no panic cross into the
//! JVM; the work is [`super::run_test`]'s.

use jni::objects::{JClass, JObject, JObjectArray, JString};
use jni::sys::{jint, jobject};
use jni::JNIEnv;

use crate::jvm::boundary;

/// The contract between this library and the extension's `NativeEngine` class: bump it whenever
/// a native method's signature or the meaning of what crosses it changes, so that a jar and a
/// library that don't match fail with a message instead of crashing the JVM. Version 8: the
/// settings as `key=value` strings in, a `TestOutcome` out, the reports written here.
const JUNIT_API_VERSION: jint = 8;

/// `NativeEngine.apiVersion()`: `JUNIT_API_VERSION`, checked right after `System.load`.
#[no_mangle]
pub extern "system" fn Java_dev_heapgrowth_junit_NativeEngine_apiVersion<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
) -> jint {
    boundary::entry(&mut env, -1, |_| Ok(JUNIT_API_VERSION))
}

/// `NativeEngine.closing()`, from the extension's JVM shutdown hook: no heap dump starts after
/// it, the one being written is waited for and every private directory of this process is
/// deleted, with the dumps in it.
#[no_mangle]
pub extern "system" fn Java_dev_heapgrowth_junit_NativeEngine_closing<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
) {
    boundary::entry(&mut env, (), |_| {
        super::dump_gate::close_at_shutdown();
        Ok(())
    });
}

/// `NativeEngine.search(callback, name, settings)`: runs the growth search on the test method
/// behind `callback`, writes the test's reports and returns its `TestOutcome`. `settings` are
/// `key=value` strings (see `request.rs`).
#[no_mangle]
pub extern "system" fn Java_dev_heapgrowth_junit_NativeEngine_search<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    callback: JObject<'local>,
    name: JString<'local>,
    settings: JObjectArray<'local>,
) -> jobject {
    boundary::entry(&mut env, std::ptr::null_mut(), |env| {
        let name = boundary::string(env, &name)?.unwrap_or_default();
        let pairs = if settings.is_null() {
            Vec::new()
        } else {
            boundary::strings_or_empty(env, &settings)?
        };
        let outcome = super::run_test(env, &callback, &name, &pairs)?;
        Ok(outcome.to_java(env)?.into_raw())
    })
}
