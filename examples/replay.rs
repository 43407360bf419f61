//! Parse and analysis of a saved heap dump, repeated: for comparing two builds on the same
//! input, which the noise of a shared machine makes hard with fresh dumps.
//!
//! ```text
//! HEAPGROWTH_BENCH_KEEP=/tmp/dumps cargo run --release --example bench   # keeps its dumps
//! cargo run --release --example replay -- /tmp/dumps/live-1M.hprof 7    # median of 7 runs
//! cargo run --release --example replay -- /tmp/dumps/live-1M.hprof --digest
//! cargo run --release --example replay -- /tmp/dumps/live-1M.hprof --objects   # object count
//! ```
//!
//! Run two builds' binaries alternately and compare their medians. `--digest` prints a hash
//! of the path tree and of which node each object landed in: a change meant to be only faster
//! must leave it as it was.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::time::Instant;

use heapgrowth::growth::{build_tree, GrowthSearch, Names, SearchConfig};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dump) = args.first().map(PathBuf::from) else {
        eprintln!("usage: replay DUMP [RUNS | --digest | --objects]");
        std::process::exit(2);
    };
    if args.get(1).map(String::as_str) == Some("--digest") {
        println!("{:016x}", digest(&dump));
        return;
    }
    if args.get(1).map(String::as_str) == Some("--objects") {
        let graph = heapgrowth::hprof::open(&dump).expect("the dump reads");
        println!("{}", graph.object_count());
        return;
    }
    let runs: usize = args
        .get(1)
        .map_or(7, |a| a.parse().expect("a number of runs"));
    let (mut parse, mut analysis) = (Vec::new(), Vec::new());
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        let graph = heapgrowth::hprof::open(&dump).expect("the dump reads");
        parse.push(started.elapsed().as_secs_f64() * 1e3);
        let mut search = GrowthSearch::new(SearchConfig::default());
        let started = Instant::now();
        search.add_snapshot(&graph, 0);
        analysis.push(started.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "parse ms: median {:.1}, min {:.1}; analysis ms: median {:.1}, min {:.1}",
        median(&mut parse),
        parse[0],
        median(&mut analysis),
        analysis[0]
    );
}

/// Sorts `values` and returns the middle one.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn digest(dump: &std::path::Path) -> u64 {
    let graph = heapgrowth::hprof::open(dump).expect("the dump reads");
    let (tree, objects) = build_tree(&graph, &mut Names::default());
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for node in tree.nodes() {
        (
            node.key,
            node.parent,
            node.objects,
            node.bytes,
            &node.children,
        )
            .hash(&mut hasher);
    }
    let mut members: Vec<_> = objects.iter().collect();
    members.sort_unstable();
    members.hash(&mut hasher);
    hasher.finish()
}
