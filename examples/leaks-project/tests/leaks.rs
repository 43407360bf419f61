//! One test per Java scenario: `cargo test --test leaks`. Each compares the scenario's growth
//! report with `snapshots/<scenario>.snap`.

fn main() {
    heapgrowth::harness::Harness::new()
        .java_sources("java/src") // compiled with javac when the tests start
        .scenarios_in("com.example.leaks") // every Runnable in that package
        .run_from_args() // parses libtest's command line, exits
}
