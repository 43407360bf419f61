//! `heapgrowth::attach` against real JVMs: child `java Leak.java` processes (the single-file
//! source launcher, no compile step) that hold, or keep adding, `Leak$Item` objects in a static
//! list, attached to as `heapgrowth watch --pid` will attach to them. Also the processes that
//! must be refused without a signal: a JVM with attach disabled, a program that is not a JVM, a
//! JVM of another user.
//!
//! Every child is killed when its guard drops, also when an assertion fails.

use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use heapgrowth::attach::{AttachError, AttachOptions, AttachedJvm, ClassHistogram, Target};
use heapgrowth::heap::ObjectKind;
use heapgrowth::tempdir::PrivateTempDir;

/// Allocation sampling through the live-loaded agent.
#[path = "attach/sampling.rs"]
mod sampling;

/// Temurin 25, where present: its histogram and dump are checked too.
const JDK25: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

/// The `nobody` user and group of Debian-like systems, for the other-user test.
const NOBODY: u32 = 65534;

/// Bound on waiting for a child's output, against hangs only: the source launcher compiles the
/// program first, which takes a few seconds on a loaded machine.
const CHILD_OUTPUT_LIMIT: Duration = Duration::from_secs(120);

/// `Leak <count> [grow]`: holds `count` `Leak$Item` objects in a static list and prints
/// `ready`; with `grow`, adds 100 more every 50 ms and prints `leaked <total>` after each step.
const LEAK_JAVA: &str = r#"
import java.util.ArrayList;
import java.util.List;

public class Leak {
    static class Item {
        final long id;
        Item(long id) { this.id = id; }
    }

    static final List<Item> ITEMS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        int count = Integer.parseInt(args[0]);
        synchronized (ITEMS) {
            for (int i = 0; i < count; i++) ITEMS.add(new Item(i));
        }
        System.out.println("ready");
        if (args.length > 1 && args[1].equals("grow")) {
            while (true) {
                Thread.sleep(50);
                int total;
                synchronized (ITEMS) {
                    for (int i = 0; i < 100; i++) ITEMS.add(new Item(i));
                    total = ITEMS.size();
                }
                System.out.println("leaked " + total);
            }
        }
        Thread.sleep(Long.MAX_VALUE);
    }
}
"#;

fn default_java_home() -> PathBuf {
    heapgrowth::jvm::find_jdk(None)
        .expect("a JDK (JAVA_HOME or java on PATH)")
        .home
}

/// Output lines of a child, and a condition variable that wakes waiters on each new line.
#[derive(Default)]
struct Lines {
    lines: Mutex<Vec<String>>,
    added: Condvar,
}

/// A child JVM (or other process), killed and reaped on drop.
struct ChildProcess {
    child: Child,
    stdout: Arc<Lines>,
    stderr: Arc<Lines>,
    uid: u32,
    dir: PrivateTempDir,
}

impl ChildProcess {
    /// Starts `java <jvm_args> Leak.java <args>` in a private directory of its own.
    fn java(java_home: &Path, jvm_args: &[&str], args: &[&str]) -> ChildProcess {
        Self::java_as(java_home, jvm_args, args, None)
    }

    /// Like [`ChildProcess::java`], as user and group `uid` if given (needs root): the
    /// directory with the program then belongs to that user.
    fn java_as(
        java_home: &Path,
        jvm_args: &[&str],
        args: &[&str],
        uid: Option<u32>,
    ) -> ChildProcess {
        Self::java_program(java_home, ("Leak.java", LEAK_JAVA), jvm_args, args, uid)
    }

    /// Starts `java <jvm_args> <file> <args>` for `program` (its file name and source) in a
    /// private directory of its own, as user and group `uid` if given, and waits until it
    /// prints `ready`.
    fn java_program(
        java_home: &Path,
        (file, source): (&str, &str),
        jvm_args: &[&str],
        args: &[&str],
        uid: Option<u32>,
    ) -> ChildProcess {
        let dir = PrivateTempDir::new("attach-test").unwrap();
        fs::write(dir.path().join(file), source).unwrap();
        let mut command = Command::new(java_home.join("bin/java"));
        command
            .args(jvm_args)
            .arg(file)
            .args(args)
            .current_dir(dir.path());
        if let Some(uid) = uid {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(uid)).unwrap();
            std::os::unix::fs::chown(dir.path().join(file), Some(uid), Some(uid)).unwrap();
            // std drops the supplementary groups too when root sets another uid.
            command.uid(uid).gid(uid);
        }
        let child = Self::spawn(command, dir);
        let ready = child.wait_for_line(|l| l == "ready");
        assert!(
            ready.is_some(),
            "the child JVM did not get ready:\n{}",
            child.describe()
        );
        child
    }

    fn spawn(mut command: Command, dir: PrivateTempDir) -> ChildProcess {
        // A suite started in the background of a shell script (`nohup ... &`) inherits SIGQUIT
        // ignored, and exec keeps it ignored: `sleep` would then survive the SIGQUIT the tests
        // send to show what a stray one does. The children get the default disposition.
        // Safety: signal is async-signal-safe, the only call between fork and exec.
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGQUIT, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the child");
        let stdout = Arc::new(Lines::default());
        let stderr = Arc::new(Lines::default());
        collect_lines(child.stdout.take().unwrap(), stdout.clone());
        collect_lines(child.stderr.take().unwrap(), stderr.clone());
        let uid = fs::metadata(format!("/proc/{}", child.id())).unwrap().uid();
        ChildProcess {
            child,
            stdout,
            stderr,
            uid,
            dir,
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The child's working directory, where its program is.
    fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Waits for a stdout line that `matches`, at most [`CHILD_OUTPUT_LIMIT`].
    fn wait_for_line(&self, matches: impl Fn(&str) -> bool) -> Option<String> {
        let deadline = Instant::now() + CHILD_OUTPUT_LIMIT;
        let mut lines = self.stdout.lines.lock().unwrap();
        let mut seen = 0;
        loop {
            if let Some(line) = lines[seen..].iter().find(|l| matches(l)) {
                return Some(line.clone());
            }
            seen = lines.len();
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            lines = self
                .stdout
                .added
                .wait_timeout(lines, deadline - now)
                .unwrap()
                .0;
        }
    }

    fn stdout_text(&self) -> String {
        self.stdout.lines.lock().unwrap().join("\n")
    }

    fn describe(&self) -> String {
        format!(
            "stdout:\n{}\nstderr:\n{}",
            self.stdout_text(),
            self.stderr.lines.lock().unwrap().join("\n")
        )
    }

    fn signal(&self, signal: i32) {
        // Safety: kill has no memory preconditions; the pid is our unreaped child's.
        assert_eq!(unsafe { libc::kill(self.pid() as i32, signal) }, 0);
    }

    /// SIGSTOP, and waits until every thread has stopped: `kill` returns before they do, and
    /// a thread still running for a millisecond can answer a request.
    fn stop(&self) {
        self.signal(libc::SIGSTOP);
        let deadline = Instant::now() + CHILD_OUTPUT_LIMIT;
        while self.thread_states().iter().any(|&s| s != 'T') {
            assert!(Instant::now() < deadline, "the child does not stop");
            thread::sleep(Duration::from_millis(1));
        }
    }

    /// SIGKILL without reaping: the child stays a zombie until dropped.
    fn kill_leaving_zombie(&self) {
        self.signal(libc::SIGKILL);
        // Wait until the kernel has ended it (state Z), without reaping it.
        while self.thread_states().first().is_some_and(|&s| s != 'Z') {
            thread::sleep(Duration::from_millis(1));
        }
    }

    /// The state letter (`/proc/<pid>/task/<tid>/stat` field 3) of each of the child's
    /// threads, the main thread first.
    fn thread_states(&self) -> Vec<char> {
        let pid = self.pid().to_string();
        let state = |tid: &str| {
            let stat = fs::read_to_string(format!("/proc/{pid}/task/{tid}/stat")).ok()?;
            stat[stat.rfind(')')? + 1..].trim_start().chars().next()
        };
        let mut states: Vec<char> = state(&pid).into_iter().collect();
        if let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) {
            for task in tasks.flatten() {
                let tid = task.file_name().to_string_lossy().into_owned();
                if tid != pid {
                    states.extend(state(&tid));
                }
            }
        }
        states
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // A killed JVM leaves its attach socket and perf data behind; they are ours (or the
        // test user's) and name a pid that is free now.
        let pid = self.pid();
        let mut leftovers = vec![PathBuf::from(format!("/tmp/.java_pid{pid}"))];
        if let Ok(dirs) = fs::read_dir("/tmp") {
            for dir in dirs.flatten() {
                if dir.file_name().to_string_lossy().starts_with("hsperfdata_") {
                    leftovers.push(dir.path().join(pid.to_string()));
                }
            }
        }
        for path in leftovers {
            if fs::symlink_metadata(&path).is_ok_and(|m| m.uid() == self.uid) {
                let _ = fs::remove_file(&path);
            }
        }
    }
}

fn collect_lines(stream: impl std::io::Read + Send + 'static, into: Arc<Lines>) {
    thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            into.lines.lock().unwrap().push(line);
            into.added.notify_all();
        }
    });
}

fn attach(child: &ChildProcess) -> AttachedJvm {
    let target =
        Target::check(child.pid()).unwrap_or_else(|e| panic!("check: {e}\n{}", child.describe()));
    target
        .attach()
        .unwrap_or_else(|e| panic!("attach: {e}\n{}", child.describe()))
}

/// The histogram's rows add up to its Total line: no row was lost or misread.
fn assert_consistent(histogram: &ClassHistogram) {
    let instances: u64 = histogram.classes.iter().map(|c| c.instances).sum();
    let bytes: u64 = histogram.classes.iter().map(|c| c.bytes).sum();
    assert_eq!(
        (instances, bytes),
        (histogram.total_instances, histogram.total_bytes)
    );
    assert!(
        histogram.classes.len() > 100,
        "a JVM has hundreds of classes"
    );
}

fn instances_in_dump(dump: &Path, class: &str) -> usize {
    let graph = heapgrowth::hprof::open(dump).expect("the dump parses");
    let class = graph
        .class_by_name(class)
        .expect("the class is in the dump");
    (0..graph.object_count() as u32)
        .filter(|&o| graph.kind(o) == ObjectKind::Instance && graph.class_of(o) == class)
        .count()
}

fn histogram_and_dump(java_home: &Path) {
    let child = ChildProcess::java(java_home, &[], &["1000"]);
    let jvm = attach(&child);

    let all = jvm.class_histogram(false).unwrap();
    assert_consistent(&all);
    assert_eq!(all.instances_of("Leak$Item"), 1000);
    let item = all.classes.iter().find(|c| c.name == "Leak$Item").unwrap();
    assert_eq!(item.module, None, "a class of the class path");
    let live = jvm.class_histogram(true).unwrap();
    assert_consistent(&live);
    assert_eq!(live.instances_of("Leak$Item"), 1000);
    assert!(live.instances_of("[B") > 0 && live.classes.iter().any(|c| c.java_name() == "byte[]"));
    assert!(live.classes.iter().any(|c| c.name == "java.lang.String"
        && c.module
            .as_deref()
            .is_some_and(|m| m.starts_with("java.base"))));

    let dumps = PrivateTempDir::new("attach-test-dumps").unwrap();
    let dump = dumps.path().join("leak.hprof");
    jvm.dump_heap(&dump, true).unwrap();
    let meta = fs::metadata(&dump).unwrap();
    assert_eq!(meta.mode() & 0o777, 0o600);
    assert_eq!(instances_in_dump(&dump, "Leak$Item"), 1000);

    // An -all dump holds them too; the same path again is refused before asking the JVM.
    let all_dump = dumps.path().join("all.hprof");
    jvm.dump_heap(&all_dump, false).unwrap();
    assert_eq!(instances_in_dump(&all_dump, "Leak$Item"), 1000);
    let again = jvm.dump_heap(&dump, true).unwrap_err();
    assert!(matches!(again, AttachError::DumpPath { .. }), "{again}");

    let version = jvm.jcmd("VM.version").unwrap();
    assert!(version.contains("JDK"), "{version}");
}

#[test]
fn histogram_and_dump_of_a_jvm() {
    histogram_and_dump(&default_java_home());
}

#[test]
fn histogram_and_dump_of_a_jdk25_jvm() {
    if !Path::new(JDK25).join("bin/java").exists() {
        eprintln!("skipped: no JDK 25 at {JDK25}");
        return;
    }
    histogram_and_dump(Path::new(JDK25));
}

#[test]
fn two_histograms_show_a_leak_growing() {
    let child = ChildProcess::java(&default_java_home(), &[], &["1000", "grow"]);
    let jvm = attach(&child);
    let first = jvm.class_histogram(true).unwrap().instances_of("Leak$Item");
    assert!(first >= 1000);
    // Wait until the child says it holds more than the first histogram counted (the lines
    // printed before it may be older than the histogram, so look for a larger total).
    let more = child
        .wait_for_line(|l| {
            l.strip_prefix("leaked ")
                .and_then(|n| n.parse::<u64>().ok())
                .is_some_and(|n| n > first)
        })
        .expect("the child keeps leaking");
    let held: u64 = more["leaked ".len()..].parse().unwrap();
    let second = jvm.class_histogram(true).unwrap().instances_of("Leak$Item");
    assert!(
        second >= held && second > first,
        "{first} then {second}, the child said {held}"
    );
}

#[test]
fn a_jvm_with_attach_disabled_is_refused_without_a_signal() {
    let child = ChildProcess::java(
        &default_java_home(),
        &["-XX:+DisableAttachMechanism"],
        &["1"],
    );
    let err = Target::check(child.pid()).unwrap_err();
    assert!(matches!(err, AttachError::AttachDisabled { .. }), "{err}");
    assert!(
        err.to_string().contains("-XX:+DisableAttachMechanism"),
        "{err}"
    );
    // A SIGQUIT would have made the JVM print a thread dump; give one sent by mistake time to
    // show (this can only miss a mistake, never fail a correct check).
    thread::sleep(Duration::from_millis(500));
    let output = child.stdout_text();
    assert!(!output.contains("Full thread dump"), "{output}");
    // The dump would have been seen: our own SIGQUIT makes one appear.
    child.signal(libc::SIGQUIT);
    assert!(child
        .wait_for_line(|l| l.starts_with("Full thread dump"))
        .is_some());
}

#[test]
fn a_process_that_is_not_a_jvm_is_refused_without_a_signal() {
    let dir = PrivateTempDir::new("attach-test").unwrap();
    let mut sleep = Command::new("sleep");
    sleep.arg("60");
    let mut child = ChildProcess::spawn(sleep, dir);
    let err = Target::check(child.pid()).unwrap_err();
    assert!(
        matches!(&err, AttachError::NotAJvm { command, .. } if command == "sleep"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "pid {} (sleep) is not a Java virtual machine: give the pid of a running java process",
            child.pid()
        )
    );
    // SIGQUIT kills `sleep` at once; give one sent by mistake time to take effect.
    thread::sleep(Duration::from_millis(300));
    assert!(
        child.child.try_wait().unwrap().is_none(),
        "sleep still runs"
    );
    // It would have died: our own SIGQUIT ends it.
    child.signal(libc::SIGQUIT);
    let status = child.child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGQUIT));
}

#[test]
fn a_pid_that_does_not_exist() {
    let pid_max: u32 = fs::read_to_string("/proc/sys/kernel/pid_max")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let err = Target::check(pid_max + 1).unwrap_err();
    assert!(matches!(err, AttachError::NoSuchProcess { .. }), "{err}");
    assert!(err
        .to_string()
        .starts_with(&format!("no process with pid {}", pid_max + 1)));
}

#[test]
fn a_jvm_of_another_user_is_refused_even_as_root() {
    // Safety: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: starting a JVM as another user needs root");
        return;
    }
    let child = ChildProcess::java_as(&default_java_home(), &[], &["1"], Some(NOBODY));
    let err = Target::check(child.pid()).unwrap_err();
    assert!(
        matches!(
            &err,
            AttachError::OtherUser {
                uid: NOBODY,
                own_uid: 0,
                ..
            }
        ),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.starts_with(&format!(
            "pid {} runs as user nobody (uid 65534)",
            child.pid()
        )),
        "{message}"
    );
    assert!(
        message.ends_with("run heapgrowth as user nobody"),
        "{message}"
    );
}

#[test]
fn a_jvm_that_ends_between_check_and_attach() {
    let child = ChildProcess::java(&default_java_home(), &[], &["1"]);
    let target = Target::check(child.pid()).unwrap();
    // Ended but not reaped: its /proc entry (a zombie) is still there.
    child.kill_leaving_zombie();
    let err = target.attach().unwrap_err();
    assert!(
        matches!(&err, AttachError::JvmEnded { during, .. } if during == "attach"),
        "{err}"
    );
}

#[test]
fn a_jvm_that_ends_while_we_wait_for_its_socket() {
    let child = ChildProcess::java(&default_java_home(), &[], &["1"]);
    let target = Target::check(child.pid()).unwrap();
    // Stopped, it cannot answer the handshake; then it is killed while we wait.
    child.stop();
    let waiting = thread::spawn(move || {
        target.attach_with(AttachOptions {
            attach_timeout: Duration::from_secs(600),
            ..AttachOptions::default()
        })
    });
    thread::sleep(Duration::from_millis(300));
    child.kill_leaving_zombie();
    let err = waiting.join().unwrap().unwrap_err();
    assert!(
        matches!(&err, AttachError::JvmEnded { during, .. } if during == "attach"),
        "{err}"
    );
}

#[test]
fn a_jvm_that_ends_mid_request() {
    let child = ChildProcess::java(&default_java_home(), &[], &["1"]);
    let jvm = attach(&child);
    // Stopped, the JVM takes the request but does not answer; then it is killed.
    child.stop();
    let asking = thread::spawn(move || jvm.jcmd("VM.version"));
    thread::sleep(Duration::from_millis(300));
    child.kill_leaving_zombie();
    let err = asking.join().unwrap().unwrap_err();
    assert!(
        matches!(&err, AttachError::JvmEnded { during, .. } if during == "jcmd VM.version"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "the JVM with pid {0} ended during jcmd VM.version (its output or hs_err_pid{0}.log may say why)",
            child.pid()
        )
    );
}

#[test]
fn a_jvm_that_ended_before_a_dump_is_ended_not_in_a_container() {
    let child = ChildProcess::java(&default_java_home(), &[], &["1"]);
    let jvm = attach(&child);
    let dir = PrivateTempDir::new("attach-test-ended").unwrap();
    // A zombie's /proc/<pid>/root is gone: the directory check must not read that as a
    // container that lacks our directory (seen in CI when a watched JVM exited mid-watch).
    child.kill_leaving_zombie();
    let err = jvm
        .dump_heap(&dir.path().join("x.hprof"), true)
        .unwrap_err();
    assert!(
        matches!(&err, AttachError::JvmEnded { during, .. } if during == "dumpheap"),
        "{err}"
    );
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_stopped_jvm_is_a_timeout_not_a_hang() {
    let child = ChildProcess::java(&default_java_home(), &[], &["1"]);
    let short = AttachOptions {
        attach_timeout: Duration::from_secs(1),
        reply_timeout: Duration::from_secs(1),
    };
    let target = Target::check(child.pid()).unwrap();
    child.stop();
    let err = target.attach_with(short).unwrap_err();
    assert!(
        matches!(
            &err,
            AttachError::AttachTimeout {
                unchecked: None,
                ..
            }
        ),
        "{err}"
    );
    // Running again, it attaches (the SIGQUIT it gets now, without a trigger file, makes it
    // print a thread dump: a JVM nobody attaches to does that on SIGQUIT).
    child.signal(libc::SIGCONT);
    let jvm = target.attach_with(short).unwrap();
    child.stop();
    let err = jvm.jcmd("VM.version").unwrap_err();
    assert!(matches!(&err, AttachError::NoReply { .. }), "{err}");
    child.signal(libc::SIGCONT);
    assert!(jvm.jcmd("VM.version").unwrap().contains("JDK"));
}

#[test]
fn a_jvm_without_perf_data_still_attaches() {
    let child = ChildProcess::java(&default_java_home(), &["-XX:-UsePerfData"], &["1000"]);
    let jvm = attach(&child);
    assert_eq!(
        jvm.class_histogram(false)
            .unwrap()
            .instances_of("Leak$Item"),
        1000
    );
}

#[test]
fn agents_that_cannot_load_or_start() {
    let java_home = default_java_home();
    let child = ChildProcess::java(&java_home, &[], &["1"]);
    let jvm = attach(&child);

    let missing = jvm
        .load_agent(Path::new("/nonexistent/libagent.so"), "")
        .unwrap_err();
    assert!(
        matches!(&missing, AttachError::AgentNotLoaded { .. }),
        "{missing}"
    );
    // The JDK's own Java-agent loader, given a jar that is not there: it loads, and its
    // Agent_OnAttach fails.
    let instrument = java_home.join("lib/libinstrument.so");
    let failed = jvm
        .load_agent(&instrument, "/nonexistent/agent.jar")
        .unwrap_err();
    assert!(
        matches!(&failed, AttachError::AgentFailed { code, .. } if *code != 0),
        "{failed}"
    );
    let relative = jvm.load_agent(Path::new("libagent.so"), "").unwrap_err();
    assert!(relative.to_string().contains("absolute"), "{relative}");
}

#[test]
fn dumps_go_only_into_private_directories() {
    let child = ChildProcess::java(&default_java_home(), &[], &["1"]);
    let jvm = attach(&child);
    let dir = PrivateTempDir::new("attach-test-dumps").unwrap();
    let open_dir = dir.path().join("open");
    fs::create_dir(&open_dir).unwrap();
    fs::set_permissions(&open_dir, fs::Permissions::from_mode(0o755)).unwrap();
    let err = jvm.dump_heap(&open_dir.join("x.hprof"), true).unwrap_err();
    assert!(err.to_string().contains("mode 755"), "{err}");
    assert!(!open_dir.join("x.hprof").exists());
    let err = jvm.dump_heap(Path::new("x.hprof"), true).unwrap_err();
    assert!(err.to_string().contains("not absolute"), "{err}");
    // A name the file system refuses (longer than 255 bytes): the JVM answers status 0 and
    // says why in text, which must still be a failure.
    let refused = dir.path().join("y".repeat(300));
    let err = jvm.dump_heap(&refused, true).unwrap_err();
    assert!(
        matches!(&err, AttachError::DumpFailed { message, .. } if message.starts_with("Unable to create")),
        "{err}"
    );
    let long = dir.path().join("x".repeat(2000));
    let err = jvm.dump_heap(&long, true).unwrap_err();
    assert!(matches!(&err, AttachError::InvalidArgument { .. }), "{err}");
}
