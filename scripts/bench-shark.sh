#!/usr/bin/env bash
# Side by side with shark: the same heap dumps through shark 3.0-alpha-8's heap-growth
# detection (bench/shark/SharkHeapGrowth.java: what `shark-cli heap-growth` does with a
# directory of dumps, with the JVM detector) and through heapgrowth's GrowthSearch
# (examples/series.rs), alternately (shark, heapgrowth, shark, heapgrowth, ...) so that drifts
# of the machine hit both alike. Prints the median and range of RUNS runs of each, and the
# ratios shark / heapgrowth of time and of peak memory.
#
#   scripts/bench-shark.sh [RUNS] [HEAPS]
#
# RUNS: runs of each tool per comparison (default 3: one shark traversal of a 1 M-object dump
# takes 20 to 280 s here). HEAPS: "live" (default: corpus.bench.LiveObjects), "service"
# (corpus.bench.ServiceHeap) or "live service". For each heap, examples/bench.rs builds a heap
# of about 1 M live objects and keeps its 3 snapshots, two loops apart; the comparisons are the
# first two dumps and all three.
#
# Environment: HEAPGROWTH_BENCH_CACHE (default ~/.cache/heapgrowth-bench) holds shark's jars,
# fetched from Maven Central by Maven (bench/shark/pom.xml lists them) on the first run;
# SHARK_XMX (default 4g) is shark's -Xmx; HEAPGROWTH_BENCH_OBJECTS (default 1000000).
#
# Memory, what each figure is:
#   shark after-GC MB   the most Java heap in use right after any collection (GC notifications,
#                       heap pools): about the most shark needed at once, a lower bound of the
#                       heap it needs (bench/shark/SharkHeapGrowth.java says why)
#   heapgrowth peak MB  the most heap memory its Rust allocations held at once (a counting
#                       allocator); the mapped dumps are not counted
#   RSS MB              the process's peak resident set (/usr/bin/time): the JVM's own memory
#                       and shark's committed heap on one side, the touched pages of the mapped
#                       dump on the other
# The dumps are written to a private temporary directory and deleted on exit. Results:
# docs/bench.md ("Side by side with shark").
set -euo pipefail
# Maven's console library ends every run with ESC[0m (a colour reset), even with -B and -q,
# where it is all the output: not on our console.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
cd "$(dirname "$0")/.."
runs=${1:-3}
heaps=${2:-live}
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [RUNS] [HEAPS]" >&2; exit 2; }
for heap in $heaps; do
    [[ "$heap" == live || "$heap" == service ]] || { echo "$0: HEAPS are live and/or service, not $heap" >&2; exit 2; }
done
objects=${HEAPGROWTH_BENCH_OBJECTS:-1000000}
xmx=${SHARK_XMX:-4g}
cache=${HEAPGROWTH_BENCH_CACHE:-$HOME/.cache/heapgrowth-bench}
target=${CARGO_TARGET_DIR:-target}

# Shark and its runtime dependencies, resolved from their poms by Maven.
jars=$cache/shark-3.0-alpha-8
if [ ! -f "$jars/.fetched" ] || [ bench/shark/pom.xml -nt "$jars/.fetched" ]; then
    rm -rf "$jars"
    mkdir -p "$jars"
    mvn -B -q -f bench/shark/pom.xml dependency:copy-dependencies -DoutputDirectory="$jars" >&2
    touch "$jars/.fetched"
fi
classpath=$(ls "$jars"/*.jar | paste -sd:)

work=$(mktemp -d)  # mode 700: the dumps hold every secret of the benchmark's heap
trap 'rm -rf "$work"' EXIT
javac --release 17 -Xlint:all -Werror -cp "$classpath" -d "$work/classes" bench/shark/SharkHeapGrowth.java
cargo build --release --locked --example bench --example series >&2
series=$target/release/examples/series

source scripts/stats.sh
# value KEY FILE: the value of the last `KEY=value` in FILE, or nothing.
value() { { grep -o "$1=[0-9.]*" "$2" || true; } | tail -n1 | cut -d= -f2; }
# timed OUT CMD...: runs CMD with stdout to OUT and records wall seconds and peak RSS (KB) in
# OUT.time.
timed() {
    local out=$1
    shift
    /usr/bin/time -f '%e %M' -o "$out.time" "$@" >"$out"
}

echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo);" \
    "$(java -version 2>&1 | head -n1); shark 3.0-alpha-8 with -Xmx$xmx; $runs runs each, alternating."
echo
echo "| heap | dumps | tool | time s, median (range) | peak memory MB, median (range) | peak RSS MB, median (range) | dumps read | growing |"
echo "|---|---|---|---|---|---|---|---|"
ratios=()
for heap in $heaps; do
    mkdir -p "$work/dumps"
    TMPDIR=$work HEAPGROWTH_BENCH_KEEP=$work/dumps "$target/release/examples/bench" --heap "$heap" "$objects" >"$work/bench.out"
    stem=$(cd "$work/dumps" && ls ./*-1.hprof | sed 's|^\./||; s/-1\.hprof$//')
    for count in 2 3; do
        dumps=()
        for i in $(seq "$count"); do dumps+=("$work/dumps/$stem-$i.hprof"); done
        for tool in shark heapgrowth; do : >"$work/$tool.ms"; : >"$work/$tool.mb"; : >"$work/$tool.rss"; done
        : >"$work/ratio.ms"
        : >"$work/ratio.mb"
        for run in $(seq "$runs"); do
            timed "$work/shark.out" java "-Xmx$xmx" -cp "$classpath:$work/classes" SharkHeapGrowth 2 "${dumps[@]}"
            timed "$work/heapgrowth.out" "$series" 2 "${dumps[@]}"
            value total_ms "$work/shark.out" >>"$work/shark.ms"
            value max_after_gc_mb "$work/shark.out" >>"$work/shark.mb"
            value total_ms "$work/heapgrowth.out" >>"$work/heapgrowth.ms"
            value peak_mb "$work/heapgrowth.out" >>"$work/heapgrowth.mb"
            for tool in shark heapgrowth; do
                awk '{printf "%.0f\n", $2 / 1000}' "$work/$tool.out.time" >>"$work/$tool.rss"
            done
            awk -v s="$(value total_ms "$work/shark.out")" -v h="$(value total_ms "$work/heapgrowth.out")" \
                'BEGIN {printf "%.0f\n", s / h}' >>"$work/ratio.ms"
            awk -v s="$(value max_after_gc_mb "$work/shark.out")" -v h="$(value peak_mb "$work/heapgrowth.out")" \
                'BEGIN {printf "%.1f\n", s / h}' >>"$work/ratio.mb"
            echo "bench-shark: $heap, $count dumps, run $run of $runs:" \
                "shark $(tail -n1 "$work/shark.ms") ms, heapgrowth $(tail -n1 "$work/heapgrowth.ms") ms" >&2
        done
        for tool in shark heapgrowth; do
            ms_median=$(median <"$work/$tool.ms")
            growing=$(grep -c '^growing: ' "$work/$tool.out" || true)
            # Shark stops at the first diff that finds nothing growing, as its CLI does.
            read_dumps=$(value traversals "$work/$tool.out")
            printf '| %s | %d | %s | %.2f (%s) | %s (%s) | %s (%s) | %s | %s |\n' "$stem" "$count" "$tool" \
                "$(awk -v m="$ms_median" 'BEGIN {print m / 1000}')" \
                "$(awk '{printf "%.2f\n", $1 / 1000}' "$work/$tool.ms" | range)" \
                "$(median <"$work/$tool.mb")" "$(range <"$work/$tool.mb")" \
                "$(median <"$work/$tool.rss")" "$(range <"$work/$tool.rss")" "${read_dumps:-$count}" "$growing"
        done
        ratios+=("| $stem | $count | $(median <"$work/ratio.ms") ($(range <"$work/ratio.ms")) | $(median <"$work/ratio.mb") ($(range <"$work/ratio.mb")) |")
    done
    rm -rf "$work/dumps"
done
echo
echo "Ratios shark / heapgrowth, per pair of runs (median and range):"
echo
echo "| heap | dumps | time | peak memory (shark after-GC / heapgrowth peak) |"
echo "|---|---|---|---|"
printf '%s\n' "${ratios[@]}"
