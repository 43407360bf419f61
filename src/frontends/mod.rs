//! The front ends, one thin layer over [`crate::engine`]: the command line's `diff` and `watch`
//! modes, the cargo test harness and the JUnit extension's native side.

#[doc(hidden)]
pub mod cli;
pub mod diff;
pub mod harness;
pub mod junit;
pub mod watch;
