#!/usr/bin/env bash
# Runs every corpus scenario (tests/corpus and, when setup fetched them, the library scenarios
# of tests/corpus/libs) RUNS times (default 10), each run a fresh `heapgrowth run` process, and
# checks that each scenario gets the same verdict every time: the exit status and the growing
# paths (their last steps). Prints one line per scenario (with the snapshots per run: fewest,
# median, most) and exits 1 if any verdict differed.
#
#   scripts/stability.sh            # all scenarios, 10 runs each
#   scripts/stability.sh 3 Caffeine # 3 runs of the scenarios whose name contains "Caffeine"
#   PARALLEL=4 scripts/stability.sh 100 AsyncExecutor
#                                   # 4 runs at once, as on a CI machine that runs tests in
#                                   # parallel: threads that were woken wait for a CPU
#   BUSY=2 scripts/stability.sh 10 Timer
#                                   # on a busy machine: 2 CPU-bound processes (one per core
#                                   # of a 2-core runner, as scripts/busy.sh) spin beside the
#                                   # runs, so a thread the scenario's library wakes on its own
#                                   # tick waits for a CPU
#   JVM=1 scripts/stability.sh 10 Netty
#                                   # another JVM beside the runs, allocating and collecting
#                                   # (its GC and JIT threads compete as a second test JVM's do);
#                                   # combines with BUSY
#   BIN=/tmp/heapgrowth-old scripts/stability.sh 10 Timer
#                                   # that binary instead of building target/release/heapgrowth
#                                   # (two builds measured under the same load)
#
# The load starts after the build and the corpus are compiled, and stops when the script ends.
# Opt-in (not part of scripts/test.sh): the full set takes about 10 minutes on 2 cores. CI runs
# the scenarios that involve threads, caches or timing 10 times (tests/end_to_end/stability.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
filter=${2:-}
parallel=${PARALLEL:-1}
busy=${BUSY:-0}
busy_jvm=${JVM:-0}
[[ "$parallel" =~ ^[1-9][0-9]*$ ]] || { echo "stability: PARALLEL must be a whole number of at least 1, not '$parallel'" >&2; exit 2; }
[[ "$busy" =~ ^[0-9]+$ ]] || { echo "stability: BUSY must be a whole number, not '$busy'" >&2; exit 2; }
[[ "$busy_jvm" =~ ^[0-9]+$ ]] || { echo "stability: JVM must be a whole number, not '$busy_jvm'" >&2; exit 2; }

if [ -n "${BIN:-}" ]; then
    bin=$BIN
    [ -x "$bin" ] || { echo "stability: BIN=$bin is not an executable file" >&2; exit 2; }
else
    cargo build --release --locked --bin heapgrowth
    bin=target/release/heapgrowth
fi
work=$(mktemp -d)
load=()
stop_load() {
    [ ${#load[@]} -eq 0 ] || kill "${load[@]}" 2>/dev/null
    wait "${load[@]}" 2>/dev/null
    rm -rf "$work"
}
trap stop_load EXIT
trap 'exit 130' INT TERM

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

for ((i = 0; i < busy; i++)); do
    sh -c 'while :; do :; done' &
    load+=($!)
done
if [ "$busy_jvm" -gt 0 ]; then
    # A service's JVM: keeps about 200,000 small objects live and replaces a tenth of them
    # every millisecond or so, so its collector and JIT run all the time.
    mkdir -p "$work/busy-jvm"
    cat >"$work/busy-jvm/BusyJvm.java" <<'JAVA'
public class BusyJvm {
    public static void main(String[] args) {
        Object[] live = new Object[200_000];
        long sum = 0;
        for (long i = 0; ; i++) {
            live[(int) (i % live.length)] = new long[(int) (i % 16) + 1];
            sum += live[(int) ((i * 7) % live.length)] == null ? 0 : 1;
            if (sum == Long.MIN_VALUE) {
                System.out.println(sum);
            }
        }
    }
}
JAVA
    javac -d "$work/busy-jvm" "$work/busy-jvm/BusyJvm.java"
    for ((i = 0; i < busy_jvm; i++)); do
        java -Xmx256m -cp "$work/busy-jvm" BusyJvm &
        load+=($!)
    done
fi
[ ${#load[@]} -eq 0 ] || echo "stability: load beside the runs: $busy CPU-bound processes, $busy_jvm busy JVMs" >&2

unstable=0
started=$(date +%s)
for scenario in $scenarios; do
    if [[ -n "$filter" && "$scenario" != *"$filter"* ]]; then
        continue
    fi
    verdicts=$work/verdicts
    snapshots=$work/snapshots
    : >"$verdicts"
    : >"$snapshots"
    scenario_started=$(date +%s)
    pids=()
    for run in $(seq "$runs"); do
        (
            set +e
            output=$("$bin" run --classpath "$classpath" --scenario "$scenario" --no-attribution 2>/dev/null)
            status=$?
            set -e
            growing=$(grep '^╰→' <<<"$output" | sed 's/ ([0-9]* objects)$//' | sort | paste -sd';' - || true)
            echo "exit $status: ${growing:-nothing grows}" >>"$verdicts"
            # The snapshots of the run, from its first line ("... after N loops in M snapshots").
            echo "$(grep -om1 'in [0-9]* snapshots' <<<"$output" | tr -dc '0-9')" >>"$snapshots"
        ) &
        pids+=($!)
        # Waits for the runs only: a bare `wait` would wait for the load too.
        if (( run % parallel == 0 )); then
            wait "${pids[@]}"
            pids=()
        fi
    done
    [ ${#pids[@]} -eq 0 ] || wait "${pids[@]}"
    distinct=$(sort -u "$verdicts" | wc -l)
    seconds=$(($(date +%s) - scenario_started))
    counts=$(grep -v '^$' "$snapshots" | sort -n | paste -sd' ' - || true)
    dumps=$(awk '{ n = split($0, c, " "); if (n) printf "snapshots %s/%s/%s", c[1], c[int((n + 1) / 2)], c[n] }' <<<"$counts")
    if [ "$distinct" -eq 1 ]; then
        echo "stable   ${seconds}s  ${dumps:-snapshots ?}  $scenario: $(head -n1 "$verdicts")"
    else
        unstable=1
        echo "UNSTABLE ${seconds}s  ${dumps:-snapshots ?}  $scenario:"
        sort "$verdicts" | uniq -c | sed 's/^/    /'
    fi
done
echo "stability: $runs runs per scenario, $parallel at a time, load: $busy CPU-bound processes and $busy_jvm busy JVMs, in $(($(date +%s) - started)) s"
exit "$unstable"
