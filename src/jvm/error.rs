//! Errors of the JVM layer. Each `Display` is one line; a Java stack, where there is one, is
//! available separately through [`JvmError::java_exception`] and [`JavaException::stack_trace`].

use std::fmt;
use std::path::PathBuf;

use crate::jvmti::JvmtiError;

/// Everything that can go wrong starting the JVM or driving a scenario in it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JvmError {
    /// No JDK was configured or found on PATH.
    #[error("no JDK found (searched: {searched}); install JDK 17 or newer, or pass --java-home or set JAVA_HOME")]
    NoJdk {
        /// What was looked at, in order.
        searched: String,
    },
    /// A JDK location was given or found, but cannot be used.
    #[error("JDK at {} is unusable: {reason}", path.display())]
    JdkUnusable {
        /// The JDK directory.
        path: PathBuf,
        /// Why, for example "no lib/server/libjvm.so".
        reason: String,
    },
    /// The JVM (or the glue heapgrowth loads into it) failed to start.
    #[error("the JVM failed to start: {reason}")]
    StartFailed {
        /// Why, with the JNI error code explained where there is one.
        reason: String,
    },
    /// A JVM already runs in this process; a process can only ever create one.
    #[error(
        "a JVM was already started in this process, and a process can start only one; reuse it"
    )]
    AlreadyStarted,
    /// An entry of the scenario classpath does not exist.
    #[error("scenario classpath entry {} does not exist", path.display())]
    ClasspathEntryMissing {
        /// The entry as given.
        path: PathBuf,
    },
    /// A path cannot be passed to the JVM.
    #[error("path {} cannot be used: {reason}", path.display())]
    InvalidPath {
        /// The path.
        path: PathBuf,
        /// Why.
        reason: &'static str,
    },
    /// No class of that name on the scenario classpath.
    #[error("scenario class {class} not found on the scenario classpath")]
    ClassNotFound {
        /// The class name as given.
        class: String,
    },
    /// The class file exists but the JVM cannot load it (compiled for a newer Java, a missing
    /// superclass, ...).
    #[error("scenario class {class} cannot be loaded: {exception}")]
    ClassLoadFailed {
        /// The class name as given.
        class: String,
        /// The `LinkageError` the JVM threw.
        exception: JavaException,
    },
    /// The class does not implement `java.lang.Runnable`.
    #[error("scenario class {class} does not implement java.lang.Runnable")]
    NotRunnable {
        /// The class name.
        class: String,
    },
    /// The class is an interface or abstract.
    #[error(
        "scenario class {class} is abstract or an interface; a scenario must be a concrete class"
    )]
    AbstractClass {
        /// The class name.
        class: String,
    },
    /// No public constructor without parameters.
    #[error(
        "scenario class {class} has no public no-arg constructor{}",
        nested_class_hint(class)
    )]
    NoPublicNoArgConstructor {
        /// The class name.
        class: String,
    },
    /// The constructor or a static initialiser threw.
    #[error("constructor of scenario {class} threw {exception}")]
    ConstructorThrew {
        /// The class name.
        class: String,
        /// What it threw.
        exception: JavaException,
    },
    /// `run()` threw.
    #[error("scenario {class} threw {exception} in loop {loop_number}")]
    ScenarioThrew {
        /// The class name.
        class: String,
        /// The loop that threw, counted from 1 over the scenario's life.
        loop_number: u32,
        /// What it threw.
        exception: JavaException,
    },
    /// The scenario did not finish its loops (or its constructor, loop 0) within its time limit
    /// (`--scenario-timeout`); it was given up, blocked or too slow.
    #[error(
        "scenario {class} did not finish {} within the time limit of {seconds} s \
         (--scenario-timeout): {}",
        if *loop_number == 0 { "its constructor".to_string() } else { format!("loop {loop_number}") },
        stack.message.as_deref().unwrap_or("it is blocked or too slow; its thread's stack follows")
    )]
    ScenarioTimedOut {
        /// The class name.
        class: String,
        /// The loop that did not finish, counted from 1; 0 for the constructor.
        loop_number: u32,
        /// The time limit.
        seconds: u64,
        /// The scenario thread's stack when the limit was reached; its message names the
        /// deadlock the JVM sees, if any.
        stack: JavaException,
    },
    /// A scenario's loops would pass Java's `int` range over its life.
    #[error(
        "scenario {class} would run {loops} loops, more than Java's int range; lower \
         --warmup, --loops-per-snapshot or --confirm-loops"
    )]
    TooManyLoops {
        /// The class name.
        class: String,
        /// The loops it would have run.
        loops: u64,
    },
    /// A Rust-written scenario (`Harness::rust_scenario`) returned an error or panicked.
    #[error("Rust scenario {name} failed in loop {loop_number}: {message}")]
    RustScenarioFailed {
        /// The scenario's name.
        name: String,
        /// The loop that failed, counted from 1 over the scenario's life.
        loop_number: u32,
        /// The error it returned, or its panic message.
        message: String,
    },
    /// The heap dump could not be written.
    #[error("heap dump failed: {reason}")]
    HeapDumpFailed {
        /// Why.
        reason: String,
    },
    /// heapgrowth's own Java glue threw where it should not have: a bug, or the JVM is out of
    /// memory.
    #[error("heapgrowth's Java glue failed in {operation}: {exception}")]
    GlueFailed {
        /// What the glue was doing.
        operation: &'static str,
        /// What it threw.
        exception: JavaException,
    },
    /// A JVMTI call failed.
    #[error(transparent)]
    Jvmti(#[from] JvmtiError),
    /// A JNI call failed without a Java exception (for example the thread could not attach).
    #[error("JNI call failed: {0}")]
    Jni(String),
}

fn nested_class_hint(class: &str) -> &'static str {
    if class.contains('$') {
        " (a nested scenario class must be static)"
    } else {
        ""
    }
}

impl JvmError {
    /// The Java exception behind this error, if any: print its
    /// [`stack_trace`](JavaException::stack_trace) after the one-line message.
    pub fn java_exception(&self) -> Option<&JavaException> {
        match self {
            JvmError::ClassLoadFailed { exception, .. }
            | JvmError::ConstructorThrew { exception, .. }
            | JvmError::ScenarioThrew { exception, .. }
            | JvmError::GlueFailed { exception, .. }
            | JvmError::ScenarioTimedOut {
                stack: exception, ..
            } => Some(exception),
            _ => None,
        }
    }
}

#[doc(hidden)]
impl From<jni::errors::Error> for JvmError {
    /// Needed by `JNIEnv::with_local_frame`; Java exceptions never take this path (the glue
    /// module catches them first and maps them to typed variants).
    fn from(e: jni::errors::Error) -> JvmError {
        JvmError::Jni(e.to_string())
    }
}

/// A Java throwable, copied out of the JVM as plain strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaException {
    /// Its class, for example `java.lang.IllegalStateException`.
    pub class: String,
    /// `getMessage()`.
    pub message: Option<String>,
    /// Lines such as `at com.example.Cart.add(Cart.java:12)`, then for each cause
    /// `Caused by: class: message` followed by its own `at` lines and `... n more`. Frames of
    /// heapgrowth's glue below the user's code are left out.
    pub stack: Vec<String>,
}

impl JavaException {
    /// The stack as text, one line per element, indented like `printStackTrace` (`at` and
    /// `...` lines by four spaces). Empty if there is no stack.
    pub fn stack_trace(&self) -> String {
        let mut out = String::new();
        for line in &self.stack {
            if !line.starts_with("Caused by:") {
                out.push_str("    ");
            }
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

/// `class: message`, or just `class` without a message.
impl fmt::Display for JavaException {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.message {
            Some(message) => write!(f, "{}: {}", self.class, message),
            None => f.write_str(&self.class),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boom() -> JavaException {
        JavaException {
            class: "java.lang.IllegalStateException".into(),
            message: Some("boom".into()),
            stack: vec![
                "at com.example.Cart.run(Cart.java:12)".into(),
                "Caused by: java.io.IOException: disk".into(),
                "at com.example.Disk.write(Disk.java:3)".into(),
                "... 1 more".into(),
            ],
        }
    }

    #[test]
    fn scenario_threw_is_one_line() {
        let err = JvmError::ScenarioThrew {
            class: "com.example.Cart".into(),
            loop_number: 3,
            exception: boom(),
        };
        assert_eq!(
            err.to_string(),
            "scenario com.example.Cart threw java.lang.IllegalStateException: boom in loop 3"
        );
        assert_eq!(
            err.java_exception().unwrap().stack_trace(),
            "    at com.example.Cart.run(Cart.java:12)\n\
             Caused by: java.io.IOException: disk\n    \
             at com.example.Disk.write(Disk.java:3)\n    ... 1 more\n"
        );
    }

    #[test]
    fn nested_class_without_constructor_gets_a_hint() {
        let err = JvmError::NoPublicNoArgConstructor {
            class: "com.example.Outer$Inner".into(),
        };
        assert_eq!(
            err.to_string(),
            "scenario class com.example.Outer$Inner has no public no-arg constructor \
             (a nested scenario class must be static)"
        );
    }

    #[test]
    fn exception_without_message_shows_its_class() {
        let e = JavaException {
            class: "java.lang.NullPointerException".into(),
            message: None,
            stack: vec![],
        };
        assert_eq!(e.to_string(), "java.lang.NullPointerException");
    }
}
