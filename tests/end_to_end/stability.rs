//! The same question ten times, the same answer ten times: the scenarios whose verdict could
//! depend on timing (threads, executors, the common pool, caches maintained in the background,
//! cleanup after collections) get the same verdict in ten runs: two processes, each running the
//! scenario five times over, in fresh class loaders and threads. `scripts/stability.sh` does
//! the same for every corpus scenario, in ten processes each.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::support::{corpus_classes, heapgrowth_on, library_classpath};

/// Runs per process, and processes: ten verdicts.
const RUNS_PER_PROCESS: usize = 5;
const PROCESSES: usize = 2;

/// The verdict of each run of `scenario` (its growing lines, or that nothing grows), with the
/// run's whole report; for a run whose verdict is not `expected`, also what `heapgrowth diff`
/// finds in the run's own dumps, kept for that in `target/tmp/stability-differing/`: growth
/// there means the run misread its heap, none that the heap did not grow.
fn verdicts(classpath: &str, scenario: &str, expected: &str) -> Vec<(String, String)> {
    let scenarios = vec![scenario; RUNS_PER_PROCESS];
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let mut verdicts = Vec::new();
    for process in 0..PROCESSES {
        let dumps = tmp.join(format!("stability-dumps-{scenario}-{process}"));
        let _ = std::fs::remove_dir_all(&dumps);
        let keep = [
            "--keep-dumps",
            "all",
            "--keep-dumps-dir",
            dumps.to_str().unwrap(),
        ];
        let output = heapgrowth_on(
            classpath,
            &scenarios,
            &[&["--no-attribution"][..], &keep].concat(),
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        let runs: Vec<&str> = stdout.split("Scenario ").skip(1).collect();
        assert_eq!(runs.len(), RUNS_PER_PROCESS, "{stdout}");
        for run in runs {
            let growing: Vec<&str> = run
                .lines()
                .filter(|line| line.starts_with("╰→"))
                .map(|line| line.rsplit_once(" (").map_or(line, |(step, _)| step))
                .collect();
            let verdict = if growing.is_empty() {
                "nothing grows".to_owned()
            } else {
                growing.join("; ")
            };
            let mut report = format!("Scenario {run}");
            if verdict != expected {
                report += &diff_of_kept_dumps(run, &tmp.join("stability-differing"));
            }
            verdicts.push((verdict, report));
        }
        let _ = std::fs::remove_dir_all(&dumps);
    }
    verdicts
}

/// The dumps a run's report says it kept, moved into `keep_in`, and `heapgrowth diff`'s
/// report on them.
fn diff_of_kept_dumps(run: &str, keep_in: &Path) -> String {
    const KEPT: &str =
        "Heap dumps kept (they hold every secret in the heap; delete them when done): ";
    let Some(line) = run.lines().find_map(|line| line.strip_prefix(KEPT)) else {
        return "\n(the run kept no dumps)\n".to_owned();
    };
    let kept: Vec<PathBuf> = line.split(", ").map(PathBuf::from).collect();
    let run_dir = kept[0].parent().unwrap().file_name().unwrap();
    let target = keep_in.join(run_dir);
    let _ = std::fs::remove_dir_all(&target);
    std::fs::create_dir_all(&target).unwrap();
    let moved: Vec<PathBuf> = kept
        .iter()
        .map(|dump| {
            let to = target.join(dump.file_name().unwrap());
            std::fs::rename(dump, &to).unwrap();
            to
        })
        .collect();
    let mut diff = Command::new(env!("CARGO_BIN_EXE_heapgrowth"));
    diff.arg("diff").args(&moved);
    // The engine's schedule while detecting: snapshots after 3, 7, 15, 31 and 63 loops.
    let loops = ["3", "7", "15", "31", "63"];
    if moved.len() <= loops.len() {
        diff.arg("--loops").arg(loops[..moved.len()].join(","));
    }
    let output = diff.output().expect("heapgrowth diff runs");
    format!(
        "\nIts {} dumps are in {}; `heapgrowth diff` on them ({}):\n{}{}",
        moved.len(),
        target.display(),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn same_ten_times(classpath: &str, scenario: &str, expected: &str) {
    let verdicts = verdicts(classpath, scenario, expected);
    // A verdict that differs is a flake to diagnose: its whole report says how it came about.
    let differing: Vec<&str> = verdicts
        .iter()
        .filter(|(verdict, _)| verdict != expected)
        .map(|(_, report)| report.as_str())
        .collect();
    assert!(
        differing.is_empty(),
        "{scenario}: expected {expected:?} in every run, got {:#?}\n\nthe reports that differ:\n{}",
        verdicts
            .iter()
            .map(|(verdict, _)| verdict)
            .collect::<Vec<_>>(),
        differing.join("\n")
    );
}

fn corpus() -> &'static str {
    corpus_classes().to_str().unwrap()
}

#[test]
fn a_leak_into_the_scenarios_own_executor_every_time() {
    same_ten_times(
        corpus(),
        "corpus.leaks.AsyncExecutorLeak",
        "╰→STATIC_FIELD AsyncExecutorLeak.processed -> instance of java.util.Collections$SynchronizedRandomAccessList",
    );
}

#[test]
fn work_handed_to_an_executor_that_cleans_up_never_grows() {
    same_ten_times(
        corpus(),
        "corpus.clean.AsyncExecutorRemoved",
        "nothing grows",
    );
}

#[test]
fn a_leak_on_the_common_pool_every_time() {
    same_ten_times(
        corpus(),
        "corpus.leaks.CompletableFutureLeak",
        "╰→STATIC_FIELD CompletableFutureLeak.quotes -> instance of java.util.concurrent.ConcurrentHashMap",
    );
}

#[test]
fn a_bounded_map_on_the_common_pool_never_grows() {
    same_ten_times(
        corpus(),
        "corpus.clean.CompletableFutureBounded",
        "nothing grows",
    );
}

#[test]
fn a_worker_threads_local_batch_every_time() {
    same_ten_times(
        corpus(),
        "corpus.leaks.WorkerBatchLeak",
        "╰→LOCAL WorkerBatchLeak$Writer.run(WorkerBatchLeak.java:56) -> instance of java.util.ArrayList",
    );
}

#[test]
fn leaked_threads_every_time() {
    same_ten_times(
        corpus(),
        "corpus.leaks.ThreadLeak",
        "╰→GcRoot(ThreadObject \"worker-*\")",
    );
}

#[test]
fn executors_shut_down_never_grow() {
    same_ten_times(corpus(), "corpus.clean.ExecutorShutDown", "nothing grows");
}

#[test]
fn a_timers_queue_every_time() {
    same_ten_times(
        corpus(),
        "corpus.leaks.TimerTaskLeak",
        "╰→INSTANCE_FIELD TaskQueue.queue -> instance of java.util.TimerTask[]",
    );
}

#[test]
fn a_weak_hash_map_expunged_late_never_grows() {
    // Stale entries wait for the map's next use; the collection a fixed number of loops before
    // each dump keeps them as many at every snapshot, however far apart snapshots are.
    same_ten_times(corpus(), "corpus.clean.WeakMapClean", "nothing grows");
}

#[test]
fn class_loaders_dropped_and_cleaned_later_never_grow() {
    same_ten_times(corpus(), "corpus.clean.ClassLoaderDropped", "nothing grows");
}

#[test]
fn a_caffeine_cache_bounded_and_maintained_in_the_background_never_grows() {
    same_ten_times(
        library_classpath(),
        "corpus.libs.CaffeineBoundedClean",
        "nothing grows",
    );
}

#[test]
fn a_caffeine_leak_every_time() {
    same_ten_times(
        library_classpath(),
        "corpus.libs.CaffeineWeakKeysLeak",
        "╰→INSTANCE_FIELD BoundedLocalCache.data -> instance of java.util.concurrent.ConcurrentHashMap",
    );
}

#[test]
fn a_guava_cache_bounded_never_grows() {
    same_ten_times(
        library_classpath(),
        "corpus.libs.GuavaCacheClean",
        "nothing grows",
    );
}

// Issue 35: structures a library's own timer thread drains on its tick, dumped after its
// tick (the settler waits out the periods of the scenario's timed-waiting threads).

#[test]
fn a_wheel_timers_cancelled_timeouts_never_grow() {
    same_ten_times(
        library_classpath(),
        "corpus.libs.NettyWheelTimerCancelled",
        "nothing grows",
    );
}

#[test]
fn cancelled_tasks_a_scheduled_executor_drops_when_due_never_grow() {
    same_ten_times(
        corpus(),
        "corpus.clean.ScheduledCancelledDueSoon",
        "nothing grows",
    );
}
