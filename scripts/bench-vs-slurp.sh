#!/usr/bin/env bash
# Side by side with hprof-slurp (issue 33): on the same saved dumps of the benchmark heap, our
# per-dump analysis and hprof-slurp's class histogram, alternately, ROUNDS rounds; prints each
# run, then per dump the median and range of wall time, peak resident memory (ru_maxrss) and
# peak RssAnon (the process's own memory, sampled every 5 ms from /proc/PID/status) of each,
# and the median and range of the per-round ratio ours / hprof-slurp.
#
#   scripts/bench-vs-slurp.sh [ROUNDS] [DUMP...]
#
# "Ours" is one process of `examples/replay DUMP 1`: the dump parsed into the heap model and
# the path tree built with the growth search's bookkeeping (`GrowthSearch::add_snapshot`),
# what `heapgrowth run` and `diff` do per dump; its wall time is the whole process's (start,
# parse, analysis, unmapping, exit), as hprof-slurp's is. hprof-slurp 0.10.0 is installed
# from crates.io into target/peers if missing. Without DUMPs the script takes (or first
# makes, with examples/bench.rs, one snapshot each) target/bench-dumps/live-10M.hprof and
# live-50M.hprof, the benchmark heap at 10 M and 50 M objects (514 MB and 2.5 GB).
#
# Environment: REPLAY, another build's replay binary (default: this checkout's release build,
# built if missing); DUMPS_DIR for the dumps made. Dumps are read once before the rounds so
# both tools find them in the page cache. Results: docs/bench.md, "Issue 33 ... hprof-slurp".
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/stats.sh
usage="usage: $0 [ROUNDS] [DUMP...]"
rounds=${1:-3}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
shift || true
dumps=("$@")

peers=target/peers
slurp=$peers/bin/hprof-slurp
if [ ! -x "$slurp" ]; then
    echo "installing hprof-slurp 0.10.0 into $peers" >&2
    nice -n 19 cargo install --locked --version 0.10.0 hprof-slurp --root "$peers" >&2
fi
replay=${REPLAY:-target/release/examples/replay}
if [ -z "${REPLAY:-}" ]; then
    nice -n 19 cargo build --release --example replay >&2
fi
[ -x "$replay" ] || { echo "$0: $replay is not an executable replay build" >&2; exit 2; }

if [ ${#dumps[@]} -eq 0 ]; then
    dir=${DUMPS_DIR:-target/bench-dumps}
    mkdir -p "$dir"
    for size in 10M:10000000 50M:50000000; do
        if [ ! -r "$dir/live-${size%%:*}.hprof" ]; then
            echo "making $dir/live-${size%%:*}.hprof" >&2
            HEAPGROWTH_BENCH_SNAPSHOTS=1 HEAPGROWTH_BENCH_KEEP="$dir" \
                nice -n 19 cargo run --release --example bench -- "${size#*:}" >&2
        fi
        dumps+=("$dir/live-${size%%:*}.hprof")
    done
fi
for dump in "${dumps[@]}"; do
    [ -r "$dump" ] || { echo "$0: cannot read $dump" >&2; exit 2; }
done

# Runs a command; prints "wall_s maxrss_kib rss_anon_max_kib". Polls /proc/PID/status.
measure() {
    python3 - "$@" <<'PY'
import os, sys, time, subprocess
started = time.monotonic()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
anon = 0
path = "/proc/%d/status" % child.pid
while True:
    pid, status, usage = os.wait4(child.pid, os.WNOHANG)
    if pid:
        break
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    anon = max(anon, int(line.split()[1]))
    except OSError:
        pass
    time.sleep(0.005)
wall = time.monotonic() - started
if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
    sys.exit("command failed: %s" % " ".join(sys.argv[1:]))
print("%.3f %d %d" % (wall, usage.ru_maxrss, anon))
PY
}

tools=(ours slurp)
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)," \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ours: $replay DUMP 1; hprof-slurp: $("$slurp" --version)"
mb() { awk '{printf "%d\n", $1 / 1024}'; }
for dump in "${dumps[@]}"; do
    cat "$dump" >/dev/null
    objects=$("$replay" "$dump" --objects)
    echo
    echo "== $dump: $objects objects, $(($(stat -c %s "$dump") / 1000000)) MB"
    echo "round  tool  wall_s  maxrss_MB  rss_anon_MB"
    declare -A walls=() rsss=() anons=() ratios=()
    for round in $(seq "$rounds"); do
        # Rotate which runs first, so no tool always finds another's leftovers.
        order=("${tools[@]:$((round % ${#tools[@]}))}" "${tools[@]:0:$((round % ${#tools[@]}))}")
        declare -A wall_of=()
        for tool in "${order[@]}"; do
            if [ "$tool" = slurp ]; then
                read -r wall rss anon < <(measure nice -n 19 "$slurp" "$dump")
            else
                read -r wall rss anon < <(measure nice -n 19 "$replay" "$dump" 1)
            fi
            walls[$tool]+="$wall "; rsss[$tool]+="$rss "; anons[$tool]+="$anon "
            wall_of[$tool]=$wall
            echo "$round  $tool  $wall  $((rss / 1024))  $((anon / 1024))"
        done
        for tool in "${tools[@]}"; do
            [ "$tool" = slurp ] && continue
            ratios[$tool]+="$(awk -v a="${wall_of[$tool]}" -v b="${wall_of[slurp]}" 'BEGIN {printf "%.2f", a / b}') "
        done
    done
    for tool in "${tools[@]}"; do
        lines() { tr ' ' '\n' | sed '/^$/d'; }
        echo "$tool: wall s $(lines <<<"${walls[$tool]}" | median) ($(lines <<<"${walls[$tool]}" | range))," \
            "peak RSS MB $(lines <<<"${rsss[$tool]}" | mb | median) ($(lines <<<"${rsss[$tool]}" | mb | range))," \
            "peak RssAnon MB $(lines <<<"${anons[$tool]}" | mb | median) ($(lines <<<"${anons[$tool]}" | mb | range))," \
            "RssAnon B/object $(lines <<<"${anons[$tool]}" | awk -v n="$objects" '{printf "%.1f\n", $1 * 1024 / n}' | median)"
        [ "$tool" = slurp ] && continue
        echo "  wall $tool / hprof-slurp: median $(lines <<<"${ratios[$tool]}" | median)" \
            "($(lines <<<"${ratios[$tool]}" | range)) over $rounds rounds"
    done
    unset walls rsss anons ratios wall_of
done
