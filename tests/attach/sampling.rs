//! Allocation sampling through heapgrowth's agent loaded into a running JVM (`heapgrowth
//! watch`): a child `java Sampled.java` keeps `Sampled$Item` objects from one line and lets
//! those of another line die; the stack with the most live objects must end at the first.
//!
//! The sampling is probabilistic (one sample in about `INTERVAL` bytes a thread allocates), so
//! the tests wait for enough samples, never for a time: they ask again after each few hundred
//! rounds of the child, up to a bound against hangs.

use std::fs;
use std::path::Path;

use heapgrowth::attach::{
    AgentLibrary, AttachError, AttachedJvm, AttachedSampling, SamplingReport, MAX_SAMPLED_CLASSES,
};
use heapgrowth::attribution::attached::{application_source, attribute, NO_FIELD_WATCHES};
use heapgrowth::attribution::Attribution;
use heapgrowth::growth::{
    ChildGrowth, Confirmation, GrowingNode, GrowthKind, PathStep, RetainedGrowth, StepKind,
};
use heapgrowth::tempdir::PrivateTempDir;

use super::{attach, default_java_home, ChildProcess, JDK25};

/// `Sampled`: each round (about a millisecond) keeps 20 `Item`s in a static list (`leak`) and
/// lets 1000 die (`churn`), and prints `round <n>` every 20 rounds. A file `pause` in its
/// directory stops the allocating (`paused`); a file `late` makes it keep `Late` objects too,
/// a class it loads only then (`late`).
const SAMPLED_JAVA: &str = r#"
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

public class Sampled {
    static class Item {
        final long id;
        Item(long id) { this.id = id; }
    }

    static class Late {
        final long id;
        Late(long id) { this.id = id; }
    }

    static final List<Object> KEPT = new ArrayList<>();
    static volatile Object sink;

    static void leak(long id) {
        KEPT.add(new Item(id)); // LEAK
    }

    static void churn(long id) {
        sink = new Item(id); // CHURN
    }

    static void leakLate(long id) {
        KEPT.add(new Late(id)); // LATE
    }

    public static void main(String[] args) throws Exception {
        System.out.println("ready");
        Path pause = Path.of("pause");
        Path late = Path.of("late");
        boolean paused = false;
        boolean lateToo = false;
        for (long round = 0; ; round++) {
            if (round % 20 == 0) {
                if (Files.exists(pause) != paused) {
                    paused = !paused;
                    System.out.println(paused ? "paused" : "resumed");
                }
                if (!lateToo && Files.exists(late)) {
                    lateToo = true;
                    System.out.println("late");
                }
                System.out.println("round " + round);
            }
            if (!paused) {
                for (int i = 0; i < 20; i++) leak(round * 20 + i);
                for (int i = 0; i < 1000; i++) churn(i);
                if (lateToo) {
                    for (int i = 0; i < 20; i++) leakLate(i);
                }
            }
            Thread.sleep(1);
        }
    }
}
"#;

/// Small enough that a few hundred rounds give a hundred samples of the kept objects.
const INTERVAL: u32 = 1024;

/// Rounds of the child between two reports while waiting for samples.
const ROUNDS_BETWEEN_REPORTS: u64 = 200;

/// Reports asked for before a test gives up waiting (a bound against hangs, far above need:
/// one report usually suffices).
const MAX_REPORTS: usize = 100;

/// The line of `SAMPLED_JAVA` marked `// <marker>`.
fn line_of(marker: &str) -> i32 {
    let tag = format!("// {marker}");
    let index = SAMPLED_JAVA
        .lines()
        .position(|l| l.contains(&tag))
        .unwrap_or_else(|| panic!("no line marked {tag}"));
    index as i32 + 1
}

fn sampled_child(java_home: &Path) -> ChildProcess {
    ChildProcess::java_program(
        java_home,
        ("Sampled.java", SAMPLED_JAVA),
        // Native memory tracking shows the JVMTI tags the agent sets and removes.
        &["-XX:NativeMemoryTracking=summary"],
        &[],
        None,
    )
}

/// Waits until the child has run `rounds` more rounds than the last one it printed.
fn wait_rounds(child: &ChildProcess, rounds: u64) {
    let round = |line: &str| {
        line.strip_prefix("round ")
            .and_then(|n| n.parse::<u64>().ok())
    };
    let now = child
        .stdout
        .lines
        .lock()
        .unwrap()
        .iter()
        .rev()
        .find_map(|l| round(l))
        .unwrap_or(0);
    let later = child.wait_for_line(|l| round(l).is_some_and(|r| r >= now + rounds));
    assert!(
        later.is_some(),
        "the child stopped running:\n{}",
        child.describe()
    );
}

/// Reports until `enough` holds for one, at most [`MAX_REPORTS`] times.
fn report_until(
    child: &ChildProcess,
    sampling: &AttachedSampling,
    enough: impl Fn(&SamplingReport) -> bool,
) -> SamplingReport {
    let mut last = None;
    for _ in 0..MAX_REPORTS {
        wait_rounds(child, ROUNDS_BETWEEN_REPORTS);
        let report = sampling.report(false).unwrap();
        if enough(&report) {
            return report;
        }
        last = Some(report);
    }
    let last = last.expect("a report");
    panic!(
        "not enough samples after {MAX_REPORTS} reports; the last: {} sampled allocations, {} \
         of the classes {:?}, {} skipped, {} dropped ({} for the tag budget), {} tagged, stacks \
         (innermost method, live, samples): {:?}",
        last.sampled_allocations,
        last.samples,
        last.classes,
        last.skipped,
        last.dropped(),
        last.dropped_tag_budget,
        last.tagged_objects,
        last.stacks
            .iter()
            .map(|s| (
                s.frames.first().map(|f| f.method.clone()),
                s.live_objects,
                s.samples
            ))
            .collect::<Vec<_>>()
    );
}

/// Live objects of the stacks whose innermost frame is in `method`.
fn live_in(report: &SamplingReport, method: &str) -> u64 {
    report
        .stacks
        .iter()
        .filter(|s| s.frames.first().is_some_and(|f| f.method == method))
        .map(|s| s.live_objects)
        .sum()
}

/// Allocations of JVMTI's native memory category (`Serviceability` in native memory
/// tracking): one per tagged object, about.
fn serviceability_allocations(jvm: &AttachedJvm) -> u64 {
    let text = jvm.jcmd("VM.native_memory summary").unwrap();
    let at = text
        .find("Serviceability (")
        .unwrap_or_else(|| panic!("no Serviceability category:\n{text}"));
    let rest = &text[at..];
    let count = &rest[rest.find('#').expect("an allocation count") + 1..];
    count
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap()
}

/// The JDK's feature version, from `JAVA_VERSION="17.0.15"` in its `release` file.
fn feature_version(java_home: &Path) -> u32 {
    let release = fs::read_to_string(java_home.join("release")).unwrap();
    let version = release
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION=\""))
        .expect("JAVA_VERSION in release");
    version
        .split(['.', '"'])
        .next()
        .and_then(|v| v.parse().ok())
        .expect("a feature version")
}

/// A growing node whose new children are `class` objects, as the growth search reports one.
fn node_growing(class: &str) -> GrowingNode {
    let step = |kind, target: &str| PathStep {
        kind,
        owner: "Sampled".into(),
        name: "KEPT".into(),
        target: target.into(),
        objects: 1,
        source: String::new(),
    };
    GrowingNode {
        path: vec![
            step(StepKind::GcRoot, ""),
            step(StepKind::StaticField, "java.util.ArrayList"),
        ],
        kinds: vec![GrowthKind::Objects],
        history: Vec::new(),
        confirmed: Confirmation {
            from_loop: 1,
            to_loop: 3,
            snapshots: 3,
            cut: None,
        },
        retained: RetainedGrowth::default(),
        children: vec![ChildGrowth {
            step: step(StepKind::ArrayEntry, class),
            objects: 100,
            new: 50,
            bytes: 1600,
            new_bytes: 800,
            below: 0,
            new_below: 0,
        }],
    }
}

fn items() -> Vec<String> {
    vec!["Sampled$Item".to_string()]
}

fn sampling_finds_the_leaking_line(java_home: &Path) {
    let child = sampled_child(java_home);
    let jvm = attach(&child);
    let agent = AgentLibrary::extract().unwrap();
    let leak = format!("Sampled.leak(Sampled.java:{})", line_of("LEAK"));
    let untagged = serviceability_allocations(&jvm);

    for cycle in 1..=2 {
        let sampling = AttachedSampling::start(&jvm, &agent, &items(), INTERVAL)
            .unwrap_or_else(|e| panic!("start (cycle {cycle}): {e}\n{}", child.describe()));
        assert_eq!(sampling.interval_bytes(), INTERVAL);
        report_until(&child, &sampling, |r| live_in(r, "leak") >= 200);
        // After a full collection only what is reachable counts: the kept objects.
        let report = sampling.report(true).unwrap();
        assert_eq!(report.interval_bytes, INTERVAL);
        assert_eq!(report.classes.len(), 1);
        assert_eq!(report.classes[0].loaded, 1, "{:?}", report.classes);
        let top = &report.stacks[0];
        assert_eq!(top.class, "Sampled$Item");
        assert_eq!(
            top.frames[0].to_string(),
            leak,
            "cycle {cycle}: {report:#?}"
        );
        assert_eq!(top.frames[1].method, "main");
        // The dying objects were sampled many times over (the report lists only stacks with
        // live objects), and but for the one in `sink` none of them is alive.
        assert!(report.samples > 2 * top.samples, "{report:#?}");
        assert!(live_in(&report, "churn") <= 1, "{report:#?}");
        assert!(report.tagged_objects >= top.live_objects);

        // The attribution of a node that grows by `Item`s: the leaking line, the user's.
        let source = application_source(&report);
        assert!(
            source
                .as_deref()
                .is_some_and(|s| s.starts_with("file:") && s.ends_with("/Sampled.java")),
            "{source:?}"
        );
        let Attribution::Attributed {
            stacks, caveats, ..
        } = attribute(&report, &node_growing("Sampled$Item"), source.as_deref())
        else {
            panic!("not attributed: {report:#?}");
        };
        let look = stacks[0]
            .place_to_look()
            .map(|i| stacks[0].frames[i].to_string());
        assert_eq!(look.as_deref(), Some(leak.as_str()));
        assert!(caveats.iter().any(|c| c == NO_FIELD_WATCHES), "{caveats:?}");

        // Each sampled object alive holds a JVMTI tag (an allocation of the JVM's
        // Serviceability memory); stop removes them all. What else a sampling allocates there
        // (per-thread JVMTI state) may stay.
        let tagged = serviceability_allocations(&jvm);
        assert!(
            tagged >= untagged + report.tagged_objects,
            "{untagged} allocations before, {tagged} with {} tagged objects",
            report.tagged_objects
        );
        sampling.stop().unwrap();
        let after = serviceability_allocations(&jvm);
        assert!(
            tagged - after >= report.tagged_objects * 3 / 4,
            "{tagged} allocations with {} tagged objects, {after} after stop",
            report.tagged_objects
        );
    }
    // The second cycle loaded the same library again: the JVM warns (JDK 21 and newer) once.
    drop(agent);
    let warnings = child
        .stderr
        .lines
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains("A JVM TI agent has been loaded dynamically"))
        .count();
    assert_eq!(
        warnings,
        usize::from(feature_version(java_home) >= 21),
        "{}",
        child.describe()
    );
}

#[test]
fn sampling_finds_the_leaking_line_and_stops_cleanly() {
    sampling_finds_the_leaking_line(&default_java_home());
}

#[test]
fn sampling_finds_the_leaking_line_on_jdk25() {
    if !Path::new(JDK25).join("bin/java").exists() {
        eprintln!("skipped: no JDK 25 at {JDK25}");
        return;
    }
    sampling_finds_the_leaking_line(Path::new(JDK25));
}

#[test]
fn classes_loaded_later_are_sampled_and_missing_ones_said() {
    let child = sampled_child(&default_java_home());
    let jvm = attach(&child);
    let agent = AgentLibrary::extract().unwrap();
    let classes = vec!["Sampled$Late".to_string(), "Sampled$Never".to_string()];
    let sampling = AttachedSampling::start(&jvm, &agent, &classes, INTERVAL).unwrap();
    wait_rounds(&child, ROUNDS_BETWEEN_REPORTS);
    let report = sampling.report(false).unwrap();
    assert_eq!(
        report
            .classes
            .iter()
            .map(|c| (c.name.as_str(), c.loaded))
            .collect::<Vec<_>>(),
        [("Sampled$Late", 0), ("Sampled$Never", 0)]
    );
    assert!(report.stacks.is_empty(), "{report:#?}");
    let Attribution::NotAttributed { reason } =
        attribute(&report, &node_growing("Sampled$Never"), None)
    else {
        panic!("attributed");
    };
    assert!(
        reason.contains("Sampled$Never is not loaded in the JVM"),
        "{reason}"
    );

    fs::write(child.dir().join("late"), b"").unwrap();
    assert!(child.wait_for_line(|l| l == "late").is_some());
    let report = report_until(&child, &sampling, |r| live_in(r, "leakLate") >= 10);
    assert_eq!(report.classes[0].loaded, 1);
    assert_eq!(report.classes[1].loaded, 0);
    assert_eq!(
        report.stacks[0].frames[0].to_string(),
        format!("Sampled.leakLate(Sampled.java:{})", line_of("LATE"))
    );
    assert!(report.stacks.iter().all(|s| s.class == "Sampled$Late"));
    sampling.stop().unwrap();
}

#[test]
fn a_jvm_that_exits_during_sampling_is_one_clear_error() {
    let child = sampled_child(&default_java_home());
    let jvm = attach(&child);
    let agent = AgentLibrary::extract().unwrap();
    let sampling = AttachedSampling::start(&jvm, &agent, &items(), INTERVAL).unwrap();
    child.kill_leaving_zombie();
    let err = sampling.report(true).unwrap_err();
    assert!(
        matches!(&err, AttachError::JvmEnded { during, .. } if during == "allocation sampling report"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "the JVM with pid {0} ended during allocation sampling report (its output or \
             hs_err_pid{0}.log may say why)",
            child.pid()
        )
    );
    // Dropping it tries to stop, and lets the error go.
    drop(sampling);
}

#[test]
fn sampling_refuses_what_it_cannot_do() {
    let child = sampled_child(&default_java_home());
    let jvm = attach(&child);
    let agent = AgentLibrary::extract().unwrap();
    for (classes, says) in [
        (vec![], "at least one class"),
        (vec!["int".to_string()], "is not a class name"),
        (vec!["a,b".to_string()], "is not a class name"),
        (
            (0..=MAX_SAMPLED_CLASSES).map(|i| format!("C{i}")).collect(),
            "at most 16",
        ),
    ] {
        let err = AttachedSampling::start(&jvm, &agent, &classes, INTERVAL).unwrap_err();
        assert!(
            matches!(&err, AttachError::InvalidArgument { .. }) && err.to_string().contains(says),
            "{classes:?}: {err}"
        );
    }
    let running = AttachedSampling::start(&jvm, &agent, &items(), INTERVAL).unwrap();
    // The agent runs one sampling at a time, and says so.
    let err = AttachedSampling::start(&jvm, &agent, &items(), INTERVAL).unwrap_err();
    assert!(
        matches!(&err, AttachError::SamplingFailed { command, .. } if command == "start"),
        "{err}"
    );
    assert!(
        err.to_string().contains("runs already: stop it first"),
        "{err}"
    );
    running.stop().unwrap();
    AttachedSampling::start(&jvm, &agent, &items(), INTERVAL)
        .unwrap()
        .stop()
        .unwrap();
}

#[test]
fn the_agent_stops_sampling_itself_once_heapgrowth_is_gone() {
    let child = sampled_child(&default_java_home());
    let jvm = attach(&child);
    let agent = AgentLibrary::extract().unwrap();
    // The agent's commands as AttachedSampling sends them, with a reply directory that goes
    // away as heapgrowth's private directories do when it is interrupted.
    let gone = PrivateTempDir::new("attach-test-replies").unwrap();
    let start = format!(
        "start,{}/start,{INTERVAL},LSampled$Item;",
        gone.path().display()
    );
    jvm.load_agent(agent.path(), &start).unwrap();
    assert_eq!(
        fs::read_to_string(gone.path().join("start")).unwrap(),
        "ok\n"
    );
    drop(gone);

    let replies = PrivateTempDir::new("attach-test-replies").unwrap();
    let mut stopped = None;
    for attempt in 0..MAX_REPORTS {
        let reply = replies.path().join(format!("report-{attempt}"));
        let report = format!("report,{},0", reply.display());
        match jvm.load_agent(agent.path(), &report) {
            Ok(()) => wait_rounds(&child, ROUNDS_BETWEEN_REPORTS),
            Err(AttachError::AgentFailed { code, .. }) => {
                assert_ne!(code, 0);
                stopped = Some(fs::read_to_string(&reply).unwrap());
                break;
            }
            Err(e) => panic!("{e}"),
        }
    }
    let stopped = stopped.expect("the watchdog stopped the sampling");
    assert!(
        stopped.starts_with(
            "error\tallocation sampling is not running: heapgrowth's directory is gone"
        ),
        "{stopped}"
    );
    // Everything was reset: a new sampling starts.
    AttachedSampling::start(&jvm, &agent, &items(), INTERVAL)
        .unwrap()
        .stop()
        .unwrap();
}

/// Sampled allocations over the next `rounds` rounds of the child.
fn sampled_over(child: &ChildProcess, sampling: &AttachedSampling, rounds: u64) -> u64 {
    let before = sampling.report(false).unwrap().sampled_allocations;
    wait_rounds(child, rounds);
    sampling.report(false).unwrap().sampled_allocations - before
}

#[test]
fn the_interval_of_a_running_sampling_changes_and_bad_input_is_refused() {
    let child = sampled_child(&default_java_home());
    let jvm = attach(&child);
    let agent = AgentLibrary::extract().unwrap();
    // The agent's command sent as it is: it runs inside the user's JVM, so every bad input
    // must get an answer, never a crash.
    let dir = PrivateTempDir::new("raw-interval").unwrap();
    let reply = dir.path().join("reply");
    let raw = |args: &str| -> String {
        let _ = jvm.load_agent(agent.path(), &format!("interval,{}{args}", reply.display()));
        let text = fs::read_to_string(&reply).unwrap_or_default();
        let _ = fs::remove_file(&reply);
        text
    };
    assert_eq!(
        raw(",4096"),
        "error\tallocation sampling is not running: it was never started\n"
    );

    let mut sampling = AttachedSampling::start(&jvm, &agent, &items(), 32 * 1024).unwrap();
    for missing in ["", ",", ",1,2"] {
        assert_eq!(
            raw(missing),
            "error\tinterval needs a number of bytes\n",
            "{missing:?}"
        );
    }
    for bad in [
        ",x",
        ",-1",
        ",4096x",
        ",2147483648",
        ",99999999999999999999999",
    ] {
        assert_eq!(
            raw(bad),
            "error\tthe interval is not a number of bytes\n",
            "{bad:?}"
        );
    }
    let err = sampling.set_interval(1 << 31).unwrap_err();
    assert!(
        matches!(&err, AttachError::InvalidArgument { .. }) && err.to_string().contains("JVMTI"),
        "{err}"
    );
    assert_eq!(sampling.interval_bytes(), 32 * 1024);

    let first = report_until(&child, &sampling, |r| r.sampled_allocations >= 20);
    assert_eq!(first.interval_bytes, 32 * 1024);
    let at_32k = sampled_over(&child, &sampling, 400);
    sampling.set_interval(4 * 1024).unwrap();
    assert_eq!(sampling.interval_bytes(), 4 * 1024);
    let report = sampling.report(false).unwrap();
    assert_eq!(report.interval_bytes, 4 * 1024);
    // What was sampled before stays.
    assert!(report.sampled_allocations >= first.sampled_allocations);
    // Each thread's next sample point was drawn at 32 KiB: let them pass it.
    wait_rounds(&child, 20);
    let at_4k = sampled_over(&child, &sampling, 400);
    eprintln!("interval: {at_32k} sampled at 32 KiB, {at_4k} at 4 KiB over 400 rounds");
    // Eight times the samples for the same rounds, about; three is far from chance.
    assert!(
        at_4k > 3 * at_32k,
        "{at_4k} sampled allocations at 4 KiB, {at_32k} at 32 KiB, over 400 rounds each"
    );
    sampling.stop().unwrap();
    assert_eq!(
        raw(",4096"),
        "error\tallocation sampling is not running: heapgrowth stopped it\n"
    );
}
