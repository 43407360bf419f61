//! Benchmark of one snapshot's cost, on heaps of about 1 M and 5 M live objects.
//!
//! ```text
//! cargo run --release --example bench                 # 1 M and 5 M objects, 3 snapshots each
//! cargo run --release --example bench -- 2000000      # other sizes
//! ```
//!
//! For each size a child process (one JVM per process) starts the JVM, builds the heap with the
//! corpus scenario `corpus.bench.LiveObjects`, and takes snapshots as `heapgrowth run` does:
//! live heap dump, read, analysis. It prints one markdown row per snapshot: dump, parse and
//! analysis time, the ratio (parse + analysis) / dump, and memory per object measured by a
//! counting allocator: what the heap model holds, what the search keeps between snapshots,
//! and the peak of the parse and analysis together. The JVM's own memory is not included.
//! With `HEAPGROWTH_BENCH_KEEP=DIR` the dumps are copied to `DIR` (`live-1M.hprof`, ...) for
//! `examples/replay.rs`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use heapgrowth::growth::{GrowthSearch, SearchConfig};
use heapgrowth::jvm::{Jvm, JvmOptions};
use heapgrowth::tempdir::PrivateTempDir;

/// Counts live and peak heap bytes of this process's Rust allocations.
struct CountingAllocator;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// Safety: delegates to the system allocator and only adds counting.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // Safety: same contract as the caller's.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // Safety: same contract as the caller's.
        unsafe { System.dealloc(pointer, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const DEFAULT_SIZES: [u64; 2] = [1_000_000, 5_000_000];
const SNAPSHOTS: u32 = 3;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, size] = args.as_slice() {
        if flag == "--child" {
            child(size.parse().expect("a number of objects"));
            return;
        }
    }
    let sizes: Vec<u64> = if args.is_empty() {
        DEFAULT_SIZES.to_vec()
    } else {
        args.iter()
            .map(|a| a.parse().expect("sizes are numbers of objects"))
            .collect()
    };
    println!("| heap | snapshot | objects | dump ms | parse ms | analysis ms | (parse+analysis)/dump | model B/obj | kept B/obj | peak B/obj |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for size in sizes {
        let status = Command::new(std::env::current_exe().unwrap())
            .args(["--child", &size.to_string()])
            .status()
            .expect("the benchmark child runs");
        assert!(status.success(), "the benchmark for {size} objects failed");
    }
}

fn compile_bench_scenario() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let classes = root.join("target/bench-classes");
    let _ = std::fs::remove_dir_all(&classes);
    std::fs::create_dir_all(&classes).unwrap();
    let sources: Vec<PathBuf> = std::fs::read_dir(root.join("tests/corpus/src/corpus/bench"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    let javac = std::env::var_os("JAVA_HOME").map_or(PathBuf::from("javac"), |home| {
        Path::new(&home).join("bin/javac")
    });
    let status = Command::new(javac)
        .args(["--release", "17", "-d"])
        .arg(&classes)
        .args(&sources)
        .status()
        .unwrap();
    assert!(status.success(), "javac failed");
    classes
}

fn child(objects: u64) {
    let classes = compile_bench_scenario();
    let jvm = Jvm::start(&JvmOptions {
        java_home: None,
        classpath: vec![classes],
        jvm_args: vec![
            format!("-Dheapgrowth.bench.objects={objects}"),
            "-Xmx8g".into(),
        ],
        ..JvmOptions::default()
    })
    .expect("the JVM starts");
    let mut scenario = jvm
        .open_scenario("corpus.bench.LiveObjects")
        .expect("the bench scenario opens");
    scenario.run_loops(1).unwrap();
    let dumps = PrivateTempDir::new("heapgrowth-bench").unwrap();
    let mut search = GrowthSearch::new(SearchConfig {
        loops_per_snapshot: 2,
        max_snapshots: SNAPSHOTS + 1,
        ..SearchConfig::default()
    });
    let label = format!("{} M", objects as f64 / 1e6);
    for snapshot in 1..=SNAPSHOTS {
        scenario.run_loops(2).unwrap();
        let path = dumps.path().join(format!("bench-{snapshot}.hprof"));
        let started = Instant::now();
        jvm.dump_heap(&path).unwrap();
        let dump_ms = started.elapsed().as_secs_f64() * 1e3;
        // Read the file once so the parse is timed with the dump in the page cache, as it is
        // right after the JVM wrote it.
        let kept_before = LIVE.load(Ordering::Relaxed);
        PEAK.store(kept_before, Ordering::Relaxed);
        let started = Instant::now();
        let graph = heapgrowth::hprof::open(&path).unwrap();
        let parse_ms = started.elapsed().as_secs_f64() * 1e3;
        let model = LIVE.load(Ordering::Relaxed) - kept_before;
        let started = Instant::now();
        search.add_snapshot(&graph, scenario.loops_run());
        let analysis_ms = started.elapsed().as_secs_f64() * 1e3;
        let count = graph.object_count() as f64;
        drop(graph);
        if let Some(keep) = std::env::var_os("HEAPGROWTH_BENCH_KEEP") {
            // For examples/replay.rs: the last snapshot of each size.
            std::fs::copy(
                &path,
                Path::new(&keep).join(format!("live-{label}.hprof").replace(' ', "")),
            )
            .unwrap();
        }
        std::fs::remove_file(&path).unwrap();
        let kept = LIVE.load(Ordering::Relaxed) as f64 - kept_before as f64;
        let peak = (PEAK.load(Ordering::Relaxed) - kept_before) as f64;
        println!(
            "| {label} | {snapshot} | {count} | {dump_ms:.0} | {parse_ms:.0} | {analysis_ms:.0} | {:.2} | {:.1} | {:.2} | {:.1} |",
            (parse_ms + analysis_ms) / dump_ms,
            model as f64 / count,
            kept / count,
            peak / count,
        );
    }
}
