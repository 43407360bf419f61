//! Java's rules for the strings and paths the JUnit extension used to build itself, so that
//! every message and file name stays byte for byte what the extension wrote (JUnit API 7).

/// `Character.isWhitespace`: Unicode space separators but the non-breaking ones, line and
/// paragraph separators, and the ASCII controls `\t`..`\r` and `\u{1C}`..`\u{1F}`.
pub(super) fn is_java_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\u{1C}'..='\u{1F}'
            | ' '
            | '\u{1680}'
            | '\u{2000}'..='\u{2006}'
            | '\u{2008}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{205F}'
            | '\u{3000}'
    )
}

/// `String.isBlank`.
pub(super) fn is_blank(text: &str) -> bool {
    text.chars().all(is_java_whitespace)
}

/// `String.trim`: chars up to U+0020 off both ends.
pub(super) fn trim(text: &str) -> &str {
    text.trim_matches(|c: char| c <= ' ')
}

/// `String.strip`: Java whitespace off both ends.
pub(super) fn strip(text: &str) -> &str {
    text.trim_matches(is_java_whitespace)
}

/// `Path.of(text).toString()` on Unix: repeated `/` collapsed, a trailing `/` dropped (but for
/// the root itself).
pub(super) fn java_path(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '/' && out.ends_with('/') {
            continue;
        }
        out.push(c);
    }
    if out.len() > 1 && out.ends_with('/') {
        out.pop();
    }
    out
}

/// `Path.of(base).resolve(child).toString()`, for a relative `child` without `/` at its ends.
pub(super) fn resolve(base: &str, child: &str) -> String {
    match base {
        "" => child.to_owned(),
        "/" => format!("/{child}"),
        _ => format!("{base}/{child}"),
    }
}

/// `Path.of(path).toAbsolutePath().toString()`: relative to the working directory (Java's
/// `user.dir`), nothing resolved.
pub(super) fn absolute(path: &str) -> String {
    if path.starts_with('/') {
        return path.to_owned();
    }
    let cwd = std::env::current_dir()
        .map(|dir| java_path(&dir.to_string_lossy()))
        .unwrap_or_default();
    resolve(&cwd, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_show_as_javas_unix_path_shows_them() {
        assert_eq!(java_path("a//b///c/"), "a/b/c");
        assert_eq!(java_path("/"), "/");
        assert_eq!(java_path("///"), "/");
        assert_eq!(java_path("./x/../y"), "./x/../y");
        assert_eq!(resolve("/", "dumps"), "/dumps");
        assert_eq!(resolve("out", "dumps"), "out/dumps");
        assert_eq!(absolute("/abs/x"), "/abs/x");
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(absolute("rel/x"), format!("{}/rel/x", cwd.display()));
    }

    #[test]
    fn blank_trim_and_strip_follow_java() {
        assert!(is_blank("") && is_blank(" \t\u{2003}\u{3000}"));
        // No-break spaces and NUL are not Java whitespace.
        assert!(!is_blank("\u{A0}") && !is_blank("\u{0}"));
        assert_eq!(trim("\u{0} 5\t"), "5");
        assert_eq!(trim("\u{2003}5"), "\u{2003}5");
        assert_eq!(strip("\u{2003} x \n"), "x");
        assert_eq!(strip("\u{A0}x"), "\u{A0}x");
    }
}
