//! What allocation sampling says when it did not record everything: the cap on sampled objects
//! alive at once (or on all sampled objects, where the JVM reports no frees), the table of
//! distinct allocation stacks, and the walk below the node that stops at its bound. Each text
//! is said only when it happened, with its numbers.

use crate::jvmti::{SampleRecord, MAX_LIVE, MAX_STACKS};

/// The caveat of an attribution made from a record that missed objects.
pub fn cap_caveat(record: &SampleRecord) -> Option<String> {
    missed(record)
        .map(|missed| format!("{missed}, so the counts above are of the recorded ones only"))
}

/// [`cap_caveat`] for a record that found nothing under the node: what it missed may have
/// been the node's new objects.
pub fn cap_reason(record: &SampleRecord) -> Option<String> {
    missed(record).map(|missed| format!("{missed}: the node's new objects may be among them"))
}

/// What the record missed, joined with "; ", if anything.
fn missed(record: &SampleRecord) -> Option<String> {
    let mut parts = Vec::new();
    let for_live = record.dropped.saturating_sub(record.dropped_for_stacks);
    if for_live > 0 {
        parts.push(if record.frees_counted {
            format!(
                "allocation sampling stopped recording while {} sampled objects were alive (its \
                 cap on live objects), and {} more were not recorded",
                thousands(MAX_LIVE),
                thousands(for_live)
            )
        } else {
            format!(
                "allocation sampling stopped recording after {} sampled objects (its cap; this \
                 JVM reports no freed objects, so dead ones counted too), and {} more were not \
                 recorded",
                thousands(MAX_LIVE),
                thousands(for_live)
            )
        });
    }
    if record.dropped_for_stacks > 0 {
        parts.push(format!(
            "allocation sampling's table of {} distinct allocation stacks was full, and {} \
             objects allocated at other stacks were not recorded",
            thousands(MAX_STACKS as u64),
            thousands(record.dropped_for_stacks)
        ));
    }
    if record.walk_cut {
        parts.push(format!(
            "the walk below the node stopped after {} objects (its bound), so sampled objects \
             further down were not looked at",
            thousands(crate::jvmti::MAX_OBJECTS_VISITED as u64)
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// `1000000` as `1,000,000`: the counts in attribution's texts.
pub(super) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(dropped: u64, for_stacks: u64, frees: bool, cut: bool) -> SampleRecord {
        SampleRecord {
            recorded: 1_200_000,
            dropped,
            dropped_for_stacks: for_stacks,
            frees_counted: frees,
            walk_cut: cut,
            ..SampleRecord::default()
        }
    }

    #[test]
    fn nothing_missed_says_nothing() {
        assert_eq!(cap_caveat(&record(0, 0, true, false)), None);
        assert_eq!(cap_reason(&record(0, 0, false, false)), None);
    }

    #[test]
    fn the_live_cap_says_it_counts_live_objects_only_where_frees_are_reported() {
        assert_eq!(
            cap_reason(&record(12_345, 0, true, false)).unwrap(),
            "allocation sampling stopped recording while 1,000,000 sampled objects were alive \
             (its cap on live objects), and 12,345 more were not recorded: the node's new \
             objects may be among them"
        );
        assert_eq!(
            cap_caveat(&record(7, 0, false, false)).unwrap(),
            "allocation sampling stopped recording after 1,000,000 sampled objects (its cap; \
             this JVM reports no freed objects, so dead ones counted too), and 7 more were not \
             recorded, so the counts above are of the recorded ones only"
        );
    }

    #[test]
    fn a_full_stack_table_and_a_cut_walk_are_told_apart_from_the_cap() {
        assert_eq!(
            cap_reason(&record(40, 40, true, true)).unwrap(),
            "allocation sampling's table of 8,192 distinct allocation stacks was full, and 40 \
             objects allocated at other stacks were not recorded; the walk below the node \
             stopped after 2,000,000 objects (its bound), so sampled objects further down were \
             not looked at: the node's new objects may be among them"
        );
        let both = cap_caveat(&record(50, 40, true, false)).unwrap();
        assert!(
            both.starts_with("allocation sampling stopped recording while 1,000,000 sampled objects were alive (its cap on live objects), and 10 more")
                && both.contains("; allocation sampling's table of 8,192 distinct allocation stacks was full, and 40 objects"),
            "{both}"
        );
    }
}
