//! Feeds arbitrary bytes to the HPROF reader and, when they read as a heap dump, walks every
//! object, reference, class and root. Reading must fail cleanly or succeed; a panic, a hang or
//! an allocation sized by a corrupt length is a bug.
//!
//! Run with `scripts/fuzz.sh [SECONDS]` (nightly toolchain, no cargo-fuzz needed; CI runs it
//! for 60 s), or with `cargo +nightly fuzz run hprof_reader` from the crate root. Its seeds are
//! dumps from `HeapBuilder::write_with` in every `DumpOptions::variants` layout
//! (`examples/fuzz_seeds.rs`); small real dumps make good seeds too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Errors are expected for most inputs; only panics and hangs count.
    let _ = heapgrowth::hprof::read_and_walk(data);
});
