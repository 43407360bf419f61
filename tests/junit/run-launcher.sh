#!/usr/bin/env bash
# JUnit tests of tests/junit/launcher, each run in a plain test JVM by the JUnit Platform console
# launcher (no build tool between the JVM and the script), on the packaged extension jar:
#   files     a baseline or ignore file that is a directory or not UTF-8 fails the test with
#             exactly one line naming the file and what is wrong; a rewrite leaves such a file
#             as it was; so does a report path that is a directory (the engine writes reports)
#   parallel  under junit.jupiter.execution.parallel (mode concurrent), a leak, a clean test
#             and a busy neighbour that holds more and more memory: the clean test passes, the
#             leak fails with its own line marked and nothing of the neighbour's
#   gate      a baseline accepted with the agent keeps passing without it, after a comment line
#             moved the growing code, and when written without the agent; a node it lacks fails;
#             the project's heapgrowth-ignore.txt silences one path and not the other;
#             heapgrowth.keepDumps=failed keeps the failing test's last two dumps, owner-only;
#             each test's HTML page draws in headless Chromium, index.html links them all
#   skip      heapgrowth.skip=true, and a platform the jar has no engine for (os.arch set to
#             aarch64): each heap-growth test is skipped with one line saying why, a plain test
#             beside it still runs; without either, the same leak fails; a time budget that
#             ends the search before it could judge skips the test too, saying so
#   signals   SIGTERM, then SIGHUP, sent when a heap dump file appears in the test JVM's
#             private $TMPDIR: the JVM ends with the signal's status and $TMPDIR holds what it
#             held before (no dump, no extracted engine library)
# usage: run-launcher.sh [files|parallel|gate|skip|signals]...   (default: all five)
#        ROUNDS=N runs parallel and signals N times (default 1)
# JUNIT_CONSOLE_JAR: the launcher (default Maven Central's junit-platform-console-standalone
# 1.14.1, the JUnit of the Maven sample, fetched into the local Maven repository if missing).
set -euo pipefail
# Maven's console library ends every run with ESC[0m (a colour reset), even with -B and -q,
# where it is all the output: not on our console.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
cd "$(dirname "$0")"
here=$PWD
jar=${CARGO_TARGET_DIR:-$here/../../target}/java/heapgrowth-junit.jar
[ -f "$jar" ] || { echo "run-launcher: $jar missing; run scripts/package-java.sh" >&2; exit 1; }
fail() { echo "run-launcher: $*" >&2; exit 1; }
rounds=${ROUNDS:-1}
sections=("$@")
[ ${#sections[@]} -gt 0 ] || sections=(files parallel gate skip signals)

CONSOLE_VERSION=1.14.1
launcher=${JUNIT_CONSOLE_JAR:-$HOME/.m2/repository/org/junit/platform/junit-platform-console-standalone/$CONSOLE_VERSION/junit-platform-console-standalone-$CONSOLE_VERSION.jar}
if [ ! -f "$launcher" ]; then
    mvn -B -q dependency:get -Dtransitive=false \
        -Dartifact=org.junit.platform:junit-platform-console-standalone:$CONSOLE_VERSION
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The gate section compiles its own sources (it edits them).
javac --release 17 -encoding UTF-8 -g -d "$work/classes" -cp "$launcher:$jar" \
    $(find launcher/src -name '*.java' -not -path '*/gate/*')
# The engine and the agent as the Gradle plugin passes them (-Dheapgrowth.library, -agentpath:).
(cd "$work" && unzip -q "$jar" 'META-INF/native/linux-x86_64/*')
native=$work/META-INF/native/linux-x86_64

# run_tests LOG REPORTS CLASSPATH_EXTRA JVM_OPTION... -- LAUNCHER_OPTION...: one test JVM; its
# status is not checked (failing tests are expected), the JUnit XML in REPORTS is.
run_tests() {
    local log=$1 reports=$2 extra=$3 jvm=() rest
    shift 3
    while [ "$1" != -- ]; do jvm+=("$1"); shift; done
    shift
    rm -rf "$reports"
    java "${jvm[@]}" -cp "$launcher:$jar:$work/classes$extra" org.junit.platform.console.ConsoleLauncher \
        --disable-banner --disable-ansi-colors --reports-dir="$reports" "$@" >"$log" 2>&1 || true
}
check() { python3 "$here/check_results.py" "$@"; }

files() {
    echo "run-launcher: files: baseline and ignore files that are a directory or not UTF-8"
    local dir=$work/a-directory bad=$work/latin1.txt reports=$work/files-reports
    mkdir -p "$dir"
    # "## ...", then "café" in Latin-1: the é (0xE9) is byte 44, counted from 0.
    printf '## com.example.files.SettingsFilesTest.x\ncaf\xe9\n' >"$bad"
    local sum
    sum=$(sha256sum <"$bad")
    local test=com.example.files.SettingsFilesTest
    run_one() {
        run_tests "$work/files.log" "$reports" "" "$@" -- --select-class "$test"
        check "$reports" "anyTest=message:$want" || { cat "$work/files.log" >&2; fail "files: $*"; }
    }
    want="baseline file $dir is a directory"
    run_one -Dheapgrowth.baseline="$dir"
    run_one -Dheapgrowth.baseline="$dir" -Dheapgrowth.updateBaseline=true
    want="baseline file $bad is not UTF-8 at byte 44"
    run_one -Dheapgrowth.baseline="$bad"
    run_one -Dheapgrowth.baseline="$bad" -Dheapgrowth.updateBaseline=true
    [ "$(sha256sum <"$bad")" = "$sum" ] || fail "files: the rewrite changed a baseline that is not UTF-8"
    want="ignore file $dir is a directory"
    run_one -Dheapgrowth.ignoreFile="$dir"
    want="ignore file $bad is not UTF-8 at byte 44"
    run_one -Dheapgrowth.ignoreFile="$bad"
    # The reports are written through the engine's output checks (issue 30): a report path
    # that is a directory is said in one line naming it.
    local json=$work/files-heapgrowth/$test.anyTest.json
    mkdir -p "$json"
    want="report file $json: it is a directory"
    run_one -Dheapgrowth.reportDir="$work/files-heapgrowth"
}

parallel() {
    local leak_line reports=$work/parallel-reports round
    leak_line=$(grep -n '// GROWS' launcher/src/com/example/parallel/LeakTest.java | cut -d: -f1)
    for round in $(seq 1 "$rounds"); do
        echo "run-launcher: parallel ($round/$rounds): a leak and a clean test next to a busy neighbour"
        run_tests "$work/parallel.log" "$reports" ":$here/launcher/parallel-config" \
            -agentpath:"$native/libheapgrowth_agent.so" -Dheapgrowth.library="$native/libheapgrowth.so" \
            -Dheapgrowth.reportDir="$work/parallel-reports/heapgrowth" \
            -- --select-package com.example.parallel
        # The neighbour's growth would show as its list (BusyNeighbourTest.HELD) in the reports.
        check "$reports" "forgetsEveryRequest=pass" "holdsMoreAndMoreMemory=pass" \
            "keepsEveryRequest=fail:at com.example.parallel.LeakTest.keepsEveryRequest(LeakTest.java:$leak_line)   ← look here" \
            "keepsEveryRequest=lacks:BusyNeighbour" \
            || { cat "$work/parallel.log" >&2; fail "parallel: unexpected results"; }
        ! grep -l BusyNeighbour "$reports"/heapgrowth/*.txt >&2 || fail "parallel: a report names the neighbour's memory"
    done
}

gate() {
    echo "run-launcher: gate: an accepted baseline, the agent on and off, a comment line above the growing code"
    local src=$work/gate-src classes=$work/gate-classes reports=$work/gate-reports baseline=$work/gate-baseline.txt
    local test=com.example.gate.AcceptedLeaksTest
    rm -rf "$src" && mkdir -p "$src" && cp -r launcher/src/com "$src/"
    compile() {
        rm -rf "$classes"
        javac --release 17 -encoding UTF-8 -g -d "$classes" -cp "$launcher:$jar" "$src/com/example/gate/AcceptedLeaksTest.java"
    }
    # gate_run WANT_AUDIT WANT_HISTORY [with-agent|without-agent] [JVM_OPTION...]
    gate_run() {
        local audit=$1 history=$2 agent=$3 options=()
        shift 3
        [ "$agent" = with-agent ] && options+=(-agentpath:"$native/libheapgrowth_agent.so")
        run_tests "$work/gate.log" "$reports" ":$classes" "${options[@]}" \
            -Dheapgrowth.library="$native/libheapgrowth.so" -Dheapgrowth.baseline="$baseline" \
            -Dheapgrowth.reportDir="$reports/heapgrowth" "$@" -- --select-class "$test"
        check "$reports" "auditTrailIsKept=$audit" "historyIsKept=$history" "instanceListIsKept=${instance:-pass}" \
            || { cat "$work/gate.log" >&2; fail "gate: $agent $*: unexpected results"; }
    }
    compile
    rm -f "$baseline"
    gate_run pass pass with-agent -Dheapgrowth.updateBaseline=true
    grep -q "AcceptedLeaksTest.record(AcceptedLeaksTest.java)$" "$baseline" \
        || { cat "$baseline" >&2; fail "gate: the baseline names the method without its line"; }
    ! grep -q "AcceptedLeaksTest.java:[0-9]" "$baseline" || fail "gate: the baseline holds line numbers"
    # A path through the test instance starts at it, not at the JUnit frame that holds it (which
    # another JUnit version names differently).
    grep -q "^the scenario's instance of com.example.gate.AcceptedLeaksTest$" "$baseline" \
        || { cat "$baseline" >&2; fail "gate: the instance path does not start at the test instance"; }
    ! grep -q "InterceptingExecutableInvoker\|ExecutableInvoker" "$baseline" || fail "gate: a JUnit frame in the baseline"
    gate_run pass pass with-agent
    gate_run pass pass without-agent
    # A comment line above the growing code moves every line number after it.
    sed -i 's|^        // MOVE: .*|&\n        // a comment line added above the growing code|' "$src/com/example/gate/AcceptedLeaksTest.java"
    compile
    gate_run pass pass with-agent
    gate_run pass pass without-agent
    # Written without the agent ("not attributed" for the final field), accepted with it.
    rm -f "$baseline"
    gate_run pass pass without-agent -Dheapgrowth.updateBaseline=true
    grep -q "not attributed" "$baseline" || { cat "$baseline" >&2; fail "gate: expected a baseline written without the agent"; }
    gate_run pass pass with-agent
    # A node the baseline lacks still fails: drop the history test's section.
    python3 - "$baseline" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
text = re.sub(r"(?ms)^## com\.example\.gate\.AcceptedLeaksTest\.historyIsKept\n.*?(?=^## |\Z)", "", text)
open(path, "w", encoding="utf-8").write(text)
PY
    gate_run pass "fail:STATIC_FIELD AcceptedLeaksTest.history" with-agent
    # The project's heapgrowth-ignore.txt, in the test JVM's working directory, silences one
    # path (listed with its reason) and not the other.
    rm -f "$baseline"
    mkdir -p "$work/gate-project"
    printf '# known growth\nAcceptedLeaksTest.history kept on purpose\n' >"$work/gate-project/heapgrowth-ignore.txt"
    local instance="fail:INSTANCE_FIELD AcceptedLeaksTest.mine"
    (cd "$work/gate-project" && gate_run "fail:STATIC_FIELD AcceptedLeaksTest.AUDIT" pass with-agent)
    grep -q "^Ignored (AcceptedLeaksTest.history: kept on purpose): STATIC_FIELD AcceptedLeaksTest.history" \
        "$reports/heapgrowth/$test.historyIsKept.txt" \
        || { cat "$reports/heapgrowth/$test.historyIsKept.txt" >&2; fail "gate: the ignored path is not listed with its reason"; }
    # The HTML report: a page per test beside its .txt and .json, named by the failing test's
    # message and drawn without errors by headless Chromium; index.html links every page with
    # the first line of its text report.
    local page=$reports/heapgrowth/$test.auditTrailIsKept.html
    check "$reports" "auditTrailIsKept=fail:HTML report: $page"
    command -v chromium >/dev/null || fail "gate: chromium is missing (scripts/setup.sh installs it)"
    chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/chromium" --dump-dom "file://$page" \
        >"$work/page.dom" 2>"$work/chromium.log" || { cat "$work/chromium.log" >&2; fail "gate: chromium failed"; }
    grep -q '<body data-rendered="true" data-errors="" data-draw-ms="' "$work/page.dom" \
        && grep -qF '╰→STATIC_FIELD AcceptedLeaksTest.AUDIT -&gt; instance of' "$work/page.dom" \
        || { head -c 3000 "$work/page.dom" >&2; fail "gate: the test's page did not draw its node"; }
    local name
    for name in auditTrailIsKept historyIsKept instanceListIsKept; do
        grep -qF "<a href=\"./$test.$name.html\">$test.$name</a>" "$reports/heapgrowth/index.html" \
            || { cat "$reports/heapgrowth/index.html" >&2; fail "gate: index.html does not link $name"; }
    done
    grep -qF "<td>1 growing node after " "$reports/heapgrowth/index.html" \
        || { cat "$reports/heapgrowth/index.html" >&2; fail "gate: index.html lacks the reports' first lines"; }
    # keepDumps=failed: the failing test's last two dumps stay in the report directory,
    # owner-only; the passing test's do not.
    (cd "$work/gate-project" && gate_run "fail:Heap dumps kept" pass with-agent -Dheapgrowth.keepDumps=failed)
    local kept=$reports/heapgrowth/dumps
    [ "$(ls "$kept")" = "$(printf '%s\n' "$test.auditTrailIsKept" "$test.instanceListIsKept")" ] \
        || fail "gate: kept dumps: $(ls -R "$kept")"
    [ "$(ls "$kept/$test.auditTrailIsKept")" = "$(printf 'snapshot-1.hprof\nsnapshot-2.hprof')" ] \
        || fail "gate: expected the last two dumps: $(ls "$kept/$test.auditTrailIsKept")"
    [ "$(stat -c %a "$kept/$test.auditTrailIsKept" "$kept/$test.auditTrailIsKept"/*)" = "$(printf '700\n600\n600')" ] \
        || fail "gate: kept dumps are not owner-only"
    local bad="fail:system property heapgrowth.keepDumps=sometimes: expected never or failed"
    instance=$bad
    gate_run "$bad" "$bad" with-agent -Dheapgrowth.keepDumps=sometimes
}

skip() {
    echo "run-launcher: skip: heapgrowth.skip=true, and a platform without an engine in the jar"
    local reports=$work/skip-reports test=com.example.skip.SkipTest
    skip_run() {
        run_tests "$work/skip.log" "$reports" "" "$@" -Dheapgrowth.reportDir="$reports/heapgrowth" \
            -- --select-class "$test"
        check "$reports" "keepsEverything=$want" "plainTestStillRuns=pass" \
            || { cat "$work/skip.log" >&2; fail "skip: $*: unexpected results"; }
    }
    want="fail:STATIC_FIELD SkipTest.KEPT"
    skip_run -Dheapgrowth.library="$native/libheapgrowth.so"
    want="skipped:heapgrowth.skip=true: heap-growth test skipped"
    skip_run -Dheapgrowth.library="$native/libheapgrowth.so" -Dheapgrowth.skip=true
    skip_run -Dheapgrowth.skip=true
    want="skipped:heapgrowth has no engine for Linux/aarch64 in this jar (no META-INF/native/linux-aarch64/libheapgrowth.so): heap-growth test skipped"
    skip_run -Dos.arch=aarch64
    # A time budget that ends the search before it could judge: skipped, saying so, not passed.
    run_tests "$work/skip.log" "$reports" "" -Dheapgrowth.library="$native/libheapgrowth.so" \
        -Dheapgrowth.reportDir="$reports/heapgrowth" -- --select-class com.example.skip.TooShortBudgetTest
    check "$reports" "keepsEverythingSlowly=skipped:heapgrowth could not judge com.example.skip.TooShortBudgetTest.keepsEverythingSlowly: the time budget ran out after " \
        || { cat "$work/skip.log" >&2; fail "skip: a search cut before it could judge"; }
    grep -q "^Not judged: the time budget ran out after " "$reports/heapgrowth/com.example.skip.TooShortBudgetTest.keepsEverythingSlowly.txt" \
        || fail "skip: the report does not say the search stopped early"
}

signals() {
    local round signal
    for round in $(seq 1 "$rounds"); do
        for signal in TERM HUP; do
            local tmp=$work/tmp-$signal-$round
            mkdir -p "$tmp"
            # java.io.tmpdir too: the JVM ignores $TMPDIR, the extension extracts the engine there.
            # The reports of the interrupted test go to the work directory, not the source tree.
            python3 - "$tmp" "$signal" "$work/signal.log" java -Djava.io.tmpdir="$tmp" -XX:-UsePerfData \
                -Dheapgrowth.reportDir="$work/signal-reports-$signal-$round/heapgrowth" \
                -cp "$launcher:$jar:$work/classes" org.junit.platform.console.ConsoleLauncher \
                --disable-banner --disable-ansi-colors \
                --select-class com.example.shutdown.DumpUntilKilledTest <<'PY' \
                || { cat "$work/signal.log" >&2; fail "signals: SIG$signal, round $round"; }
import glob, os, signal, subprocess, sys, time

tmp, name, log, command = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
number = getattr(signal, "SIG" + name)


def listing():
    return sorted(os.path.relpath(os.path.join(d, f), tmp)
                  for d, dirs, files in os.walk(tmp) for f in dirs + files)


def fail(message):
    print(f"run-launcher: SIG{name}: {message}", file=sys.stderr)
    sys.exit(1)


before = listing()
with open(log, "w") as out:
    # A JVM started with SIGHUP ignored (under nohup, as a CI runner may start jobs) keeps
    # ignoring it: the child gets the default disposition, as a terminal's shell gives it.
    jvm = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=dict(os.environ, TMPDIR=tmp),
                           preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))
deadline = time.monotonic() + 120
# Polled every millisecond: the file appears when the JVM starts writing the dump, so the signal
# lands while it is being written.
while not (dumps := glob.glob(f"{tmp}/heapgrowth-dumps-*/*.hprof")):
    if jvm.poll() is not None:
        fail(f"the test JVM ended (status {jvm.returncode}) before it wrote a heap dump")
    if time.monotonic() > deadline:
        jvm.kill()
        fail("no heap dump in 120 s")
    time.sleep(0.001)
jvm.send_signal(number)


def size(path):
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return -1


# Mid-dump if the file still grew after the signal (the JVM handles the signal after the dump).
sizes = [size(dumps[0])]
for _ in range(50):
    time.sleep(0.002)
    sizes.append(size(dumps[0]))
growing = any(b > a for a, b in zip(sizes, sizes[1:]))
try:
    status = jvm.wait(60)
except subprocess.TimeoutExpired:
    jvm.kill()
    fail("the test JVM did not end within 60 s")
# The JVM runs its shutdown hooks and exits with 128 + the signal's number.
if status != 128 + number:
    fail(f"the test JVM ended with status {status}, not {128 + number}")
after = listing()
if after != before:
    fail(f"left in $TMPDIR: {sorted(set(after) - set(before))}")
print(f"run-launcher: signals: SIG{name}: the JVM ended with {status}, $TMPDIR as before"
      f" (signal sent mid-dump: {'yes' if growing else 'not seen'})")
PY
        done
    done
}

for section in "${sections[@]}"; do
    case $section in
        files | parallel | gate | skip | signals) "$section" ;;
        *) fail "unknown section $section (files, parallel, gate, skip, signals)" ;;
    esac
done
echo "run-launcher: ok (${sections[*]})"
