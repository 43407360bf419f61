//! The text report of dumps whose names someone else chose: the fuzz target
//! `fuzz/fuzz_targets/text_report.rs` and a unit test feed it names, and check that what the
//! report shows holds no character a terminal or a viewer would act on.

use super::{render_normalized, render_text, ScenarioReport, StackDepth, Subject};
use crate::growth::{GrowthSearch, SearchConfig};
use crate::heap::{FieldType, RootKind};
use crate::hprof::builder::HeapBuilder;

/// Dumps in the search: enough for a path to grow at two of them after the first.
const DUMPS: usize = 3;

/// Three HPROF dumps of a leak whose class, field, thread and string names are cut from `data`
/// (at each `0xff`, read as UTF-8 with replacement characters, which the reader does too): a
/// static list of 4, 8, 12 items and a thread's local list of 2, 4, 6 strings. For the fuzz
/// target, and for the probes of scripts/probe-hostile.sh (`examples/hostile_dumps.rs`).
pub fn named_dumps(data: &[u8]) -> Vec<Vec<u8>> {
    let mut parts = data
        .split(|&b| b == 0xff)
        .map(|part| String::from_utf8_lossy(part).into_owned());
    let mut next = || parts.next().unwrap_or_default();
    // Prefixed, so a name never repeats one the heap must have (java.lang.Object).
    let class = format!("f.C{}", next());
    let field = format!("f{}", next());
    let thread = next();
    let string = next();
    (1..=DUMPS)
        .map(|n| {
            let mut h = HeapBuilder::new();
            let object = h.class_named("java.lang.Object");
            let item = h.class(&class, Some(object), &[("name", FieldType::Object)]);
            let holder = h.class("f.Holder", Some(object), &[]);
            h.static_field(holder, &field, FieldType::Object);
            let items: Vec<_> = (0..4 * n)
                .map(|_| {
                    let name = h.string(&string);
                    Some(h.instance(item, &[("name", name.into())]))
                })
                .collect();
            let array = h.object_array("java.lang.Object[]", &items);
            h.set_static(holder, &field, array);
            h.root(RootKind::StickyClass, holder);
            let thread = h.thread_named(&thread);
            let held: Vec<_> = (0..2 * n).map(|_| Some(h.string(&string))).collect();
            let local = h.object_array("java.lang.Object[]", &held);
            h.frame_local(local, thread);
            h.write()
        })
        .collect()
}

/// The text report, then the normalized report (of snapshots and baselines), of a search over
/// the [`named_dumps`] of `data`, each read by the reader as `heapgrowth diff` reads one.
pub fn reports_of_named_dumps(data: &[u8]) -> (String, String) {
    let mut search = GrowthSearch::new(SearchConfig {
        loops_per_snapshot: 1,
        max_snapshots: DUMPS as u32,
        confirm_loops: 0,
    });
    for (n, dump) in named_dumps(data).into_iter().enumerate() {
        let Ok(graph) = crate::hprof::from_bytes(dump) else {
            return (String::new(), String::new());
        };
        search.add_snapshot(&graph, n as u32 + 1);
    }
    let report = ScenarioReport {
        result: Ok(search.finish()),
        subject: Subject::HeapDumps,
        ..ScenarioReport::failed("named dumps", String::new())
    };
    (
        render_text(std::slice::from_ref(&report), StackDepth::Full),
        render_normalized(&report),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 30: names from a dump with terminal escapes, CR LF and bidi controls; the fuzz
    /// target's check, on the names a probe used.
    #[test]
    fn hostile_names_are_escaped_in_the_text_and_normalized_reports() {
        let hostile: &[&[u8]] = &[
            b"\x1b[31mRed\xff\x1b]0;title\x07\xff\r\nGcRoot(Forged)\xff\xe2\x80\xae",
            "\u{2066}x\u{2069}\u{ff}\u{85}\u{2028}\u{ff}a\u{202e}b".as_bytes(),
            b"\xff\xff\xff",
            b"\xc0\x80\n\n\xff\x00\xff\t\xff\x7f",
        ];
        for data in hostile {
            let (text, normalized) = reports_of_named_dumps(data);
            assert!(text.contains("growing node"), "{text}");
            assert!(!normalized.is_empty(), "{text}");
            for shown in [&text, &normalized] {
                let acting: Vec<char> = shown
                    .chars()
                    .filter(|&c| c != '\n' && (c.is_control() || crate::line::needs_escape(c)))
                    .collect();
                assert_eq!(acting, Vec::<char>::new(), "{shown}");
                assert!(
                    !shown.lines().any(|line| line.starts_with("GcRoot(Forged")),
                    "{shown}"
                );
            }
        }
    }
}
