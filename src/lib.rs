//! heapgrowth: runs a JVM scenario in loops, diffs heap snapshots, and reports the reference
//! paths to the objects that grow with every loop.
//!
//! The folders are roles, and the layers depend one way (`tests/layers.rs` checks it):
//! [`model`] (the heap, the dump readers and the growth search; no JNI) ← [`jvm`] (every call
//! into a JNIEnv or JVMTI env) and [`attach`] (a JVM heapgrowth did not start) ←
//! [`attribution`] ← [`report`] (text, JSON, HTML, gates) ← [`engine`] (settings, the search
//! loop, dump keeping) ← [`frontends`] (command line, cargo harness, JUnit). [`support`] holds
//! leaf helpers every layer may use. `docs/architecture.md` walks through a run.
//!
//! The short names below (`heapgrowth::growth`, `heapgrowth::tempdir`, ...) are the crate's
//! stable paths; the crate's own code uses them too.
#![warn(missing_docs)]

pub mod attach;
pub mod attribution;
pub mod engine;
pub mod frontends;
pub mod jvm;
pub mod model;
pub mod report;
pub mod support;

pub use engine::{old_object_session, settings};
pub use frontends::watch::jfr as jfr_watch;
pub use frontends::{diff, harness, watch};
pub use jvm::jvmti;
pub use model::{growth, heap, hprof, jfr};
pub(crate) use support::parallel;
pub use support::{class_name, java_text, line, output, tempdir};
