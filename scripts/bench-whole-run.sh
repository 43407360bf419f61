#!/usr/bin/env bash
# The whole run, not one snapshot: wall time, snapshots and loops of `heapgrowth run` on a
# clean and a leaking scenario, on a small heap (examples/cart), on a heap of about a million
# live objects (corpus.bench.LiveObjects, with and without its leak) and on a service-shaped
# heap of about a million (corpus.bench.ServiceHeap, with and without its leak), for two
# binaries run alternately (A B A B ...) so that drifts of the machine hit both alike.
#
# For every run it also reads the JSON report's timings and prints the snapshot cost of the
# whole run: (parse + analysis) summed over ALL snapshots of the run, divided by the sum of the
# dump times (issue 16's goal: at most 0.35), with the sums of each phase, the first
# snapshot's ratio alone and the analysis time of each snapshot ("rest" is the wall time less
# the phases: the JVM's start, the scenario's constructor, the loops, settling and the
# collections before dumps). Then the median of RUNS runs (default 5) per binary and scenario.
#
#   scripts/bench-whole-run.sh OLD_BINARY [NEW_BINARY] [RUNS]
#   scripts/bench-whole-run.sh - [NEW_BINARY] [RUNS]     # one binary only: a baseline
#
# NEW_BINARY defaults to this checkout's release build. CASES (environment, optional) keeps the
# cases whose name contains it (CASES="1 M" for the two big heaps' four). Needs jq.
# Results: docs/bench.md.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: $0 OLD_BINARY|- [NEW_BINARY] [RUNS]}
new=${2:-target/release/heapgrowth}
runs=${3:-5}
filter=${CASES:-}
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 OLD_BINARY|- [NEW_BINARY] [RUNS]" >&2; exit 2; }
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 2; }
[ "$new" != target/release/heapgrowth ] || cargo build --release --locked --bin heapgrowth >&2
if [ "$old" = - ]; then bins=("$new"); else bins=("$old" "$new"); fi
work=$(mktemp -d)  # also $TMPDIR of the runs: their dumps' private directories go under it
trap 'rm -rf "$work"' EXIT
javac --release 17 -nowarn -d "$work/cart" $(find examples/cart/src -name '*.java')
javac --release 17 -nowarn -d "$work/corpus" $(find tests/corpus/src -name '*.java')

# name|classpath|scenario|extra arguments
cases=(
    "small clean|$work/cart|com.example.cart.CheckoutOnlyScenario|"
    "small leak|$work/cart|com.example.cart.CartScenario|"
    "1 M clean|$work/corpus|corpus.bench.LiveObjects|--jvm-arg=-Dheapgrowth.bench.ordersPerLoop=0 --jvm-arg=-Xmx4g"
    "1 M leak|$work/corpus|corpus.bench.LiveObjects|--jvm-arg=-Xmx4g"
    "service 1 M clean|$work/corpus|corpus.bench.ServiceHeap|--jvm-arg=-Dheapgrowth.bench.requestsKeptPerLoop=0 --jvm-arg=-Xmx4g"
    "service 1 M leak|$work/corpus|corpus.bench.ServiceHeap|--jvm-arg=-Xmx4g"
)

source scripts/stats.sh
# The run's phase sums from its JSON report: snapshots loops dump parse analysis attribution
# first-snapshot-ratio analysis-per-snapshot parse-per-snapshot.
phases() {
    jq -r '.scenarios[0] | .timings_ms as $t
        | [.snapshots, .loops, ($t.dump | add // 0), ($t.parse | add // 0),
           ($t.analysis | add // 0), ($t.attribution | add // 0),
           (if ($t.dump | length) > 0 and $t.dump[0] > 0
            then (($t.parse[0] + $t.analysis[0]) / $t.dump[0]) else 0 end),
           ($t.analysis | map(tostring) | join("/")),
           ($t.parse | map(tostring) | join("/"))]
        | @tsv' "$1"
}

: >"$work/summary"
echo "Per run (ms; ratio = (parse + analysis) / dump, summed over all snapshots of the run):"
echo
echo "| scenario | binary | run | wall | snapshots | loops | dump | parse | analysis | attribution | rest | ratio | first snapshot's ratio | analysis per snapshot | parse per snapshot |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for case in "${cases[@]}"; do
    IFS='|' read -r name classpath scenario extra <<<"$case"
    if [[ -n "$filter" && "$name" != *"$filter"* ]]; then
        continue
    fi
    for b in "${!bins[@]}"; do : >"$work/$b.times"; : >"$work/$b.ratios"; done
    for run in $(seq "$runs"); do
        for b in "${!bins[@]}"; do
            bin=${bins[$b]}
            rm -f "$work/report.json"
            started=$(date +%s%N)
            set +e
            # shellcheck disable=SC2086
            TMPDIR=$work "$bin" run --classpath "$classpath" --scenario "$scenario" $extra \
                --format json --output "$work/report.json" 2>/dev/null
            status=$?
            set -e
            wall=$(( ($(date +%s%N) - started) / 1000000 ))
            echo "$wall" >>"$work/$b.times"
            if [ -s "$work/report.json" ]; then
                IFS=$'\t' read -r snapshots loops dump parse analysis attribution first each parses <<<"$(phases "$work/report.json")"
            else
                snapshots='?' loops='?' dump=0 parse=0 analysis=0 attribution=0 first=0 each= parses=
            fi
            ratio=$(awk -v d="$dump" -v p="$parse" -v a="$analysis" 'BEGIN {printf "%.2f", (d > 0 ? (p + a) / d : 0)}')
            echo "$ratio" >>"$work/$b.ratios"
            echo "$snapshots|$loops|$status" >"$work/$b.last"
            printf '| %s | %s | %d | %d | %s | %s | %d | %d | %d | %d | %d | %s | %.2f | %s | %s |\n' "$name" "$bin" "$run" \
                "$wall" "$snapshots" "$loops" "$dump" "$parse" "$analysis" "$attribution" \
                $((wall - dump - parse - analysis - attribution)) "$ratio" "$first" "$each" "$parses"
        done
    done
    for b in "${!bins[@]}"; do
        IFS='|' read -r snapshots loops status <"$work/$b.last"
        ms=$(median <"$work/$b.times")
        printf '| %s | %s | %d.%02d | %s | %s | %s | %s (%s) |\n' "$name" "${bins[$b]}" $((ms / 1000)) $((ms % 1000 / 10)) \
            "$snapshots" "$loops" "$status" "$(median <"$work/$b.ratios")" "$(range <"$work/$b.ratios")" >>"$work/summary"
    done
done
echo
echo "Medians of $runs runs (the last run's snapshots, loops and exit status):"
echo
echo "| scenario | binary | median wall s | snapshots | loops | verdict (exit) | (parse+analysis)/dump over the run, median (range) |"
echo "|---|---|---|---|---|---|---|"
cat "$work/summary"
