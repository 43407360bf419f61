#!/usr/bin/env bash
# `heapgrowth diff` on the dumps of a whole run, at about 1 M and 5 M live objects: wall time
# and peak memory (the process's maximum resident set, from /usr/bin/time, which includes the
# pages of the memory-mapped dump it touched) of a diff of all the dumps a run took and of its
# first three, RUNS times each (default 5), medians and ranges.
#
#   scripts/bench-diff.sh [RUNS] [SIZES]      # SIZES default "1000000 5000000"
#
# The dumps come from `heapgrowth run --keep-dumps all` on corpus.bench.LiveObjects (its
# leak of 5 orders per loop) into a private temporary directory, deleted on exit. Results:
# docs/bench.md, "diff".
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
sizes=${2:-"1000000 5000000"}
bin=target/release/heapgrowth
cargo build --release --locked --bin heapgrowth >&2
work=$(mktemp -d)
chmod 700 "$work"
trap 'rm -rf "$work"' EXIT
javac --release 17 -nowarn -d "$work/corpus" $(find tests/corpus/src -name '*.java') 2>/dev/null

stats() { sort -n | awk '{a[NR]=$1} END {printf "%s|%s|%s\n", a[int((NR+1)/2)], a[1], a[NR]}'; }

echo "| heap | dumps | dump MB each | median s (range) | median peak RSS MB (range) | peak RSS − one dump, B/object |"
echo "|---|---|---|---|---|---|"
for size in $sizes; do
    kept="$work/kept-$size"
    "$bin" run --classpath "$work/corpus" --scenario corpus.bench.LiveObjects \
        --jvm-arg=-Dheapgrowth.bench.objects="$size" --jvm-arg=-Xmx6g \
        --no-attribution --keep-dumps all --keep-dumps-dir "$kept" >/dev/null 2>&1 || true
    dumps=("$kept"/corpus.bench.LiveObjects/*.hprof)
    [ -f "${dumps[0]}" ] || { echo "no dumps kept for $size" >&2; exit 2; }
    # Objects in the last dump: the heap model's count, as the reader sees it.
    objects=$(cargo run --release --quiet --example replay -- "${dumps[-1]}" --objects 2>/dev/null)
    dump_bytes=$(stat -c %s "${dumps[-1]}")
    for count in ${#dumps[@]} 3; do
        : >"$work/s"; : >"$work/m"
        for _ in $(seq "$runs"); do
            /usr/bin/time -f "%e %M" -o "$work/t" "$bin" diff "${dumps[@]:0:$count}" >/dev/null 2>&1 || true
            # The last line: time also writes "Command exited with non-zero status 1" (growth).
            read -r secs kb < <(tail -n 1 "$work/t")
            echo "$secs" >>"$work/s"
            echo "$kb" >>"$work/m"
        done
        IFS='|' read -r s s_lo s_hi < <(stats <"$work/s")
        IFS='|' read -r kb kb_lo kb_hi < <(stats <"$work/m")
        per_object=$(awk -v kb="$kb" -v d="$dump_bytes" -v n="$objects" 'BEGIN {printf "%.1f", (kb * 1024 - d) / n}')
        printf '| %s objects | %d | %d | %s (%s–%s) | %d (%d–%d) | %s |\n' "$objects" "$count" \
            $((dump_bytes / 1000000)) "$s" "$s_lo" "$s_hi" $((kb / 1024)) $((kb_lo / 1024)) $((kb_hi / 1024)) "$per_object"
    done
    rm -rf "$kept"
done
