#!/usr/bin/env bash
# What `watch --jfr` costs the watched JVM next to `watch`'s live heap dumps, on the same big
# heap, and how fast the JFR reader is per MB (issue 15). Results: docs/bench.md, "watch --jfr".
#
#   scripts/bench-jfr.sh [RUNS] [SIZES]     # SIZES default "256:1000000 1024:10000000"
#
# Each size is MB of long[] ballast and a count of small objects (int[1], one reference each
# from one array), built before the recording starts. The service leaks sessions into a static
# list for its first 25 s (so the sample queue holds survivors), then idles: the JVM's CPU time
# around a request is then the request's. For each size, examples/bench_jfr.rs attaches as
# heapgrowth does, waits 30 s for samples (the service idles by then), then RUNS times
# (default 5) in turn dumps the recording with paths to GC roots and reads it, and takes a
# live heap dump; the JVM's
# safepoint log (-Xlog:safepoint) gives the pause of each (JFROldObject, HeapDumper: the
# heap dump's full collection runs inside its safepoint). Medians and ranges.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
sizes=${2:-"256:1000000 1024:10000000"}
cargo build --release --locked --example bench_jfr >&2
bench=target/release/examples/bench_jfr
work=$(mktemp -d)
chmod 700 "$work"
service_pid=
cleanup() {
    [ -n "$service_pid" ] && kill "$service_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/JfrBench.java" <<'EOF'
import java.util.*;
public class JfrBench {
    static final class Session { final byte[] payload = new byte[4096]; }
    static final List<Session> SESSIONS = new ArrayList<>();
    static long[][] ballast;
    static Object[] graph;
    static volatile Object sink;
    public static void main(String[] args) throws Exception {
        ballast = new long[Integer.parseInt(args[0])][];
        for (int i = 0; i < ballast.length; i++) ballast[i] = new long[1 << 17];
        graph = new Object[Integer.parseInt(args[1])];
        for (int i = 0; i < graph.length; i++) graph[i] = new int[] { i };
        System.out.println("ready");
        System.out.flush();
        long until = System.nanoTime() + 25_000_000_000L;
        while (System.nanoTime() < until) {
            for (int i = 0; i < 4; i++) SESSIONS.add(new Session());
            for (int i = 0; i < 160; i++) sink = new byte[1024];
            Thread.sleep(10);
        }
        Thread.sleep(Long.MAX_VALUE);
    }
}
EOF

stats() { sort -n | awk '{a[NR]=$1} END {printf "%s|%s|%s\n", a[int((NR+1)/2)], a[1], a[NR]}'; }
# "median (low–high)" of column $2 of the lines of $1 whose first field is $3, divided by $4.
column() {
    IFS='|' read -r m lo hi < <(awk -F'\t' -v k="$3" -v c="$2" -v d="$4" '$1 == k {printf "%.2f\n", $c / d}' "$1" | stats)
    echo "$m ($lo–$hi)"
}
# Pauses (s) of the safepoint operation $2 in the log $1 ("Total: N ns"): of each heap dump,
# and of the JFR dump just before each (the recording's start and the reader's dumps have
# JFROldObject safepoints too).
pauses() {
    awk -v op="$2" '/Safepoint "JFROldObject"/ {match($0, /Total: [0-9]+/); jfr = substr($0, RSTART + 7, RLENGTH - 7)}
        /Safepoint "HeapDumper"/ {match($0, /Total: [0-9]+/); heap = substr($0, RSTART + 7, RLENGTH - 7);
            printf "%.2f\n", (op == "HeapDumper" ? heap : jfr) / 1e9}' "$1"
}

echo "| heap | request | file | samples | wall s | pause s (safepoint) | JVM CPU s |"
echo "|---|---|---|---|---|---|---|"
reader="$work/reader"
: >"$reader"
for size in $sizes; do
    ballast=${size%%:*}
    objects=${size##*:}
    log="$work/safepoint-$ballast.log"
    java -Xmx$((ballast * 2 + objects / 20000 + 512))m -Xmn64m -Xlog:safepoint:file="$log" \
        "$work/JfrBench.java" "$ballast" "$objects" >"$work/out" 2>&1 &
    service_pid=$!
    until grep -q ready "$work/out" 2>/dev/null; do sleep 0.5; done
    "$bench" "$service_pid" "$runs" 30 >"$work/results"
    # The raw numbers, for a second look.
    { cat "$work/results"; grep -E 'JFROldObject|HeapDumper' "$log"; } >&2
    kill "$service_pid"
    wait "$service_pid" 2>/dev/null || true
    service_pid=
    heap="$ballast MiB + $((objects / 1000000)) M objects"
    IFS='|' read -r jp jplo jphi < <(pauses "$log" JFROldObject | stats)
    IFS='|' read -r hp hplo hphi < <(pauses "$log" HeapDumper | stats)
    jfr_kb=$(awk -F'\t' '$1 == "jfr-dump" {print int($4 / 1000)}' "$work/results" | stats | cut -d'|' -f1)
    samples=$(awk -F'\t' '$1 == "jfr-dump" {print $5}' "$work/results" | stats | cut -d'|' -f1)
    heap_mb=$(awk -F'\t' '$1 == "heap-dump" {print int($4 / 1000000)}' "$work/results" | stats | cut -d'|' -f1)
    echo "| $heap | JFR.dump path-to-gc-roots=true | $jfr_kb KB | $samples | $(column "$work/results" 2 jfr-dump 1000) | $jp ($jplo–$jphi) | $(column "$work/results" 3 jfr-dump 1000) |"
    echo "| $heap | read it (jfr print --json, parsed) | | | $(column "$work/results" 6 jfr-dump 1000) | none | none |"
    echo "| $heap | live heap dump | $heap_mb MB | | $(column "$work/results" 2 heap-dump 1000) | $hp ($hplo–$hphi) | $(column "$work/results" 3 heap-dump 1000) |"
    grep '^read' "$work/results" >>"$reader"
done

echo
echo "Reader: jfr print --json on recordings that keep every dump (each file holds all the dumps before it)"
echo
echo "| file MB | samples | read ms |"
echo "|---|---|---|"
sort -t$'\t' -k2 -n "$reader" | awk -F'\t' 'NR % 6 == 1 {printf "| %.2f | %d | %d |\n", $2 / 1e6, $3, $4}'
awk -F'\t' '{x = $2 / 1e6; y = $4; n++; sx += x; sy += y; sxx += x * x; sxy += x * y}
    END {b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n;
         printf "\nLeast squares over %d reads: %.0f ms + %.0f ms per MB\n", n, a, b}' "$reader"
