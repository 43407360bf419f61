//! The baseline file of the JUnit extension: one section per test, `## <class>.<method>` then
//! the test's accepted blocks in normalized form ([`crate::report::gate::Baseline`] reads
//! them). Read before the search, and rewritten after it with `heapgrowth.updateBaseline=true`
//! under a lock on the file, since several test JVMs (Gradle's `maxParallelForks`) may rewrite
//! it at once. Ported from the extension's `BaselineFile` (JUnit API 7), byte for byte.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::java_text::absolute;
use crate::support::file_lock::FileLock;

/// Held while this process rewrites a baseline file.
static REWRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A test's section starts with this prefix and the test's name.
pub(super) const SECTION_PREFIX: &str = "## ";

/// Why the baseline file cannot be used: one line naming it, as the failed test shows it.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum BaselineFileError {
    /// A directory, or not UTF-8 (the extension's `SettingsFileException`).
    #[error("{0}")]
    Unusable(String),
    /// It cannot be read or written.
    #[error("{0}")]
    Io(String),
}

/// The text of the baseline file `file` (as Java's `Path` shows it), or "" when it does not
/// exist. A directory, a file that is not UTF-8 or cannot be read is an error naming it.
pub(super) fn read(file: &str) -> Result<String, BaselineFileError> {
    let path = Path::new(file);
    // `Files.isDirectory` and `Files.exists`: a path that cannot be looked at is neither.
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => return Err(directory(file)),
        Ok(_) => {}
        Err(_) => return Ok(String::new()),
    }
    let bytes = std::fs::read(path).map_err(|e| {
        BaselineFileError::Unusable(format!(
            "cannot read the baseline file {file}: {}",
            java_io_reason(file, &e)
        ))
    })?;
    decode(file, bytes)
}

fn directory(file: &str) -> BaselineFileError {
    BaselineFileError::Unusable(format!("baseline file {file} is a directory"))
}

/// `bytes` as UTF-8, strictly: a lenient decoding would turn a Latin-1 baseline's bytes into
/// U+FFFD, and a rewrite would save that over the other tests' sections.
fn decode(file: &str, bytes: Vec<u8>) -> Result<String, BaselineFileError> {
    String::from_utf8(bytes).map_err(|e| {
        BaselineFileError::Unusable(format!(
            "baseline file {file} is not UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// What Java's NIO said of an I/O error on `file`: `AccessDeniedException: F` and
/// `NoSuchFileException: F` (exceptions without a reason), else the system's error text.
fn java_io_reason(file: &str, error: &std::io::Error) -> String {
    match error.raw_os_error() {
        Some(libc::EACCES) => format!("AccessDeniedException: {file}"),
        Some(libc::ENOENT) => format!("NoSuchFileException: {file}"),
        Some(code) => {
            // Rust says "<strerror> (os error N)"; Java says the strerror alone.
            let text = error.to_string();
            text.strip_suffix(&format!(" (os error {code})"))
                .map(str::to_owned)
                .unwrap_or(text)
        }
        None => format!("IOException: {error}"),
    }
}

/// The blocks of test `name` in the baseline `text`, or "" when it has no section. Lines end
/// as Java's `\R` ends them.
pub(super) fn section(text: &str, name: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in java_lines(text) {
        if let Some(header) = line.strip_prefix(SECTION_PREFIX) {
            inside = super::java_text::trim(header) == name;
        } else if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `text.split("\\R", -1)`: split at `\r\n`, `\n`, `\u{B}`, `\u{C}`, `\r`, U+0085, U+2028 and
/// U+2029, keeping empty pieces (also the last).
fn java_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let end = match c {
            '\r' if matches!(chars.peek(), Some((_, '\n'))) => {
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

/// Replaces (or adds) test `name`'s section of the baseline file `file` with `blocks`;
/// removes it when `blocks` is empty. Holds a lock on the file while it reads and writes it.
pub(super) fn replace_section(
    file: &str,
    name: &str,
    blocks: &str,
) -> Result<(), BaselineFileError> {
    let path = Path::new(file);
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(directory(file));
    }
    let io = |e: std::io::Error| {
        BaselineFileError::Io(format!(
            "cannot rewrite the baseline file {file}: {}",
            java_io_reason(file, &e)
        ))
    };
    let absolute = absolute(file);
    if let Some(parent) = Path::new(&absolute).parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    let channel = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .map_err(io)?;
    // One thread of this process at a time (a POSIX lock does not exclude them), and several
    // test JVMs may rewrite the file at once: every one takes the file's lock first.
    let _one_thread = REWRITING.lock().unwrap_or_else(|p| p.into_inner());
    let lock = FileLock::exclusive(&channel).map_err(io)?;
    let rewritten = rewrite_locked(&channel, file, name, blocks);
    drop(lock);
    rewritten.map_err(|e| match e {
        Rewrite::Decode(e) => e,
        Rewrite::Io(e) => io(e),
    })
}

enum Rewrite {
    Decode(BaselineFileError),
    Io(std::io::Error),
}

/// Reads the locked file, replaces the section and writes it back through the same descriptor.
fn rewrite_locked(mut channel: &File, file: &str, name: &str, blocks: &str) -> Result<(), Rewrite> {
    let mut bytes = Vec::new();
    channel.read_to_end(&mut bytes).map_err(Rewrite::Io)?;
    // Checked again under the lock: another JVM may have written the file since.
    let old = decode(file, bytes).map_err(Rewrite::Decode)?;
    let new = replaced(&old, name, blocks);
    channel.set_len(0).map_err(Rewrite::Io)?;
    channel.seek(SeekFrom::Start(0)).map_err(Rewrite::Io)?;
    channel.write_all(new.as_bytes()).map_err(Rewrite::Io)
}

/// The baseline text `old` with test `name`'s section replaced by `blocks` (added at the end
/// when it has none, removed when `blocks` is empty); lines split at `\n` only.
pub(super) fn replaced(old: &str, name: &str, blocks: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in old.split('\n') {
        if let Some(header) = line.strip_prefix(SECTION_PREFIX) {
            inside = super::java_text::trim(header) == name;
        }
        if !(inside || line.is_empty() && out.is_empty()) {
            out.push_str(line);
            out.push('\n');
        }
    }
    let mut kept = trailing_newlines_to_one(&out);
    if kept == "\n" {
        kept.clear();
    }
    if !blocks.is_empty() {
        let separator = if kept.is_empty() { "" } else { "\n" };
        kept = format!("{kept}{separator}{SECTION_PREFIX}{name}\n{blocks}");
    }
    kept
}

/// `text.replaceAll("\n+$", "\n")`, with Java's `$`: the end of the text, or before a line
/// terminator (`\n`, `\r\n`, `\r`, U+0085, U+2028, U+2029) that ends it.
fn trailing_newlines_to_one(text: &str) -> String {
    let at_dollar = |rest: &str| {
        matches!(
            rest,
            "" | "\n" | "\r\n" | "\r" | "\u{85}" | "\u{2028}" | "\u{2029}"
        )
    };
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'\n' {
            let run_end = at + bytes[at..].iter().take_while(|&&b| b == b'\n').count();
            // Greedy, then backtracking one newline at a time.
            if let Some(end) = (at + 1..=run_end)
                .rev()
                .find(|&end| at_dollar(&text[end..]))
            {
                out.push('\n');
                at = end;
                continue;
            }
        }
        let c = text[at..].chars().next().unwrap_or_default();
        out.push(c);
        at += c.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tempdir::PrivateTempDir;

    #[test]
    fn a_section_ends_at_the_next_header_and_lines_end_as_javas_r() {
        let text = "## a.T.x\nA1\r\nA2\u{2028}## b.T.y\nB\n##  a.T.x \t\nA3\n";
        assert_eq!(section(text, "a.T.x"), "A1\nA2\nA3\n\n");
        assert_eq!(section(text, "b.T.y"), "B\n");
        assert_eq!(section(text, "c.T.z"), "");
    }

    #[test]
    fn replacing_a_section_keeps_the_others_and_puts_it_last() {
        let old = "\n## a\nA\n\n## b\nB\n\n\n";
        assert_eq!(replaced(old, "a", "NEW\n"), "## b\nB\n\n## a\nNEW\n");
        assert_eq!(replaced(old, "b", ""), "## a\nA\n");
        assert_eq!(replaced("## a\nA\n", "a", ""), "");
        assert_eq!(replaced("", "a", "X\n"), "## a\nX\n");
        // Java's `$` also matches before a last "\r\n".
        assert_eq!(trailing_newlines_to_one("A\n\n\r\n"), "A\n\r\n");
        assert_eq!(trailing_newlines_to_one("A\n\nB\n\n\n"), "A\n\nB\n");
    }

    #[test]
    fn the_file_is_read_strictly_and_a_missing_one_is_empty() {
        let dir = PrivateTempDir::new("test").unwrap();
        let file = dir.path().join("baseline.txt").display().to_string();
        assert_eq!(read(&file).unwrap(), "");
        std::fs::write(&file, b"## a\ncaf\xe9\n").unwrap();
        assert_eq!(
            read(&file).unwrap_err(),
            BaselineFileError::Unusable(format!("baseline file {file} is not UTF-8 at byte 8"))
        );
        assert!(replace_section(&file, "a", "X\n").is_err());
        let dir_name = dir.path().display().to_string();
        assert_eq!(
            read(&dir_name).unwrap_err(),
            BaselineFileError::Unusable(format!("baseline file {dir_name} is a directory"))
        );
    }

    #[test]
    fn a_rewrite_creates_the_file_and_its_directories() {
        let dir = PrivateTempDir::new("test").unwrap();
        let file = dir
            .path()
            .join("new/dir/baseline.txt")
            .display()
            .to_string();
        replace_section(&file, "a", "A\n").unwrap();
        replace_section(&file, "b", "B\n").unwrap();
        replace_section(&file, "a", "A2\n").unwrap();
        assert_eq!(read(&file).unwrap(), "## b\nB\n\n## a\nA2\n");
    }
}
