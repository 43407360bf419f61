#!/usr/bin/env bash
# Runs every corpus scenario (tests/corpus and, when setup fetched them, the library scenarios
# of tests/corpus/libs) RUNS times (default 10), each run a fresh `heapgrowth run` process, and
# checks that each scenario gets the same verdict every time: the exit status and the growing
# paths (their last steps). Prints one line per scenario and exits 1 if any verdict differed.
#
#   scripts/stability.sh            # all scenarios, 10 runs each
#   scripts/stability.sh 3 Caffeine # 3 runs of the scenarios whose name contains "Caffeine"
#   PARALLEL=4 scripts/stability.sh 100 AsyncExecutor
#                                   # 4 runs at once, as on a CI machine that runs tests in
#                                   # parallel: threads that were woken wait for a CPU
#
# Opt-in (not part of scripts/test.sh): the full set takes about 10 minutes on 2 cores. CI runs
# the scenarios that involve threads, caches or timing 10 times (tests/end_to_end/stability.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
filter=${2:-}
parallel=${PARALLEL:-1}
[[ "$parallel" =~ ^[1-9][0-9]*$ ]] || { echo "stability: PARALLEL must be a whole number of at least 1, not '$parallel'" >&2; exit 2; }

cargo build --release --locked --bin heapgrowth
bin=target/release/heapgrowth
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

javac --release 17 -nowarn -d "$work/corpus" $(find tests/corpus/src -name '*.java')
scenarios=$(cd tests/corpus/src && find corpus/leaks corpus/clean corpus/attribution -name '*.java' | sort | sed 's/\.java$//; s|/|.|g')
classpath=$work/corpus
if compgen -G "target/corpus-libs/*.jar" >/dev/null; then
    jars=$(ls target/corpus-libs/*.jar | paste -sd:)
    javac --release 17 -nowarn -cp "$jars" -d "$work/libs" $(find tests/corpus/libs/src -name '*.java')
    scenarios="$scenarios $(cd tests/corpus/libs/src && find corpus -name '*.java' | sort | sed 's/\.java$//; s|/|.|g')"
    classpath=$classpath:$work/libs:$jars
else
    echo "stability: no target/corpus-libs (run scripts/setup.sh): library scenarios skipped" >&2
fi

unstable=0
started=$(date +%s)
for scenario in $scenarios; do
    if [[ -n "$filter" && "$scenario" != *"$filter"* ]]; then
        continue
    fi
    verdicts=$work/verdicts
    : >"$verdicts"
    scenario_started=$(date +%s)
    for run in $(seq "$runs"); do
        (
            set +e
            output=$("$bin" run --classpath "$classpath" --scenario "$scenario" --no-attribution 2>/dev/null)
            status=$?
            set -e
            growing=$(grep '^╰→' <<<"$output" | sed 's/ ([0-9]* objects)$//' | sort | paste -sd';' - || true)
            echo "exit $status: ${growing:-nothing grows}" >>"$verdicts"
        ) &
        if (( run % parallel == 0 )); then
            wait
        fi
    done
    wait
    distinct=$(sort -u "$verdicts" | wc -l)
    seconds=$(($(date +%s) - scenario_started))
    if [ "$distinct" -eq 1 ]; then
        echo "stable   ${seconds}s  $scenario: $(head -n1 "$verdicts")"
    else
        unstable=1
        echo "UNSTABLE ${seconds}s  $scenario:"
        sort "$verdicts" | uniq -c | sed 's/^/    /'
    fi
done
echo "stability: $runs runs per scenario, $parallel at a time, in $(($(date +%s) - started)) s"
exit "$unstable"
