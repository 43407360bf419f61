//! What a JFR dump with paths to GC roots costs the watched JVM next to a live heap dump, and
//! how fast the reader reads recordings (`watch --jfr`, issue 15). Run by
//! `scripts/bench-jfr.sh`, which starts the JVM and reads its safepoint log.
//!
//! ```text
//! cargo run --release --example bench_jfr -- PID [RUNS] [SETTLE_SECONDS]
//! ```
//!
//! Attaches to the JVM with `PID` as `heapgrowth watch` does, starts the old-object recording
//! of `watch --jfr`, waits `SETTLE_SECONDS` (default 20) for samples, then `RUNS` times
//! (default 5) in turn: the recording's dump (`JFR.dump path-to-gc-roots=true`) and its read
//! (`jfr print --json`, parsed), then a live heap dump (`dumpheap -live`, a full collection
//! first). For each request: wall time of the request, and CPU time the JVM spent in it (its
//! user and system time of `/proc/<pid>/stat`, before and after). Then the reader on
//! recordings of growing size (a second recording that keeps every dump), for its time per
//! MB. Prints tab-separated lines the script turns into tables:
//!
//! ```text
//! jfr-dump  <wall ms>  <jvm cpu ms>  <file bytes>  <samples>  <read ms>
//! heap-dump <wall ms>  <jvm cpu ms>  <file bytes>
//! read      <file bytes>  <samples>  <read ms>
//! ```

use std::time::{Duration, Instant};

use heapgrowth::attach::{OldObjectRecording, RecordingSettings, Target};
use heapgrowth::jfr::JfrTool;
use heapgrowth::tempdir::PrivateTempDir;

/// Dumps of the growing recording the reader is timed on.
const READER_DUMPS: u32 = 24;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pid: u32 = args
        .first()
        .and_then(|a| a.parse().ok())
        .expect("usage: bench_jfr PID [RUNS] [SETTLE_SECONDS]");
    let runs: u32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    let settle: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20);
    let jvm = Target::check(pid)
        .and_then(|target| target.attach())
        .expect("attach");
    let tool = JfrTool::for_jvm(pid).expect("a jfr tool");
    let dir = PrivateTempDir::new("bench-jfr").expect("a private directory");
    // Started first and kept to the end: the JVM keeps one sample queue for all recordings,
    // and it empties when the last recording of old objects stops.
    let reader_dir = PrivateTempDir::new("bench-jfr-reader").expect("a private directory");
    let keep_all = RecordingSettings {
        max_age: Duration::from_secs(24 * 3600),
        ..RecordingSettings::default()
    };
    let mut growing = OldObjectRecording::start(&jvm, reader_dir.path(), keep_all).expect("start");

    let mut recording = OldObjectRecording::start(&jvm, dir.path(), RecordingSettings::default())
        .expect("the recording starts");
    std::thread::sleep(Duration::from_secs(settle));
    for run in 0..runs {
        let (file, wall, cpu) = measured(pid, || recording.dump().expect("JFR.dump"));
        let bytes = std::fs::metadata(&file).map_or(0, |m| m.len());
        let started = Instant::now();
        let dump = tool.read(&file).expect("the recording is read");
        let read = started.elapsed();
        std::fs::remove_file(&file).unwrap();
        println!(
            "jfr-dump\t{}\t{}\t{bytes}\t{}\t{}",
            wall.as_millis(),
            cpu.as_millis(),
            dump.samples.len(),
            read.as_millis()
        );
        let path = dir.path().join(format!("heap-{run}.hprof"));
        let ((), wall, cpu) = measured(pid, || jvm.dump_heap(&path, true).expect("dumpheap"));
        let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
        std::fs::remove_file(&path).unwrap();
        println!(
            "heap-dump\t{}\t{}\t{bytes}",
            wall.as_millis(),
            cpu.as_millis()
        );
    }
    recording.stop().expect("JFR.stop");
    reader_per_size(&mut growing, &tool);
    growing.stop().expect("JFR.stop");
}

/// The reader on the dumps of a recording that keeps them all: each file holds the samples of
/// every dump before it (the other recording's too), so the files grow by about one dump's
/// samples each time.
fn reader_per_size(recording: &mut OldObjectRecording, tool: &JfrTool) {
    for _ in 0..READER_DUMPS {
        let file = recording.dump().expect("JFR.dump");
        let bytes = std::fs::metadata(&file).map_or(0, |m| m.len());
        let started = Instant::now();
        let dump = tool.read(&file).expect("the recording is read");
        let read = started.elapsed();
        std::fs::remove_file(&file).unwrap();
        println!(
            "read\t{bytes}\t{}\t{}",
            dump.samples.len() + dump.earlier,
            read.as_millis()
        );
    }
}

/// Runs `request` and returns its result, its wall time and the CPU time the JVM with `pid`
/// used meanwhile.
fn measured<T>(pid: u32, request: impl FnOnce() -> T) -> (T, Duration, Duration) {
    let before = cpu_time(pid);
    let started = Instant::now();
    let result = request();
    let wall = started.elapsed();
    (result, wall, cpu_time(pid).saturating_sub(before))
}

/// User + system CPU time of the process (fields 14 and 15 of `/proc/<pid>/stat`, after the
/// command name in parentheses), in clock ticks of 10 ms.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the JVM runs");
    let after_name = &stat[stat.rfind(')').expect("a command name") + 2..];
    let fields: Vec<u64> = after_name
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    // After the name: state is field 3, utime 14, stime 15 (1-based in the whole line).
    let ticks = fields[14 - 3] + fields[15 - 3];
    Duration::from_millis(ticks * 10)
}
