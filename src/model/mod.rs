//! The model: what a heap is and how it grows, with no JNI and no JVM. Everything here is tested
//! on synthetic heaps (`hprof::builder`) and saved dumps.
//!
//! [`heap`] is one snapshot; [`hprof`] reads a dump into it; [`jfr`] reads JFR old-object
//! samples; [`growth`] builds the shortest-path tree of each snapshot and finds what keeps
//! growing over them.

pub mod growth;
pub mod heap;
pub mod hprof;
pub mod jfr;
