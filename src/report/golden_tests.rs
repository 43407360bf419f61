//! The golden outputs of the JUnit extension's Java logic (`tests/junit/golden/`, captured by
//! its `capture.sh` from the Java before issue 31 ported it): the form its cases and outputs are
//! written in, for the tests of the ports (`report::baseline`, `report::index_page`,
//! `frontends::junit::{baseline_file, outcome}`). `Golden.java` has the same two functions.

use std::path::{Path, PathBuf};

/// `tests/junit/golden/<relative>`.
pub(crate) fn golden(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/junit/golden")
        .join(relative)
}

/// The text of a golden file (cases or expected outputs), which is UTF-8.
pub(crate) fn read_golden(relative: &str) -> String {
    let path = golden(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of a golden cases file that are not empty or `#` comments, split at tabs into
/// `fields` fields each.
pub(crate) fn records(relative: &str, fields: usize) -> Vec<Vec<String>> {
    read_golden(relative)
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let split: Vec<String> = line.split('\t').map(str::to_owned).collect();
            assert_eq!(split.len(), fields, "{relative}: {line}");
            split
        })
        .collect()
}

/// The bytes an escaped field stands for: `\\`, `\n`, `\r`, `\t`, `\u{HEX}` (a code point, as
/// UTF-8), `\xHH` (one raw byte); any other character as UTF-8.
pub(crate) fn unescape(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        if c != '\\' {
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            continue;
        }
        match chars.next().map(|(_, kind)| kind) {
            Some('\\') => out.push(b'\\'),
            Some('n') => out.push(b'\n'),
            Some('r') => out.push(b'\r'),
            Some('t') => out.push(b'\t'),
            Some('x') => {
                out.push(u8::from_str_radix(&text[at + 2..at + 4], 16).expect("\\xHH"));
                chars.nth(1);
            }
            Some('u') => {
                let end = at + text[at..].find('}').expect("\\u{HEX}");
                let code = u32::from_str_radix(&text[at + 3..end], 16).expect("\\u{HEX}");
                let c = char::from_u32(code).expect("a code point");
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                while chars.next().is_some_and(|(i, _)| i < end) {}
            }
            other => panic!("bad escape {other:?} in {text}"),
        }
    }
    out
}

/// [`unescape`], for a field that is UTF-8.
pub(crate) fn unescape_str(text: &str) -> String {
    String::from_utf8(unescape(text)).expect("a UTF-8 field")
}

/// `text` in the escaped form: printable ASCII as it is but `\`, `\n` `\r` `\t`, and any other
/// character as `\u{HEX}` (upper case).
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            _ => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
        }
    }
    out
}

#[test]
fn the_escaped_form_round_trips() {
    let text = "a\\b\n\r\t\u{85}\u{1F600}~ ";
    assert_eq!(escape(text), "a\\\\b\\n\\r\\t\\u{85}\\u{1F600}~ ");
    assert_eq!(unescape(&escape(text)), text.as_bytes());
    assert_eq!(unescape("\\xE9x\\u{E9}y"), b"\xE9x\xC3\xA9y");
}

/// A new private directory for a test's files, deleted when dropped.
pub(crate) fn scratch(purpose: &str) -> crate::tempdir::PrivateTempDir {
    crate::tempdir::PrivateTempDir::new(purpose).expect("a scratch directory")
}

/// Makes the files of the index case `cases/index/<case>.txt` in `dir`, as `Golden.java` does:
/// `page MILLIS NAME` (NAME.html modified at MILLIS since the epoch), `dir NAME`,
/// `link NAME TARGET`, `file NAME CONTENT`, `repeat NAME COUNT CONTENT` (appended COUNT times).
pub(crate) fn make_index_case(case: &str, dir: &Path) {
    use std::io::Write;
    use std::time::{Duration, UNIX_EPOCH};
    for line in read_golden(&format!("cases/index/{case}.txt")).lines() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.splitn(3, ' ').collect();
        match fields[0] {
            "page" => {
                let page = dir.join(unescape_str(fields[2]) + ".html");
                std::fs::write(&page, "<html></html>\n").unwrap();
                let millis: i64 = fields[1].parse().unwrap();
                // Java's Files.setLastModifiedTime sets a time before the epoch to the epoch
                // itself (JDK 17 on Linux), and so the golden shows it.
                let at = UNIX_EPOCH + Duration::from_millis(millis.max(0) as u64);
                let file = std::fs::File::options().write(true).open(&page).unwrap();
                file.set_modified(at).unwrap();
            }
            "dir" => std::fs::create_dir_all(dir.join(unescape_str(fields[1]))).unwrap(),
            "link" => std::os::unix::fs::symlink(
                unescape_str(fields[2]),
                dir.join(unescape_str(fields[1])),
            )
            .unwrap(),
            "file" => {
                std::fs::write(dir.join(unescape_str(fields[1])), unescape(fields[2])).unwrap()
            }
            "repeat" => {
                let (count, unit) = fields[2].split_once(' ').unwrap();
                let mut file = std::fs::File::options()
                    .create(true)
                    .append(true)
                    .open(dir.join(unescape_str(fields[1])))
                    .unwrap();
                for _ in 0..count.parse::<usize>().unwrap() {
                    file.write_all(&unescape(unit)).unwrap();
                }
            }
            other => panic!("cases/index/{case}.txt: {other}"),
        }
    }
}
