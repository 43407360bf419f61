//! Heap dumps hold every secret in the heap: nothing may stay behind in the temporary
//! directory, whether the run succeeds, fails, or is interrupted.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::support::corpus_classes;

fn heapgrowth_in(tmp: &Path, scenario: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_heapgrowth"));
    command
        .env("TMPDIR", tmp)
        .arg("run")
        .arg("--classpath")
        .arg(corpus_classes())
        .args(["--scenario", scenario]);
    command
}

fn leftovers(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn fresh_tmp(name: &str) -> std::path::PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    tmp
}

#[test]
fn nothing_is_left_after_a_run_or_an_error() {
    let tmp = fresh_tmp("cleanup-run");
    let status = heapgrowth_in(&tmp, "corpus.leaks.StaticListLeak")
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    assert_eq!(leftovers(&tmp), Vec::<String>::new());
    let status = heapgrowth_in(&tmp, "corpus.bad.ThrowsInRun")
        .output()
        .unwrap()
        .status;
    assert_eq!(status.code(), Some(2));
    assert_eq!(leftovers(&tmp), Vec::<String>::new());
}

#[test]
fn nothing_is_left_after_ctrl_c() {
    let tmp = fresh_tmp("cleanup-interrupt");
    let mut child = heapgrowth_in(&tmp, "corpus.leaks.StaticListLeak")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until a heap dump exists, then interrupt.
    let deadline = Instant::now() + Duration::from_secs(60);
    let has_dump = |dir: &Path| {
        walk(dir)
            .iter()
            .any(|file| file.extension().is_some_and(|e| e == "hprof"))
    };
    while !has_dump(&tmp) {
        assert!(Instant::now() < deadline, "no heap dump appeared");
        std::thread::sleep(Duration::from_millis(5));
    }
    // Safety: plain kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert_eq!(leftovers(&tmp), Vec::<String>::new());
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                files.extend(walk(&path));
            } else {
                files.push(path);
            }
        }
    }
    files
}
