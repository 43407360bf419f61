//! The growth search over a series of saved heap dumps, once: heapgrowth's side of the
//! side-by-side benchmark with shark (`scripts/bench-shark.sh`), which runs shark's
//! `ObjectGrowthDetector` over the same files.
//!
//! ```text
//! HEAPGROWTH_BENCH_KEEP=/tmp/dumps cargo run --release --example bench -- 1000000
//! cargo run --release --example series -- 2 /tmp/dumps/live-1M-1.hprof /tmp/dumps/live-1M-2.hprof
//! ```
//!
//! The first argument is the number of loops between two dumps. Each dump is read
//! (`HeapGraph::open`) and added to one `GrowthSearch` (`add_snapshot`), in the order given, as
//! `heapgrowth run` does with its snapshots; then `finish`. The search is told to decide from
//! these dumps alone (as many detection snapshots as dumps, no confirmation loops), since no
//! scenario runs here. Prints, as `key=value` lines:
//!
//! ```text
//! dump=1 ms=... parse_ms=... analysis_ms=... peak_b_per_object=...   read + analysis of dump 1
//! growing: <the last step of each growing node's path> retained=OBJECTS/BYTES (+OBJECTS/+BYTES)
//! total_ms=... growing=... objects=... peak_mb=... peak_b_per_object=...
//! ```
//!
//! With `HEAPGROWTH_SERIES_RUN_LOOPS=3,7,15,...` (the `snapshot_loops` of a `heapgrowth run`
//! JSON report whose dumps were kept with `--keep-dumps all`) the dumps are added at those loop
//! counts to a search with the run's settings (the defaults), so a run's analysis of each
//! snapshot can be compared with the same work done here, away from the run's JVM; the first
//! argument is then not used (give any number).
//!
//! With `HEAPGROWTH_SERIES_FOLLOW=1` each dump is read as `heapgrowth run` reads its dumps,
//! while written ([`heapgrowth::hprof::DumpFollower`]): a thread copies it to a new file, a MiB
//! every 3 ms (about the pace of a JVM's dump), expecting the last dump's object count, and
//! `parse_ms` is the time from the end of the copy to the graph.
//!
//! A dump's `peak_b_per_object` is the most memory its read and analysis held at once beyond
//! what was live before its read (as `examples/bench.rs` measures each snapshot), per object of
//! that dump. `objects` is the largest dump's object count; `peak_mb` is the most heap memory the process's Rust allocations held at once (a counting
//! global allocator), from the first read to the end; the mapped dump files are not counted
//! (they are the page cache's; `/usr/bin/time -v` shows them in the resident set).

#[path = "support/counting_allocator.rs"]
mod counting_allocator;

use std::path::PathBuf;
use std::time::Instant;

use counting_allocator::CountingAllocator;
use heapgrowth::growth::{GrowthSearch, SearchConfig};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(loops_per_dump), dumps) = (
        args.first().and_then(|a| a.parse::<u32>().ok()),
        args.iter().skip(1).map(PathBuf::from).collect::<Vec<_>>(),
    ) else {
        eprintln!("usage: series LOOPS_PER_DUMP DUMP...");
        std::process::exit(2);
    };
    if dumps.len() < 2 {
        eprintln!("usage: series LOOPS_PER_DUMP DUMP... (at least two dumps)");
        std::process::exit(2);
    }
    let follow = std::env::var_os("HEAPGROWTH_SERIES_FOLLOW").is_some();
    let run_loops = std::env::var("HEAPGROWTH_SERIES_RUN_LOOPS").ok().map(|list| {
        let loops: Option<Vec<u32>> = list.split(',').map(|n| n.trim().parse().ok()).collect();
        match loops {
            Some(loops) if loops.len() == dumps.len() => loops,
            _ => {
                eprintln!(
                    "HEAPGROWTH_SERIES_RUN_LOOPS={list}: expected {} loop counts, one per dump, separated by commas",
                    dumps.len()
                );
                std::process::exit(2);
            }
        }
    });
    let before = counting_allocator::live_bytes();
    counting_allocator::reset_peak();
    let mut search = GrowthSearch::new(match run_loops {
        Some(_) => SearchConfig::default(),
        None => SearchConfig {
            loops_per_snapshot: loops_per_dump,
            max_snapshots: dumps.len() as u32,
            confirm_loops: 0,
        },
    });
    let started_all = Instant::now();
    let mut most_objects = 0;
    // Each dump's own peak resets the allocator's; the largest of them all is kept here.
    let mut peak_so_far = counting_allocator::peak_bytes();
    for (index, dump) in dumps.iter().enumerate() {
        let live_before_dump = counting_allocator::live_bytes();
        counting_allocator::reset_peak();
        let started = Instant::now();
        let (graph, parse_started) = if follow {
            read_while_copied(dump, (most_objects > 0).then_some(most_objects))
        } else {
            (heapgrowth::hprof::open(dump), started)
        };
        let graph = graph.unwrap_or_else(|error| {
            eprintln!("{}: {error}", dump.display());
            std::process::exit(1);
        });
        let parse_ms = parse_started.elapsed().as_secs_f64() * 1e3;
        most_objects = most_objects.max(graph.object_count());
        let loops = run_loops
            .as_ref()
            .map_or(loops_per_dump * (index as u32 + 1), |loops| loops[index]);
        let analysis_started = Instant::now();
        search.add_snapshot(&graph, loops);
        let analysis_ms = analysis_started.elapsed().as_secs_f64() * 1e3;
        let dump_peak = counting_allocator::peak_bytes() - live_before_dump;
        peak_so_far = peak_so_far.max(counting_allocator::peak_bytes());
        println!(
            "dump={} ms={:.0} parse_ms={parse_ms:.1} analysis_ms={analysis_ms:.1} peak_b_per_object={:.1}",
            index + 1,
            started.elapsed().as_secs_f64() * 1e3,
            dump_peak as f64 / graph.object_count() as f64
        );
    }
    let outcome = search.finish();
    let total_ms = started_all.elapsed().as_secs_f64() * 1e3;
    let peak = peak_so_far.max(counting_allocator::peak_bytes()) - before;
    for node in &outcome.growing {
        let last_step = node.path.last().map(ToString::to_string);
        let retained = &node.retained;
        let change = |increase: Option<i64>| increase.map_or("?".to_owned(), |i| format!("{i:+}"));
        println!(
            "growing: {} retained={}/{} ({}/{})",
            last_step.unwrap_or_default(),
            retained.objects,
            retained.bytes,
            change(retained.objects_increase),
            change(retained.bytes_increase)
        );
    }
    println!(
        "total_ms={total_ms:.0} growing={} objects={most_objects} peak_mb={:.1} peak_b_per_object={:.1}",
        outcome.growing.len(),
        peak as f64 / 1e6,
        peak as f64 / most_objects as f64
    );
}

/// Copies `dump` to a new file at about a JVM's writing pace while a [`DumpFollower`] reads it;
/// the graph, and when the copy was done.
///
/// [`DumpFollower`]: heapgrowth::hprof::DumpFollower
fn read_while_copied(
    dump: &std::path::Path,
    expected_objects: Option<usize>,
) -> (
    Result<heapgrowth::heap::HeapGraph, heapgrowth::hprof::HprofError>,
    Instant,
) {
    use std::io::{Read, Write};
    let copy = std::env::temp_dir().join(format!("heapgrowth-series-{}.hprof", std::process::id()));
    let _ = std::fs::remove_file(&copy);
    let follower = heapgrowth::hprof::DumpFollower::start(&copy, expected_objects);
    let mut from = std::fs::File::open(dump).expect("the dump opens");
    let mut to = std::fs::File::create(&copy).expect("the copy can be written");
    let mut buffer = vec![0; 1 << 20];
    loop {
        let read = from.read(&mut buffer).expect("the dump reads");
        if read == 0 {
            break;
        }
        to.write_all(&buffer[..read]).expect("the copy is written");
        std::thread::sleep(std::time::Duration::from_millis(3));
    }
    drop(to);
    let copied = Instant::now();
    let graph = follower.finish();
    let _ = std::fs::remove_file(&copy);
    (graph, copied)
}
