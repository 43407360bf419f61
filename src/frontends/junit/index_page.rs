//! `index.html` of the JUnit report directory: a link to every test's HTML report there, with
//! the first line of the test's text report, how it compares with the baseline (new, accepted
//! and fixed growth) and when the page was written. Rewritten after each test from the
//! directory's listing, so the test JVMs that share a report directory (Gradle's
//! `maxParallelForks`) all appear; a page left by an earlier run shows its older time. Ported
//! from the extension's `ReportIndex` (JUnit API 7), byte for byte.

use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use super::java_text::resolve;
use super::reports::{write_report, BASELINE_LINE};
use crate::support::file_lock::FileLock;

/// The index's file name.
const INDEX: &str = "index.html";
const PAGE_SUFFIX: &str = ".html";
/// Held while the index is rewritten, by every test JVM that writes into the directory.
const LOCK: &str = ".heapgrowth-index.lock";

/// One thread of this process at a time (parallel JUnit tests).
static REWRITING: Mutex<()> = Mutex::new(());

/// Rewrites `dir/index.html` from the pages in `dir` (as Java's `Path` shows it).
pub(super) fn rewrite(dir: &str) -> Result<(), String> {
    let _one_thread = REWRITING.lock().unwrap_or_else(|p| p.into_inner());
    let lock_path = resolve(dir, LOCK);
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot open the report index's lock file {lock_path}: {e}"))?;
    let _locked = FileLock::exclusive(&lock)
        .map_err(|e| format!("cannot lock the report index's lock file {lock_path}: {e}"))?;
    write_report(&resolve(dir, INDEX), &render(dir))
}

/// The index page for the pages now in `dir`.
pub(super) fn render(dir: &str) -> String {
    let mut names: Vec<String> = std::fs::read_dir(Path::new(dir))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let file = entry.file_name().to_string_lossy().into_owned();
            let name = file.strip_suffix(PAGE_SUFFIX)?.to_owned();
            // `Files.isRegularFile` follows a symbolic link.
            let regular = std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file());
            (file != INDEX && regular).then_some(name)
        })
        .collect();
    // Java's `String` order: by UTF-16 code unit.
    names.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    let mut rows = String::new();
    for name in &names {
        let page = resolve(dir, &format!("{name}{PAGE_SUFFIX}"));
        let written = std::fs::metadata(&page)
            .and_then(|m| m.modified())
            .map(instant_seconds)
            .unwrap_or_default();
        let text = std::fs::read(resolve(dir, &format!("{name}.txt")))
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok());
        rows.push_str(&format!(
            "<tr><td><a href=\"./{}\">{}</a></td><td>{}</td><td>{}</td><td>{written}</td></tr>\n",
            escape(&encode(&format!("{name}{PAGE_SUFFIX}"))),
            escape(name),
            escape(&summary(text.as_deref(), name)),
            escape(&baseline(text.as_deref())),
        ));
    }
    let plural = if names.len() == 1 { "" } else { "s" };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>heapgrowth: {} test report{plural}</title>\n\
         <style>body{{font:15px/1.45 system-ui,sans-serif;margin:0}}main{{max-width:62rem;margin:0 auto;\
         padding:0.75rem}}table{{border-collapse:collapse;display:block;overflow-x:auto}}\
         td,th{{border:1px solid #ccc;padding:0.2rem 0.5rem;text-align:left;overflow-wrap:anywhere}}</style>\n\
         </head>\n<body>\n<main>\n<h1>heapgrowth reports</h1>\n\
         <p>One page per test that ran with heapgrowth, rewritten after each test; each test also has \
         its text (.txt) and JSON (.json) report beside its page.</p>\n\
         <table>\n<tr><th>test</th><th>report</th><th>baseline: new / accepted / fixed (stale)</th>\
         <th>page written (UTC)</th></tr>\n{rows}\
         </table>\n</main>\n</body>\n</html>\n",
        names.len()
    )
}

/// The lines of `text` as `BufferedReader.readLine` reads them: ended by `\n`, `\r` or
/// `\r\n`, the last one also by the end.
fn reader_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'\n' => {
                lines.push(&text[start..at]);
                start = at + 1;
            }
            b'\r' => {
                lines.push(&text[start..at]);
                if bytes.get(at + 1) == Some(&b'\n') {
                    at += 1;
                }
                start = at + 1;
            }
            _ => {}
        }
        at += 1;
    }
    if start < bytes.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// The first line of the test's text report (`Scenario <test>: 1 growing node after ...`)
/// without the scenario's name, or "" when there is none.
fn summary(text: Option<&str>, name: &str) -> String {
    let first = text
        .and_then(|t| reader_lines(t).first().copied())
        .unwrap_or_default();
    let prefix = format!("Scenario {name}: ");
    first.strip_prefix(&prefix).unwrap_or(first).to_owned()
}

/// What the test's text report says of the baseline (`1 new, 2 accepted`), from its last
/// `Baseline: ` line, or "" when it has none (an error, or an older report).
fn baseline(text: Option<&str>) -> String {
    text.and_then(|t| {
        reader_lines(t)
            .into_iter()
            .rfind(|l| l.starts_with(BASELINE_LINE))
    })
    .map(|line| {
        let counts = &line[BASELINE_LINE.len()..];
        counts
            .split_once("; ")
            .map_or(counts, |(c, _)| c)
            .to_owned()
    })
    .unwrap_or_default()
}

/// `Instant.truncatedTo(SECONDS).toString()`: `YYYY-MM-DDTHH:MM:SSZ`.
fn instant_seconds(time: SystemTime) -> String {
    let seconds = match time.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_secs() as i64,
        // Truncation goes toward the epoch's past: a fraction before it is the second before.
        Err(before) => {
            let d = before.duration();
            -(d.as_secs() as i64) - i64::from(d.subsec_nanos() > 0)
        }
    };
    let (days, of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// The proleptic Gregorian date of `days` since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A file name as a relative URL: every byte but unreserved ASCII percent-encoded.
fn encode(file: &str) -> String {
    let mut out = String::new();
    for b in file.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Text for HTML content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tempdir::PrivateTempDir;

    #[test]
    fn instants_print_as_javas_truncated_to_seconds() {
        let at = |s: u64| instant_seconds(UNIX_EPOCH + std::time::Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_796_584_581), "2026-12-06T19:16:21Z");
    }

    #[test]
    fn names_are_url_encoded_and_escaped() {
        assert_eq!(encode("a b/é~.html"), "a%20b%2F%C3%A9~.html");
        assert_eq!(
            escape("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
    }

    #[test]
    fn the_index_lists_each_page_with_its_summary_and_baseline_counts_sorted() {
        let dir = PrivateTempDir::new("test").unwrap();
        let d = dir.path().display().to_string();
        std::fs::write(dir.path().join("b.T.y.html"), "").unwrap();
        std::fs::write(
            dir.path().join("b.T.y.txt"),
            "Scenario b.T.y: clean\n\nBaseline: 1 new; file /x\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("a.T.x.html"), "").unwrap();
        std::fs::write(dir.path().join("a.T.x.txt"), b"\xff").unwrap();
        std::fs::create_dir(dir.path().join("dir.html")).unwrap();
        rewrite(&d).unwrap();
        let index = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
        assert!(
            index.contains("<title>heapgrowth: 2 test reports</title>"),
            "{index}"
        );
        let a = index
            .find("<tr><td><a href=\"./a.T.x.html\">a.T.x</a></td><td></td><td></td><td>")
            .unwrap();
        let b = index
            .find("<tr><td><a href=\"./b.T.y.html\">b.T.y</a></td><td>clean</td><td>1 new</td><td>")
            .unwrap();
        assert!(a < b && !index.contains("dir.html"), "{index}");
    }
}
