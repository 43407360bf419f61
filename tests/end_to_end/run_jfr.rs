//! `heapgrowth run --jfr` (issue 15): the scenario's loops with a JFR old-object recording in
//! its JVM instead of heap dumps, on a scenario whose heap is too big to dump often (128 MiB and
//! half a million objects) that keeps a session per loop, and on its clean twin; and what must
//! be one clear error. JFR's sampling is random: these passed 10 runs in a row here.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::support::{
    corpus_classes, entries, example_classes, first_stack, json, sampled_path_steps,
};

const LEAK: &str = "corpus.jfr.BigHeapSessions";
const CLEAN: &str = "corpus.jfr.BigHeapSessionsBounded";

/// `heapgrowth run --jfr` on `scenario` with `TMPDIR` the fresh directory `tmp`, started.
fn spawn_run_jfr(tmp: &Path, scenario: &str, extra: &[&str]) -> Child {
    let _ = std::fs::remove_dir_all(tmp);
    std::fs::create_dir_all(tmp).unwrap();
    Command::new(env!("CARGO_BIN_EXE_heapgrowth"))
        .args(["run", "--classpath"])
        .arg(corpus_classes())
        .args(["--scenario", scenario, "--jfr", "--jvm-arg=-Xmx1g"])
        .args(extra)
        .env("TMPDIR", tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("heapgrowth runs")
}

/// Checks that the run of process `pid` left nothing: `tmp` (its `TMPDIR`) is empty, and the
/// JVM's own default JFR repository, `/tmp/<date>_<pid>` (`java.io.tmpdir` is not `TMPDIR`),
/// was never made.
fn assert_nothing_left(name: &str, tmp: &Path, pid: u32) {
    assert_eq!(
        entries(tmp),
        Vec::<String>::new(),
        "{name}: left in $TMPDIR"
    );
    let suffix = format!("_{pid}");
    let repositories: Vec<String> = entries(Path::new("/tmp"))
        .into_iter()
        .filter(|entry| entry.ends_with(&suffix) && entry.starts_with("20"))
        .collect();
    assert_eq!(
        repositories,
        Vec::<String>::new(),
        "{name}: a JFR repository in /tmp"
    );
}

/// `heapgrowth run --jfr` on `scenario` with `TMPDIR` a fresh directory; nothing may be left.
fn run_jfr(name: &str, scenario: &str, extra: &[&str]) -> Output {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("run-jfr-{name}"));
    let child = spawn_run_jfr(&tmp, scenario, extra);
    let pid = child.id();
    let output = child.wait_with_output().expect("heapgrowth runs");
    assert_nothing_left(name, &tmp, pid);
    output
}

/// Every file under `dir`, at any depth.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn an_interrupted_run_jfr_leaves_no_recording_behind() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("run-jfr-interrupted");
    let child = spawn_run_jfr(&tmp, LEAK, &[]);
    let pid = child.id();
    // The recording's chunks are written into heapgrowth's private directory under TMPDIR:
    // wait for one, then interrupt the run.
    let deadline = Instant::now() + Duration::from_secs(120);
    let in_repository = |file: &PathBuf| {
        file.extension().is_some_and(|e| e == "jfr")
            && file.components().any(|part| part.as_os_str() == "jfr")
    };
    while !files_under(&tmp).iter().any(in_repository) {
        assert!(
            Instant::now() < deadline,
            "no recording chunk under {}: {:?}",
            tmp.display(),
            files_under(&tmp)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Safety: plain kill(2) on our own child's pid.
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert_nothing_left("interrupted", &tmp, pid);
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The 1-based line of `needle` in the corpus source `file`.
fn line_of(file: &str, needle: &str) -> usize {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests/corpus/src/corpus/jfr",
        file,
    ]
    .iter()
    .collect();
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .position(|line| line.contains(needle))
        .expect("the line is in the source")
        + 1
}

#[test]
fn run_jfr_finds_the_leaking_field_and_the_allocating_line_without_a_heap_dump() {
    let output = run_jfr("leak", LEAK, &["--format", "json"]);
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{log}");
    let report = json(&output);
    let scenario = &report["scenarios"][0];
    assert_eq!(
        scenario["growing"].as_array().unwrap().len(),
        0,
        "no heap path"
    );
    let samples = &scenario["old_objects"];
    let growing = samples["growing"].as_array().unwrap();
    let payloads = growing
        .iter()
        .find(|class| class["class"] == "byte[]")
        .unwrap_or_else(|| panic!("byte[] grows: {samples:#}"));
    let path = &payloads["paths"][0];
    let steps = sampled_path_steps(path);
    // JFR's chain from the scenario thread's class loader to the class, then the field.
    assert_eq!(
        steps[steps.len() - 3..],
        [
            "STATIC_FIELD BigHeapSessions.SESSIONS -> instance of java.util.ArrayList",
            "ARRAY_ENTRY ArrayList.[x] -> instance of corpus.jfr.BigHeapSessions$Session",
            "INSTANCE_FIELD BigHeapSessions$Session.payload -> instance of byte[]",
        ],
        "{steps:#?}"
    );
    let (frames, look) = first_stack(path);
    let source = "BigHeapSessions.java";
    assert_eq!(
        frames[look],
        format!(
            "corpus.jfr.BigHeapSessions$Session.<init>(line {})",
            line_of(source, "payload = new byte[4096];")
        )
    );
    assert_eq!(
        frames[look + 1],
        format!(
            "corpus.jfr.BigHeapSessions.run(line {})",
            line_of(source, "SESSIONS.add(new Session(++opened));")
        )
    );
    let counts = path["counts"].as_array().unwrap();
    assert!(
        counts.last().unwrap().as_u64() > counts[0].as_u64(),
        "{counts:?}"
    );
    assert!(
        scenario["loops"].as_u64().unwrap() > 3,
        "loops after warm-up"
    );
    assert!(!log.contains("heap dump"), "no heap dump in --jfr: {log}");
}

#[test]
fn run_jfr_on_the_clean_twin_reports_no_growing_class_and_states_the_sampling_limits() {
    let output = run_jfr("clean", CLEAN, &[]);
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{log}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.starts_with(&format!(
            "Scenario {CLEAN}: no growing class over 16 JFR dumps"
        )),
        "{text}"
    );
    assert!(text.contains("Sampling: JFR jdk.OldObjectSample"), "{text}");
    // All its dumps taken: nothing stopped it early, and it was judged.
    assert!(!text.contains("Stopped early"), "{text}");
    assert!(!text.contains("Not judged"), "{text}");
}

#[test]
fn run_jfr_cut_short_by_its_time_budget_says_it_ruled_nothing_out() {
    // The leak, with a budget that ends sampling before any trend can select a class: the
    // report used to read as clean, with nothing said of the budget.
    let output = run_jfr("budget", LEAK, &["--time-budget", "1", "--format", "json"]);
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "inconclusive: {log}");
    let report = json(&output);
    assert_eq!(report["scenarios"][0]["verdict"], "inconclusive");
    assert_eq!(
        report["scenarios"][0]["verdict_reason"],
        report["scenarios"][0]["old_objects"]["stopped_early"]
    );
    let samples = &report["scenarios"][0]["old_objects"];
    assert_eq!(
        samples["growing"].as_array().unwrap().len(),
        0,
        "{samples:#}"
    );
    let why = samples["stopped_early"]
        .as_str()
        .unwrap_or_else(|| panic!("{samples:#}\n{log}"));
    assert!(
        why.starts_with("the time budget (1 s) ran out after ")
            && why.contains("growth that needs more dumps to show is not ruled out"),
        "{why}"
    );
}

#[test]
fn run_jfr_in_a_jvm_without_its_flight_recorder_is_one_clear_error() {
    let output = run_jfr(
        "no-jfr",
        CLEAN,
        &["--jvm-arg=-XX:-FlightRecorder", "--warmup", "1"],
    );
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{log}");
    let ours: Vec<&str> = log
        .lines()
        .filter(|line| line.starts_with("heapgrowth:"))
        .collect();
    assert_eq!(ours.len(), 1, "{log}");
    assert!(
        ours[0].contains("has its Flight Recorder disabled") && ours[0].contains("leave out --jfr"),
        "{log}"
    );
}

#[test]
fn run_jfr_refuses_options_that_need_heap_dumps() {
    for (option, value) in [("--keep-dumps", "all"), ("--html", "report.html")] {
        let output = Command::new(env!("CARGO_BIN_EXE_heapgrowth"))
            .args(["run", "--classpath", "unused", "--scenario", CLEAN, "--jfr"])
            .args([option, value])
            .output()
            .unwrap();
        let log = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{option}: {log}");
        assert!(log.contains("cannot be used with"), "{option}: {log}");
    }
}

const EXAMPLE: &str = "com.example.cart.CartScenario";

/// `heapgrowth run --jfr` on the bundled example, with `extra`; the output and the wall time.
fn run_example_jfr(name: &str, extra: &[&str]) -> (Output, Duration) {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("run-jfr-{name}"));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_heapgrowth"))
        .args(["run", "--classpath"])
        .arg(example_classes())
        .args(["--scenario", EXAMPLE, "--jfr", "--format", "json"])
        .args(extra)
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("heapgrowth runs");
    let pid = child.id();
    let output = child.wait_with_output().expect("heapgrowth runs");
    let took = started.elapsed();
    assert_nothing_left(name, &tmp, pid);
    (output, took)
}

/// The steps of the example's samples that name the leaking field, in growing classes or in
/// survivors.
fn names_the_audit_trail(scenario: &serde_json::Value) -> bool {
    let samples = &scenario["old_objects"];
    let paths = samples["growing"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|class| class["paths"].as_array().unwrap().iter())
        .chain(samples["survivors"].as_array().unwrap().iter());
    paths.into_iter().any(|path| {
        sampled_path_steps(path)
            .iter()
            .any(|step| step.starts_with("STATIC_FIELD Cart.AUDIT_TRAIL -> "))
    })
}

// Issue 29: the bundled example was reported clean under --jfr; issue 34: it ran past its
// time budget (300 s and 2.8 GB, not ended) where loops piled up millions of objects between
// dumps.
#[test]
fn run_jfr_finds_the_bundled_examples_audit_trail_within_its_time_budget() {
    let (output, took) = run_example_jfr("example", &[]);
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{log}");
    let report = json(&output);
    let scenario = &report["scenarios"][0];
    assert_eq!(scenario["verdict"], "growing");
    assert!(names_the_audit_trail(scenario), "{scenario:#}");
    let samples = &scenario["old_objects"];
    assert!(
        samples["samples_judged"].as_u64().unwrap() > 0,
        "{samples:#}"
    );
    assert!(samples["collections"].as_u64().unwrap() > 0, "{samples:#}");
    // The default budget of 60 s, JVM start and the last dump beside.
    assert!(took < Duration::from_secs(90), "{took:?}");
}

#[test]
fn run_jfr_ends_within_a_small_time_budget_and_says_how_far_it_got() {
    // 5 s of budget: JVM start (not counted), the dump in progress at the end and its reading
    // (the `jfr` tool, a JVM of its own: 1 s here, 3 s beside two CPU-bound processes) come
    // beside it; 25 s holds on a loaded machine.
    let (output, took) = run_example_jfr("example-budget", &["--time-budget", "5"]);
    let log = stderr(&output);
    assert!(took < Duration::from_secs(25), "{took:?}: {log}");
    let report = json(&output);
    let scenario = &report["scenarios"][0];
    match output.status.code() {
        Some(1) => assert!(names_the_audit_trail(scenario), "{scenario:#}"),
        Some(3) => {
            let why = scenario["verdict_reason"].as_str().unwrap();
            assert!(
                why.starts_with("the time budget (5 s) ran out after "),
                "{why}"
            );
        }
        other => panic!("{other:?}: {log}"),
    }
    assert!(scenario["loops"].as_u64().unwrap() > 3, "{scenario:#}");
}
