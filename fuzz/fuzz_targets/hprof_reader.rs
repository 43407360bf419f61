//! Feeds arbitrary bytes to the HPROF reader and, when they read as a heap dump, walks every
//! object, reference, class and root. Reading must fail cleanly or succeed; a panic, a hang or
//! an allocation sized by a corrupt length is a bug.
//!
//! Run with `cargo +nightly fuzz run hprof_reader` from the crate root. Good seeds are dumps
//! from `HeapBuilder::write_with` (every `DumpOptions::variants` layout) and small real dumps.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Errors are expected for most inputs; only panics and hangs count.
    let _ = heapgrowth::hprof::read_and_walk(data);
});
