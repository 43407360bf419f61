#!/usr/bin/env bash
# The cost of attribution per growing node: the attribution phase's wall time (JSON
# timings_ms.attribution: recorder in place, its loops, recorder removed) and what it found, for
# two binaries run alternately (A B A B ...) on scenarios that need each kind of recorder. Prints
# the median of RUNS runs (default 5) per binary and scenario, with the kind or the start of the
# reason of the last run.
#
#   scripts/bench-attribution.sh OLD_BINARY [NEW_BINARY] [RUNS]
#   ONLY='StaticList|Churn' scripts/bench-attribution.sh ...   (the cases whose scenario matches)
#
# NEW_BINARY defaults to this checkout's release build. Results: docs/bench.md.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: $0 OLD_BINARY [NEW_BINARY] [RUNS]}
new=${2:-target/release/heapgrowth}
runs=${3:-5}
[ "$new" != target/release/heapgrowth ] || cargo build --release --locked --bin heapgrowth >&2
[ -f target/corpus-libs/.fetched ] || { echo "run scripts/setup.sh first (library jars)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jars=$(ls target/corpus-libs/*.jar | paste -sd:)
javac --release 17 -nowarn -cp "$jars" -d "$work/classes" \
    $(find tests/corpus/src tests/corpus/libs/src -name '*.java')

# name|scenario (each has one growing node; the recorder today in brackets)
cases=(
    "list in an interface field [container watch]|corpus.leaks.StaticListLeak"
    "array grown by hand [field watch]|corpus.leaks.ArrayGrownByHandLeak"
    "thread local [container watch]|corpus.leaks.ThreadLocalLeak"
    "final array slots [allocation sampling]|corpus.attribution.PreallocatedSlotsLeak"
    "map filled on the common pool [allocation sampling]|corpus.leaks.CompletableFutureLeak"
    "stack local of a worker [container watch]|corpus.leaks.WorkerBatchLeak"
    "Guava cache [allocation sampling]|corpus.libs.GuavaCacheLeak"
    "Caffeine cache [allocation sampling]|corpus.libs.CaffeineUnboundedLeak"
    "churn beside a kept item [allocation sampling]|corpus.attribution.SampledChurnLeak"
    "churn beside 3 CAS containers, 3 nodes [allocation sampling]|corpus.attribution.ChurnBesideSurvivorLeak"
    "Guava interner among churn [allocation sampling]|corpus.libs.GuavaInternerChurnLeak"
)

source scripts/stats.sh
summary='import json,sys
d=json.load(sys.stdin)
n=d["scenarios"][0]["growing"][0]
a=n["attribution"]
ms=sum(d["scenarios"][0]["timings_ms"]["attribution"])
if a["status"]=="attributed":
    s=a["stacks"][0]; i=s.get("place_to_look"); f=s["frames"][i if i is not None else 0]
    what=a["kind"].removesuffix(" at")+" at "+f[f.rfind("(")+1:-1]
else:
    what="not attributed: "+a["reason"][:60]
print(ms, what, sep="|")'

echo "| node | binary | median attribution ms | found (last run) |"
echo "|---|---|---|---|"
for case in "${cases[@]}"; do
    IFS='|' read -r name scenario <<<"$case"
    # ONLY=regex: the cases whose scenario matches, for a shorter run.
    [[ -z "${ONLY:-}" || "$scenario" =~ $ONLY ]] || continue
    : >"$work/0.times"
    : >"$work/1.times"
    for _ in $(seq "$runs"); do
        for b in 0 1; do
            bins=("$old" "$new")
            set +e
            "${bins[$b]}" run --classpath "$work/classes" --classpath "$jars" --scenario "$scenario" \
                --format json 2>/dev/null | python3 -c "$summary" >"$work/$b.last"
            set -e
            cut -d'|' -f1 <"$work/$b.last" >>"$work/$b.times"
        done
    done
    for b in 0 1; do
        bins=("$old" "$new")
        printf '| %s | %s | %s | %s |\n' "$name" "${bins[$b]}" "$(median <"$work/$b.times")" \
            "$(cut -d'|' -f2 <"$work/$b.last")"
    done
done
