//! Recorded stacks: the frames a JVMTI event callback takes (`current_stack`), resolved to
//! names once the recorder stops (`resolve`). Shared by the field watch and allocation
//! sampling.

use std::collections::HashMap;
use std::ffi::{c_char, CStr};

use jni::objects::JObject;
use jni::JNIEnv;

use super::sys;
use super::{JvmtiEnv, JvmtiError};

/// Frames kept per recorded event: enough to pass the JDK's and a library's own frames and
/// reach the caller's.
pub const MAX_FRAMES: usize = 64;
/// Writes recorded at most per watch, so a hot field cannot exhaust memory.
pub(super) const MAX_EVENTS: usize = 20_000;

/// One frame of a recorded stack, resolved to names.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    /// Declaring class, `pkg.Outer$Inner`.
    pub class: String,
    /// Method name.
    pub method: String,
    /// Source file, if the class has one.
    pub file: Option<String>,
    /// Source line, if the method has a line number table.
    pub line: Option<i32>,
    /// Where the class was loaded from, its code source's URL (`file:/app/classes/`,
    /// `file:/repo/guava.jar`); `None` for the JDK's own classes.
    pub code_source: Option<String>,
}

/// Finds a class's code source (see [`Frame::code_source`]) for [`super::FieldWatch::stop`] and
/// [`super::AllocationSampling::stop`]: heapgrowth's Java helper, which recording proxies use
/// too, so both name code sources alike.
pub type CodeSourceOf<'a> = dyn FnMut(&mut JNIEnv, &JObject) -> Option<String> + 'a;

impl std::fmt::Display for Frame {
    /// `pkg.Class.method(File.java:LINE)`, as Java prints stack frames.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}(", self.class, self.method)?;
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{file}:{line})"),
            (Some(file), None) => write!(f, "{file})"),
            // JFR's stacks have lines but no files.
            (None, Some(line)) => write!(f, "line {line})"),
            (None, None) => f.write_str("Unknown Source)"),
        }
    }
}

/// What a stopped watch recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WatchRecord {
    /// One stack per recorded write, innermost frame first.
    pub stacks: Vec<Vec<Frame>>,
    /// Writes not recorded because of the cap.
    pub dropped: u64,
    /// Per stack, the index of the watched field written (see
    /// [`JvmtiEnv::watch_fields_writes`]).
    pub fields: Vec<usize>,
    /// Per stack, the tag allocation sampling gave the object the writing thread made last, if
    /// sampling ran at the same time (see [`super::SampleRecord`]).
    pub paired: Vec<Option<i64>>,
}

/// What a frame needs of its method, looked up once per method.
pub(super) struct MethodNames {
    pub(super) class: String,
    pub(super) method: String,
    file: Option<String>,
    lines: Vec<sys::jvmtiLineNumberEntry>,
    code_source: Option<String>,
}

/// Raw frames as `GetStackTrace` gave them: method id (as an address) and bytecode index.
pub(super) type RawStack = Vec<(usize, sys::jlocation)>;

impl JvmtiEnv {
    /// Names for recorded stacks. `jni` must be the current thread's environment, inside a
    /// local frame (one local reference per distinct method's class, deleted as it goes).
    pub(super) fn resolve(
        &self,
        jni: &mut JNIEnv,
        raw: &[RawStack],
        code_source: &mut CodeSourceOf,
    ) -> Result<Vec<Vec<Frame>>, JvmtiError> {
        let mut names: HashMap<usize, MethodNames> = HashMap::new();
        let mut stacks = Vec::with_capacity(raw.len());
        for raw in raw {
            let mut frames = Vec::with_capacity(raw.len());
            for &(method, location) in raw {
                if let std::collections::hash_map::Entry::Vacant(slot) = names.entry(method) {
                    slot.insert(self.method_names(jni, method as sys::jmethodID, code_source)?);
                }
                let names = &names[&method];
                let line = names
                    .lines
                    .iter()
                    .filter(|entry| entry.start_location <= location)
                    .max_by_key(|entry| entry.start_location)
                    .map(|entry| entry.line_number);
                frames.push(Frame {
                    class: names.class.clone(),
                    method: names.method.clone(),
                    file: names.file.clone(),
                    line,
                    code_source: names.code_source.clone(),
                });
            }
            stacks.push(frames);
        }
        Ok(stacks)
    }

    /// Class name, method name, source file, line table and code source of `method`.
    pub(super) fn method_names(
        &self,
        jni: &mut JNIEnv,
        method: sys::jmethodID,
        code_source: &mut CodeSourceOf,
    ) -> Result<MethodNames, JvmtiError> {
        let mut class: sys::jclass = std::ptr::null_mut();
        // Safety: `method` was reported by GetStackTrace while its class was loaded; classes
        // with a live method on a recorded stack are not unloaded while the scenario's loader
        // lives. `class` is writable.
        unsafe { jvmti!(self, GetMethodDeclaringClass(method, &mut class)) }?;
        // Safety: `class` is a local reference JVMTI just returned; owning it frees it.
        let class = unsafe { JObject::from_raw(class) };
        let mut signature: *mut c_char = std::ptr::null_mut();
        // Safety: the class reference is live; a NULL generic pointer is allowed.
        unsafe {
            jvmti!(
                self,
                GetClassSignature(class.as_raw(), &mut signature, std::ptr::null_mut())
            )
        }?;
        // Safety: JVMTI returned a NUL-terminated string it allocated.
        let signature = unsafe { self.take_string(signature) };
        let mut name: *mut c_char = std::ptr::null_mut();
        // Safety: `method` is valid (see above); NULL for the outputs we don't want.
        unsafe {
            jvmti!(
                self,
                GetMethodName(
                    method,
                    &mut name,
                    std::ptr::null_mut(),
                    std::ptr::null_mut()
                )
            )
        }?;
        // Safety: as above.
        let name = unsafe { self.take_string(name) };
        let mut file: *mut c_char = std::ptr::null_mut();
        // Safety: live class reference; absent information is an error code, not UB.
        let file = match unsafe { jvmti!(self, GetSourceFileName(class.as_raw(), &mut file)) } {
            // Safety: as above.
            Ok(()) => Some(unsafe { self.take_string(file) }),
            Err(_) => None,
        };
        let mut count: sys::jint = 0;
        let mut table: *mut sys::jvmtiLineNumberEntry = std::ptr::null_mut();
        // Safety: `method` is valid; native methods answer with an error code.
        let lines =
            match unsafe { jvmti!(self, GetLineNumberTable(method, &mut count, &mut table)) } {
                Ok(()) if !table.is_null() => {
                    // Safety: JVMTI allocated `count` entries at `table`.
                    let lines = unsafe { std::slice::from_raw_parts(table, count.max(0) as usize) }
                        .to_vec();
                    // Safety: `table` was allocated by JVMTI and is freed once.
                    let _ = unsafe { jvmti!(self, Deallocate(table.cast())) };
                    lines
                }
                _ => Vec::new(),
            };
        let code_source = code_source(jni, &class);
        let _ = jni.delete_local_ref(class);
        Ok(MethodNames {
            class: class_name(&signature),
            method: name,
            file,
            lines,
            code_source,
        })
    }

    /// Copies and frees a string JVMTI allocated; empty for NULL.
    ///
    /// # Safety
    /// `raw` must be NULL or a NUL-terminated string allocated by this environment, not used
    /// afterwards.
    unsafe fn take_string(&self, raw: *mut c_char) -> String {
        if raw.is_null() {
            return String::new();
        }
        // Safety: the caller guarantees a NUL-terminated string.
        let text = unsafe { CStr::from_ptr(raw) }
            .to_string_lossy()
            .into_owned();
        // Safety: allocated by JVMTI, freed once.
        let _ = unsafe { jvmti!(self, Deallocate(raw.cast())) };
        text
    }
}

/// `Lpkg/Outer$Inner;` → `pkg.Outer$Inner`; arrays as `[Ljava/lang/Object;` stay readable.
fn class_name(signature: &str) -> String {
    signature
        .strip_prefix('L')
        .and_then(|s| s.strip_suffix(';'))
        .unwrap_or(signature)
        .replace('/', ".")
}

/// Up to [`MAX_FRAMES`] frames of the current thread.
///
/// # Safety
/// `jvmti` must be a live environment and the thread attached (an event callback's).
pub(super) unsafe fn current_stack(jvmti: *mut sys::jvmtiEnv) -> Option<RawStack> {
    let mut frames = [sys::jvmtiFrameInfo {
        method: std::ptr::null_mut(),
        location: 0,
    }; MAX_FRAMES];
    let mut count: sys::jint = 0;
    // Safety: NULL thread is the current thread; the buffer holds MAX_FRAMES frames.
    let code = unsafe {
        sys::GetStackTrace(
            jvmti,
            std::ptr::null_mut(),
            0,
            MAX_FRAMES as sys::jint,
            frames.as_mut_ptr(),
            &mut count,
        )
    };
    if code != sys::JVMTI_ERROR_NONE {
        return None;
    }
    Some(
        frames[..count.max(0) as usize]
            .iter()
            .map(|f| (f.method as usize, f.location))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_signatures_become_java_names() {
        assert_eq!(
            class_name("Lcorpus/app/Registry$Entry;"),
            "corpus.app.Registry$Entry"
        );
        assert_eq!(class_name("I"), "I");
    }

    #[test]
    fn frames_print_as_java_does() {
        let frame = Frame {
            class: "a.B".into(),
            method: "run".into(),
            file: Some("B.java".into()),
            line: Some(12),
            code_source: None,
        };
        assert_eq!(frame.to_string(), "a.B.run(B.java:12)");
        let native = Frame {
            line: None,
            file: None,
            ..frame
        };
        assert_eq!(native.to_string(), "a.B.run(Unknown Source)");
    }
}
