#!/usr/bin/env bash
# A JUnit suite of 50 small @HeapGrowthTest tests (bench/junit-suite: 45 clean, 5 leaking), end
# to end in one test JVM run by the JUnit Platform console launcher, as
# tests/junit/run-launcher.sh runs its tests (the agent and the engine library passed as the
# Gradle plugin passes them), and where its wall time goes:
#
#   outside the tests   JVM start, JUnit discovery and reporting, the JVM's exit: the process's
#                       wall time minus the tests' times in the JUnit XML report
#   dump                the JVM writing the live heap dumps (HotSpotDiagnosticMXBean.dumpHeap,
#                       its full GC included; "of which GC" from the GC log)
#   parse, analysis     reading the dumps and the growth search (the engine's JSON reports)
#   attribution         the attribution phase of the growing nodes (JSON reports)
#   loop bodies         the test methods' own work, over all loops (bench/junit-suite's Loops)
#   explicit GCs        the System.gc() collections the engine asks for a fixed number of loops
#                       before each dump (GC log: Pause Full (System.gc()))
#   rest in the tests   the tests' times less all of the above: settling before dumps, the
#                       JNI calls per loop, the reports (text, JSON, HTML, index.html), the
#                       engine's start per test
#
# A control run of the same 50 methods as plain @Test (each body once, no heapgrowth) is run
# alternately with the suite: the cost of the JVM and JUnit alone.
#
#   scripts/bench-junit-suite.sh [RUNS]     # default 3
#
# Needs CARGO_TARGET_DIR/java/heapgrowth-junit.jar (built by scripts/package-java.sh when
# missing), python3, and JUnit's console launcher (Maven Central, fetched as run-launcher.sh
# does). Results: docs/bench.md ("A JUnit suite of 50 tests").
set -euo pipefail
# Maven's console library ends every run with ESC[0m (a colour reset), even with -B and -q,
# where it is all the output: not on our console.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
cd "$(dirname "$0")/.."
runs=${1:-3}
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [RUNS]" >&2; exit 2; }
target=${CARGO_TARGET_DIR:-target}
jar=$target/java/heapgrowth-junit.jar
[ -f "$jar" ] || scripts/package-java.sh >&2
CONSOLE_VERSION=1.14.1
launcher=${JUNIT_CONSOLE_JAR:-$HOME/.m2/repository/org/junit/platform/junit-platform-console-standalone/$CONSOLE_VERSION/junit-platform-console-standalone-$CONSOLE_VERSION.jar}
if [ ! -f "$launcher" ]; then
    mvn -B -q dependency:get -Dtransitive=false \
        -Dartifact=org.junit.platform:junit-platform-console-standalone:$CONSOLE_VERSION >&2
fi

work=$(mktemp -d)  # mode 700: the engine's dumps go to the test JVM's temporary directory
trap 'rm -rf "$work"' EXIT
sources=$(find bench/junit-suite/src -name '*.java')
javac --release 17 -encoding UTF-8 -Xlint:all -Werror -g -d "$work/classes" -cp "$launcher:$jar" $sources
# The control: the same methods as plain tests.
mkdir -p "$work/control-src"
for source in $sources; do
    sed 's/^import dev\.heapgrowth\.junit\.HeapGrowthTest;/import org.junit.jupiter.api.Test;/; s/@HeapGrowthTest/@Test/' \
        "$source" >"$work/control-src/$(basename "$source")"
done
javac --release 17 -encoding UTF-8 -g -d "$work/control-classes" -cp "$launcher" "$work"/control-src/*.java
jar_path=$(realpath "$jar")
(cd "$work" && unzip -q "$jar_path" 'META-INF/native/linux-x86_64/*')
native=$work/META-INF/native/linux-x86_64
mkdir -p "$work/tmp"

# timed_java OUT_PREFIX JAVA_ARGUMENT...: one launcher JVM; wall ms in OUT_PREFIX.ms. Failing
# tests (the leaks) make the launcher's status 1, which is expected.
timed_java() {
    local prefix=$1 started
    shift
    started=$(date +%s%N)
    # The engine makes its private dump directories in $TMPDIR, the JVM's own temporary files
    # go to java.io.tmpdir: both under $work, which the trap removes.
    TMPDIR=$work/tmp java -Djava.io.tmpdir="$work/tmp" "$@" >"$prefix.log" 2>&1 || true
    echo $(( ($(date +%s%N) - started) / 1000000 )) >"$prefix.ms"
}

: >"$work/rows"
for run in $(seq "$runs"); do
    rm -rf "$work/control-reports" "$work/reports" "$work/gc.log" "$work/loops"
    timed_java "$work/control" -cp "$launcher:$work/control-classes" org.junit.platform.console.ConsoleLauncher \
        --disable-banner --disable-ansi-colors --reports-dir="$work/control-reports" --select-package bench.suite
    timed_java "$work/suite" -agentpath:"$native/libheapgrowth_agent.so" -Dheapgrowth.library="$native/libheapgrowth.so" \
        -Dheapgrowth.reportDir="$work/reports/heapgrowth" -Dbench.loopsFile="$work/loops" -Xlog:gc:file="$work/gc.log" \
        -cp "$launcher:$jar:$work/classes" org.junit.platform.console.ConsoleLauncher \
        --disable-banner --disable-ansi-colors --reports-dir="$work/reports" --select-package bench.suite
    python3 - "$work" "$run" >>"$work/rows" <<'PY'
import glob, json, os, re, sys
import xml.etree.ElementTree as ET

work, run = sys.argv[1], sys.argv[2]


def tests(reports):
    cases = ET.parse(os.path.join(reports, "TEST-junit-jupiter.xml")).getroot().iter("testcase")
    return {c.get("classname") + "." + c.get("name").removesuffix("()"): (float(c.get("time")) * 1e3,
            c.find("failure") is not None or c.find("error") is not None) for c in cases}


suite, control = tests(os.path.join(work, "reports")), tests(os.path.join(work, "control-reports"))
wall = int(open(os.path.join(work, "suite.ms")).read())
control_wall = int(open(os.path.join(work, "control.ms")).read())
phases = dict(dump=0, parse=0, analysis=0, attribution=0, snapshots=0, loops=0)
leaking = set()
for path in glob.glob(os.path.join(work, "reports", "heapgrowth", "*.json")):
    scenario = json.load(open(path))["scenarios"][0]
    for phase in ("dump", "parse", "analysis", "attribution"):
        phases[phase] += sum(scenario["timings_ms"][phase])
    phases["snapshots"] += scenario["snapshots"]
    phases["loops"] += scenario["loops"]
    if scenario["growing"]:
        leaking.add(scenario["scenario"])
body = int(re.search(r"body_ms=(\d+)", open(os.path.join(work, "loops")).read()).group(1))
gc = {"System.gc()": 0.0, "Heap Dump Initiated GC": 0.0, "other": 0.0}
dumped_mb = []  # the heap after each dump's collection: what the dump holds
for line in open(os.path.join(work, "gc.log")):
    pause = re.search(r"Pause .*?([\d.]+)ms$", line)
    if pause:
        cause = next((c for c in gc if c != "other" and c in line), "other")
        gc[cause] += float(pause.group(1))
        after = re.search(r"->(\d+)M", line)
        if cause == "Heap Dump Initiated GC" and after:
            dumped_mb.append(int(after.group(1)))
dumped_mb.sort()
in_tests = sum(ms for ms, _ in suite.values())
known = phases["dump"] + phases["parse"] + phases["analysis"] + phases["attribution"] + body + gc["System.gc()"]
clean_ms = sorted(ms for name, (ms, failed) in suite.items() if name not in leaking)
leak_ms = sorted(ms for name, (ms, failed) in suite.items() if name in leaking)
failed = sum(1 for _, f in suite.values() if f)
print("\t".join([run] + [str(round(v)) for v in [
    len(suite), failed, len(leaking), wall, control_wall, wall - in_tests, in_tests,
    phases["dump"], gc["Heap Dump Initiated GC"], phases["parse"], phases["analysis"], phases["attribution"],
    body, gc["System.gc()"], in_tests - known, phases["snapshots"], phases["loops"],
    clean_ms[len(clean_ms) // 2] if clean_ms else 0, leak_ms[len(leak_ms) // 2] if leak_ms else 0,
    sum(ms for ms, _ in control.values()), dumped_mb[len(dumped_mb) // 2] if dumped_mb else 0]]))
PY
    echo "bench-junit-suite: run $run of $runs: suite $(cat "$work/suite.ms") ms, control $(cat "$work/control.ms") ms" >&2
done

columns=(run tests failed leaking wall control_wall outside in_tests dump dump_gc parse analysis attribution body explicit_gc rest snapshots loops clean_median leak_median control_in_tests dumped_mb)
echo "Per run (ms):"
echo
echo "| run | tests (failed, leaking) | wall | outside the tests | in the tests | dump (of which GC) | parse | analysis | attribution | loop bodies | explicit GCs | rest in the tests | snapshots | loops | clean test, median | leaking test, median | control: wall (in its tests) | heap per dump, MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
while IFS=$'\t' read -r "${columns[@]}"; do
    # shellcheck disable=SC2154
    echo "| $run | $tests ($failed, $leaking) | $wall | $outside | $in_tests | $dump ($dump_gc) | $parse | $analysis | $attribution | $body | $explicit_gc | $rest | $snapshots | $loops | $clean_median | $leak_median | $control_wall ($control_in_tests) | $dumped_mb |"
done <"$work/rows"
echo
echo "Medians of $runs runs (ms; per test: divided by the number of tests):"
echo
echo "| | suite | per test |"
echo "|---|---|---|"
python3 - "$work/rows" "${columns[@]}" <<'PY'
import statistics, sys

path, names = sys.argv[1], sys.argv[2:]
rows = [dict(zip(names, map(float, line.split("\t")))) for line in open(path) if line.strip()]
tests = statistics.median(r["tests"] for r in rows)
labels = [("wall", "wall"), ("outside", "outside the tests (JVM, JUnit)"), ("in_tests", "in the tests"),
          ("dump", "dump"), ("dump_gc", "  of which the dump's GC"), ("parse", "parse"), ("analysis", "analysis"),
          ("attribution", "attribution"), ("body", "loop bodies"), ("explicit_gc", "explicit GCs"),
          ("rest", "rest in the tests"), ("control_wall", "control: wall of the same 50 as plain tests")]
for key, label in labels:
    values = sorted(r[key] for r in rows)
    median = statistics.median(values)
    print(f"| {label} | {median:.0f} ({values[0]:.0f}–{values[-1]:.0f}) | {median / tests:.0f} |")
for key, label in [("clean_median", "a clean test, median"), ("leak_median", "a leaking test, median")]:
    print(f"| {label} | | {statistics.median(r[key] for r in rows):.0f} |")
PY
