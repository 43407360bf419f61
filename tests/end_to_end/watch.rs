//! `heapgrowth watch --pid` (issue 14) on child JVMs the tests start: one that leaks through a
//! static field and its clean twin, at an interval and interactively; and the JVMs it must
//! refuse or survive (not a JVM, no such pid, another user's, attach disabled, one that exits
//! mid-watch). Each run ends with nothing left in $TMPDIR; the dumps were private (the attach
//! layer checks the directory and the file's mode) and are gone.

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::support::{entries, json, ChildJvm};

/// Puts 200 sessions in a map every 50 ms; `clean` keeps the map at 500. A list of buffers
/// churns (cleared at 1000) either way. `leak-when=PATH` leaks as if not `clean` once PATH
/// exists. `exit-soon` exits after 3 s. `steps` adds a second
/// churning list that gains 200 buffers every 250 ms and is cleared after 8 steps: watched
/// every 300 ms, it is 1.2 steps further along at each dump, a leak's look for six dumps in
/// a row.
const SERVICE_JAVA: &str = r#"
import java.util.*;
public class Service {
    static final List<byte[]> CHURN = new ArrayList<>();
    static final Map<Integer, String> SESSIONS = new HashMap<>();
    static final List<byte[]> STEPS = new ArrayList<>();
    public static void main(String[] args) throws Exception {
        List<String> flags = Arrays.asList(args);
        boolean clean = flags.contains("clean");
        boolean exitSoon = flags.contains("exit-soon");
        java.io.File leakWhen = flags.stream().filter(f -> f.startsWith("leak-when="))
            .map(f -> new java.io.File(f.substring("leak-when=".length()))).findFirst().orElse(null);
        if (flags.contains("steps")) {
            Thread stepper = new Thread(() -> {
                for (int step = 0; ; step++) {
                    if (step % 8 == 0) STEPS.clear();
                    for (int i = 0; i < 200; i++) STEPS.add(new byte[64]);
                    try { Thread.sleep(250); } catch (InterruptedException e) { return; }
                }
            });
            stepper.setDaemon(true);
            stepper.start();
        }
        System.out.println("ready");
        System.out.flush();
        long started = System.nanoTime();
        int n = 0;
        while (true) {
            if (clean && leakWhen != null && leakWhen.exists()) clean = false;
            for (int i = 0; i < 200; i++) {
                n++;
                SESSIONS.put(n, "session-" + n);
                if (clean) SESSIONS.remove(n - 500);
                CHURN.add(new byte[64]);
                if (CHURN.size() > 1000) CHURN.clear();
            }
            Thread.sleep(50);
            if (exitSoon && System.nanoTime() - started > 3_000_000_000L) System.exit(0);
        }
    }
}
"#;

/// A child JVM running `Service.java`.
type Service = ChildJvm;

impl ChildJvm {
    fn start(name: &str, jvm_args: &[&str], args: &[&str], uid: Option<u32>) -> Service {
        Service::start_on(&java(), name, jvm_args, args, uid)
    }

    fn start_on(
        java: &Path,
        name: &str,
        jvm_args: &[&str],
        args: &[&str],
        uid: Option<u32>,
    ) -> Service {
        let dir = ChildJvm::directory(
            &format!("watch-service-{name}"),
            "Service.java",
            SERVICE_JAVA,
        );
        let mut command = Command::new(java);
        command.args(jvm_args).arg("Service.java").args(args);
        if let Some(uid) = uid {
            std::os::unix::fs::chown(&dir, Some(uid), Some(uid)).unwrap();
            command.uid(uid).gid(uid);
        }
        ChildJvm::spawn(command, dir)
    }
}

fn java() -> PathBuf {
    match std::env::var_os("JAVA_HOME") {
        Some(home) => Path::new(&home).join("bin/java"),
        None => PathBuf::from("java"),
    }
}

fn fresh_tmp(name: &str) -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("watch-tmp-{name}"));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    tmp
}

fn watch_command(tmp: &Path, pid: u32, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_heapgrowth"));
    command
        .env("TMPDIR", tmp)
        .args(["watch", "--pid", &pid.to_string()])
        .args(extra);
    command
}

fn watch(name: &str, pid: u32, extra: &[&str]) -> Output {
    let tmp = fresh_tmp(name);
    let output = watch_command(&tmp, pid, extra)
        .stdin(Stdio::null())
        .output()
        .expect("heapgrowth runs");
    assert_eq!(
        entries(&tmp),
        Vec::<String>::new(),
        "{name}: left in $TMPDIR"
    );
    output
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The last steps of the growing nodes of a JSON report.
fn growing_targets(report: &serde_json::Value) -> Vec<String> {
    report["scenarios"][0]["growing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| {
            let path = node["path"].as_array().unwrap();
            path.last().unwrap()["text"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn periodic_watch_finds_the_field_that_leaks_and_shows_the_class_trend() {
    let mut service = Service::start("leak-periodic", &[], &[], None);
    // A smaller sampling interval than the default, for enough samples in a few seconds.
    let output = watch(
        "leak-periodic",
        service.pid(),
        &[
            "--every",
            "300ms",
            "--for",
            "120s",
            "--format",
            "json",
            "--sampling-interval",
            "2048",
        ],
    );
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{log}");
    let report = json(&output);
    assert_eq!(
        growing_targets(&report),
        ["STATIC_FIELD Service.SESSIONS -> instance of java.util.HashMap"],
        "{log}"
    );
    let scenario = &report["scenarios"][0];
    assert_eq!(scenario["subject"], "jvm");
    let trend_classes: Vec<&str> = scenario["class_trends"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["class"].as_str().unwrap())
        .collect();
    assert!(
        trend_classes.contains(&"java.util.HashMap$Node"),
        "{trend_classes:?}"
    );
    // The gate: histograms first, the first dump only once a class grew.
    let first_dump = log.find("heap dump read").expect("dumps were taken");
    let first_growing = log.find("growing: ").expect("a class grew");
    assert!(first_growing < first_dump, "{log}");
    assert!(log.contains("no class keeps growing yet"), "{log}");
    // The agent loaded into the JVM sampled the allocations: the line that puts the sessions.
    let put_line = SERVICE_JAVA
        .lines()
        .position(|line| line.contains("SESSIONS.put("))
        .unwrap()
        + 1;
    let attribution = &scenario["growing"][0]["attribution"];
    assert_eq!(attribution["status"], "attributed", "{attribution}");
    let stack = &attribution["stacks"][0];
    let look = stack["place_to_look"].as_u64().unwrap() as usize;
    assert_eq!(
        stack["frames"][look],
        format!("Service.main(Service.java:{put_line})"),
        "{attribution}"
    );
    assert!(service.alive(), "watching leaves the JVM running");
}

#[test]
fn periodic_watch_without_attribution_loads_no_agent() {
    let service = Service::start("leak-no-agent", &[], &[], None);
    let output = watch(
        "leak-no-agent",
        service.pid(),
        &["--every", "300ms", "--for", "120s", "--no-attribution"],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("Not attributed: attribution is switched off (--no-attribution)"),
        "{text}"
    );
    // No agent in the JVM: its loaded libraries don't include heapgrowth's.
    let maps = std::fs::read_to_string(format!("/proc/{}/maps", service.pid())).unwrap();
    assert!(!maps.contains("libheapgrowth_agent"), "an agent was loaded");
}

/// Where the brief's second JDK is installed.
const JDK_25: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

#[test]
fn periodic_watch_on_jdk_25_finds_the_leak_below_the_launchers_method_handle_frame() {
    let java = Path::new(JDK_25).join("bin/java");
    if !java.exists() {
        eprintln!("skipped: no JDK 25 at {JDK_25}");
        return;
    }
    // JDK 25's source launcher calls main through a method handle: the class is reached
    // through a `LambdaForm$MH.invoke` frame, which the JDK's ignore rules must not hide.
    let service = Service::start_on(&java, "leak-25", &[], &[], None);
    let output = watch(
        "leak-25",
        service.pid(),
        &["--every", "300ms", "--for", "120s", "--format", "json"],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        growing_targets(&json(&output)),
        ["STATIC_FIELD Service.SESSIONS -> instance of java.util.HashMap"]
    );
}

#[test]
fn periodic_watch_of_the_clean_twin_takes_no_dump_and_finds_nothing() {
    let mut service = Service::start("clean-periodic", &[], &["clean"], None);
    // A service in its steady state, as one is watched: in its first seconds the JVM's own
    // warm-up grew the live Integers by about 130 over 5 s now and then (2 of 9 runs here),
    // which the class trend rightly selects; the dump then finds nothing (exit 0), but this
    // test is about taking none.
    std::thread::sleep(Duration::from_secs(3));
    let output = watch(
        "clean-periodic",
        service.pid(),
        &["--every", "300ms", "--for", "6s"],
    );
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{log}");
    assert!(
        !log.contains("heap dump read"),
        "no class grew, no dump: {log}"
    );
    assert!(
        log.contains("watching stopped: the time given with --for ran out"),
        "{log}"
    );
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.starts_with("JVM pid "), "{text}");
    assert!(text.contains("no growing objects"), "{text}");
    assert!(service.alive());
}

/// A service that starts leaking 0.7 s before a periodic watch ends: the class trend sees its
/// classes rise at the last histogram or two, short of the streak that selects them (or selects
/// them, and the dump search has no time to judge). Either way it is not clean: the watch
/// stopped before it could judge. It read as clean before when the streak was not complete
/// (the leak started 0.4 s before the end: clean 3 of 3 runs; now inconclusive, naming
/// `java.lang.Integer`).
#[test]
fn a_leak_that_starts_as_the_watch_ends_is_not_clean() {
    let trigger = fresh_tmp("late-leak-trigger").join("leak-now");
    let flag = format!("leak-when={}", trigger.display());
    let mut service = Service::start("late-leak", &[], &["clean", &flag], None);
    std::thread::sleep(Duration::from_secs(3));
    let started = Instant::now();
    let output = std::thread::scope(|scope| {
        let watch = scope.spawn(|| {
            watch(
                "late-leak",
                service.pid(),
                &["--every", "300ms", "--for", "4s", "--format", "json"],
            )
        });
        std::thread::sleep(Duration::from_millis(3300));
        std::fs::write(&trigger, b"").unwrap();
        watch.join().unwrap()
    });
    let log = stderr(&output);
    let report = json(&output);
    let scenario = &report["scenarios"][0];
    assert_ne!(scenario["verdict"], "clean", "{log}");
    if scenario["verdict"] == "inconclusive" {
        assert_eq!(output.status.code(), Some(3), "{log}");
        let why = scenario["verdict_reason"].as_str().unwrap();
        assert!(
            why.starts_with("the class trend had not decided on ")
                || why.starts_with("watching ended "),
            "{why}"
        );
    } else {
        assert_eq!(output.status.code(), Some(1), "{log}");
    }
    assert!(started.elapsed() < Duration::from_secs(60));
    assert!(service.alive());
}

/// An interactive watch starts one search after another: the first (three Enters on the clean
/// service) finds nothing, then the service starts leaking, and the user quits after one more
/// dump. That search did not judge, and the first did not see the leak: not clean. It read as
/// clean before (the first search's "nothing" was taken to stand; found by an audit,
/// 2026-12-08, with `--dump-every-interval` too: a leak starting 6 s into a 9 s watch).
/// Interactive, so that where the watch ends in a search does not depend on timing.
#[test]
fn a_leak_that_starts_after_a_search_found_nothing_is_not_clean() {
    let trigger = fresh_tmp("late-leak-enter-trigger").join("leak-now");
    let flag = format!("leak-when={}", trigger.display());
    let service = Service::start("late-leak-enter", &[], &["clean", &flag], None);
    std::thread::sleep(Duration::from_secs(3));
    let tmp = fresh_tmp("late-leak-enter");
    let mut child = watch_command(
        &tmp,
        service.pid(),
        &["--no-attribution", "--format", "json"],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut enter = || {
        stdin.write_all(b"\n").unwrap();
        std::thread::sleep(Duration::from_millis(700));
    };
    for _ in 0..3 {
        enter();
    }
    std::fs::write(&trigger, b"").unwrap();
    std::thread::sleep(Duration::from_secs(1));
    enter();
    stdin.write_all(b"q\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let log = stderr(&output);
    let report = json(&output);
    let scenario = &report["scenarios"][0];
    assert_eq!(log.matches("heap dump read").count(), 4, "{log}");
    assert_ne!(scenario["verdict"], "clean", "{log}");
    if scenario["verdict"] == "inconclusive" {
        assert_eq!(output.status.code(), Some(3), "{log}");
        let why = scenario["verdict_reason"].as_str().unwrap();
        assert!(why.starts_with("watching ended "), "{why}");
    } else {
        assert_eq!(output.status.code(), Some(1), "{log}");
    }
    assert_eq!(entries(&tmp), Vec::<String>::new());
    drop(service);
}

#[test]
fn every_interval_dumps_when_asked_and_the_clean_twin_stays_clean() {
    let service = Service::start("clean-every", &[], &["clean"], None);
    let output = watch(
        "clean-every",
        service.pid(),
        &[
            "--every",
            "300ms",
            "--for",
            "5s",
            "--dump-every-interval",
            "--format",
            "json",
        ],
    );
    let log = stderr(&output);
    // Clean, or inconclusive where --for ended a search (the JVM's own warm-up can make a
    // candidate of its own): never growing.
    assert_verdict_matches_status(&output);
    assert_eq!(growing_targets(&json(&output)), Vec::<String>::new());
    assert!(log.contains("heap dump read"), "{log}");
}

#[test]
fn a_list_that_churns_almost_in_step_with_the_interval_is_not_a_leak() {
    // Dumps at consecutive intervals see it grow for six in a row (detection and two
    // confirmations' worth); the confirmation dumps at twice and four times the candidate's
    // interval see it cleared.
    let service = Service::start("steps", &[], &["clean", "steps"], None);
    let output = watch(
        "steps",
        service.pid(),
        &[
            "--every",
            "300ms",
            "--for",
            "15s",
            "--dump-every-interval",
            "--format",
            "json",
        ],
    );
    let log = stderr(&output);
    let report = json(&output);
    assert_eq!(growing_targets(&report), Vec::<String>::new(), "{log}");
    assert_eq!(report["scenarios"][0]["loop_unit"], "intervals");
    // Clean, or inconclusive where --for ended a search of the same watch that made the churn
    // a candidate again before its confirmation dumps (which one depends on where --for falls:
    // this test asked for clean alone, and got inconclusive 1 time in 6 on an idle machine,
    // 2026-12-06). Then an earlier candidate must have been refuted: the dumps due to confirm
    // it saw the list cleared, and the watch went on past them without growth.
    assert_verdict_matches_status(&output);
    if output.status.code() == Some(3) {
        const CANDIDATE: &str = "STATIC_FIELD Service.STEPS -> instance of java.util.ArrayList \
                                 (confirmation dumps due at intervals ";
        let (_, due) = log.split_once(CANDIDATE).unwrap_or_else(|| panic!("{log}"));
        let last_due: u32 = due
            .split(')')
            .next()
            .and_then(|due| due.rsplit(' ').next())
            .and_then(|last| last.parse().ok())
            .unwrap_or_else(|| panic!("{log}"));
        assert!(
            log.contains(&format!("interval {}: ", last_due + 1)),
            "{log}"
        );
    }
}

#[test]
fn interactive_watch_dumps_at_each_enter_and_finds_the_leak() {
    let service = Service::start("leak-interactive", &[], &[], None);
    let tmp = fresh_tmp("leak-interactive");
    let mut child = watch_command(&tmp, service.pid(), &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    // One Enter a second, as a user repeating the scenario would; the watch ends by itself
    // once growth is confirmed.
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        if stdin.write_all(b"\n").and_then(|()| stdin.flush()).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{log}");
    assert!(log.contains("press Enter"), "{log}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("╰→STATIC_FIELD Service.SESSIONS -> instance of java.util.HashMap"),
        "{text}"
    );
    assert!(text.contains("Class trend"), "{text}");
    assert_eq!(entries(&tmp), Vec::<String>::new());
}

#[test]
fn interactive_watch_ends_at_q_with_a_report() {
    let service = Service::start("clean-interactive", &[], &["clean"], None);
    let tmp = fresh_tmp("clean-interactive");
    let mut child = watch_command(&tmp, service.pid(), &["--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for _ in 0..3 {
        stdin.write_all(b"\n").unwrap();
        std::thread::sleep(Duration::from_millis(700));
    }
    stdin.write_all(b"q\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let log = stderr(&output);
    assert_verdict_matches_status(&output);
    assert!(log.contains("watching stopped: input ended"), "{log}");
    assert_eq!(log.matches("heap dump read").count(), 3, "{log}");
    assert_eq!(growing_targets(&json(&output)), Vec::<String>::new());
    assert_eq!(entries(&tmp), Vec::<String>::new());
}

/// A watch of the clean twin that the user ends: clean (0) when its search was done, else
/// inconclusive (3) because the watch ended mid-search, never growing; the JSON says which.
fn assert_verdict_matches_status(output: &Output) {
    let log = stderr(output);
    let report = json(output);
    let scenario = &report["scenarios"][0];
    match output.status.code() {
        Some(0) => assert_eq!(scenario["verdict"], "clean", "{log}"),
        Some(3) => {
            assert_eq!(scenario["verdict"], "inconclusive", "{log}");
            let why = scenario["verdict_reason"].as_str().unwrap();
            assert!(why.starts_with("watching ended "), "{why}");
        }
        other => panic!("{other:?}: {log}"),
    }
}

/// Exit status 2 and one `heapgrowth:` line holding every part.
fn assert_one_error(output: &Output, parts: &[&str]) {
    let log = stderr(output);
    assert_eq!(output.status.code(), Some(2), "{log}");
    let ours: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("heapgrowth:"))
        .collect();
    let errors: Vec<&&str> = ours
        .iter()
        .filter(|l| !l.starts_with("heapgrowth: attached") && !l.contains(": interval "))
        .collect();
    assert_eq!(errors.len(), 1, "{log}");
    for part in parts {
        assert!(errors[0].contains(part), "{part:?} in {}", errors[0]);
    }
    assert!(!log.contains("panicked"), "{log}");
}

#[test]
fn a_process_that_is_not_a_jvm_is_refused_and_left_alone() {
    let mut sleep = Command::new("sleep").arg("60").spawn().unwrap();
    let output = watch("not-a-jvm", sleep.id(), &["--every", "1s"]);
    assert_one_error(&output, &["is not a Java virtual machine"]);
    assert!(sleep.try_wait().unwrap().is_none(), "no signal reached it");
    let _ = sleep.kill();
    let _ = sleep.wait();
}

#[test]
fn a_pid_nobody_has_is_refused() {
    let pid_max: u32 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let output = watch("no-pid", pid_max + 1, &[]);
    assert_one_error(&output, &["no process with pid"]);
}

#[test]
fn a_jvm_with_attach_disabled_is_refused() {
    let mut service = Service::start("no-attach", &["-XX:+DisableAttachMechanism"], &[], None);
    let output = watch("no-attach", service.pid(), &["--every", "1s"]);
    assert_one_error(&output, &["-XX:+DisableAttachMechanism"]);
    assert!(service.alive());
}

#[test]
fn a_jvm_of_another_user_is_refused() {
    // Safety: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        // Only root can start a JVM as another user here; as anyone else, the test's own JVM
        // would be ours.
        eprintln!("skipped: needs root to start a JVM as nobody");
        return;
    }
    const NOBODY: u32 = 65534;
    let service = Service::start("other-user", &[], &[], Some(NOBODY));
    assert_eq!(
        std::fs::metadata(format!("/proc/{}", service.pid()))
            .unwrap()
            .uid(),
        NOBODY
    );
    let output = watch("other-user", service.pid(), &["--every", "1s"]);
    assert_one_error(
        &output,
        &["runs as user nobody", "run heapgrowth as user nobody"],
    );
}

// Issue 29: the report of a JVM that ended mid-watch was one error line; the class trend and
// the candidates so far were lost, though the README promised the report so far.
#[test]
fn a_jvm_that_exits_mid_watch_keeps_the_report_so_far_and_is_inconclusive() {
    // Clean, so that no confirmed growth ends the watch before the JVM does.
    let service = Service::start("exits", &[], &["clean", "exit-soon"], None);
    let output = watch(
        "exits",
        service.pid(),
        &["--every", "300ms", "--for", "60s", "--dump-every-interval"],
    );
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{log}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.starts_with("JVM pid "), "{text}");
    assert!(text.contains(": inconclusive"), "{text}");
    assert!(
        text.contains("Not judged: the JVM ended during the watch, after interval "),
        "{text}"
    );
    drop(service);
}

// The JVM can also end while it writes a dump (CI run of 2026-12-05: "ended during dumpheap",
// exit 2 and no report). Killed as soon as a dump file appears, it must leave the same report.
#[test]
fn a_jvm_killed_while_it_writes_a_dump_keeps_the_report_so_far() {
    let mut service = Service::start("killed-in-dump", &[], &["clean"], None);
    let tmp = fresh_tmp("killed-in-dump");
    let child = watch_command(
        &tmp,
        service.pid(),
        &["--every", "300ms", "--for", "60s", "--dump-every-interval"],
    )
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("heapgrowth runs");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(Instant::now() < deadline, "no dump written within 30 s");
        if files_under(&tmp)
            .iter()
            .any(|f| f.extension().is_some_and(|e| e == "hprof"))
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    // Safety: kill has no memory preconditions; the pid is our own child's.
    unsafe { libc::kill(service.pid() as i32, libc::SIGKILL) };
    let output = child.wait_with_output().unwrap();
    // A busy run of the suite (2026-12-06) found the killed JVM not yet ended when heapgrowth,
    // which had seen it end, had already exited.
    assert!(
        service.ends_within(Duration::from_secs(30)),
        "the killed JVM ends"
    );
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{log}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains(": inconclusive"), "{text}");
    assert!(
        text.contains("Not judged: the JVM ended during the watch, after interval "),
        "{text}"
    );
    assert_eq!(entries(&tmp), Vec::<String>::new(), "left in $TMPDIR");
}

/// Every file below `dir`, at any depth (directories that vanish meanwhile are skipped).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => pending.push(path),
                Ok(_) => found.push(path),
                Err(_) => {}
            }
        }
    }
    found
}

// Issue 29: with --for shorter than confirmation, a leak read "no growing objects", exit 0.
#[test]
fn a_watch_shorter_than_confirmation_is_inconclusive_and_names_its_candidate() {
    let service = Service::start("short", &[], &[], None);
    // A candidate at the fourth dump is confirmed at the 8th and 16th intervals; the watch
    // ends before the 13th (12 s of 1 s intervals), so never at the 16th, and even at 3 s an
    // interval (a dump and its reading on a loaded machine: 2 s each was seen beside two
    // busy processes, where 6 s gave only 3 intervals and no candidate) it sees the fourth.
    let output = watch(
        "short",
        service.pid(),
        &[
            "--every",
            "1s",
            "--for",
            "12s",
            "--dump-every-interval",
            "--no-attribution",
            "--format",
            "json",
        ],
    );
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{log}");
    assert!(
        log.contains("STATIC_FIELD Service.SESSIONS -> instance of java.util.HashMap (confirmation dumps due at intervals "),
        "{log}"
    );
    let report = json(&output);
    let scenario = &report["scenarios"][0];
    assert_eq!(scenario["verdict"], "inconclusive");
    let why = scenario["verdict_reason"].as_str().unwrap();
    assert!(
        why.contains("before the candidate STATIC_FIELD Service.SESSIONS -> instance of java.util.HashMap was confirmed")
            && why.contains("its confirmation snapshots were due at interval "),
        "{why}"
    );
    assert_eq!(growing_targets(&report), Vec::<String>::new());
}

#[test]
fn ctrl_c_ends_a_periodic_watch_with_its_report() {
    let service = Service::start("ctrl-c", &[], &["clean"], None);
    let tmp = fresh_tmp("ctrl-c");
    let child = watch_command(
        &tmp,
        service.pid(),
        &["--every", "200ms", "--format", "json"],
    )
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // Interrupt once it has looked a few times, as a user pressing Ctrl-C would.
    std::thread::sleep(Duration::from_secs(2));
    // Safety: kill has no memory preconditions; the pid is our unreaped child's.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let output = child.wait_with_output().unwrap();
    let log = stderr(&output);
    assert_verdict_matches_status(&output);
    assert!(log.contains("watching stopped: interrupted"), "{log}");
    assert!(log.contains("press Ctrl-C again to quit"), "{log}");
    assert_eq!(growing_targets(&json(&output)), Vec::<String>::new());
    assert_eq!(entries(&tmp), Vec::<String>::new(), "left in $TMPDIR");
}

/// Keeps one small `Ticket` (16 bytes) every 50 ms among 200 short-lived 2 KiB arrays: about
/// 320 bytes a second of survivors among 8 MB of churn, which a 32 KiB sampling interval
/// samples about once in 100 s. `clean` keeps the last 20 tickets only.
const SURVIVORS_JAVA: &str = r#"
import java.util.*;
public class Survivors {
    static final class Ticket {
        final int id;
        Ticket(int id) { this.id = id; }
    }
    static final List<Ticket> KEPT = new ArrayList<>();
    static volatile byte[] sink;
    public static void main(String[] args) throws Exception {
        boolean clean = Arrays.asList(args).contains("clean");
        System.out.println("ready");
        System.out.flush();
        int n = 0;
        while (true) {
            for (int i = 0; i < 200; i++) sink = new byte[2048];
            KEPT.add(new Ticket(n++)); // KEEP
            if (clean && KEPT.size() > 20) KEPT.remove(0);
            Thread.sleep(50);
        }
    }
}
"#;

fn survivors(name: &str, args: &[&str]) -> ChildJvm {
    let dir = ChildJvm::directory(
        &format!("watch-survivors-{name}"),
        "Survivors.java",
        SURVIVORS_JAVA,
    );
    let mut command = Command::new(java());
    command.arg("Survivors.java").args(args);
    ChildJvm::spawn(command, dir)
}

#[test]
fn small_survivors_among_churn_lower_the_sampling_interval_and_the_report_says_so() {
    let mut service = survivors("leak", &[]);
    // The default interval, 32 KiB: the one that misses the tickets.
    let output = watch(
        "survivors-leak",
        service.pid(),
        &["--every", "300ms", "--for", "120s", "--format", "json"],
    );
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{log}");
    let report = json(&output);
    assert_eq!(
        growing_targets(&report),
        ["STATIC_FIELD Survivors.KEPT -> instance of java.util.ArrayList"],
        "{log}"
    );
    let attribution = &report["scenarios"][0]["growing"][0]["attribution"];
    let lowered = "the sampling interval was lowered from 32 KiB to 8 KiB at interval ";
    let why = "because allocation sampling had seen ";
    let keep_line = SURVIVORS_JAVA
        .lines()
        .position(|line| line.contains("// KEEP"))
        .unwrap()
        + 1;
    match attribution["status"].as_str() {
        // Sampled, after the lowering (or, about once in 50 runs, at 32 KiB before any
        // candidate dump found none alive, with nothing lowered): the line that keeps them.
        Some("attributed") => {
            let stack = &attribution["stacks"][0];
            let look = stack["place_to_look"].as_u64().unwrap() as usize;
            assert_eq!(
                stack["frames"][look],
                format!("Survivors.main(Survivors.java:{keep_line})"),
                "{attribution}"
            );
            let caveats = attribution["caveats"].to_string();
            assert_eq!(
                caveats.contains(lowered),
                caveats.contains(why),
                "a lowering says why: {attribution}"
            );
        }
        // About 320 bytes a second are sampled once in 13 s at 4 KiB: the watch can end
        // first, after waiting ten more intervals for a first sample, and says why, the
        // lowering included.
        _ => {
            let reason = attribution["reason"].as_str().unwrap_or_default();
            assert!(
                reason.contains("found no object of Survivors$Ticket allocated since it started")
                    && reason.contains(lowered)
                    && reason.contains(why)
                    && reason.contains("heapgrowth waited 10 more intervals for its first samples"),
                "{attribution}"
            );
            assert!(
                log.contains("waiting up to 10 more intervals for its first samples"),
                "{log}"
            );
        }
    }
    assert!(service.alive());
}

#[test]
fn survivors_kept_bounded_among_churn_are_clean_and_lower_nothing() {
    let mut service = survivors("clean", &["clean"]);
    // Past the first second, in which the 20 tickets fill up.
    std::thread::sleep(Duration::from_secs(2));
    let output = watch(
        "survivors-clean",
        service.pid(),
        &["--every", "300ms", "--for", "6s", "--format", "json"],
    );
    let log = stderr(&output);
    // Clean, or inconclusive where --for ended a search of the JVM's own warm-up: never
    // growing, and never a lowered interval (that needs a candidate of the tickets).
    assert_verdict_matches_status(&output);
    assert_eq!(
        growing_targets(&json(&output)),
        Vec::<String>::new(),
        "{log}"
    );
    assert!(
        !String::from_utf8_lossy(&output.stdout).contains("lowered"),
        "{log}"
    );
    assert!(service.alive());
}
