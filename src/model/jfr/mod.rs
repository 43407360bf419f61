//! JFR old-object samples of a running JVM: for heaps too big to dump (the large-heap case:
//! heaps of hundreds of gigabytes that cannot be dumped; docs/architecture.md, Glossary).
//!
//! A heap dump of hundreds of gigabytes takes minutes to write with the JVM stopped, and as
//! much disk; JFR's `jdk.OldObjectSample` event costs a fraction of that. While a recording
//! with the event enabled runs, the JVM samples allocations (at TLAB refills and allocations
//! outside a TLAB, weighted by the bytes allocated in between), keeps a bounded queue of the
//! sampled objects through weak handles, and drops a sample when its object dies. When the
//! recording is dumped with `path-to-gc-roots=true` the JVM stops at a safepoint, walks the
//! heap from its roots to every sample still alive, and writes one event per sample: its class,
//! the chain of references from a GC root, its allocation stack and time.
//!
//! This module is the reading layer, below the growth search and beside [`crate::hprof`]; it
//! uses no other module of the crate:
//!
//! * [`read`]: checks a `.jfr` file's chunks and reads its samples with the JDK's own
//!   `jfr print --json` (see there for why that tool and what it costs per MB);
//! * the model below: the samples as plain data, names in the heap model's spelling
//!   (`java.util.HashMap$Node`, `byte[]`), which [`crate::growth::old_objects`] groups and judges.
//!
//! The recording itself is JVM access: [`crate::attach::OldObjectRecording`] starts it through
//! the attach channel, dumps it into a private directory at each interval, and always stops it.
//!
//! What sampling cannot tell, stated in every report that uses it: the queue holds
//! `old-object-queue-size` samples (256 unless the JVM was started with
//! `-XX:FlightRecorderOptions:old-object-queue-size=N`; it cannot change while the JVM runs);
//! samples are taken by allocation, so a leak shows in proportion to the bytes it allocates,
//! not to the objects it keeps; only survivors are reported, and only those allocated before the
//! JVM's last garbage collection (a sample younger than that is not "old" yet), so counts move
//! at collections.

pub mod read;

use std::path::PathBuf;
use std::time::Duration;

pub use read::{check_recording, JfrTool, SampleDump};

/// Why a recording could not be read. Each message is one line that says what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JfrError {
    /// A `.jfr` file that is cut short or is not a recording at all.
    #[error("{} is not a complete JFR recording: {detail}", .path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// What is missing, with offsets.
        detail: String,
    },

    /// No `jfr` tool next to the JVM, in its JDK or in `JAVA_HOME`.
    #[error(
        "cannot read JFR recordings: no `jfr` tool in {tried} (a JRE has none); set JAVA_HOME \
         to a JDK 17 or newer"
    )]
    NoReader {
        /// The places looked at, joined.
        tried: String,
    },

    /// The `jfr` tool failed or printed something that is not its JSON.
    #[error("`{} print --json` could not read {}: {message}", .tool.display(), .path.display())]
    ReadFailed {
        /// The tool.
        tool: PathBuf,
        /// The recording.
        path: PathBuf,
        /// Its message, or what did not parse.
        message: String,
    },

    /// A file operation failed.
    #[error("cannot {what}: {source}")]
    Io {
        /// What we tried.
        what: String,
        /// The error.
        source: std::io::Error,
    },
}

/// One `jdk.OldObjectSample` event: a sampled object that was alive when the recording was
/// dumped.
#[derive(Clone, Debug, PartialEq)]
pub struct OldObjectSample {
    /// When the JVM wrote the event, in nanoseconds since the Unix epoch: the time of the dump
    /// (every sample of one dump has the same).
    pub dump_time: i64,
    /// When the object was allocated, in nanoseconds since the Unix epoch.
    pub allocation_time: i64,
    /// How long the object had lived at the dump (`objectAge`: the dump's start minus the
    /// allocation time, not a count of collections survived).
    pub age: Duration,
    /// Heap used after the collection before the sample was taken (`lastKnownHeapUsage`:
    /// not the heap at the dump).
    pub heap_used_at_last_gc: u64,
    /// The sampled object.
    pub object: ChainObject,
    /// The objects that reference it, nearest first, out to the one a root references; empty
    /// when the dump had no path for it (the walk gave up, or `path-to-gc-roots` was off).
    pub referrers: Vec<Referrer>,
    /// The GC root the chain starts at, if the dump found one.
    pub root: Option<SampleRoot>,
    /// The thread that allocated the object (its Java name), if known.
    pub thread: Option<String>,
    /// The allocation stack, innermost frame first; empty when stack traces were off.
    pub stack: Vec<JfrFrame>,
    /// Whether the JVM cut the stack at its stack depth (64 unless
    /// `-XX:FlightRecorderOptions:stackdepth=N`).
    pub stack_truncated: bool,
}

/// An object in a sample's chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainObject {
    /// Its class, as the heap model spells it (`java.util.HashMap$Node[]`, `byte[]`).
    pub class: String,
    /// What JFR says about it: `Size: 7120` for a collection, `Class Name: Foo` for a
    /// `java.lang.Class`, `Thread Name: main` for a thread.
    pub description: Option<String>,
    /// The array's length, for an array.
    pub array_length: Option<u64>,
}

impl ChainObject {
    /// For a `java.lang.Class` object: the class it stands for (from JFR's description).
    pub fn class_object_name(&self) -> Option<&str> {
        if self.class != "java.lang.Class" {
            return None;
        }
        self.description
            .as_deref()
            .and_then(|d| d.strip_prefix("Class Name: "))
            .map(str::trim)
    }
}

/// One link of a chain: an object and how it references the object before it (nearer the
/// sample).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Referrer {
    /// How it references the object before it.
    pub via: Via,
    /// The referring object.
    pub object: ChainObject,
    /// References JFR left out between the two (it keeps the 100 nearest the sample and the 100
    /// nearest the root of a longer chain).
    pub skipped: u64,
}

/// The kind of reference of a [`Referrer`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Via {
    /// A field of the referrer (a static field when the referrer is a `java.lang.Class`).
    Field {
        /// The field's name.
        name: String,
        /// Whether the field is static.
        is_static: bool,
    },
    /// An element of the referrer, an array.
    ArrayElement {
        /// The element's index.
        index: u64,
    },
    /// JFR did not say.
    Unknown,
}

/// The GC root of a sample's chain, as JFR names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampleRoot {
    /// The part of the JVM that holds the root: `Threads`, `Class Loader Data`,
    /// `Global JNI Handles`, `Universe`, ...
    pub system: String,
    /// What kind of root within it: `Stack Variable`, `Local JNI Handle`, `Handle Area`, ...
    /// (`<unknown>` for most systems).
    pub kind: String,
    /// More about it: `Thread Name: main` for a thread's roots.
    pub description: Option<String>,
}

impl SampleRoot {
    /// For a thread's roots: the thread's name.
    pub fn thread_name(&self) -> Option<&str> {
        self.description
            .as_deref()
            .and_then(|d| d.strip_prefix("Thread Name: "))
    }
}

/// One frame of an allocation stack.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JfrFrame {
    /// The method's class, `pkg.Outer$Inner`.
    pub class: String,
    /// The method's name.
    pub method: String,
    /// The source line, if the method has a line number table (JFR records no file name).
    pub line: Option<i32>,
    /// The name of the class's loader as JFR gives it (`bootstrap`, `platform`, `app`, or the
    /// loader's class when the loader has no name); `None` when JFR did not say.
    pub loader: Option<String>,
    /// The location of the class's named module (`jrt:/java.base`); `None` for the unnamed
    /// module (the class path).
    pub module_location: Option<String>,
}

impl JfrFrame {
    /// Whether the frame's class is the JDK's: in a module of the runtime image, or loaded by
    /// the boot or platform loader.
    pub fn is_jdk(&self) -> bool {
        self.module_location
            .as_deref()
            .is_some_and(|location| location.starts_with("jrt:"))
            || matches!(self.loader.as_deref(), Some("bootstrap") | Some("platform"))
    }
}

/// JFR's internal spelling of a class as the heap model spells classes.
pub use crate::class_name::java_class_name;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_of_the_runtime_image_and_of_the_jdks_loaders_are_the_jdks() {
        let frame = |loader: Option<&str>, module: Option<&str>| JfrFrame {
            class: "x.Y".into(),
            method: "m".into(),
            line: None,
            loader: loader.map(Into::into),
            module_location: module.map(Into::into),
        };
        assert!(frame(Some("bootstrap"), None).is_jdk());
        assert!(frame(Some("app"), Some("jrt:/jdk.compiler")).is_jdk());
        assert!(!frame(Some("app"), None).is_jdk());
        assert!(!frame(None, None).is_jdk());
    }

    #[test]
    fn class_objects_and_thread_roots_name_what_they_stand_for() {
        let class = ChainObject {
            class: "java.lang.Class".into(),
            description: Some("Class Name: JfrService".into()),
            array_length: None,
        };
        assert_eq!(class.class_object_name(), Some("JfrService"));
        let root = SampleRoot {
            system: "Threads".into(),
            kind: "Stack Variable".into(),
            description: Some("Thread Name: main".into()),
        };
        assert_eq!(root.thread_name(), Some("main"));
    }
}
