//! The baseline file the JUnit extension reads before a test and rewrites after it in update
//! mode (`heapgrowth.baseline`, `heapgrowth.updateBaseline=true`): its format is
//! [`crate::report::baseline`]; this reads and writes the file.
//!
//! Ported from the extension's Java (`HeapGrowthExtension.BaselineFile`, issue 31): the same
//! messages (`SettingsFileException`'s: a directory, not UTF-8 at byte N, cannot read ...), and
//! the rewrite under a POSIX record lock on the file itself, read and written through the
//! locked descriptor, so that parallel test JVMs (Gradle's `maxParallelForks`), Rust or Java,
//! rewrite their sections one at a time and none is lost.

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Mutex;

use super::outcome::working_directory;
use crate::java_text;
use crate::output::{resolve_output, OutputError, RecordLock};
use crate::report::baseline;

/// One rewrite at a time in this process: a POSIX lock does not exclude the threads of the
/// process that holds it (JUnit may run tests in parallel threads). The Java extension had
/// none, and two threads of one JVM rewriting at once failed with `OverlappingFileLockException`.
static REWRITING: Mutex<()> = Mutex::new(());

/// The text of the baseline file, or "" when it does not exist (or cannot be looked at, as
/// Java's `Files.exists` says). A directory, a file that is not UTF-8 or that cannot be read
/// is an error: the message of one line naming the file (as `Path.toString` shows it) that the
/// extension throws as `SettingsFileException`.
pub(super) fn read(path: &Path) -> Result<String, String> {
    let shown = java_text::display(path);
    match fs::metadata(path) {
        Ok(meta) if meta.is_dir() => return Err(directory(&shown)),
        Ok(_) => {}
        Err(_) => return Ok(String::new()),
    }
    let mut bytes = Vec::new();
    fs::File::open(path)
        .map_err(|e| unreadable(&shown, opening(&shown, &e)))?
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(&shown, format!("IOException: {}", strerror(&e))))?;
    decode(&shown, bytes)
}

/// For a rewrite (`heapgrowth.updateBaseline=true`), before the search: a baseline file that
/// exists but cannot be opened for writing (read-only, another user's) or lies behind another
/// user's symbolic link fails at once, with the message [`replace_section`] would give after
/// the search. Root opens any file, so the tests (run as root) never saw a rewrite fail; a user
/// saw every test's search run, then fail one by one. A missing file, or one in a directory
/// still to be made, is left to [`replace_section`], which creates them.
pub(super) fn check_rewritable(path: &Path) -> Result<(), String> {
    let shown = java_text::display(path);
    if !fs::metadata(path).is_ok_and(|meta| meta.is_file()) {
        return Ok(());
    }
    let target = match resolve_output("baseline file", path) {
        Ok(target) => target,
        Err(error @ OutputError::ForeignSymlink { .. }) => return Err(error.to_string()),
        Err(_) => return Ok(()),
    };
    // Opened as the rewrite opens it, neither created nor truncated, and closed at once.
    fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&target)
        .map(drop)
        .map_err(|e| {
            format!(
                "cannot open the baseline file {shown}: {} (heapgrowth.updateBaseline=true \
                 rewrites it)",
                opening(&shown, &e)
            )
        })
}

/// Replaces (or adds) test `name`'s section of the baseline file with `blocks`, or removes it
/// when `blocks` is empty ([`baseline::replace_section`]). The file and its directories are
/// created when missing. The file is read and written under a write lock on it (and this
/// process's mutex), checked again to be UTF-8 under the lock. Errors are one line naming
/// the file: "is a directory" and "is not UTF-8" as [`read`] says them (the Java threw them as
/// `SettingsFileException`); any other says what failed and why.
pub(super) fn replace_section(path: &Path, name: &str, blocks: &str) -> Result<(), String> {
    let shown = java_text::display(path);
    if fs::metadata(path).is_ok_and(|meta| meta.is_dir()) {
        return Err(directory(&shown));
    }
    let cannot = |what: &str, e: io::Error| {
        format!(
            "cannot {what} the baseline file {shown}: {}",
            opening(&shown, &e)
        )
    };
    // Rewritten in place, so never through another user's symbolic link: such a link could
    // point the rewrite at any file its owner likes. Checked before the missing directories
    // are made (they would be made where the link points) and again after.
    let foreign_link = |error: OutputError| match error {
        OutputError::ForeignSymlink { .. } => Some(error.to_string()),
        _ => None,
    };
    if let Some(refused) = resolve_output("baseline file", path)
        .err()
        .and_then(foreign_link)
    {
        return Err(refused);
    }
    let absolute = java_text::absolute(path, &working_directory());
    if let Some(parent) = Path::new(&absolute).parent() {
        fs::create_dir_all(parent).map_err(|e| cannot("create the directory of", e))?;
    }
    let target = resolve_output("baseline file", path).map_err(|error| error.to_string())?;
    let _one_thread = REWRITING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // O_NOFOLLOW: a link planted at the resolved name since is not followed either.
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o666)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&target)
        .map_err(|e| cannot("open", e))?;
    let lock = RecordLock::exclusive(&file).map_err(|e| cannot("lock", e))?;
    // Only through the locked descriptor: closing another descriptor of the file would drop
    // the lock.
    let mut old = Vec::new();
    lock.file()
        .read_to_end(&mut old)
        .map_err(|e| cannot("read", e))?;
    // Checked again under the lock: another JVM may have written the file since.
    let old = decode(&shown, old)?;
    let new = baseline::replace_section(&old, name, blocks);
    lock.file().set_len(0).map_err(|e| cannot("write", e))?;
    lock.file()
        .write_all_at(new.as_bytes(), 0)
        .map_err(|e| cannot("write", e))
}

/// `bytes` as UTF-8, strictly: a lenient decoding would turn a Latin-1 baseline's bytes into
/// U+FFFD, and a rewrite would save that over the other tests' sections. The error names the
/// first byte that is not (the start of a malformed or unfinished sequence, as Java's decoder).
pub(super) fn decode(shown: &str, bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "baseline file {shown} is not UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        )
    })
}

fn directory(shown: &str) -> String {
    format!("baseline file {shown} is a directory")
}

fn unreadable(shown: &str, reason: String) -> String {
    format!("cannot read the baseline file {shown}: {reason}")
}

/// Why a file could not be opened, as Java's `UnixException` words it: the exception's name
/// and the path for EACCES and ENOENT, else the C library's text of the error.
fn opening(shown: &str, e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::EACCES) => format!("AccessDeniedException: {shown}"),
        Some(libc::ENOENT) => format!("NoSuchFileException: {shown}"),
        Some(libc::EEXIST) => format!("FileAlreadyExistsException: {shown}"),
        Some(libc::ELOOP) => format!(
            "{} or unable to access attributes of symbolic link",
            strerror(e)
        ),
        _ => strerror(e),
    }
}

/// The C library's text of an OS error (`Permission denied`), without Rust's ` (os error 13)`.
fn strerror(e: &io::Error) -> String {
    let text = e.to_string();
    match (e.raw_os_error(), text.rfind(" (os error ")) {
        (Some(_), Some(at)) => text[..at].to_owned(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::golden_tests::{
        escape, read_golden, records, scratch, unescape, unescape_str,
    };

    /// The scratch directory's path as `Golden.java` showed it.
    fn scrubbed(message: &str, scratch: &Path) -> String {
        message.replace(&scratch.display().to_string(), "<scratch>")
    }

    #[test]
    fn read_matches_the_java_golden_output() {
        let dir = scratch("baseline-read");
        let reads = dir.path().join("read");
        fs::create_dir_all(reads.join("a directory")).unwrap();
        fs::write(reads.join("utf8.txt"), "## a.B.c\nx\n").unwrap();
        fs::write(reads.join("latin1.txt"), b"## a\n\xe9\n").unwrap();
        fs::write(reads.join("empty.txt"), b"").unwrap();
        std::os::unix::fs::symlink(reads.join("loop"), reads.join("loop")).unwrap();
        std::os::unix::fs::symlink(reads.join("a directory"), reads.join("link to directory"))
            .unwrap();
        let mut out = String::new();
        for path in [
            "a directory",
            "a directory/",
            "link to directory",
            "missing.txt",
            "missing/dir/x.txt",
            "utf8.txt",
            "latin1.txt",
            "empty.txt",
            "loop",
            "utf8.txt/x",
        ] {
            let result = match read(Path::new(&format!("{}//{path}", reads.display()))) {
                Ok(text) => format!("ok\t{}", escape(&text)),
                Err(message) => format!("error\t{}", escape(&scrubbed(&message, dir.path()))),
            };
            out.push_str(&format!("{}\t{result}\n", escape(path)));
        }
        assert_eq!(out, read_golden("expected/read.txt"));
    }

    #[test]
    fn decode_matches_the_java_golden_output() {
        let mut out = String::new();
        for case in records("cases/baseline/decode.txt", 2) {
            let result = match decode("heapgrowth-baseline.txt", unescape(&case[1])) {
                Ok(text) => format!("ok\t{}", escape(&text)),
                Err(message) => format!("error\t{}", escape(&message)),
            };
            out.push_str(&format!("{}\t{result}\n", case[0]));
        }
        assert_eq!(out, read_golden("expected/decode.txt"));
    }

    /// Every text and replacement of the golden cases, on a real file: the file's bytes after,
    /// or the error (a text that is not UTF-8).
    #[test]
    fn replace_section_on_a_file_matches_the_java_golden_output() {
        let dir = scratch("baseline-replace");
        let file = dir.path().join("replace").join("heapgrowth-baseline.txt");
        let mut out = String::new();
        for text in records("cases/baseline/texts.txt", 2) {
            for replacement in records("cases/baseline/replace.txt", 2) {
                fs::create_dir_all(file.parent().unwrap()).unwrap();
                fs::write(&file, unescape(&text[1])).unwrap();
                let (name, blocks) = (unescape_str(&replacement[0]), unescape_str(&replacement[1]));
                let result = match replace_section(&file, &name, &blocks) {
                    Ok(()) => format!("ok\t{}", escape(&fs::read_to_string(&file).unwrap())),
                    Err(message) => format!("error\t{}", escape(&scrubbed(&message, dir.path()))),
                };
                out.push_str(&format!(
                    "{}\t{}\t{}\t{result}\n",
                    text[0], replacement[0], replacement[1]
                ));
            }
        }
        // A missing file (and its missing directories) is created.
        let fresh = dir
            .path()
            .join("fresh")
            .join("sub//dir")
            .join("baseline.txt");
        replace_section(&fresh, "a.B.c", "x\n").unwrap();
        out.push_str(&format!(
            "missing\ta.B.c\tx\\n\tok\t{}\n",
            escape(&fs::read_to_string(&fresh).unwrap())
        ));
        assert_eq!(out, read_golden("expected/replace_section.txt"));
    }

    #[test]
    fn a_directory_is_not_rewritten() {
        let dir = scratch("baseline-directory");
        let message = replace_section(dir.path(), "a.B.c", "x\n").unwrap_err();
        assert_eq!(
            message,
            format!("baseline file {} is a directory", dir.path().display())
        );
    }

    /// A baseline path through a symbolic link another user owns (in a shared directory, say)
    /// is not rewritten: the link could name any file. Only root can make such a link here.
    #[test]
    fn a_baseline_through_another_users_symlink_is_not_rewritten() {
        // Safety: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: only root can make a link another user owns");
            return;
        }
        let dir = scratch("baseline-foreign");
        let victim = dir.path().join("victim.txt");
        fs::write(&victim, "not a baseline\n").unwrap();
        for (link, path) in [
            ("file-link", dir.path().join("file-link")),
            (
                "dir-link",
                dir.path().join("dir-link").join("new").join("b.txt"),
            ),
        ] {
            let target = if link == "file-link" {
                victim.clone()
            } else {
                dir.path().to_path_buf()
            };
            let at = dir.path().join(link);
            std::os::unix::fs::symlink(&target, &at).unwrap();
            let c_path = std::ffi::CString::new(at.as_os_str().as_encoded_bytes()).unwrap();
            // Safety: a NUL-terminated path; lchown changes the link, not its target.
            assert_eq!(unsafe { libc::lchown(c_path.as_ptr(), 65534, 65534) }, 0);
            let message = replace_section(&path, "a.B.c", "x\n").unwrap_err();
            assert!(
                message.contains("is a symbolic link owned by another user (uid 65534)"),
                "{message}"
            );
        }
        assert_eq!(fs::read_to_string(&victim).unwrap(), "not a baseline\n");
        assert!(
            !dir.path().join("new").exists(),
            "a directory was made through the link"
        );
    }

    /// An unreadable baseline (EACCES) reads as Java's AccessDeniedException said it.
    /// Made up here: the tests may run as root, whom no permission stops.
    #[test]
    fn permission_denied_is_named_as_java_names_it() {
        let denied = io::Error::from_raw_os_error(libc::EACCES);
        assert_eq!(
            unreadable("b.txt", opening("b.txt", &denied)),
            "cannot read the baseline file b.txt: AccessDeniedException: b.txt"
        );
        let io_error = io::Error::from_raw_os_error(libc::EIO);
        assert_eq!(opening("b.txt", &io_error), "Input/output error");
    }

    /// Sections each thread (and each process, below) rewrites, again and again: with the
    /// lock, each rewrite reads what the one before wrote, so every section is there at the end.
    const WRITERS: usize = 4;
    const ROUNDS: usize = 25;
    /// Set in a child process: the baseline file it rewrites, and its writer number.
    const CHILD_FILE: &str = "HEAPGROWTH_TEST_BASELINE_CHILD_FILE";
    const CHILD_WRITER: &str = "HEAPGROWTH_TEST_BASELINE_CHILD_WRITER";

    fn rewrite_rounds(file: &Path, writer: &str) {
        for round in 0..ROUNDS {
            replace_section(
                file,
                &format!("t.{writer}.m"),
                &format!("{writer} -> {round}\n"),
            )
            .unwrap();
        }
    }

    fn assert_every_section_is_there(file: &Path, writers: &[String]) {
        let text = read(file).unwrap();
        for writer in writers {
            // A section other than the last ends with the blank line before the next.
            assert_eq!(
                baseline::section(&text, &format!("t.{writer}.m")).trim_end(),
                format!("{writer} -> {}", ROUNDS - 1),
                "{writer} in {text}"
            );
        }
        assert_eq!(
            text.matches(baseline::SECTION_PREFIX).count(),
            writers.len(),
            "{text}"
        );
    }

    #[test]
    fn threads_rewriting_their_sections_at_once_lose_none() {
        let dir = scratch("baseline-threads");
        let file = dir.path().join("baseline.txt");
        let writers: Vec<String> = (0..WRITERS).map(|w| format!("thread{w}")).collect();
        std::thread::scope(|scope| {
            for writer in &writers {
                let file = &file;
                scope.spawn(move || rewrite_rounds(file, writer));
            }
        });
        assert_every_section_is_there(&file, &writers);
    }

    /// The body of a child process of the test below; does nothing in a test run of its own.
    #[test]
    fn child_process_rewriting_its_section() {
        if let (Some(file), Some(writer)) = (
            std::env::var_os(CHILD_FILE),
            std::env::var(CHILD_WRITER).ok(),
        ) {
            rewrite_rounds(Path::new(&file), &writer);
        }
    }

    /// Parallel test JVMs (Gradle's maxParallelForks) are processes: only the record lock
    /// keeps them from each other's rewrites.
    #[test]
    fn processes_rewriting_their_sections_at_once_lose_none() {
        let dir = scratch("baseline-processes");
        let file = dir.path().join("baseline.txt");
        let writers: Vec<String> = (0..WRITERS).map(|w| format!("process{w}")).collect();
        let children: Vec<_> = writers
            .iter()
            .map(|writer| {
                std::process::Command::new(std::env::current_exe().unwrap())
                    .args([
                        "--exact",
                        "frontends::junit::baseline_file::tests::child_process_rewriting_its_section",
                        "--test-threads=1",
                    ])
                    .env(CHILD_FILE, &file)
                    .env(CHILD_WRITER, writer)
                    .stdout(std::process::Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut child in children {
            assert!(child.wait().unwrap().success());
        }
        assert_every_section_is_there(&file, &writers);
    }
}
