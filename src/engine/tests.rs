use std::collections::VecDeque;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::AtomicUsize;

use super::dumps::{done_with, keep_dumps, unused_dir_name, KEPT_DUMPS};
use super::source::{follower_for, ObjectCountHint};
use super::*;
use crate::growth::ConfirmationCut;
use crate::heap::FieldType;
use crate::hprof::builder::{HeapBuilder, Value};
use crate::report::{LoopUnit, ScenarioReport, Subject};
use crate::tempdir::PrivateTempDir;

/// A scenario without a JVM: its heap is a static `Queue.pending` array of `items(loops,
/// loops at the dump before)` items, written as a heap dump; its first settle is cut short.
struct SyntheticQueue<F: Fn(u32, u32) -> u32> {
    items: F,
    loops: u32,
    loops_at_last_dump: u32,
    settles: u32,
}

impl<F: Fn(u32, u32) -> u32> Driver for SyntheticQueue<F> {
    fn run_loops(&mut self, count: u32) -> Result<(), JvmError> {
        self.loops += count;
        Ok(())
    }
    fn loops_run(&self) -> u32 {
        self.loops
    }
    fn settle(&mut self) -> Result<bool, JvmError> {
        self.settles += 1;
        Ok(self.settles > 1)
    }
    fn collect_garbage(&mut self) -> Result<(), JvmError> {
        Ok(())
    }
    fn dump_heap(&mut self, path: &Path) -> Result<(), JvmError> {
        let items = (self.items)(self.loops, self.loops_at_last_dump);
        self.loops_at_last_dump = self.loops;
        let mut h = HeapBuilder::new();
        let object = h.class_named("java.lang.Object");
        let item = h.class("com.example.Item", Some(object), &[]);
        let elements: Vec<_> = (0..items).map(|_| Some(h.instance(item, &[]))).collect();
        let array = h.object_array("java.lang.Object[]", &elements);
        let queue = h.class("com.example.Queue", Some(object), &[]);
        h.static_field(queue, "pending", FieldType::Object);
        h.set_static(queue, "pending", Value::Ref(array));
        std::fs::write(path, h.write()).map_err(|e| JvmError::Jni(e.to_string()))
    }
}

/// The report of `search` over a [`SyntheticQueue`] of `items`, every dump kept.
fn search_queue(items: impl Fn(u32, u32) -> u32) -> ScenarioReport {
    let dumps = PrivateTempDir::new("test").unwrap();
    let mut queue = SyntheticQueue {
        items,
        loops: 0,
        loops_at_last_dump: 0,
        settles: 0,
    };
    let settings = SearchSettings {
        keep_dumps: DumpPolicy::All,
        ..SearchSettings::default()
    };
    // The kept dumps go with the private directory.
    search(
        &mut queue,
        "com.example.Queue",
        &settings,
        dumps.path(),
        &Progress::new(false),
    )
}

#[test]
fn a_queue_drained_on_a_tick_the_settles_missed_is_gone_when_retaken_and_clean() {
    // Each dump holds the loops since the dump before, as a timer's queue caught before its
    // tick at every snapshot does; the retake (no loops since) finds it empty.
    let report = search_queue(|loops, before| loops - before);
    let outcome = report.result.as_ref().unwrap();
    assert!(outcome.growing.is_empty(), "{:?}", outcome.growing);
    assert_eq!(outcome.gone_on_retake.len(), 1);
    assert_eq!(
        outcome.gone_on_retake[0].path.last().unwrap().to_string(),
        "STATIC_FIELD Queue.pending -> instance of java.lang.Object[]"
    );
    assert_eq!(report.verdict(), Some(crate::report::Verdict::Clean));
    // One dump more than the snapshots: the retake, never kept (a kept dump stands for the
    // loops of a snapshot, for `diff --loops`).
    assert_eq!(report.timings.dump.len() as u32, outcome.snapshots + 1);
    assert_eq!(report.kept_dumps.len() as u32, outcome.snapshots);
    // The first settle was cut short, before the snapshot after the 3 warm-up loops.
    assert_eq!(report.settling_cut_short, [3]);
}

#[test]
fn a_slow_leak_holds_when_retaken_and_a_leak_of_an_item_a_loop_is_not_retaken() {
    let slow = search_queue(|loops, _| loops / 10);
    let outcome = slow.result.as_ref().unwrap();
    assert_eq!(outcome.growing.len(), 1, "{:?}", outcome.gone_on_retake);
    assert_eq!(slow.timings.dump.len() as u32, outcome.snapshots + 1);
    let leak = search_queue(|loops, _| loops);
    let outcome = leak.result.as_ref().unwrap();
    assert_eq!(outcome.growing.len(), 1);
    assert_eq!(leak.timings.dump.len() as u32, outcome.snapshots);
}

#[test]
fn a_search_of_this_process_jvm_expects_the_last_count_any_search_read() {
    static SHARED: AtomicUsize = AtomicUsize::new(0);
    let mut first = ObjectCountHint::new(Some(&SHARED));
    assert_eq!(first.expected(), None, "no dump read yet");
    first.read(104_000);
    first.read(105_000);
    assert_eq!(first.expected(), Some(105_000));
    let mut next = ObjectCountHint::new(Some(&SHARED));
    assert_eq!(next.expected(), Some(105_000), "the next test's first dump");
    // Another JVM's dumps (watch) neither use nor change it.
    let mut other = ObjectCountHint::new(None);
    assert_eq!(other.expected(), None);
    other.read(3_000_000);
    assert_eq!(
        ObjectCountHint::new(Some(&SHARED)).expected(),
        Some(105_000)
    );
    next.read(99_000);
    assert_eq!(ObjectCountHint::new(Some(&SHARED)).expected(), Some(99_000));
}

/// A source that writes its dumps, as a JVM does.
struct Dumping;

impl SnapshotSource for Dumping {
    fn subject(&self) -> Subject {
        Subject::Jvm
    }
    fn unit(&self) -> LoopUnit {
        LoopUnit::Loops
    }
    fn position(&self) -> u32 {
        0
    }
    fn take_snapshot(&mut self, _new_dump: &Path) -> Result<Snapshot, ScenarioError> {
        Ok(Snapshot::Written { dump_ms: 0 })
    }
    fn advance(&mut self, _requested: u32) -> Result<Advance, ScenarioError> {
        Ok(Advance::End(ConfirmationCut::TimeBudget))
    }
}

#[test]
fn a_source_that_writes_dumps_gets_them_read_as_written() {
    let dir = PrivateTempDir::new("test").unwrap();
    let follower = follower_for(&Dumping, &dir.path().join("snapshot-1.hprof"), None);
    assert!(
        follower.is_some(),
        "a JVM's dump is read while it is written"
    );
}

fn report_with_dumps(dir: &Path, count: usize) -> ScenarioReport {
    let mut report = ScenarioReport::failed("com.example/Odd\nName", "x".into());
    for n in 0..count {
        let path = dir.join(format!("snapshot-{}.hprof", 40 + n));
        std::fs::write(&path, b"JAVA PROFILE 1.0.2\0").unwrap();
        report.kept_dumps.push(path);
    }
    report
}

#[test]
fn only_the_last_two_dumps_are_kept() {
    let dir = PrivateTempDir::new("test").unwrap();
    let mut kept = VecDeque::new();
    for n in 0..4 {
        let path = dir.path().join(format!("{n}.hprof"));
        std::fs::write(&path, b"dump").unwrap();
        done_with(path, KEPT_DUMPS, &mut kept);
    }
    assert_eq!(
        Vec::from(kept),
        vec![dir.path().join("2.hprof"), dir.path().join("3.hprof")]
    );
    assert!(!dir.path().join("0.hprof").exists() && !dir.path().join("1.hprof").exists());
    done_with(dir.path().join("3.hprof"), 0, &mut VecDeque::new());
    assert!(!dir.path().join("3.hprof").exists());
}

#[test]
fn kept_dumps_move_owner_only_or_say_why_not() {
    let private = PrivateTempDir::new("test").unwrap();
    let reports = PrivateTempDir::new("test").unwrap();
    let mut report = report_with_dumps(private.path(), 2);
    keep_dumps(&mut report, reports.path());
    // One directory per scenario, its name one path component.
    let target = reports.path().join("com.example_Odd_Name");
    assert_eq!(
        report.kept_dumps,
        vec![
            target.join("snapshot-1.hprof"),
            target.join("snapshot-2.hprof")
        ]
    );
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&target), 0o700);
    assert_eq!(mode(&report.kept_dumps[0]), 0o600);
    assert_eq!(report.dumps_not_kept, None);

    // A file where the directory should be: the report stands and says why.
    let blocked = reports.path().join("blocked");
    std::fs::write(&blocked, b"").unwrap();
    let mut report = report_with_dumps(private.path(), 1);
    keep_dumps(&mut report, &blocked);
    assert!(report.kept_dumps.is_empty());
    let why = report.dumps_not_kept.unwrap();
    assert!(why.contains("cannot keep the heap dumps in"), "{why}");
}

#[test]
fn a_second_run_of_a_scenario_keeps_its_dumps_beside_the_firsts() {
    let private = PrivateTempDir::new("test").unwrap();
    let reports = PrivateTempDir::new("test").unwrap();
    let mut runs = Vec::new();
    for run in 1..=3 {
        let mut report = report_with_dumps(private.path(), 2);
        std::fs::write(&report.kept_dumps[0], format!("run {run}")).unwrap();
        keep_dumps(&mut report, reports.path());
        assert_eq!(report.dumps_not_kept, None);
        runs.push(report.kept_dumps);
    }
    let dir_of = |run: usize| {
        runs[run][0]
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_owned()
    };
    assert_eq!(dir_of(0), "com.example_Odd_Name");
    assert_eq!(dir_of(1), "com.example_Odd_Name-2");
    assert_eq!(dir_of(2), "com.example_Odd_Name-3");
    // Nothing overwritten: each run's first dump is its own.
    for (run, kept) in runs.iter().enumerate() {
        assert_eq!(
            std::fs::read_to_string(&kept[0]).unwrap(),
            format!("run {}", run + 1)
        );
    }
    // An empty directory under the name is used, not skipped.
    std::fs::create_dir(reports.path().join("Empty")).unwrap();
    assert_eq!(unused_dir_name(reports.path(), "Empty"), "Empty");
}

#[test]
fn dumps_not_to_keep_are_deleted_and_not_named() {
    let private = PrivateTempDir::new("test").unwrap();
    let mut report = report_with_dumps(private.path(), 2);
    let dumps = report.kept_dumps.clone();
    settle_kept_dumps(&mut report, None);
    assert!(report.kept_dumps.is_empty());
    assert!(dumps.iter().all(|dump| !dump.exists()));
    assert_eq!(report.dumps_not_kept, None);
    // Kept: moved, as keep_dumps does.
    let reports = PrivateTempDir::new("test").unwrap();
    let mut report = report_with_dumps(private.path(), 1);
    settle_kept_dumps(&mut report, Some(reports.path()));
    assert_eq!(report.kept_dumps.len(), 1);
    assert!(report.kept_dumps[0].starts_with(reports.path()));
    assert!(report.kept_dumps[0].exists());
}
