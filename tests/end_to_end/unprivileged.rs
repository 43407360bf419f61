//! heapgrowth as an ordinary user. CI runs as root, whom no permission stops and who may raise
//! any thread's priority, so these tests drop privileges themselves: as root, the binary runs as
//! `nobody` (uid and gid 65534, no supplementary groups); as another user it runs as that user.
//! A test that needs something only root can set up (another user's file) is skipped, saying
//! why, when the tests do not run as root.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use heapgrowth::heap::{FieldType, RootKind};
use heapgrowth::hprof::builder::HeapBuilder;

/// The user the binary runs as when the tests run as root.
const NOBODY: u32 = 65534;

fn is_root() -> bool {
    // Safety: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// A directory every user can reach (under the system's temporary directory, since the
/// checkout may be in root's home), holding a copy of the binary every user can run. Removed
/// on drop.
struct Shared {
    dir: PathBuf,
    bin: PathBuf,
}

impl Shared {
    fn new(name: &str) -> Shared {
        let dir = std::env::temp_dir().join(format!(
            "heapgrowth-e2e-unprivileged-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        set_mode(&dir, 0o755);
        let bin = dir.join("heapgrowth");
        std::fs::copy(env!("CARGO_BIN_EXE_heapgrowth"), &bin).unwrap();
        set_mode(&bin, 0o755);
        // TMPDIR for the run: the unprivileged user's own.
        let tmp = dir.join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        if is_root() {
            std::os::unix::fs::chown(&tmp, Some(NOBODY), Some(NOBODY)).unwrap();
        }
        set_mode(&tmp, 0o700);
        Shared { dir, bin }
    }

    /// The binary with `args`, as `nobody` when the tests run as root.
    fn heapgrowth<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        let mut command = Command::new(&self.bin);
        command
            .args(args)
            .env("TMPDIR", self.dir.join("tmp"))
            .current_dir(&self.dir);
        if is_root() {
            // Without explicit groups, std drops the supplementary groups when it changes the
            // uid as root.
            command.uid(NOBODY).gid(NOBODY);
        }
        // The copy was written a moment ago: a process that another test's thread forked
        // meanwhile holds its descriptor until it execs, and exec fails with ETXTBSY then.
        let mut attempts = 0;
        let output = loop {
            match command.output() {
                Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && attempts < 50 => {
                    attempts += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                result => break result.expect("heapgrowth runs"),
            }
        };
        if is_root() {
            assert_ne!(
                output.status.code(),
                Some(126),
                "the binary could not run as nobody"
            );
        }
        output
    }

    /// Three dumps of a static list that grows by three items per dump, readable by all.
    fn dumps(&self) -> Vec<PathBuf> {
        (1..=3)
            .map(|n| {
                let path = self.dir.join(format!("d{n}.hprof"));
                std::fs::write(&path, growing_dump(n)).unwrap();
                set_mode(&path, 0o644);
                path
            })
            .collect()
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn growing_dump(n: usize) -> Vec<u8> {
    let mut h = HeapBuilder::new();
    let object = h.class_named("java.lang.Object");
    let item = h.class("com.example.Item", Some(object), &[("id", FieldType::INT)]);
    let holder = h.class("com.example.Registry", Some(object), &[]);
    h.static_field(holder, "items", FieldType::Object);
    let items: Vec<_> = (0..3 * n)
        .map(|i| Some(h.instance(item, &[("id", (i as i32).into())])))
        .collect();
    let array = h.object_array("java.lang.Object[]", &items);
    h.set_static(holder, "items", array);
    h.root(RootKind::StickyClass, holder);
    h.write()
}

/// An output path naming another user's file in a sticky directory (`/tmp`, a shared CI
/// workspace) passed the checks before any work, since the directory takes new files; then
/// the rename over that file failed with EPERM, which only the file's or the directory's owner
/// (or root: CAP_FOWNER) escapes. A user saw the whole run, then `cannot write the report to
/// ...: Operation not permitted` and exit 2, the report lost. Now: one line before any work.
/// Needs root to make another user's file; runs the binary as `nobody`.
#[test]
fn another_users_file_in_a_sticky_directory_is_refused_as_an_output_before_any_work() {
    if !is_root() {
        eprintln!("skipped: only root can make a file of another user to name as the output");
        return;
    }
    let shared = Shared::new("sticky");
    let dumps = shared.dumps();
    let sticky = shared.dir.join("shared");
    std::fs::create_dir(&sticky).unwrap();
    set_mode(&sticky, 0o1777);
    // Root's file, world-readable: nobody can read it, and create files beside it, not
    // replace it.
    let taken = sticky.join("report.txt");
    std::fs::write(&taken, "root's report\n").unwrap();
    set_mode(&taken, 0o644);
    for flag in ["--output", "--html"] {
        let mut args = vec![OsStr::new("diff")];
        args.extend(dumps.iter().map(|d| d.as_os_str()));
        args.extend([OsStr::new(flag), taken.as_os_str()]);
        let output = shared.heapgrowth(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(
            lines[0].starts_with(&format!("heapgrowth: {flag} {}", taken.display()))
                && lines[0].contains("another user's file (uid 0) in a sticky directory"),
            "{stderr}"
        );
        assert!(output.stdout.is_empty(), "no report: no work was done");
        assert_eq!(std::fs::read_to_string(&taken).unwrap(), "root's report\n");
    }
    // A new name in the same directory is written (the same run works as nobody).
    let fresh = sticky.join("fresh.txt");
    let mut args = vec![OsStr::new("diff")];
    args.extend(dumps.iter().map(|d| d.as_os_str()));
    args.extend([OsStr::new("--output"), fresh.as_os_str()]);
    let output = shared.heapgrowth(&args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = std::fs::read_to_string(&fresh).unwrap();
    assert!(
        report.contains("STATIC_FIELD Registry.items"),
        "the report names the growing list: {report}"
    );
}

/// The README's command-line quick start, then `diff` of the dumps it kept, as an ordinary
/// user: the leak and its line are found, the kept dumps are private, and every temporary
/// directory is gone afterwards (an unprivileged user cannot delete what root could). Runs the
/// binary as `nobody` when the tests run as root, else as the user they run as.
#[test]
fn the_quick_start_and_a_diff_of_its_kept_dumps_work_as_an_ordinary_user() {
    let shared = Shared::new("quick-start");
    let java = shared.dir.join("java");
    std::fs::create_dir(&java).unwrap();
    std::fs::write(
        java.join("Leak.java"),
        "package com.example;\n\
         public class Leak implements Runnable {\n    \
         static final java.util.List<byte[]> KEPT = new java.util.ArrayList<>();\n    \
         public void run() { KEPT.add(new byte[64]); }\n\
         }\n",
    )
    .unwrap();
    let javac = match std::env::var_os("JAVA_HOME") {
        Some(home) => Path::new(&home).join("bin/javac"),
        None => PathBuf::from("javac"),
    };
    let classes = shared.dir.join("classes");
    let compiled = Command::new(javac)
        .arg("-d")
        .arg(&classes)
        .arg(java.join("Leak.java"))
        .status()
        .expect("javac runs");
    assert!(compiled.success());
    // Kept dumps go into a directory the user owns.
    let kept = shared.dir.join("kept");
    std::fs::create_dir(&kept).unwrap();
    if is_root() {
        std::os::unix::fs::chown(&kept, Some(NOBODY), Some(NOBODY)).unwrap();
    }
    let output = shared.heapgrowth(&[
        OsStr::new("run"),
        OsStr::new("--classpath"),
        classes.as_os_str(),
        OsStr::new("--scenario"),
        OsStr::new("com.example.Leak"),
        OsStr::new("--keep-dumps"),
        OsStr::new("all"),
        OsStr::new("--keep-dumps-dir"),
        kept.as_os_str(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("STATIC_FIELD Leak.KEPT"), "{stdout}");
    assert!(
        stdout.contains("at com.example.Leak.run(Leak.java:4)   ← look here"),
        "{stdout}"
    );
    let tmp = shared.dir.join("tmp");
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "the run's temporary directories are deleted"
    );
    let scenario_dir = kept.join("com.example.Leak");
    let meta = std::fs::metadata(&scenario_dir).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o700);
    if is_root() {
        use std::os::unix::fs::MetadataExt;
        assert_eq!(meta.uid(), NOBODY, "the run was nobody's");
    }
    let mut dumps: Vec<PathBuf> = std::fs::read_dir(&scenario_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    // snapshot-1.hprof ... snapshot-N.hprof, oldest first.
    dumps.sort_by_key(|d| {
        let name = d.file_stem().unwrap().to_string_lossy().into_owned();
        name.trim_start_matches("snapshot-").parse::<u32>().unwrap()
    });
    assert!(dumps.len() >= 3, "{dumps:?}");
    let mut args = vec![OsStr::new("diff")];
    args.extend(dumps.iter().map(|d| d.as_os_str()));
    let output = shared.heapgrowth(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("STATIC_FIELD Leak.KEPT"), "{stdout}");
}

/// A directory the user cannot write to is refused as the output's before any work. The same
/// check in hostile.rs is skipped as root (root writes anywhere), so CI never ran it: here it
/// runs as `nobody` (a directory of root's) or as the user (a directory made read-only).
#[test]
fn an_output_in_a_directory_the_user_cannot_write_is_refused_before_any_work() {
    let shared = Shared::new("read-only");
    let dumps = shared.dumps();
    let closed = shared.dir.join("closed");
    std::fs::create_dir(&closed).unwrap();
    set_mode(&closed, if is_root() { 0o755 } else { 0o555 });
    let report = closed.join("report.txt");
    let mut args = vec![OsStr::new("diff")];
    args.extend(dumps.iter().map(|d| d.as_os_str()));
    args.extend([OsStr::new("--output"), report.as_os_str()]);
    let output = shared.heapgrowth(&args);
    set_mode(&closed, 0o755);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "heapgrowth: --output {}: cannot create a file in {}",
            report.display(),
            closed.display()
        )),
        "{stderr}"
    );
    assert!(!report.exists());
}

/// A service that leaks a map entry per request (five thousand a second), for `watch`.
const LEAKY_SERVICE: &str = "import java.util.*;
public class Leaky {
    static final Map<Integer, String> SESSIONS = new HashMap<>();
    public static void main(String[] args) throws Exception {
        System.out.println(\"ready\");
        System.out.flush();
        for (int n = 0; ; ) {
            for (int i = 0; i < 250; i++) { n++; SESSIONS.put(n, \"session-\" + n); }
            Thread.sleep(50);
        }
    }
}
";

/// `heapgrowth watch --pid` on the user's own JVM, both run as an ordinary user: the attach
/// (the JVM's `/proc` files, its perf data in `hsperfdata_<user>`, the trigger file and the
/// socket in `/tmp`), the dumps the JVM writes into heapgrowth's private directory, the agent
/// it loads, and the cleanup of that directory. The watch tests in watch.rs run both as root.
#[test]
fn watch_attaches_to_the_users_own_jvm_and_finds_the_leak_as_an_ordinary_user() {
    let shared = Shared::new("watch");
    let service_dir = shared.dir.join("service");
    std::fs::create_dir(&service_dir).unwrap();
    std::fs::write(service_dir.join("Leaky.java"), LEAKY_SERVICE).unwrap();
    set_mode(&service_dir.join("Leaky.java"), 0o644);
    set_mode(&service_dir, 0o755);
    let java = match std::env::var_os("JAVA_HOME") {
        Some(home) => Path::new(&home).join("bin/java"),
        None => PathBuf::from("java"),
    };
    let mut command = Command::new(java);
    command.arg("Leaky.java");
    if is_root() {
        command.uid(NOBODY).gid(NOBODY);
    }
    let service = super::support::ChildJvm::spawn(command, service_dir);
    let pid = service.pid().to_string();
    let output = shared.heapgrowth(&[
        "watch",
        "--pid",
        &pid,
        "--every",
        "300ms",
        "--for",
        "120s",
        "--sampling-interval",
        "2048",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.starts_with(&format!("heapgrowth: attached to pid {pid} (java)")));
    // With stderr: the watch's progress says when allocation sampling started and on what.
    assert!(
        stdout.contains("STATIC_FIELD Leaky.SESSIONS -> instance of java.util.HashMap"),
        "{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("at Leaky.main(Leaky.java:8)   ← look here"),
        "{stdout}\n{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(shared.dir.join("tmp")).unwrap().count(),
        0,
        "the watch's private directory is deleted"
    );
    drop(service);
}
