//! Benchmark of one snapshot's cost, on heaps of about 1 M and 5 M live objects.
//!
//! ```text
//! cargo run --release --example bench                 # 1 M and 5 M objects, 3 snapshots each
//! cargo run --release --example bench -- 2000000      # other sizes
//! cargo run --release --example bench -- --heap service 1000000   # the service-shaped heap
//! ```
//!
//! For each size a child process (one JVM per process) starts the JVM, builds the heap with a
//! corpus scenario, `corpus.bench.LiveObjects` (`--heap live`, the default: one big map of small
//! records) or `corpus.bench.ServiceHeap` (`--heap service`: many maps, strings, boxed values
//! and deeper graphs, as a web service's heap), and takes snapshots as `heapgrowth run` does:
//! live heap dump, read, analysis. It prints one markdown row per snapshot: dump, parse and
//! analysis time, the ratio (parse + analysis) / dump, and memory per object measured by a
//! counting allocator: what the heap model holds, what the search keeps between snapshots,
//! and the peak of the parse and analysis together (the JVM's own memory is not included); and
//! the dump file's size.
//! With `HEAPGROWTH_BENCH_KEEP=DIR` the dumps are copied to `DIR` for `examples/replay.rs` and
//! `scripts/bench-shark.sh`: every snapshot as `live-1M-1.hprof`, `live-1M-2.hprof`, ... (two
//! loops apart, as a series for a growth search) and the last one also as `live-1M.hprof` (a
//! hard link, no second copy); `service-1M-...` for the service heap.
//! `HEAPGROWTH_BENCH_XMX` sets the JVM's `-Xmx` (default 8g: the 80 M-object heap needs more).
//! `HEAPGROWTH_BENCH_SNAPSHOTS` sets the number of snapshots (default 3): six kept dumps make
//! a series in which `examples/series.rs` finds the leak at the fourth and computes its
//! retained size at the last three, as a whole run's leak does.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use heapgrowth::growth::{GrowthSearch, SearchConfig};
use heapgrowth::jvm::{Jvm, JvmOptions};
use heapgrowth::tempdir::PrivateTempDir;

#[path = "support/counting_allocator.rs"]
mod counting_allocator;

use counting_allocator::CountingAllocator;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const DEFAULT_SIZES: [u64; 2] = [1_000_000, 5_000_000];
const DEFAULT_SNAPSHOTS: u32 = 3;
/// The JVM's `-Xmx` unless `HEAPGROWTH_BENCH_XMX` says otherwise: room for 5 M objects and
/// the dump's own buffers.
const DEFAULT_XMX: &str = "8g";

/// The shape of the benchmark heap: which corpus scenario builds it.
#[derive(Clone, Copy)]
enum Shape {
    /// `corpus.bench.LiveObjects`: a `HashMap` of customers, 12 objects each.
    Live,
    /// `corpus.bench.ServiceHeap`: catalog, users, sessions and a cache, as a service's heap.
    Service,
}

impl Shape {
    fn parse(name: &str) -> Shape {
        match name {
            "live" => Shape::Live,
            "service" => Shape::Service,
            _ => panic!("--heap is live or service, not {name:?}"),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Shape::Live => "live",
            Shape::Service => "service",
        }
    }

    fn scenario(self) -> &'static str {
        match self {
            Shape::Live => "corpus.bench.LiveObjects",
            Shape::Service => "corpus.bench.ServiceHeap",
        }
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut shape = Shape::Live;
    if let Some(at) = args.iter().position(|a| a == "--heap") {
        shape = Shape::parse(args.get(at + 1).expect("--heap live|service"));
        args.drain(at..at + 2);
    }
    if let [flag, size] = args.as_slice() {
        if flag == "--child" {
            child(shape, size.parse().expect("a number of objects"));
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
    println!("| heap | snapshot | objects | dump ms | parse ms | analysis ms | (parse+analysis)/dump | model B/obj | kept B/obj | peak B/obj | dump MB |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for size in sizes {
        let status = Command::new(std::env::current_exe().unwrap())
            .args(["--heap", shape.name(), "--child", &size.to_string()])
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

fn child(shape: Shape, objects: u64) {
    let snapshots: u32 = std::env::var("HEAPGROWTH_BENCH_SNAPSHOTS")
        .map_or(DEFAULT_SNAPSHOTS, |n| {
            n.parse().expect("HEAPGROWTH_BENCH_SNAPSHOTS is a number")
        });
    let classes = compile_bench_scenario();
    let xmx = std::env::var("HEAPGROWTH_BENCH_XMX").unwrap_or_else(|_| DEFAULT_XMX.into());
    let jvm = Jvm::start(&JvmOptions {
        java_home: None,
        classpath: vec![classes],
        jvm_args: vec![
            format!("-Dheapgrowth.bench.objects={objects}"),
            format!("-Xmx{xmx}"),
        ],
        ..JvmOptions::default()
    })
    .expect("the JVM starts");
    let mut scenario = jvm
        .open_scenario(shape.scenario())
        .expect("the bench scenario opens");
    scenario.run_loops(1).unwrap();
    let dumps = PrivateTempDir::new("heapgrowth-bench").unwrap();
    let mut search = GrowthSearch::new(SearchConfig {
        loops_per_snapshot: 2,
        max_snapshots: snapshots + 1,
        ..SearchConfig::default()
    });
    let size = format!("{} M", objects as f64 / 1e6);
    let label = match shape {
        Shape::Live => size.clone(),
        Shape::Service => format!("service {size}"),
    };
    let file_stem = format!("{}-{}", shape.name(), size.replace(' ', ""));
    for snapshot in 1..=snapshots {
        scenario.run_loops(2).unwrap();
        let path = dumps.path().join(format!("bench-{snapshot}.hprof"));
        let started = Instant::now();
        jvm.dump_heap(&path).unwrap();
        let dump_ms = started.elapsed().as_secs_f64() * 1e3;
        let dump_mb = std::fs::metadata(&path).unwrap().len() as f64 / 1e6;
        // Read the file once so the parse is timed with the dump in the page cache, as it is
        // right after the JVM wrote it.
        let kept_before = counting_allocator::live_bytes();
        counting_allocator::reset_peak();
        let started = Instant::now();
        let graph = heapgrowth::hprof::open(&path).unwrap();
        let parse_ms = started.elapsed().as_secs_f64() * 1e3;
        let model = counting_allocator::live_bytes() - kept_before;
        let started = Instant::now();
        search.add_snapshot(&graph, scenario.loops_run());
        let analysis_ms = started.elapsed().as_secs_f64() * 1e3;
        let count = graph.object_count() as f64;
        drop(graph);
        if let Some(keep) = std::env::var_os("HEAPGROWTH_BENCH_KEEP") {
            // Every snapshot, as a series (scripts/bench-shark.sh); the last one also under
            // the name without a number, for examples/replay.rs.
            let kept = Path::new(&keep).join(format!("{file_stem}-{snapshot}.hprof"));
            std::fs::copy(&path, &kept).unwrap();
            if snapshot == snapshots {
                let last = Path::new(&keep).join(format!("{file_stem}.hprof"));
                let _ = std::fs::remove_file(&last);
                std::fs::hard_link(&kept, &last).unwrap();
            }
        }
        std::fs::remove_file(&path).unwrap();
        let kept = counting_allocator::live_bytes() as f64 - kept_before as f64;
        let peak = (counting_allocator::peak_bytes() - kept_before) as f64;
        println!(
            "| {label} | {snapshot} | {count} | {dump_ms:.0} | {parse_ms:.0} | {analysis_ms:.0} | {:.2} | {:.1} | {:.2} | {:.1} | {dump_mb:.0} |",
            (parse_ms + analysis_ms) / dump_ms,
            model as f64 / count,
            kept / count,
            peak / count,
        );
    }
}
