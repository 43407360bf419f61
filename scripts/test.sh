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

# record NAME STATUS SECONDS: a stage's result, for the summary.
record() {
    stage_names+=("$1")
    stage_seconds+=("$3")
    if [ "$2" -eq 0 ]; then
        stage_results+=(ok)
    else
        stage_results+=("FAILED (exit $2)")
        failed=1
        echo "== test: $1 FAILED (exit $2); the other stages still run" >&2
    fi
}

# stage NAME COMMAND...: runs COMMAND, records whether it passed and how long it took.
stage() {
    local name=$1
    shift
    echo "== test: $name"
    local started=$SECONDS status
    ("$@")
    status=$?
    record "$name" "$status" $((SECONDS - started))
}

# The second track: stages that run in the background beside the main ones, one after another
# (second_track_stage), started once the test binaries are built. They share no lock with the
# main track's cargo commands (the release build locks target/release, the fuzz build
# fuzz/target), and the main track's end-to-end tests leave about a third of the CPU idle while
# they wait for JVMs and watch intervals. Each stage's output is kept aside and printed, with its
# result, when the track is collected (collect_second_track).
second_track=$(mktemp -d)
: >"$second_track/results"
second_track_pid=
second_track_stage() {
    local name=$1 started=$SECONDS status=0
    shift
    ("$@") >"$second_track/${name//[^a-z0-9]/_}.log" 2>&1 || status=$?
    printf '%s\t%s\t%s\n' "$name" "$status" "$((SECONDS - started))" >>"$second_track/results"
}
collect_second_track() {
    local name status seconds track_status=0
    wait "$second_track_pid" || track_status=$?
    second_track_pid=
    # A track stopped by a signal (over 128) has not run all its stages: that fails too.
    if [ "$track_status" -gt 128 ]; then
        echo "the second track was stopped by signal $((track_status - 128))" \
            >"$second_track/second_track.log"
        printf 'second track\t%s\t0\n' "$track_status" >>"$second_track/results"
    fi
    while IFS=$'\t' read -r name status seconds; do
        echo "== test: $name (on the second track)"
        cat "$second_track/${name//[^a-z0-9]/_}.log"
        record "$name (second track)" "$status" "$seconds"
    done <"$second_track/results"
}
# The second track's stages when the script stops early, and its logs. An interrupt (Ctrl-C)
# stops the script, not only the stage it is in, since the second track would go on.
trap '[ -z "$second_track_pid" ] || kill -- -"$second_track_pid" 2>/dev/null; rm -rf "$second_track"' EXIT
trap 'exit 130' INT TERM

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
# The test binaries first, so that the second track starts once they are built.
stage "cargo test: build" env INSTA_UPDATE=no cargo test --locked --all-targets --no-run
second_track() {
    # The JUnit extension and the Gradle plugin, end to end: jars built, the plugin's
    # ProjectBuilder tests and a sample project under Debian's Gradle 4.4.1, a sample under Maven
    # Surefire.
    second_track_stage "junit, gradle, maven" scripts/test-gradle-plugin.sh
    # The reader's fuzz target, 60 s of libFuzzer (scripts/fuzz.sh: needs the nightly toolchain
    # and says so and skips without it; a crash fails). About 3 minutes to build from scratch.
    second_track_stage fuzz scripts/fuzz.sh 60
}
echo "== test: second track started: junit, gradle, maven; fuzz"
# set -m: the track in a process group of its own, for the trap to stop it whole (and with its
# stdin from /dev/null: a background group reading the terminal would be stopped).
set -m
second_track </dev/null &
second_track_pid=$!
set +m
# Snapshots must match exactly; a changed report fails instead of writing a new snapshot.
stage "cargo test" env INSTA_UPDATE=no cargo test --locked --all-targets
# Issue 30: hostile dumps and paths through the CLI, as users and attackers try them (about 10 s).
stage "hostile inputs" scripts/probe-hostile.sh
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
collect_second_track
# The release as a newcomer consumes it: scripts/release.sh stages it, its files and poms are
# checked, and the README's quick starts (the CLI, Maven, Gradle 4.4.1, cargo) build against the
# staged directory alone, each leak failing at the user's line. About 2 minutes. After the
# second track: it builds the jars again (scripts/package-java.sh), which that track's tests use.
stage "release consumer" tests/release/run-consumer.sh

summary
exit "$failed"
