//! Issue 30: dumps and paths someone else controls. Names from a crafted dump reach the
//! terminal escaped; inputs that are not regular files, the same dump twice, and outputs that
//! would replace an input or each other are refused with one line before any work; a dump
//! that shrinks while read ends with one line. All with `heapgrowth diff` on synthetic dumps:
//! no JVM, a few seconds in all. (Probes that need root are in scripts/probe-hostile-root.sh.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use heapgrowth::heap::{FieldType, RootKind};
use heapgrowth::hprof::builder::HeapBuilder;
use serde_json::Value;

use super::support::entries;

/// A class name that colours the terminal red, sets its title, forges a report line with CR LF
/// and reads reversed, and would close the HTML page's script.
const EVIL_CLASS: &str =
    "com.evil.\u{1b}[31mRed\u{1b}]0;pwned\u{7}\r\nGcRoot(Forged)\u{202e}gnp\u{2066}</script><b>";
/// A field name with a terminal escape and a bidi isolate, that would close the HTML page's
/// script (a class name's `/` reads as a package separator).
const EVIL_FIELD: &str = "items\u{1b}[2J\u{2067}x\u{2069}\u{85}</script><b>";
/// A thread name with a line break, a right-to-left override and a terminal escape (without
/// digits: the report shows a thread name's digits as `*`).
const EVIL_THREAD: &str = "worker\n\u{202e}evil\u{1b}[m";

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    dir
}

fn diff(dir: &Path, args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_heapgrowth"))
        .env("TMPDIR", dir.join("tmp"))
        .arg("diff")
        .args(args)
        .output()
        .expect("heapgrowth runs")
}

/// Dump `n` of a leak through hostile names: a static list of `3 * n` items and a thread's
/// local list of `2 * n`.
fn hostile_dump(n: usize) -> Vec<u8> {
    let mut h = HeapBuilder::new();
    let object = h.class_named("java.lang.Object");
    let item = h.class(EVIL_CLASS, Some(object), &[("id", FieldType::INT)]);
    let holder = h.class("com.evil.Holder", Some(object), &[]);
    h.static_field(holder, EVIL_FIELD, FieldType::Object);
    let items: Vec<_> = (0..3 * n)
        .map(|i| Some(h.instance(item, &[("id", (i as i32).into())])))
        .collect();
    let array = h.object_array("java.lang.Object[]", &items);
    h.set_static(holder, EVIL_FIELD, array);
    h.root(RootKind::StickyClass, holder);
    let thread = h.thread_named(EVIL_THREAD);
    let held: Vec<_> = (0..2 * n)
        .map(|_| Some(h.instance(item, &[("id", 0.into())])))
        .collect();
    let local = h.object_array("java.lang.Object[]", &held);
    h.frame_local(local, thread);
    h.write()
}

fn hostile_dumps(dir: &Path) -> Vec<PathBuf> {
    (1..=6)
        .map(|n| {
            let path = dir.join(format!("d{n}.hprof"));
            std::fs::write(&path, hostile_dump(n)).unwrap();
            path
        })
        .collect()
}

/// What a terminal or a viewer would act on: control characters but the line feeds that end
/// lines, bidi controls, line separators.
fn acting_characters(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n')
                || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}'
                    | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
        })
        .collect()
}

fn args(parts: &[&Path]) -> Vec<std::ffi::OsString> {
    parts.iter().map(|p| p.as_os_str().to_owned()).collect()
}

fn run(dir: &Path, parts: Vec<std::ffi::OsString>) -> Output {
    let refs: Vec<&std::ffi::OsStr> = parts.iter().map(|p| p.as_os_str()).collect();
    diff(dir, &refs)
}

/// Issue 30, defect 1: class and field names from a crafted dump passed ESC sequences, BEL and
/// CR LF through the text report (a forged report line); bidi controls showed names reversed.
#[test]
fn names_from_a_crafted_dump_reach_every_report_escaped() {
    let dir = scratch("names");
    let dumps = hostile_dumps(&dir);
    let page = dir.join("page.html");
    let json_file = dir.join("report.json");
    let mut parts = args(&dumps.iter().map(PathBuf::as_path).collect::<Vec<_>>());
    parts.push("--full-stacks".into());
    parts.push("--html".into());
    parts.push(page.as_os_str().to_owned());
    let output = run(&dir, parts.clone());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(acting_characters(&text), Vec::<char>::new(), "{text}");
    assert_eq!(acting_characters(&stderr), Vec::<char>::new(), "{stderr}");
    assert!(
        !text.lines().any(|line| line.starts_with("GcRoot(Forged)")),
        "a forged line: {text}"
    );
    // Escaped visibly, not dropped: the name can still be told.
    assert!(
        text.contains(
            "com.evil.\\u{1b}[31mRed\\u{1b}]0;pwned\\u{7}\\r\\nGcRoot(Forged)\\u{202e}gnp\\u{2066}"
        ),
        "{text}"
    );
    assert!(
        text.contains("Holder.items\\u{1b}[2J\\u{2067}x\\u{2069}\\u{85}</script><b>"),
        "{text}"
    );
    assert!(text.contains("worker\\n\\u{202e}evil\\u{1b}[m"), "{text}");
    assert_eq!(text.matches("┬───").count(), 2, "both leaks: {text}");

    // The page: the names only as escaped data, nothing that closes its script.
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("</script><b>"),
        "the page's script is closed by a name"
    );
    assert_eq!(
        acting_characters(&html),
        Vec::<char>::new(),
        "the page's source"
    );
    // Drawn: the names shown with the characters escaped visibly, as the text report does.
    let dom = super::html::headless(&page, &["--dump-dom"]);
    super::html::assert_drawn_without_errors(&dom);
    assert_eq!(
        acting_characters(&dom),
        Vec::<char>::new(),
        "the drawn page"
    );
    assert!(dom.contains("items\\u{1b}[2J\\u{2067}x\\u{2069}"), "{dom}");

    // The JSON: the names exactly as in the dump, escaped as JSON escapes them.
    parts.truncate(dumps.len());
    parts.extend(["--format".into(), "json".into(), "--output".into()]);
    parts.push(json_file.as_os_str().to_owned());
    let output = run(&dir, parts);
    assert_eq!(output.status.code(), Some(1));
    let raw = std::fs::read_to_string(&json_file).unwrap();
    // Escaped as \uXXXX, C1 and bidi controls too: the JSON printed to a terminal is safe.
    assert_eq!(acting_characters(&raw), Vec::<char>::new(), "{raw}");
    let report: Value = serde_json::from_str(&raw).unwrap();
    let steps: Vec<String> = report["scenarios"][0]["growing"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|node| node["path"].as_array().unwrap().clone())
        .map(|step| step["text"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        steps.iter().any(|step| step.contains(EVIL_FIELD)),
        "{steps:?}"
    );
    assert!(
        steps
            .iter()
            .any(|step| step.contains(&format!("{EVIL_THREAD:?}"))),
        "{steps:?}"
    );
    assert_eq!(entries(&dir.join("tmp")), Vec::<String>::new());
}

/// Exit status 2, one `heapgrowth:` line holding `part`, no report, nothing left in TMPDIR.
fn assert_refused(dir: &Path, output: &Output, part: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{part}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with("heapgrowth: ") && lines[0].contains(part),
        "{part:?} in {stderr}"
    );
    assert!(output.stdout.is_empty());
    assert_eq!(entries(&dir.join("tmp")), Vec::<String>::new());
}

/// Issue 30, defects 6 and 7: a FIFO blocked `diff` for ever; a device or a directory is no
/// dump either; the same dump given twice through a hard link was read twice.
#[test]
fn inputs_that_are_not_regular_files_or_repeat_a_dump_are_refused_at_once() {
    let dir = scratch("inputs");
    let dumps = hostile_dumps(&dir);
    let fifo = dir.join("fifo.hprof");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let hard = dir.join("hard.hprof");
    std::fs::hard_link(&dumps[0], &hard).unwrap();
    let cases: [(&Path, &str); 4] = [
        (&fifo, "it is a FIFO (named pipe), not a regular file"),
        (Path::new("/dev/zero"), "it is a device, not a regular file"),
        (&dir, "it is a directory"),
        (&hard, "hard.hprof is given twice"),
    ];
    for (third, part) in cases {
        let started = std::time::Instant::now();
        let output = run(&dir, args(&[&dumps[0], &dumps[1], third]));
        assert_refused(&dir, &output, part);
        // A FIFO is refused, not read: no writer ever comes.
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }
}

/// Issue 30, defects 3 and 4: `--output C` and `--html C` replaced the input dump C with the
/// report; `--output x --html x` wrote one over the other; an unwritable directory was found
/// after the run.
#[test]
fn outputs_that_would_replace_an_input_or_each_other_are_refused_before_reading() {
    let dir = scratch("outputs");
    let dumps = hostile_dumps(&dir);
    let before = std::fs::read(&dumps[2]).unwrap();
    let link = dir.join("link-to-c.hprof");
    std::fs::hard_link(&dumps[2], &link).unwrap();
    let same = dir.join("same.txt");
    let three = || args(&[&dumps[0], &dumps[1], &dumps[2]]);
    let with = |extra: &[&std::ffi::OsStr]| {
        let mut parts = three();
        parts.extend(extra.iter().map(|e| e.to_os_string()));
        parts
    };
    let cases = [
        (
            with(&["--output".as_ref(), dumps[2].as_os_str()]),
            "is the same file as the input",
        ),
        (
            with(&["--html".as_ref(), dumps[2].as_os_str()]),
            "is the same file as the input",
        ),
        (
            with(&["--output".as_ref(), link.as_os_str()]),
            "is the same file as the input",
        ),
        (
            with(&[
                "--output".as_ref(),
                same.as_os_str(),
                "--html".as_ref(),
                same.as_os_str(),
            ]),
            "are the same file",
        ),
        (
            with(&["--html".as_ref(), dir.join("missing/page.html").as_os_str()]),
            "does not exist",
        ),
    ];
    for (parts, part) in cases {
        let output = run(&dir, parts);
        assert_refused(&dir, &output, part);
    }
    // A directory the user cannot write to (root can: skipped there).
    if unsafe { libc::geteuid() } != 0 {
        use std::os::unix::fs::PermissionsExt;
        let closed = dir.join("closed");
        std::fs::create_dir(&closed).unwrap();
        std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o500)).unwrap();
        let output = run(
            &dir,
            with(&["--output".as_ref(), closed.join("r.txt").as_os_str()]),
        );
        assert_refused(&dir, &output, "cannot create a file in");
        std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    assert_eq!(
        std::fs::read(&dumps[2]).unwrap(),
        before,
        "the input is unchanged"
    );
    assert!(!same.exists());
}

/// Issue 30, defect 4: an unusable `--keep-dumps-dir` was said only inside the report, after
/// the run, exit 1. Now: one line and exit 2 before the JVM starts.
#[test]
fn an_unusable_keep_dumps_dir_is_refused_before_the_jvm_starts() {
    let dir = scratch("keep-dir");
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    for (keep_dir, part) in [
        (file.clone(), "it is not a directory"),
        (dir.join("missing/dumps"), "does not exist"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_heapgrowth"))
            .env("TMPDIR", dir.join("tmp"))
            .args(["run", "--classpath", "/nonexistent", "--scenario", "x.Y"])
            .args(["--keep-dumps", "failed", "--keep-dumps-dir"])
            .arg(&keep_dir)
            .output()
            .unwrap();
        assert_refused(&dir, &output, part);
        assert!(String::from_utf8_lossy(&output.stderr).contains("--keep-dumps-dir"));
    }
}

/// A dump of `objects` objects in a static list: large enough that reading it takes a while.
fn large_dump(objects: usize) -> Vec<u8> {
    let mut h = HeapBuilder::new();
    let object = h.class_named("java.lang.Object");
    let item = h.class("com.example.Item", Some(object), &[("id", FieldType::INT)]);
    let holder = h.class("com.example.Registry", Some(object), &[]);
    h.static_field(holder, "items", FieldType::Object);
    let items: Vec<_> = (0..objects)
        .map(|i| Some(h.instance(item, &[("id", (i as i32).into())])))
        .collect();
    let array = h.object_array("java.lang.Object[]", &items);
    h.set_static(holder, "items", array);
    h.root(RootKind::StickyClass, holder);
    h.write()
}

/// Issue 30, defect 6: a dump truncated while `diff` read it killed the process with SIGBUS
/// (exit 135, no message). The last dump is truncated as soon as `diff` has mapped it.
#[test]
fn a_dump_truncated_while_read_ends_with_one_line() {
    let dir = scratch("truncated");
    let dump = large_dump(300_000);
    let dumps: Vec<PathBuf> = (1..=3)
        .map(|n| {
            let path = dir.join(format!("big{n}.hprof"));
            std::fs::write(&path, &dump).unwrap();
            path
        })
        .collect();
    let child = Command::new(env!("CARGO_BIN_EXE_heapgrowth"))
        .env("TMPDIR", dir.join("tmp"))
        .arg("diff")
        .args(&dumps)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let maps = format!("/proc/{}/maps", child.id());
    let last = dumps[2].display().to_string();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let mapped = std::fs::read_to_string(&maps).unwrap_or_default();
        if mapped.contains(&last) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "diff never mapped {last}"
        );
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(&dumps[2])
        .unwrap()
        .set_len(4096)
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_refused(
        &dir,
        &output,
        "a heap dump became shorter while it was read",
    );
}

/// Issue 30, defect 6: under `ulimit -v` diff aborted with a Rust backtrace (`memory allocation
/// of 33554432 bytes failed`) or panicked (`failed to spawn thread`). At each limit from one
/// too small to read the dumps to one that is enough, it now reports or ends with one line.
#[test]
fn under_an_address_space_limit_diff_reports_or_says_it_ran_out_in_one_line() {
    let dir = scratch("ulimit");
    let dump = large_dump(300_000);
    let dumps: Vec<String> = (1..=3)
        .map(|n| {
            let path = dir.join(format!("big{n}.hprof"));
            std::fs::write(&path, &dump).unwrap();
            path.display().to_string()
        })
        .collect();
    let mut ran_out = 0;
    for kib in [30_000, 40_000, 50_000, 90_000] {
        let output = Command::new("sh")
            .env("TMPDIR", dir.join("tmp"))
            .arg("-c")
            .arg(format!("ulimit -v {kib} && exec \"$0\" diff \"$@\"",))
            .arg(env!("CARGO_BIN_EXE_heapgrowth"))
            .args(&dumps)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        match output.status.code() {
            Some(0 | 1) => {}
            Some(2) => {
                // Out of memory in an allocation, or the dump's mapping refused.
                let ours: Vec<&str> = stderr.lines().collect();
                assert_eq!(ours.len(), 1, "ulimit -v {kib}: {stderr}");
                assert!(
                    ours[0].starts_with("heapgrowth: ")
                        && (ours[0].contains("out of memory")
                            || ours[0].contains("Cannot allocate memory")),
                    "ulimit -v {kib}: {stderr}"
                );
                ran_out += 1;
            }
            other => panic!("ulimit -v {kib}: exit {other:?}: {stderr}"),
        }
        assert!(
            !stderr.contains("panicked") && !stderr.contains("backtrace"),
            "{stderr}"
        );
        assert_eq!(entries(&dir.join("tmp")), Vec::<String>::new());
    }
    assert!(
        ran_out > 0,
        "no limit was too small: the test no longer tests anything"
    );
}
