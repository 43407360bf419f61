#!/usr/bin/env bash
# Runs every test: formatting, lints, unit tests of the reader and the growth rules on
# synthetic heaps, the JVM layer, and the end-to-end corpus against a real JVM.
#
# Every stage runs even when an earlier one failed (a lint error must not hide a failing
# end-to-end test); the summary at the end lists each stage's status and time, and the script
# exits 1 if any stage failed.
set -uo pipefail
cd "$(dirname "$0")/.."

stage_names=()
stage_results=()
stage_seconds=()
failed=0

# stage NAME COMMAND...: runs COMMAND, records whether it passed and how long it took.
stage() {
    local name=$1
    shift
    echo "== test: $name"
    local started=$SECONDS status
    ("$@")
    status=$?
    stage_names+=("$name")
    stage_seconds+=($((SECONDS - started)))
    if [ "$status" -eq 0 ]; then
        stage_results+=(ok)
    else
        stage_results+=("FAILED (exit $status)")
        failed=1
        echo "== test: $name FAILED (exit $status); the other stages still run" >&2
    fi
}

# stage_beside NAME COMMAND...: starts COMMAND in the background, beside the stages that follow
# (for work that leaves them the CPU they need and takes no lock they wait for); its output is
# kept aside until finish_beside NAME prints it and records the stage like `stage` does, with
# its time from start to end.
declare -A beside_pid beside_log beside_started
stage_beside() {
    local name=$1
    shift
    echo "== test: $name: started beside the stages that follow"
    beside_log[$name]=$(mktemp)
    beside_started[$name]=$SECONDS
    ("$@") >"${beside_log[$name]}" 2>&1 &
    beside_pid[$name]=$!
}
finish_beside() {
    local name=$1 status=0
    wait "${beside_pid[$name]}" || status=$?
    local seconds=$((SECONDS - ${beside_started[$name]}))
    echo "== test: $name (started beside the stages before, ${seconds} s ago)"
    cat "${beside_log[$name]}"
    rm -f "${beside_log[$name]}"
    unset "beside_pid[$name]"
    stage_names+=("$name (beside)")
    stage_seconds+=("$seconds")
    if [ "$status" -eq 0 ]; then
        stage_results+=(ok)
    else
        stage_results+=("FAILED (exit $status)")
        failed=1
        echo "== test: $name FAILED (exit $status)" >&2
    fi
}
# A stage left running when the script stops (an interrupt, a failure of the script itself).
trap 'kill ${beside_pid[*]} 2>/dev/null' EXIT

summary() {
    echo
    echo "== test: summary"
    local i
    for i in "${!stage_names[@]}"; do
        printf '%-28s %-18s %4d s\n' "${stage_names[$i]}" "${stage_results[$i]}" "${stage_seconds[$i]}"
    done
    printf '%-28s %-18s %4d s\n' total "$([ "$failed" -eq 0 ] && echo ok || echo FAILED)" "$SECONDS"
}

stage fmt cargo fmt --check
stage clippy cargo clippy --all-targets --locked -- -D warnings
# The API docs build without broken links.
stage doc env RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --locked --quiet
# Snapshots must match exactly; a changed report fails instead of writing a new snapshot.
stage "cargo test: build" env INSTA_UPDATE=no cargo test --locked --all-targets --no-run
# The reader's fuzz target, 60 s of libFuzzer (scripts/fuzz.sh: needs the nightly toolchain and
# says so and skips without it; a crash fails). Its build (about 3 minutes of both cores from
# scratch, into fuzz/target/) runs beside the tests, which leave a third of the CPU idle (the
# end-to-end tests wait for JVMs and for watches' intervals): measured in docs/bench.md.
stage_beside fuzz scripts/fuzz.sh 60
stage "cargo test" env INSTA_UPDATE=no cargo test --locked --all-targets
# The crate as it would be published: `cargo package` builds it from the packaged files alone
# (the glue's Java sources and the agent's C source must be in the package).
stage "cargo package" cargo package --locked --allow-dirty --quiet
# The example project a user copies, with its accepted snapshots.
# No --locked: the example keeps no lock file, as a project that copies it would start without one.
example_project() {
    cd examples/leaks-project && CARGO_TARGET_DIR=../../target INSTA_UPDATE=no cargo test
}
stage "example project" example_project
# Rust-written scenarios through j4rs (cargo feature `j4rs`): only their harness tests.
stage "j4rs harness" env INSTA_UPDATE=no cargo test --locked --features j4rs --test harness j4rs
# The JUnit extension and the Gradle plugin, end to end: jars built, the plugin's ProjectBuilder
# tests and a sample project under Debian's Gradle 4.4.1, a sample under Maven Surefire.
stage "junit, gradle, maven" scripts/test-gradle-plugin.sh
# The release as a newcomer consumes it: scripts/release.sh stages it, its files and poms are
# checked, and the README's quick starts (the CLI, Maven, Gradle 4.4.1, cargo) build against the
# staged directory alone, each leak failing at the user's line. About 2 minutes.
stage "release consumer" tests/release/run-consumer.sh
finish_beside fuzz
# Issue 30: hostile dumps and paths through the CLI, as users and attackers try them (about 10 s).
stage "hostile inputs" scripts/probe-hostile.sh

summary
exit "$failed"
