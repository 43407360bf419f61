//! `index.html` of the JUnit extension's report directory: a link to every test's HTML report
//! there, with the first line of the test's text report, how it compared with the baseline and
//! when its page was written. It is rewritten after each test from the directory's listing, so
//! the test JVMs that share a report directory (Gradle's `maxParallelForks`) all appear, each
//! under the same lock; a page left by an earlier run shows its older time.
//!
//! Ported from the extension's Java (`ReportIndex`, issue 31) byte for byte: names in Java's
//! `String` order (UTF-16 code units, where U+FF5E sorts after U+1F600), times as
//! `Instant.truncatedTo(SECONDS).toString()`, and the text report read as `Files.lines` reads
//! it (the summary column: see `first_line`). The golden outputs of the Java
//! (`tests/junit/golden/`) are the tests.

use std::fs;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use super::html::escape_html;
use super::{write_checked_report, ReportFileError};
use crate::output::RecordLock;

/// The index page's file name; it is no test's page.
pub const INDEX: &str = "index.html";
/// Each test's page is `<test>.html`.
const PAGE_SUFFIX: &str = ".html";
/// Held (a POSIX record lock) while the index is rewritten, by every test JVM that writes
/// into the directory: the Java extension's lock file, so old and new extensions exclude each
/// other.
const LOCK: &str = ".heapgrowth-index.lock";
/// The text report's line that says how the run compared with the baseline.
const BASELINE_LINE: &str = "Baseline: ";

/// One row of the index: one test's page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexRow {
    /// The test's name (`<class>.<method>`): its page is `<name>.html`.
    pub name: String,
    /// The first line of its text report without `Scenario <name>: `, or "".
    pub summary: String,
    /// What its text report's `Baseline: ` line says before `; ` (`1 new, 2 accepted`), or "".
    pub baseline: String,
    /// When its page was modified, in whole seconds since the Unix epoch (rounded down).
    pub written: i64,
}

/// Why the index could not be rewritten.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// The lock file could not be opened or locked.
    #[error("cannot lock {path}: {source}")]
    Lock {
        /// The lock file.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// The directory or a page could not be read.
    #[error("cannot list the report directory {path}: {source}")]
    List {
        /// The directory or the page.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// `index.html` could not be written, as every report file is written.
    #[error(transparent)]
    Write(#[from] ReportFileError),
}

/// One thread of this process at a time: a POSIX lock does not exclude the threads of the
/// process that holds it (parallel JUnit tests share one JVM).
static REWRITING: Mutex<()> = Mutex::new(());

/// Rewrites `dir/index.html` from the pages now in `dir`, under the directory's lock
/// (`.heapgrowth-index.lock`, created if missing), written as every report file is
/// ([`write_checked_report`]).
pub fn rewrite(dir: &Path) -> Result<(), IndexError> {
    let _one_thread = REWRITING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let lock_path = dir.join(LOCK);
    let lock_error = |source| IndexError::Lock {
        path: crate::line::escape_line(&lock_path.display().to_string()),
        source,
    };
    // Never through a symbolic link: in a report directory others write to (a shared CI
    // workspace), one planted at the lock's name would have this create or lock a file of
    // the planter's choosing. A link there is refused with the kernel's ELOOP.
    let lock_file = fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&lock_path)
        .map_err(lock_error)?;
    let _lock = RecordLock::exclusive(&lock_file).map_err(lock_error)?;
    let page = render(&rows_in(dir)?);
    Ok(write_checked_report(&dir.join(INDEX), &page)?)
}

/// The rows of the pages in `dir`: every regular file (or link to one) `<name>.html` but
/// `index.html`, with its text report `<name>.txt` read for the summary and baseline columns.
/// A file name that is not UTF-8 is left out.
pub fn rows_in(dir: &Path) -> Result<Vec<IndexRow>, IndexError> {
    let list_error = |path: &Path| {
        let path = crate::line::escape_line(&path.display().to_string());
        move |source| IndexError::List { path, source }
    };
    let mut rows = Vec::new();
    for entry in fs::read_dir(dir).map_err(list_error(dir))? {
        let entry = entry.map_err(list_error(dir))?;
        let Ok(file) = entry.file_name().into_string() else {
            continue;
        };
        let Some(name) = file.strip_suffix(PAGE_SUFFIX) else {
            continue;
        };
        let page = dir.join(&file);
        if file == INDEX || !fs::metadata(&page).is_ok_and(|meta| meta.is_file()) {
            continue;
        }
        let modified = fs::metadata(&page)
            .and_then(|meta| meta.modified())
            .map_err(list_error(&page))?;
        let text = fs::read(dir.join(format!("{name}.txt"))).ok();
        rows.push(IndexRow {
            name: name.to_owned(),
            summary: text
                .as_deref()
                .map(|t| summary(t, name))
                .unwrap_or_default(),
            baseline: text.as_deref().map(baseline).unwrap_or_default(),
            written: epoch_seconds(modified),
        });
    }
    Ok(rows)
}

/// The index page listing `rows`, sorted by name in Java's `String` order.
pub fn render(rows: &[IndexRow]) -> String {
    let mut sorted: Vec<&IndexRow> = rows.iter().collect();
    sorted.sort_by(|a, b| a.name.encode_utf16().cmp(b.name.encode_utf16()));
    let mut table = String::new();
    for row in &sorted {
        table.push_str(&format!(
            "<tr><td><a href=\"./{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape_html(&encode(&format!("{}{PAGE_SUFFIX}", row.name))),
            escape_html(&row.name),
            escape_html(&row.summary),
            escape_html(&row.baseline),
            instant(row.written),
        ));
    }
    let count = sorted.len();
    let plural = if count == 1 { "" } else { "s" };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>heapgrowth: {count} test report{plural}</title>\n\
         <style>body{{font:15px/1.45 system-ui,sans-serif;margin:0}}\
         main{{max-width:62rem;margin:0 auto;padding:0.75rem}}\
         table{{border-collapse:collapse;display:block;overflow-x:auto}}\
         td,th{{border:1px solid #ccc;padding:0.2rem 0.5rem;text-align:left;\
         overflow-wrap:anywhere}}</style>\n\
         </head>\n<body>\n<main>\n<h1>heapgrowth reports</h1>\n\
         <p>One page per test that ran with heapgrowth, rewritten after each test; each test \
         also has its text (.txt) and JSON (.json) report beside its page.</p>\n\
         <table>\n<tr><th>test</th><th>report</th>\
         <th>baseline: new / accepted / fixed (stale)</th>\
         <th>page written (UTC)</th></tr>\n{table}</table>\n</main>\n</body>\n</html>\n"
    )
}

/// The summary column: the text report's first line without `Scenario <name>: `.
fn summary(text: &[u8], name: &str) -> String {
    let first = first_line(text).unwrap_or_default();
    let prefix = format!("Scenario {name}: ");
    match first.strip_prefix(&prefix) {
        Some(rest) => rest.to_owned(),
        None => first,
    }
}

/// The baseline column: the last line that starts with `Baseline: `, up to its `; `; "" when
/// there is none or the text is not UTF-8 (Java read every line, and failed on any such byte).
fn baseline(text: &[u8]) -> String {
    let Ok(text) = std::str::from_utf8(text) else {
        return String::new();
    };
    reader_lines(text)
        .filter_map(|line| line.strip_prefix(BASELINE_LINE))
        .last()
        .map(|counts| counts.split_once("; ").map_or(counts, |(before, _)| before))
        .unwrap_or_default()
        .to_owned()
}

/// The lines as Java's `BufferedReader.readLine` splits them: at `\n`, `\r` or `\r\n`.
fn reader_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let text = rest?;
        if text.is_empty() {
            rest = None;
            return None;
        }
        match text.find(['\n', '\r']) {
            Some(end) => {
                let skip = if text[end..].starts_with("\r\n") {
                    2
                } else {
                    1
                };
                rest = Some(&text[end + skip..]);
                Some(&text[..end])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

/// What `Files.lines(text, UTF_8).findFirst()` gives, or `None` where it throws (the column is
/// then ""). Java decodes the file in 8192-byte reads and stops at the first line's end, so
/// bytes that are not UTF-8 fail it only when they are in a read it made: a read before the
/// line's end, or the end of the file when the line reaches it (where an unfinished sequence
/// fails too). Not modelled: Java's decoder takes an unfinished surrogate (`ED A0`) at a read's
/// end for the start of a character where this takes it for an error at once; a report the
/// engine wrote is UTF-8 anyway.
fn first_line(text: &[u8]) -> Option<String> {
    const READ: usize = 8192;
    let mut line = String::new();
    let (mut decoded, mut read) = (0, 0);
    loop {
        if read == text.len() {
            // End of file: an unfinished character left over is malformed.
            return (decoded == read).then_some(line);
        }
        let leftover = read - decoded;
        read = text.len().min(read + READ - leftover);
        let bytes = &text[decoded..read];
        let valid = match std::str::from_utf8(bytes) {
            Ok(valid) => valid,
            // An unfinished character at the read's end waits for the next read.
            Err(e) if e.error_len().is_none() => {
                std::str::from_utf8(&bytes[..e.valid_up_to()]).expect("valid up to there")
            }
            Err(_) => return None,
        };
        decoded += valid.len();
        if let Some(end) = valid.find(['\n', '\r']) {
            line.push_str(&valid[..end]);
            return Some(line);
        }
        line.push_str(valid);
    }
}

/// Whole seconds since the epoch, rounded down (`Instant.truncatedTo(SECONDS)`).
fn epoch_seconds(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_secs() as i64,
        Err(before) => {
            let before = before.duration();
            -(before.as_secs() as i64) - i64::from(before.subsec_nanos() > 0)
        }
    }
}

/// `Instant.ofEpochSecond(seconds).toString()`: `2026-12-06T20:30:00Z` (ISO 8601, UTC, the
/// seconds always shown; a year past 9999 with `+`).
fn instant(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let year = match year {
        0..=9999 => format!("{year:04}"),
        10_000.. => format!("+{year}"),
        _ => format!("-{:04}", -year),
    };
    format!(
        "{year}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// The proleptic Gregorian date of a day counted from 1970-01-01: shift to a calendar whose
/// years start on March 1 (so the leap day ends a year), count 400-year eras of 146,097 days,
/// then years of 365 days with a leap day every 4 but not 100 but 400.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let shifted = days + 719_468; // days from 0000-03-01
    let era = shifted.div_euclid(146_097);
    let of_era = shifted.rem_euclid(146_097);
    let year_of_era = (of_era - of_era / 1460 + of_era / 36_524 - of_era / 146_096) / 365;
    let of_year = of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * of_year + 2) / 153;
    let day = (of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A file name as a relative URL: every byte but unreserved ASCII percent-encoded.
fn encode(file: &str) -> String {
    let mut out = String::new();
    for byte in file.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::golden_tests::{escape as golden_escape, read_golden, records, scratch};
    use crate::report::golden_tests::{make_index_case, unescape_str};

    /// Each case of `tests/junit/golden/cases/index/`, made in a directory and rendered, gives
    /// the page the Java rendered from it.
    #[test]
    fn pages_match_the_java_golden_output() {
        let cases = fs::read_dir(crate::report::golden_tests::golden("cases/index")).unwrap();
        let mut ids: Vec<String> = cases
            .map(|entry| {
                let name = entry.unwrap().file_name().into_string().unwrap();
                name.strip_suffix(".txt").unwrap().to_owned()
            })
            .collect();
        ids.sort();
        assert!(ids.len() >= 7, "{ids:?}");
        for id in ids {
            let dir = scratch("index-golden");
            make_index_case(&id, dir.path());
            let page = render(&rows_in(dir.path()).unwrap());
            assert_eq!(
                page,
                read_golden(&format!("expected/index/{id}.html")),
                "{id}"
            );
        }
    }

    #[test]
    fn encode_and_escape_match_the_java_golden_output() {
        let mut out = String::new();
        for name in [
            "a.B.c.html",
            "a b<c>&\"'.html",
            "caf\u{e9} \u{ff5e}\u{1f600}.html",
            "x/y?z#%.html",
            "-._~!$()*+,;=:@",
        ] {
            out.push_str(&format!(
                "{}\t{}\t{}\n",
                golden_escape(name),
                encode(name),
                golden_escape(&escape_html(name))
            ));
        }
        assert_eq!(out, read_golden("expected/index/encode_escape.txt"));
        // The case file's names are the ones the golden lists.
        assert!(records("expected/index/encode_escape.txt", 3)
            .iter()
            .any(|r| unescape_str(&r[0]).contains('\u{1f600}')));
    }

    #[test]
    fn rewrite_writes_the_index_under_the_lock_file() {
        let dir = scratch("index-rewrite");
        make_index_case("escaping", dir.path());
        rewrite(dir.path()).unwrap();
        let written = fs::read_to_string(dir.path().join(INDEX)).unwrap();
        assert_eq!(written, read_golden("expected/index/escaping.html"));
        assert!(dir.path().join(LOCK).is_file());
        // The index itself is no row of the next rewrite.
        rewrite(dir.path()).unwrap();
        assert_eq!(fs::read_to_string(dir.path().join(INDEX)).unwrap(), written);
    }

    /// A symbolic link planted at the lock's name is not followed: nothing is made or
    /// locked at its target, and the rewrite fails naming the lock file.
    #[test]
    fn a_link_at_the_lock_file_is_not_followed() {
        let dir = scratch("index-lock-link");
        make_index_case("escaping", dir.path());
        let target = dir.path().join("planted-target");
        std::os::unix::fs::symlink(&target, dir.path().join(LOCK)).unwrap();
        let error = rewrite(dir.path()).unwrap_err().to_string();
        assert!(error.starts_with("cannot lock "), "{error}");
        assert!(error.contains(LOCK), "{error}");
        assert!(!target.exists(), "the link's target was created");
        assert!(!dir.path().join(INDEX).exists());
    }

    /// Parallel JUnit tests in one JVM: each rewrites the index after writing its page, and
    /// the last rewrite lists every page.
    #[test]
    fn threads_rewriting_the_index_at_once_list_every_page() {
        let dir = scratch("index-threads");
        std::thread::scope(|scope| {
            for thread in 0..4 {
                let dir = dir.path();
                scope.spawn(move || {
                    for round in 0..10 {
                        let name = format!("t{thread}.m{round}");
                        fs::write(
                            dir.join(format!("{name}.txt")),
                            format!("Scenario {name}: ok\n"),
                        )
                        .unwrap();
                        fs::write(dir.join(format!("{name}{PAGE_SUFFIX}")), "<html></html>\n")
                            .unwrap();
                        rewrite(dir).unwrap();
                    }
                });
            }
        });
        let index = fs::read_to_string(dir.path().join(INDEX)).unwrap();
        assert!(
            index.contains("<title>heapgrowth: 40 test reports</title>"),
            "{index}"
        );
        assert_eq!(index.matches("<td>ok</td>").count(), 40);
    }

    #[test]
    fn instants_print_as_java_does() {
        assert_eq!(instant(0), "1970-01-01T00:00:00Z");
        assert_eq!(instant(-1), "1969-12-31T23:59:59Z");
        assert_eq!(instant(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(instant(4_107_542_399), "2100-02-28T23:59:59Z");
        assert_eq!(instant(253_402_300_800), "+10000-01-01T00:00:00Z");
        assert_eq!(instant(-62_167_219_200), "0000-01-01T00:00:00Z");
    }

    /// Java's `truncatedTo(SECONDS)` of 1969-12-31T23:59:58.500Z is 23:59:58 (seen with a file
    /// `touch -d` dated so).
    #[test]
    fn a_time_before_the_epoch_rounds_down() {
        let before = UNIX_EPOCH - std::time::Duration::from_millis(1500);
        assert_eq!(instant(epoch_seconds(before)), "1969-12-31T23:59:58Z");
        assert_eq!(
            epoch_seconds(UNIX_EPOCH - std::time::Duration::from_secs(2)),
            -2
        );
    }

    #[test]
    fn a_first_line_fails_only_on_bytes_java_reads_before_its_end() {
        assert_eq!(first_line(b"a\nb\xff").as_deref(), None);
        // 0xE9 starts a three-byte character: at the end of a read it waits for the next.
        assert_eq!(first_line(b"a\nb\xe9").as_deref(), Some("a"));
        let mut late = b"a\n".to_vec();
        late.extend([b'x'; 9000]);
        late.push(0xe9);
        assert_eq!(first_line(&late).as_deref(), Some("a"));
        assert_eq!(first_line(b"a\n\xe2\x82").as_deref(), Some("a"));
        assert_eq!(first_line(b"a\xe2\x82").as_deref(), None);
        assert_eq!(first_line(b"").as_deref(), Some(""));
    }
}
