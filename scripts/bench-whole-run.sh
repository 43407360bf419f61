#!/usr/bin/env bash
# The whole run, not one snapshot: wall time, snapshots and loops of `heapgrowth run` on a
# clean and a leaking scenario, on a small heap (examples/cart) and on a heap of about a million
# live objects (corpus.bench.LiveObjects, with and without its leak), for two binaries run
# alternately (A B A B ...) so that drifts of the machine hit both alike. Prints the median of
# RUNS runs (default 5) per binary and scenario.
#
#   scripts/bench-whole-run.sh OLD_BINARY [NEW_BINARY] [RUNS]
#
# NEW_BINARY defaults to this checkout's release build. Results: docs/bench.md.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: $0 OLD_BINARY [NEW_BINARY] [RUNS]}
new=${2:-target/release/heapgrowth}
runs=${3:-5}
[ "$new" != target/release/heapgrowth ] || cargo build --release --locked --bin heapgrowth >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac --release 17 -nowarn -d "$work/cart" $(find examples/cart/src -name '*.java')
javac --release 17 -nowarn -d "$work/corpus" $(find tests/corpus/src -name '*.java')

# name|classpath|scenario|extra arguments
cases=(
    "small clean|$work/cart|com.example.cart.CheckoutOnlyScenario|"
    "small leak|$work/cart|com.example.cart.CartScenario|"
    "1 M clean|$work/corpus|corpus.bench.LiveObjects|--jvm-arg=-Dheapgrowth.bench.ordersPerLoop=0 --jvm-arg=-Xmx4g"
    "1 M leak|$work/corpus|corpus.bench.LiveObjects|--jvm-arg=-Xmx4g"
)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "| scenario | binary | median wall s | snapshots | loops | verdict (exit) |"
echo "|---|---|---|---|---|---|"
for case in "${cases[@]}"; do
    IFS='|' read -r name classpath scenario extra <<<"$case"
    : >"$work/0.times"
    : >"$work/1.times"
    for _ in $(seq "$runs"); do
        for b in 0 1; do
            bins=("$old" "$new")
            bin=${bins[$b]}
            started=$(date +%s%N)
            set +e
            # shellcheck disable=SC2086
            first=$("$bin" run --classpath "$classpath" --scenario "$scenario" $extra 2>/dev/null | head -n1)
            status=${PIPESTATUS[0]}
            set -e
            echo "$(( ($(date +%s%N) - started) / 1000000 ))" >>"$work/$b.times"
            echo "$first|$status" >"$work/$b.last"
        done
    done
    for b in 0 1; do
        bins=("$old" "$new")
        bin=${bins[$b]}
        IFS='|' read -r first status <"$work/$b.last"
        snapshots=$(sed -n 's/.* in \([0-9]*\) snapshots.*/\1/p' <<<"$first")
        loops=$(sed -n 's/.* after \([0-9]*\) loops.*/\1/p' <<<"$first")
        ms=$(median <"$work/$b.times")
        printf '| %s | %s | %d.%02d | %s | %s | %s |\n' "$name" "$bin" $((ms / 1000)) $((ms % 1000 / 10)) \
            "${snapshots:-?}" "${loops:-?}" "$status"
    done
done
