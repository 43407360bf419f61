//! heapgrowth: runs a JVM scenario in loops, diffs heap snapshots, and reports the reference
//! paths to the objects that grow with every loop.
//!
//! Layers depend one way: [`jvm`] (JVM access, the only JNI/JVMTI code) → [`hprof`] and
//! [`heap`] (the snapshot and its JNI-free model) → [`growth`] (path tree, diff, retained size)
//! → [`report`] (text and JSON). [`engine`] ties them together for the command line.
#![warn(missing_docs)]

pub mod attach;
pub mod attribution;
pub mod engine;
pub mod growth;
pub mod harness;
pub mod heap;
pub mod hprof;
pub mod jvm;
pub mod jvmti;
pub mod line;
pub mod native_api;
mod parallel;
pub mod report;
pub mod settings;
pub mod tempdir;
