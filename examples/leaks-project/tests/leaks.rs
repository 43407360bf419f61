//! One test per Java scenario: `cargo test --test leaks`. Each compares the scenario's growth
//! report with `snapshots/<scenario>.snap`.

fn main() {
    heapgrowth::harness::Harness::new()
        .classpath(concat!(env!("OUT_DIR"), "/classes")) // directories and jars
        .scenarios_in("com.example.leaks") // every Runnable in that package
        .run_from_args() // parses libtest's command line, exits
}
