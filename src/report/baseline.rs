//! The baseline file's format, as the JUnit extension reads and rewrites it: one section per
//! test, a header line `## <class>.<method>` and then the test's normalized blocks
//! ([`crate::report::render_normalized`]), which [`crate::report::gate`] matches.
//!
//! Ported from the extension's Java (`HeapGrowthExtension.BaselineFile`, issue 31) byte for byte,
//! down to its quirks, so that a baseline written by either reads the same: [`section`] splits
//! lines as Java's `\R` does, [`replace_section`] splits at `\n` only (a `\r` stays in its line)
//! and trims trailing blank lines as `replaceAll("\n+$", "\n")` does. The golden outputs of the
//! Java (`tests/junit/golden/`) are the tests.

use crate::java_text;

/// A test's section starts with a line of this prefix and the test's name.
pub const SECTION_PREFIX: &str = "## ";

/// The blocks of test `name` in the baseline `text`: the lines under each header whose name
/// (trimmed as `String.trim` does) is `name`, each ended by `\n`; "" when it has no section.
/// Lines end at `\r\n`, `\n`, `\r`, U+000B, U+000C, U+0085, U+2028 or U+2029, as Java's `\R`.
pub fn section(text: &str, name: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in java_lines(text) {
        if let Some(header) = line.strip_prefix(SECTION_PREFIX) {
            inside = java_text::trim(header) == name;
        } else if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The baseline `old` with test `name`'s section replaced by `blocks`, appended after a blank
/// line when it had none, and removed when `blocks` is empty. Leading blank lines go, trailing
/// ones become one `\n`, and a file left with nothing else is empty. Lines are split at `\n`
/// only, so the `\r` of a CRLF file stays in its line.
pub fn replace_section(old: &str, name: &str, blocks: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in old.split('\n') {
        if let Some(header) = line.strip_prefix(SECTION_PREFIX) {
            inside = java_text::trim(header) == name;
        }
        let leading_blank = line.is_empty() && out.is_empty();
        if !inside && !leading_blank {
            out.push_str(line);
            out.push('\n');
        }
    }
    let mut kept = collapse_trailing_newlines(&out);
    if kept == "\n" {
        kept.clear();
    }
    if !blocks.is_empty() {
        if !kept.is_empty() {
            kept.push('\n');
        }
        kept.push_str(SECTION_PREFIX);
        kept.push_str(name);
        kept.push('\n');
        kept.push_str(blocks);
    }
    kept
}

/// How a run compares with the baseline, for the text report's `Baseline: ` line and the
/// index page: `1 new, 2 accepted, 1 fixed (stale)`, leaving out what is none, and
/// `nothing grows` when all are none.
pub fn counts(new: usize, accepted: usize, stale: usize) -> String {
    let parts: Vec<String> = [
        (new, "new"),
        (accepted, "accepted"),
        (stale, "fixed (stale)"),
    ]
    .into_iter()
    .filter(|&(count, _)| count > 0)
    .map(|(count, what)| format!("{count} {what}"))
    .collect();
    if parts.is_empty() {
        "nothing grows".to_owned()
    } else {
        parts.join(", ")
    }
}

/// `text.split("\\R", -1)`: the lines between Java's line breaks, trailing empty ones kept.
fn java_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let end = match c {
            '\r' if chars.peek().is_some_and(|&(_, next)| next == '\n') => {
                chars.next();
                at + 2
            }
            '\n' | '\u{B}' | '\u{C}' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => {
                at + c.len_utf8()
            }
            _ => continue,
        };
        lines.push(&text[start..at]);
        start = end;
    }
    lines.push(&text[start..]);
    lines
}

/// Java's `replaceAll("\n+$", "\n")` on text that ends with `\n`: `$` matches at the end and
/// also before a final `\r\n`, so a run of `\n` there becomes one as well as the last run.
fn collapse_trailing_newlines(text: &str) -> String {
    fn one_newline_at_end(text: &str) -> String {
        let trimmed = text.trim_end_matches('\n');
        if trimmed.len() < text.len() {
            format!("{trimmed}\n")
        } else {
            text.to_owned()
        }
    }
    match text.strip_suffix("\r\n") {
        Some(body) => one_newline_at_end(body) + "\r\n",
        None => one_newline_at_end(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::golden_tests::{escape, read_golden, records, unescape, unescape_str};

    /// The baseline texts of the golden cases that are UTF-8 (the others are only read, and
    /// refused, by the file's reader), by id.
    fn texts() -> Vec<(String, Option<String>)> {
        records("cases/baseline/texts.txt", 2)
            .into_iter()
            .map(|r| (r[0].clone(), String::from_utf8(unescape(&r[1])).ok()))
            .collect()
    }

    #[test]
    fn section_matches_the_java_golden_output() {
        let names = records("cases/baseline/names.txt", 1);
        let mut out = String::new();
        for (id, text) in texts() {
            let Some(text) = text else {
                out.push_str(&format!("{id}\tnot UTF-8\n"));
                continue;
            };
            for name in &names {
                let name = unescape_str(&name[0]);
                let found = section(&text, &name);
                out.push_str(&format!("{id}\t{}\t{}\n", escape(&name), escape(&found)));
            }
        }
        assert_eq!(out, read_golden("expected/section.txt"));
    }

    #[test]
    fn replace_section_matches_the_java_golden_output() {
        let expected = read_golden("expected/replace_section.txt");
        let expected: Vec<&str> = expected.lines().collect();
        let mut compared = 0;
        for (id, text) in texts() {
            for replacement in records("cases/baseline/replace.txt", 2) {
                let key = format!("{id}\t{}\t{}\t", replacement[0], replacement[1]);
                let line = expected
                    .iter()
                    .find(|line| line.starts_with(&key))
                    .unwrap_or_else(|| panic!("no golden line for {key}"));
                let Some(text) = &text else {
                    // Not UTF-8: the file's reader refuses it (frontends::junit::baseline_file).
                    assert!(line[key.len()..].starts_with("error\t"), "{line}");
                    continue;
                };
                let replaced = replace_section(
                    text,
                    &unescape_str(&replacement[0]),
                    &unescape_str(&replacement[1]),
                );
                assert_eq!(format!("{key}ok\t{}", escape(&replaced)), *line);
                compared += 1;
            }
        }
        assert!(compared > 100, "{compared}");
    }

    #[test]
    fn counts_match_the_java_golden_output() {
        let mut out = String::new();
        for new in [0, 1, 12] {
            for accepted in [0, 1, 3] {
                for stale in [0, 1, 2] {
                    out.push_str(&format!(
                        "{new} {accepted} {stale}\t{}\n",
                        counts(new, accepted, stale)
                    ));
                }
            }
        }
        assert_eq!(out, read_golden("expected/baseline_counts.txt"));
    }

    /// The `\r\n` case of `replaceAll("\n+$", ...)`: blank lines before a last line that is a
    /// lone `\r` (a file ending `\n\n\r`) collapse too.
    #[test]
    fn blank_lines_before_a_final_crlf_collapse() {
        assert_eq!(replace_section("a\n\n\n\r", "x", ""), "a\n\r\n");
        assert_eq!(replace_section("a\n\n\n", "x", ""), "a\n");
    }
}
