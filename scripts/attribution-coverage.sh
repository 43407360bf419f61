#!/usr/bin/env bash
# Attribution coverage (issue 32): runs every leak scenario of the corpus
# (tests/corpus/src/corpus/{leaks,attribution}, `Expected: LEAK` in the header; the clean twins
# say `Expected: CLEAN` and are skipped) and of the real-library scenarios
# (tests/corpus/libs/src/corpus/libs) once, with attribution, on the JDK of JAVA_HOME (the `java`
# on PATH when unset), and classifies each growing node by its first stack's place to look:
#
#   GROWS        at a line marked `// GROWS` (the user's line that adds: what the issue asks)
#   ALLOCATED    at a line marked `// ALLOCATED` (where the objects are made)
#   VIA          at a line marked `// VIA` (a call further up the growing call's stack)
#   elsewhere    another line of the corpus (the scenario's or its app classes' code)
#   outside      a frame that is not the user's code (origin not `user`)
#   not attributed: the reason's first words
#
# A scenario with no growing node is one row `not detected` (exit status in the row). Prints a
# Markdown table, one row per node, then the counts. Release binary, `nice -n 19`, JSON reports;
# the classes are compiled once. Opt-in (not part of scripts/test.sh); about 15-25 minutes on 2
# busy cores. Results: docs/bench.md "Attribution coverage (issue 32)".
#
#   [JAVA_HOME=JDK] scripts/attribution-coverage.sh [KEEP_DIR] [SCENARIO_FILTER]
#
# KEEP_DIR, if given, keeps each scenario's JSON report (SCENARIO.json) and stderr there.
# SCENARIO_FILTER, if given, is an extended regular expression: only matching class names run.
# COVERAGE_ARGS, if set, are more arguments for `heapgrowth run` (e.g. `--no-agent`, to see the
# reasons given without the agent).
set -euo pipefail
cd "$(dirname "$0")/.."
keep=${1:-}
filter=${2:-.}
bin=target/release/heapgrowth
# Built without JAVA_HOME: the jni crate's build script reads it, and a change rebuilds.
(unset JAVA_HOME; nice -n 19 cargo build --release --locked --bin heapgrowth) >&2
[ -f target/corpus-libs/.fetched ] || { echo "run scripts/setup.sh first (library jars)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -z "$keep" ] || mkdir -p "$keep"
jars=$(ls target/corpus-libs/*.jar | paste -sd:)
nice -n 19 javac --release 17 -nowarn -cp "$jars" -d "$work/classes" \
    $(find tests/corpus/src tests/corpus/libs/src -name '*.java') 2>/dev/null

java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jdk=$("$java" -version 2>&1 | head -1)

# The leak scenarios, as class names.
scenarios=()
for file in tests/corpus/src/corpus/leaks/*.java tests/corpus/src/corpus/attribution/*.java \
    tests/corpus/libs/src/corpus/libs/*.java; do
    grep -qE '^ \* Expected: +LEAK' "$file" || continue
    class=${file#*src/}
    class=${class%.java}
    class=${class//\//.}
    [[ $class =~ $filter ]] || continue
    scenarios+=("$class")
done

# One row per growing node of a JSON report; the classification reads the marked lines of the
# corpus sources (a frame's file name and the package of its class give the source file).
classify='import json, os, sys
scenario, code, path = sys.argv[1], sys.argv[2], sys.argv[3]
roots = ["tests/corpus/src", "tests/corpus/libs/src"]
def source_line(detail):
    package = detail["class"].rpartition(".")[0].replace(".", "/")
    for root in roots:
        name = os.path.join(root, package, detail["file"] or "")
        if detail["file"] and os.path.isfile(name):
            lines = open(name, encoding="utf-8").read().split("\n")
            if 0 < (detail["line"] or 0) <= len(lines):
                return lines[detail["line"] - 1]
            return ""
    return None
def escape(text):
    return "".join(c if c.isprintable() else "?" for c in text).replace("|", "\\|")
short = scenario.removeprefix("corpus.")
try:
    document = json.load(open(path))
    nodes = document["scenarios"][0]["growing"]
except Exception as error:
    print(f"| {short} | - | error | no report (exit {code}) |")
    sys.exit(0)
if not nodes:
    print(f"| {short} | - | not detected | exit {code} |")
for index, node in enumerate(nodes):
    a = node["attribution"]
    if a["status"] != "attributed":
        words = " ".join(a.get("reason", a["status"]).split()[:10])
        print(f"| {short} | {index} | not attributed | {escape(words)} |")
        continue
    stack = a["stacks"][0]
    look = stack.get("place_to_look")
    look = 0 if look is None else look
    frame, detail = stack["frames"][look], stack["frame_details"][look]
    where = frame[frame.rfind("(") + 1:-1]
    line = source_line(detail) if detail["origin"] == "user" else None
    if line is None:
        what = "outside"
    elif "// GROWS" in line:
        what = "GROWS"
    elif "// ALLOCATED" in line:
        what = "ALLOCATED"
    elif "// VIA" in line:
        what = "VIA"
    else:
        what = "elsewhere"
    kind = escape(a["kind"].removesuffix(" at"))
    print(f"| {short} | {index} | {what} | {kind} at {escape(where)} |")
'

echo "Attribution coverage${COVERAGE_ARGS:+ (${COVERAGE_ARGS})}, $jdk, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| scenario | node | place to look | found |"
echo "|---|---|---|---|"
for scenario in "${scenarios[@]}"; do
    out=${keep:-$work}/$scenario
    set +e
    nice -n 19 "$bin" run --classpath "$work/classes" --classpath "$jars" --scenario "$scenario" \
        --format json ${COVERAGE_ARGS:-} >"$out.json" 2>"$out.stderr"
    code=$?
    set -e
    python3 -c "$classify" "$scenario" "$code" "$out.json" | tee -a "$work/rows"
done
echo
echo "Scenarios: ${#scenarios[@]}; growing nodes by place to look:"
cut -d'|' -f4 "$work/rows" | sed 's/^ *//; s/ *$//' | sort | uniq -c | sort -rn
