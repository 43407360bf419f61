//! Text and paths as Java shows them, for front ends that must say what the JUnit extension
//! said before its work moved to Rust: the same trimming, the same idea of blank, and paths
//! printed as `java.nio.file.Path` prints them on Unix. One implementation, so that a setting
//! read by the settings request and a path shown in a JUnit report cannot disagree.

use std::path::Path;

/// Java's `String.trim`: every char up to U+0020 off both ends (not Unicode white space).
pub fn trim(text: &str) -> &str {
    text.trim_matches(|c: char| c <= ' ')
}

/// Java's `Character.isWhitespace`: the Unicode space separators but the no-break ones
/// (U+00A0, U+2007, U+202F), the line and paragraph separators, and the ASCII controls
/// \t \n U+000B \f \r and U+001C..U+001F. Not U+0085.
pub fn is_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\u{1C}'..='\u{20}'
            | '\u{1680}'
            | '\u{2000}'..='\u{2006}'
            | '\u{2008}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{205F}'
            | '\u{3000}'
    )
}

/// Java's `String.isBlank`: empty, or only [`is_whitespace`] chars.
pub fn is_blank(text: &str) -> bool {
    text.chars().all(is_whitespace)
}

/// Java's `Boolean.parseBoolean` (and so `Boolean.getBoolean` of a property's value): `true` in
/// any case, and nothing else, not even with white space around it.
pub fn is_true(text: &str) -> bool {
    text.eq_ignore_ascii_case("true")
}

/// `Path.of(path).toString()`: repeated `/` as one, and no trailing `/` but the root's.
pub fn display(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        if !(c == '/' && shown.ends_with('/')) {
            shown.push(c);
        }
    }
    if shown.len() > 1 && shown.ends_with('/') {
        shown.pop();
    }
    shown
}

/// `Path.of(path).toAbsolutePath().toString()` with `cwd` as `user.dir`.
pub fn absolute(path: &Path, cwd: &Path) -> String {
    let shown = display(path);
    if shown.starts_with('/') {
        shown
    } else {
        resolve(&display(cwd), &shown)
    }
}

/// `base.resolve(child)` of two paths as Java shows them: `child` when it is absolute or `base`
/// is empty, `base` when `child` is empty, else the two joined by one `/`.
pub fn resolve(base: &str, child: &str) -> String {
    if child.starts_with('/') || base.is_empty() {
        child.to_owned()
    } else if child.is_empty() {
        base.to_owned()
    } else if base.ends_with('/') {
        format!("{base}{child}")
    } else {
        format!("{base}/{child}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_whitespace_and_trim_are_javas() {
        assert!(is_blank(""));
        assert!(is_blank(
            " \t\n\u{B}\u{C}\r\u{1C}\u{1F}\u{1680}\u{2000}\u{2003}\u{2028}\u{3000}"
        ));
        for not_blank in ['\u{A0}', '\u{2007}', '\u{202F}', '\u{85}', 'x'] {
            assert!(!is_blank(&not_blank.to_string()), "{not_blank:?}");
            assert!(!is_whitespace(not_blank), "{not_blank:?}");
        }
        assert_eq!(trim("\u{0} x\u{1F} "), "x");
        assert_eq!(trim("\u{2003}x"), "\u{2003}x");
        assert!(is_true("TrUe"));
        assert!(!is_true(" true") && !is_true("yes") && !is_true(""));
    }

    #[test]
    fn paths_show_as_javas_path_shows_them() {
        assert_eq!(display(Path::new("/")), "/");
        assert_eq!(display(Path::new("a///b/")), "a/b");
        assert_eq!(
            absolute(Path::new("x//y"), Path::new("/home/u/")),
            "/home/u/x/y"
        );
        assert_eq!(absolute(Path::new("/abs/"), Path::new("/home/u")), "/abs");
        assert_eq!(resolve("", "c"), "c");
        assert_eq!(resolve("b", ""), "b");
    }
}
