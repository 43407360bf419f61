#!/usr/bin/env bash
# Two builds' analysis of one saved dump, alternately: `examples/replay` of build A, then of
# build B, ROUNDS times; prints each round's medians (of 7 runs each) and B/A, then the median
# and range of B/A over the rounds. On a noisy machine only such alternating ratios mean much.
#
#   scripts/bench-replay.sh A_REPLAY B_REPLAY DUMP [ROUNDS]
#
# A_REPLAY and B_REPLAY are two builds' `target/release/examples/replay` (build one, copy it
# away, build the other). DUMP: a saved heap dump (`heapgrowth run --keep-dumps all`, or
# HEAPGROWTH_BENCH_KEEP with examples/bench.rs). ROUNDS defaults to 10. Results: docs/bench.md.
set -euo pipefail
source "$(dirname "$0")/stats.sh"
usage="usage: $0 A_REPLAY B_REPLAY DUMP [ROUNDS]"
a=${1:?$usage}; b=${2:?$usage}; dump=${3:?$usage}; rounds=${4:-10}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
for binary in "$a" "$b"; do
    [ -x "$binary" ] || { echo "$0: $binary is not an executable replay build" >&2; exit 2; }
done
[ -r "$dump" ] || { echo "$0: cannot read $dump" >&2; exit 2; }
analysis_median() {
    "$1" "$dump" 7 | sed -n 's/.*analysis ms: median \([0-9.]*\).*/\1/p'
}
ratios=()
echo "round  A ms  B ms  B/A"
for round in $(seq "$rounds"); do
    ma=$(analysis_median "$a")
    mb=$(analysis_median "$b")
    ratio=$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.3f", b / a}')
    ratios+=("$ratio")
    echo "$round  $ma  $mb  $ratio"
done
echo "analysis B/A: median $(printf '%s\n' "${ratios[@]}" | median)" \
    "($(printf '%s\n' "${ratios[@]}" | range)) over $rounds rounds"
