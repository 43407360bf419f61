#!/usr/bin/env bash
# Runs every test: formatting, lints, unit tests of the reader and the growth rules on
# synthetic heaps, the JVM layer, and the end-to-end corpus against a real JVM.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings
# The API docs build without broken links.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --locked --quiet
# Snapshots must match exactly; a changed report fails instead of writing a new snapshot.
INSTA_UPDATE=no cargo test --locked --all-targets
# The crate as it would be published: `cargo package` builds it from the packaged files alone
# (the glue's Java sources and the agent's C source must be in the package).
cargo package --locked --allow-dirty --quiet
# The example project a user copies, with its accepted snapshots.
# No --locked: the example keeps no lock file, as a project that copies it would start without one.
(cd examples/leaks-project && CARGO_TARGET_DIR=../../target INSTA_UPDATE=no cargo test)
# Rust-written scenarios through j4rs (cargo feature `j4rs`): only their harness tests.
INSTA_UPDATE=no cargo test --locked --features j4rs --test harness j4rs
# The JUnit extension and the Gradle plugin, end to end: jars built, the plugin's ProjectBuilder
# tests and a sample project under Debian's Gradle 4.4.1, a sample under Maven Surefire.
scripts/test-gradle-plugin.sh
# The reader's fuzz target, 60 s of libFuzzer (scripts/fuzz.sh: needs the nightly toolchain and
# says so and skips without it; a crash fails). About 3 minutes to build from scratch.
scripts/fuzz.sh 60
scripts/probe-hostile.sh  # issue 30: hostile dumps and paths through the CLI, as users and attackers try them (about 10 s)
