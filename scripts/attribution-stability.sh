#!/usr/bin/env bash
# Attribution, the same every run (issue 32): runs each scenario RUNS times (default 10) with
# `--format json` and checks that every run of a leak exits 1 with every growing node
# attributed, the first stack's place to look at the expected line, and the same sequence of
# places to look (every stack of every node, line numbers included) in all runs; every run of a
# clean scenario exits 0. Opt-in (minutes per scenario), not part of scripts/test.sh.
#
#   scripts/attribution-stability.sh [RUNS] [SCENARIO[@MARKER]...]
#
# The expected line of a leak is the `File.java:N` of its header's `Growing call:` or a
# `// GROWS` line of its own source file; `@ALLOCATED` accepts its `// ALLOCATED` lines too
# (growth that only allocation sampling sees, until attribution names the storing call).
# A scenario whose header says `Expected:      CLEAN` must be clean. Without scenarios: the
# issue's list. HEAPGROWTH=path picks the binary (default: this checkout's release build, built
# if needed). Prints one line per scenario and ends with the number that failed; exit 1 if any.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
shift || true
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
    scenarios=(
        corpus.leaks.TimerTaskLeak@ALLOCATED
        corpus.attribution.PoolThreadLocalLeak
        corpus.leaks.CompletableFutureLeak
        corpus.attribution.UuidKeyCacheLeak
        corpus.libs.CaffeineLoaderLambdaLeak@ALLOCATED
        corpus.libs.CaffeineLoaderLambdaBounded
    )
fi
bin=${HEAPGROWTH:-target/release/heapgrowth}
if [ -z "${HEAPGROWTH:-}" ]; then
    nice -n 19 cargo build --release --locked --bin heapgrowth >&2
fi
[ -f target/corpus-libs/.fetched ] || { echo "run scripts/setup.sh first (library jars)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jars=$(ls target/corpus-libs/*.jar | paste -sd:)
javac --release 17 -nowarn -cp "$jars" -d "$work/classes" \
    $(find tests/corpus/src tests/corpus/libs/src -name '*.java') 2>"$work/javac" ||
    { cat "$work/javac" >&2; exit 1; }

# The source file of a scenario class.
source_of() {
    local class=$1 rel=${1//.//}.java
    for root in tests/corpus/src tests/corpus/libs/src; do
        if [ -f "$root/$rel" ]; then
            echo "$root/$rel"
            return
        fi
    done
    echo "no source for $class" >&2
    return 1
}

# Reads the JSON of one run on stdin: prints `ok|<places>` or `bad|<why>`.
judge='import json, re, sys
expected_clean, lines = sys.argv[1] == "clean", set(sys.argv[2].split(",")) - {""}
code = int(sys.argv[3])
try:
    doc = json.load(sys.stdin)
except ValueError as e:
    print(f"bad|exit {code}, no JSON ({e})"); sys.exit()
growing = doc["scenarios"][0].get("growing", [])
if expected_clean:
    print("ok|clean" if code == 0 and not growing else f"bad|exit {code}, {len(growing)} growing node(s)")
    sys.exit()
if code != 1 or not growing:
    print(f"bad|exit {code}, {len(growing)} growing node(s)"); sys.exit()
places = []
for node in growing:
    a = node.get("attribution") or {}
    if a.get("status") != "attributed":
        print("bad|not attributed: " + str(a.get("reason", a))[:120]); sys.exit()
    for stack in a["stacks"]:
        look = stack.get("place_to_look")
        places.append(stack["frames"][look if look is not None else 0])
    first = a["stacks"][0]
    look = first.get("place_to_look")
    frame = first["frames"][look] if look is not None else "(no place to look)"
    where = frame[frame.rfind("(") + 1:-1]
    if where not in lines:
        print(f"bad|first stack looks at {frame}, expected one of {sorted(lines)}"); sys.exit()
print("ok|" + " ; ".join(places))'

failed=0
for spec in "${scenarios[@]}"; do
    scenario=${spec%@*}
    marker=
    [ "$spec" = "$scenario" ] || marker=${spec#*@}
    src=$(source_of "$scenario")
    file=$(basename "$src")
    kind=leak
    grep -q 'Expected: *CLEAN' "$src" && kind=clean
    # File.java:N of the marker lines, and of the header's Growing call.
    lines=$(awk -v f="$file" -v m="$marker" \
        '/\/\/ GROWS/ || (m != "" && index($0, "// " m)) { printf "%s:%d,", f, NR }' "$src")
    lines+=$(sed -n 's/.*Growing call:.*(\([A-Za-z0-9_$]*\.java:[0-9]*\)).*/\1/p' "$src" | head -1)
    : >"$work/results"
    for run in $(seq "$runs"); do
        set +e
        nice -n 19 "$bin" run --classpath "$work/classes" --classpath "$jars" \
            --scenario "$scenario" --format json >"$work/out.json" 2>"$work/err"
        code=$?
        set -e
        python3 -c "$judge" "$kind" "$lines" "$code" <"$work/out.json" >>"$work/results"
    done
    ok=$(grep -c '^ok|' "$work/results" || true)
    sequences=$(grep '^ok|' "$work/results" | sort -u | wc -l)
    if [ "$ok" -eq "$runs" ] && [ "$sequences" -eq 1 ]; then
        verdict="stable"
    else
        verdict="UNSTABLE"
        failed=$((failed + 1))
    fi
    echo "$scenario ($kind): $ok/$runs runs as expected, $sequences distinct sequence(s) of places to look: $verdict"
    sort "$work/results" | uniq -c | sed 's/^/    /'
done
echo "$failed of ${#scenarios[@]} scenario(s) not stable over $runs runs"
[ "$failed" -eq 0 ]
