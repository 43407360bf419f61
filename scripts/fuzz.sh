#!/usr/bin/env bash
# Fuzzes the HPROF reader (fuzz/fuzz_targets/hprof_reader.rs) for SECONDS seconds (default 60)
# with libFuzzer, without cargo-fuzz: the target is built with `cargo +nightly` and the flags
# cargo-fuzz would pass (sanitizer coverage, AddressSanitizer, debug assertions, --cfg fuzzing)
# into fuzz/target, so the main build in target/ is never touched.
#
#   scripts/fuzz.sh [SECONDS] [TARGET]
#
# TARGET is hprof_reader (the default) or text_report (fuzz/fuzz_targets/text_report.rs: names
# from hostile dumps must reach the text report escaped; it starts from an empty corpus).
#
# Seeds: small dumps from the heap builder in every layout (examples/fuzz_seeds.rs), written to
# fuzz/corpus/hprof_reader at each run; libFuzzer adds what it finds there (git-ignored, kept
# between local runs). A crash, a panic, an input running longer than 30 s or an allocation over
# 2 GiB fails the run; the input is kept in fuzz/artifacts/hprof_reader/ and its path printed.
# Replay one with `fuzz/target/x86_64-unknown-linux-gnu/release/hprof_reader PATH`.
#
# Needs the nightly toolchain (rustup toolchain install nightly) and a C++ compiler (libFuzzer
# is C++). Without nightly it prints why it skips and exits 0; every other failure is one.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
target=${2:-hprof_reader}
if ! [[ $seconds =~ ^[1-9][0-9]*$ && $target =~ ^(hprof_reader|text_report)$ ]]; then
    echo "usage: scripts/fuzz.sh [SECONDS] [hprof_reader|text_report]" >&2
    exit 2
fi
toolchain=${HEAPGROWTH_FUZZ_TOOLCHAIN:-nightly}
if ! cargo "+$toolchain" --version >/dev/null 2>&1; then
    echo "fuzz: skipped: no Rust '$toolchain' toolchain here (libFuzzer's coverage instrumentation needs nightly's -Z flags; rustup toolchain install nightly)"
    exit 0
fi

triple=x86_64-unknown-linux-gnu
target_dir=fuzz/target
binary=$target_dir/$triple/release/$target
corpus=fuzz/corpus/$target
artifacts=fuzz/artifacts/$target
log=$target_dir/$target.log
mkdir -p "$corpus" "$artifacts" "$target_dir"

start=$(date +%s)
# The fuzz workspace's lock file is the main crate's (so the reader is fuzzed with the exact
# dependency versions it is tested with) plus libfuzzer-sys; it is made afresh each run and
# git-ignored, so a dependency added to the main crate never needs a second lock file updated.
cp Cargo.lock fuzz/Cargo.lock
# What `cargo fuzz build` passes with its default options, except
# -Ccodegen-units=1 and -Clink-dead-code, which cost build time for little here. --target keeps
# the flags away from build scripts and proc macros.
flags="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4"
flags+=" -Cllvm-args=-sanitizer-coverage-inline-8bit-counters"
flags+=" -Cllvm-args=-sanitizer-coverage-pc-table"
flags+=" -Cllvm-args=-sanitizer-coverage-trace-compares"
flags+=" -Cllvm-args=-sanitizer-coverage-stack-depth"
flags+=" -Cllvm-args=-simplifycfg-branch-fold-threshold=0"
flags+=" --cfg fuzzing -Zsanitizer=address -Cdebug-assertions"
RUSTFLAGS="$flags ${RUSTFLAGS:-}" cargo "+$toolchain" build --quiet --release \
    --manifest-path fuzz/Cargo.toml --target "$triple" --target-dir "$target_dir" \
    --bin "$target"
# Seeds, with the main crate's ordinary (stable, debug) build: reused from `cargo test`. After
# the fuzz build, which needs nothing from target/: scripts/test.sh runs this script beside its
# tests, and `cargo run` waits for target/debug's lock while `cargo test` holds it.
if [ "$target" = hprof_reader ]; then
    cargo run --locked --quiet --example fuzz_seeds -- "$corpus"
fi
built=$(date +%s)
echo "fuzz: build and seeds took $((built - start)) s; fuzzing $target for $seconds s"

# -timeout: seconds one input may run before it counts as a hang (inputs are at most 4 KiB and
# take milliseconds). The outer timeout only guards against a fuzzer that never returns.
status=0
ASAN_OPTIONS="detect_odr_violation=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
    timeout --kill-after=10 $((seconds + 300)) \
    "$binary" -max_total_time="$seconds" -timeout=30 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 || status=$?
# The log without the lines per new input or reduction and the recommended dictionary: the
# start, the stats, and on a failure the panic, the sanitizer's report and where the input went.
grep -avE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|RELOAD)|^[[:space:]]+NEW_FUNC|^".*" # Uses: [0-9]+$|^###### ' \
    "$log" || true
if [ "$status" -ne 0 ]; then
    crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n1)
    if [ -n "$crash" ]; then
        echo "fuzz: FAILED (exit $status): $target failed on the input in $crash"
        echo "fuzz: replay with: $binary $crash"
        # CI's clone is gone after the run: the input (at most 4 KiB) goes into the log too.
        echo "fuzz: the input, base64: $(base64 -w0 "$crash")"
    elif [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        echo "fuzz: FAILED: libFuzzer did not finish within $((seconds + 300)) s (full log: $log)"
    else
        echo "fuzz: FAILED (exit $status), no input written (full log: $log)"
    fi
    exit 1
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
echo "fuzz: no failure in ${runs:-?} inputs (${rate:-?} exec/s), $(($(date +%s) - start)) s in all"
