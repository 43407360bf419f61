//! The Rust side of the example project (empty: the scenarios are Java, tested from
//! `tests/leaks.rs`).
