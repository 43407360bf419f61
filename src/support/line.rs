//! Text that must stay on one line and read as it is: error lines, report lines and headers
//! carry names from the JVM, from heap dumps and from the user (class, field, thread, method,
//! file and scenario names, string values), and any of them may hold a newline, a terminal
//! escape or a bidi control. This is the one escaping function of every text the tool prints
//! or writes as text (the text report, the normalized report of snapshots and baselines, the
//! lines on stderr); the HTML and JSON reports escape for their own formats.

/// `text` with every character that could change how a terminal, a log viewer or an editor
/// shows the line escaped visibly (`\n`, `\u{1b}`, `\u{202e}`):
/// - control characters (C0, DEL and C1: a line break that forges a report line, `ESC [31m`
///   colours, `ESC ] 0; ... BEL` that sets the terminal's title, a CR that writes over the line);
/// - bidi controls (U+061C, U+200E-200F, U+202A-202E, U+2066-2069), which make a name read
///   reversed or move text across it;
/// - the Unicode line and paragraph separators (U+2028, U+2029), line breaks to some viewers.
pub fn escape_line(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether [`escape_line`] escapes `c`.
pub(crate) fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_line("a.B"), "a.B");
        assert_eq!(escape_line("a\nB\tc\r"), "a\\nB\\tc\\r");
        assert_eq!(escape_line("Ünïcode"), "Ünïcode");
        assert_eq!(
            escape_line("x\u{1b}[31mred\u{1b}]0;title\u{7}\u{85}\u{9b}"),
            "x\\u{1b}[31mred\\u{1b}]0;title\\u{7}\\u{85}\\u{9b}"
        );
    }

    /// Issue 30: bidi controls in a class name showed it reversed.
    #[test]
    fn bidi_controls_and_line_separators_are_escaped() {
        assert_eq!(
            escape_line("com.evil.\u{202e}gnp.exe"),
            "com.evil.\\u{202e}gnp.exe"
        );
        for c in [
            '\u{061c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
            '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{2028}', '\u{2029}',
        ] {
            let escaped = escape_line(&format!("a{c}b"));
            assert_eq!(escaped, format!("a{}b", c.escape_default()));
        }
        // Letters of right-to-left scripts are names like any other.
        assert_eq!(escape_line("com.example.שלום"), "com.example.שלום");
    }
}
