//! Feeds names cut from arbitrary bytes (class, field, thread and string names) into three
//! HPROF dumps of a leak, reads them with the reader, searches them for growth, and checks the
//! text report and the normalized report (snapshots, baselines): neither may hold a character a
//! terminal or a viewer acts on (control characters but line feeds, bidi controls, line
//! separators), and no name may start a line of its own (issue 30).
//!
//! Run with `scripts/fuzz.sh SECONDS text_report`.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Whether `c` changes how a terminal or a viewer shows text: the oracle, written apart from
/// the escaping function it checks.
fn acts(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
}

fuzz_target!(|data: &[u8]| {
    let (text, normalized) = heapgrowth::report::reports_of_named_dumps(data);
    for shown in [&text, &normalized] {
        if let Some(c) = shown.chars().find(|&c| acts(c)) {
            panic!("{c:?} reached the report unescaped:\n{shown}");
        }
    }
    // Every line of the text report is one the renderer wrote: a name that forged one would
    // start a line with a path step.
    for line in text.lines() {
        assert!(
            !line.starts_with("GcRoot(") && !line.starts_with("STATIC_FIELD"),
            "a forged line: {line:?}\n{text}"
        );
    }
});
