//! heapgrowth: runs a JVM scenario in loops, diffs heap snapshots, and reports the reference
//! paths to the objects that grow with every loop.
//!
//! Layers depend one way: [`heap`] (the JNI-free model of one snapshot, depending on nothing
//! above it) ← [`hprof`] (the dump reader that builds it) and [`jvm`] (JVM access, the only
//! JNI/JVMTI code) ← [`growth`] (path tree, diff, retained size) ← [`attribution`] ←
//! [`report`] (text, JSON, HTML) ← [`engine`] and the front ends (command line, cargo harness,
//! JUnit).
#![warn(missing_docs)]

pub mod attach;
pub mod attribution;
pub mod class_name;
pub mod diff;
pub mod engine;
pub mod growth;
pub mod harness;
pub mod heap;
pub mod hprof;
pub mod jfr;
pub mod jfr_watch;
pub mod jvm;
pub mod jvmti;
pub mod line;
pub mod native_api;
pub mod old_object_session;
pub mod output;
mod parallel;
pub mod report;
pub mod settings;
pub mod tempdir;
pub mod watch;
