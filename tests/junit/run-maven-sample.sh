#!/usr/bin/env bash
# End to end under Maven Surefire, with the artifacts scripts/local-repo.sh installs into the
# local Maven repository (~/.m2/repository, or MAVEN_LOCAL_REPO), as docs/junit.md tells a user to:
# the extension jar from scripts/package-java.sh (CARGO_TARGET_DIR/java) and the Maven plugin.
#
# Without the plugin (tests/junit/maven-sample/pom.xml): the leaking test fails with the tree
# report and no agent, the clean one passes, the reports are written, and the baseline gate:
# rewrite, accepted path passes, new path fails, stale path reported; an ignore file.
# With the plugin (pom-with-plugin.xml, the whole pom in docs/junit.md), in a directory whose path has a space:
# the agent is loaded and the leak shows the line that grew it, the project's own argLine reaches
# the test JVM after heapgrowth's options (Surefire's @{argLine}, or argLine in <properties>),
# every setting is passed, -Dheapgrowth.updateBaseline=true rewrites the configured baseline,
# and the plugin's one-line warnings and errors.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
jar=${CARGO_TARGET_DIR:-$here/../../target}/java/heapgrowth-junit.jar
[ -f "$jar" ] || { echo "run-maven-sample: $jar missing; run scripts/package-java.sh" >&2; exit 1; }
check() { python3 "$here/check_results.py" "$@"; }
fail() { echo "run-maven-sample: $*" >&2; exit 1; }

"$here/../../scripts/local-repo.sh" --no-build "${MAVEN_LOCAL_REPO:-$HOME/.m2/repository}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r maven-sample "$work/project"
cd "$work/project"
leak=openingAndClosingTheCartDoesNotLeak
clean=addingAndClearingItemsDoesNotLeak
results=target/surefire-reports
run() { rm -rf "$results"; mvn -B "$@" test >"$work/mvn.log" 2>&1 && echo 0 || echo 1; }

echo "run-maven-sample: without the plugin"
echo "run-maven-sample: 1. no baseline: the leak fails with the report, the clean test passes"
[ "$(run)" = 1 ] || fail "mvn test passed despite the leak"
check "$results" "$leak=fail:╰→STATIC_FIELD Cart.AUDIT_TRAIL -> instance of java.util.ArrayList" \
    "anAssertionThatFailsInALoopFailsTheTest=fail:the cart is empty ==> expected: <0> but was: <1>" \
    "$leak=fail:Retained size:" "$leak=fail:ARRAY_ENTRY ArrayList.[x] -> instance of com.example.cart.Cart\$Session" \
    "$leak=fail:Agent: heapgrowth's JVMTI agent is not loaded" "$clean=pass" \
    "$leak=fail:Not attributed: heapgrowth's JVMTI agent is not loaded, and only a recording proxy works without it" \
    "$leak=fail:a proxy cannot go into the final field Cart.AUDIT_TRAIL" \
    "$leak=fail:the Maven plugin's prepare-agent goal do" "$leak=fail:the Maven plugin's prepare-agent goal add the agent" \
    "$leak=fail:To accept this growth instead of fixing it, name a baseline file (system property heapgrowth.baseline;" \
    "anAcceptedLeakPassesWithItsReason=pass" "recordsTheJvmOptions=pass"
# Surefire prints the tree once, with the stack trace; its summary at the end has one line.
[ "$(grep -c "^╰→STATIC_FIELD Cart.AUDIT_TRAIL" "$work/mvn.log")" = 1 ] || { cat "$work/mvn.log"; fail "the tree is not printed once"; }
grep -qE "^\[ERROR\]   CartTest\.$leak Scenario com\.example\.cart\.CartTest\.$leak: 1 growing node after [0-9]+ loops in [0-9]+ snapshots \(the whole report: $PWD/target/reports/heapgrowth/com\.example\.cart\.CartTest\.$leak\.txt\)$" "$work/mvn.log" \
    || { cat "$work/mvn.log"; fail "the summary of the failures does not name the report in one line"; }
grep -qxF "Baseline: 1 new; no baseline file (system property heapgrowth.baseline)" \
    "target/reports/heapgrowth/com.example.cart.CartTest.$leak.txt" || fail "the report does not say the growth is new"
! grep -q -- "-agentpath:" target/jvm-options.txt || fail "an -agentpath: without the plugin"
grep -q "^Ignored (com.example.cart.Cart.AUDIT_TRAIL: the audit trail is kept on purpose): STATIC_FIELD Cart.AUDIT_TRAIL" \
    "target/reports/heapgrowth/com.example.cart.CartTest.anAcceptedLeakPassesWithItsReason.txt" \
    || fail "the ignored path is not listed with its reason"
for ext in txt json html; do
    [ -s "target/reports/heapgrowth/com.example.cart.CartTest.$leak.$ext" ] || fail "no $ext report"
done
# The HTML report: the failing test's message names its page, and index.html links every page.
check "$results" "$leak=fail:HTML report: $PWD/target/reports/heapgrowth/com.example.cart.CartTest.$leak.html"
grep -qF "<a href=\"./com.example.cart.CartTest.$leak.html\">" target/reports/heapgrowth/index.html \
    && grep -qF "<a href=\"./com.example.cart.CartTest.$clean.html\">" target/reports/heapgrowth/index.html \
    || fail "index.html does not link the tests' pages"
grep -q '"STATIC_FIELD"' "target/reports/heapgrowth/com.example.cart.CartTest.$leak.json" || fail "JSON lacks the path"
# The JSON says why the search went on past its third snapshot, as under `heapgrowth run`: a
# JUnit test's search chooses its snapshots too.
python3 - "target/reports/heapgrowth/com.example.cart.CartTest.$leak.json" <<'PY' || fail "JSON's looked_longer"
import json, sys
scenario = json.load(open(sys.argv[1]))["scenarios"][0]
looked, loops = scenario.get("looked_longer"), scenario["snapshot_loops"]
assert looked, f"no looked_longer: {sorted(scenario)}"
for entry in looked:
    assert entry["after_loop"] in loops[2:-1], (entry["after_loop"], loops)
    assert entry["why"] in ("still growing", "ambiguous trend"), entry["why"]
    assert entry["paths"] >= 1 and entry["path"] and entry["history"], entry
PY

echo "run-maven-sample: 1b. without heapgrowth.reportDir the reports go to target/heapgrowth-reports, as Maven keeps them"
grep -v "<heapgrowth.reportDir>" pom.xml >pom-default-reports.xml
rm -rf target/heapgrowth-reports build
mvn -B -Dstyle.color=never -f pom-default-reports.xml "-Dtest=CartTest#$clean" test >"$work/mvn.log" 2>&1 \
    || { cat "$work/mvn.log"; fail "mvn test of the clean test failed"; }
[ -s "target/heapgrowth-reports/com.example.cart.CartTest.$clean.txt" ] && [ -s target/heapgrowth-reports/index.html ] \
    || fail "no reports in target/heapgrowth-reports: $(ls -R target | head -30)"
[ ! -e build ] || fail "a build/ directory in a Maven project: $(ls -R build | head)"

echo "run-maven-sample: 2. rewriting the baseline passes and records the path"
baseline=$work/heapgrowth-baseline.txt
# (The throwing test still fails: a baseline accepts growth, not exceptions.)
run -Dheapgrowth.baseline="$baseline" -Dheapgrowth.updateBaseline=true >/dev/null
check "$results" "$leak=pass" "$clean=pass" "anAssertionThatFailsInALoopFailsTheTest=fail"
grep -q "^## com.example.cart.CartTest.$leak\$" "$baseline" || fail "baseline lacks the test's section"
grep -q "^╰→STATIC_FIELD Cart.AUDIT_TRAIL" "$baseline" || fail "baseline lacks the path"

echo "run-maven-sample: 3. with the baseline the accepted path passes; the report and index.html say it is accepted"
run -Dheapgrowth.baseline="$baseline" >/dev/null
check "$results" "$leak=pass" "$clean=pass" "anAssertionThatFailsInALoopFailsTheTest=fail"
grep -qxF "Baseline: 1 accepted; file $baseline" "target/reports/heapgrowth/com.example.cart.CartTest.$leak.txt" \
    || fail "the report does not say the growth is accepted"
python3 - target/reports/heapgrowth/index.html "$leak" "$clean" <<'PY' || fail "index.html's baseline column"
import re, sys
index, leak, clean = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2], sys.argv[3]
assert "<th>baseline: new / accepted / fixed (stale)</th>" in index, index
def row(test):
    return re.search(r'<tr><td><a href="\./com\.example\.cart\.CartTest\.%s\.html">.*?</tr>' % test, index).group(0)
assert "<td>1 accepted</td>" in row(leak), row(leak)
assert "<td>nothing grows</td>" in row(clean), row(clean)
PY

echo "run-maven-sample: 4. a baseline with another path: the new path fails, the stale one is reported"
sed -i 's/Cart.AUDIT_TRAIL/Cart.OLD_AUDIT_TRAIL/' "$baseline"
[ "$(run -Dheapgrowth.baseline="$baseline")" = 1 ] || fail "new path passed"
check "$results" "$leak=fail:Cart.AUDIT_TRAIL" "$clean=pass" "anAssertionThatFailsInALoopFailsTheTest=fail" \
    "$leak=fail:To accept this growth instead of fixing it, run the tests once with -Dheapgrowth.updateBaseline=true (Gradle: -Pheapgrowth.updateBaseline=true): that writes it to the baseline $baseline, to commit."
grep -qxF "Baseline: 1 new, 1 fixed (stale); file $baseline" "target/reports/heapgrowth/com.example.cart.CartTest.$leak.txt" \
    || fail "the report does not count the new and the stale path"
grep -qF "<td>1 new, 1 fixed (stale)</td>" target/reports/heapgrowth/index.html || fail "index.html lacks the new and the stale path"
grep -q "Baseline paths that no longer grow" "target/reports/heapgrowth/com.example.cart.CartTest.$leak.txt" \
    || fail "stale baseline path not reported"
grep -q "OLD_AUDIT_TRAIL" "target/reports/heapgrowth/com.example.cart.CartTest.$leak.txt" || fail "stale path not named"
echo "run-maven-sample: 5. an ignore file (heapgrowth.ignoreFile) accepts the leak for every test"
printf '# accepted growth\ncom.example.cart.Cart.AUDIT_TRAIL known, fixed in the next release\n' >"$work/ignore.txt"
run -Dheapgrowth.ignoreFile="$work/ignore.txt" >/dev/null
check "$results" "$leak=pass" "$clean=pass" "anAcceptedLeakPassesWithItsReason=pass"
grep -q "^Ignored (com.example.cart.Cart.AUDIT_TRAIL: known, fixed in the next release)" \
    "target/reports/heapgrowth/com.example.cart.CartTest.$leak.txt" || fail "the ignore file's reason is not in the report"

echo "run-maven-sample: 5b. jfr = true: the leak is found from JFR old-object samples, the clean twin passes"
[ "$(run -Dtest=JfrSampling)" = 1 ] || fail "mvn test passed despite the JFR test's leak"
check "$results" "keepingEveryReceiptLeaks=fail:JFR dumps of old-object samples" \
    "keepingEveryReceiptLeaks=fail:STATIC_FIELD JfrSampling.RECEIPTS -> instance of java.util.ArrayList" \
    "keepingEveryReceiptLeaks=fail:at com.example.cart.JfrSampling.keepingEveryReceiptLeaks(line 31)   ← look here" \
    "keepingTheLastReceiptsDoesNotLeak=pass"

echo "run-maven-sample: with the plugin (docs/junit.md's pom)"
project="$work/cart project"
cp -r "$here/maven-sample" "$project"
cd "$project"
rm -rf target
python3 - "$here/../../docs/junit.md" pom-with-plugin.xml <<'PY' || fail "docs/junit.md's pom is not tests/junit/maven-sample/pom-with-plugin.xml"
import re, sys
readme, pom = open(sys.argv[1], encoding="utf-8").read(), open(sys.argv[2], encoding="utf-8").read()
sys.exit(0 if any("heapgrowth-maven-plugin" in block and block == pom
                  for block in re.findall(r"```xml\n(.*?)```", readme, re.S)) else 1)
PY
mvn_plugin() { mvn -B -Dstyle.color=never -f pom-with-plugin.xml "$@" >"$work/mvn.log" 2>&1 && echo 0 || echo 1; }
options=target/jvm-options.txt
# option TEXT...: each TEXT is a line of the test JVM's options.
option() { for want in "$@"; do grep -qxF -- "$want" "$options" || fail "the test JVM lacks $want: $(cat "$options")"; done; }
natives="$project/target/heapgrowth/native"

echo "run-maven-sample: 6. the leak shows the line that grew it; the project's argLine follows heapgrowth's"
[ "$(mvn_plugin test)" = 1 ] || fail "mvn test passed despite the leak"
check "$results" "$leak=fail:╰→STATIC_FIELD Cart.AUDIT_TRAIL -> instance of java.util.ArrayList" \
    "$leak=fail:4 call(s) to add()" \
    "$leak=fail:at com.example.cart.Cart.open(Cart.java:16)   ← look here" \
    "$leak=fail:Agent: heapgrowth's JVMTI agent loaded at JVM start: tag objects yes, field-modification events yes" \
    "$leak=lacks:Not attributed" "$clean=pass" "anAcceptedLeakPassesWithItsReason=pass" \
    "anAssertionThatFailsInALoopFailsTheTest=fail:the cart is empty" "recordsTheJvmOptions=pass"
[ "$(head -n1 "$options")" = "-agentpath:$natives/libheapgrowth_agent.so" ] || fail "the agent is not first: $(cat "$options")"
[ "$(tail -n1 "$options")" = "-Xmx1g" ] || fail "the project's argLine is not last: $(cat "$options")"
option "-Dheapgrowth.library=$natives/libheapgrowth.so" "-Dheapgrowth.reportDir=$project/target/heapgrowth-reports" \
    "-Dheapgrowth.baseline=$project/heapgrowth-baseline.txt"
! grep -q "updateBaseline\|keepDumps\|warmup" "$options" || fail "settings nobody set: $(cat "$options")"
for ext in txt json; do
    [ -s "target/heapgrowth-reports/com.example.cart.CartTest.$leak.$ext" ] || fail "no $ext report in target/heapgrowth-reports"
done
for path in "$natives" "$natives/libheapgrowth.so" "$natives/libheapgrowth_agent.so"; do
    [ "$(stat -c %a "$path")" = 700 ] || fail "$path is mode $(stat -c %a "$path"), not 700"
done

echo "run-maven-sample: 7. -Dheapgrowth.updateBaseline=true rewrites the pom's <baseline>; then it passes"
[ "$(mvn_plugin -Dheapgrowth.updateBaseline=true test)" = 1 ] || fail "the throwing test passed"
check "$results" "$leak=pass" "$clean=pass" "anAssertionThatFailsInALoopFailsTheTest=fail"
option "-Dheapgrowth.updateBaseline=true"
grep -q "^## com.example.cart.CartTest.$leak\$" heapgrowth-baseline.txt || fail "baseline lacks the test's section"
mvn_plugin test >/dev/null
check "$results" "$leak=pass" "$clean=pass" "anAssertionThatFailsInALoopFailsTheTest=fail"

echo "run-maven-sample: 8. argLine in <properties>, and every setting"
python3 - <<'PY'
pom = open("pom-with-plugin.xml", encoding="utf-8").read()
pom = pom.replace("<argLine>@{argLine} -Xmx1g</argLine>", "")
pom = pom.replace("</project.build.sourceEncoding>", "</project.build.sourceEncoding>\n    <argLine>-Dsome.flag=1</argLine>")
open("pom-properties.xml", "w", encoding="utf-8").write(pom)
PY
rm -f "$options"
mvn -B -Dstyle.color=never -f pom-properties.xml -Dtest=JvmOptionsTest -Dheapgrowth.keepDumps=failed \
    -Dheapgrowth.warmup=2 -Dheapgrowth.loopsPerSnapshot=3 -Dheapgrowth.maxSnapshots=4 -Dheapgrowth.confirmLoops=50 \
    -Dheapgrowth.timeBudget=30 -Dheapgrowth.ignoreFile=ignore.txt test >"$work/mvn.log" 2>&1 \
    || { cat "$work/mvn.log"; fail "mvn test -Dtest=JvmOptionsTest failed"; }
[ "$(head -n1 "$options")" = "-agentpath:$natives/libheapgrowth_agent.so" ] || fail "the agent is not first: $(cat "$options")"
[ "$(tail -n1 "$options")" = "-Dsome.flag=1" ] || fail "the argLine property is not last: $(cat "$options")"
option -Dheapgrowth.keepDumps=failed -Dheapgrowth.warmup=2 -Dheapgrowth.loopsPerSnapshot=3 \
    -Dheapgrowth.maxSnapshots=4 -Dheapgrowth.confirmLoops=50 -Dheapgrowth.timeBudget=30 \
    "-Dheapgrowth.ignoreFile=$project/ignore.txt"

echo "run-maven-sample: 9. <skip>: every heap-growth test is skipped, the build passes, the project's argLine still works"
# In the pom, not as -Dheapgrowth.skip=true: Surefire would hand a command line's -D to the test
# JVM itself, and this checks what the plugin passes.
sed 's|<baseline>heapgrowth-baseline.txt</baseline>|<skip>true</skip>|' pom-with-plugin.xml >pom-skip.xml
rm -f "$options"
mvn -B -Dstyle.color=never -f pom-skip.xml test >"$work/mvn.log" 2>&1 \
    || { cat "$work/mvn.log"; fail "mvn test with <skip> failed"; }
skipped="skipped:heapgrowth.skip=true: heap-growth test skipped"
check "$results" "$leak=$skipped" "$clean=$skipped" "anAssertionThatFailsInALoopFailsTheTest=$skipped" \
    "recordsTheJvmOptions=pass"
[ "$(grep -c heapgrowth "$options")" = 1 ] || fail "options with heapgrowth.skip: $(cat "$options")"
option -Dheapgrowth.skip=true -Xmx1g
grep -q "^\[\(INFO\|WARNING\)\] Tests run: 5, Failures: 0, Errors: 0, Skipped: 4$" "$work/mvn.log" || { cat "$work/mvn.log"; fail "Surefire does not count 4 skipped tests"; }

echo "run-maven-sample: 10. warnings and errors in one line"
sed 's|<argLine>@{argLine} -Xmx1g</argLine>|<argLine>-Xmx1g</argLine>|' pom-with-plugin.xml >pom-no-reference.xml
mvn -B -Dstyle.color=never -f pom-no-reference.xml initialize >"$work/mvn.log" 2>&1 || { cat "$work/mvn.log"; fail "mvn initialize failed"; }
[ "$(grep -c "^\[WARNING\] heapgrowth: the <argLine> of maven-surefire-plugin does not contain @{argLine}, so its test JVMs get no agent: write <argLine>@{argLine} -Xmx1g</argLine>$" "$work/mvn.log")" = 1 ] \
    || { cat "$work/mvn.log"; fail "no warning (once) about an <argLine> without @{argLine}"; }
python3 - <<'PY'
pom = open("pom-with-plugin.xml", encoding="utf-8").read()
old = "<artifactId>heapgrowth-junit</artifactId>\n      <version>0.1.0</version>"
assert old in pom
open("pom-missing.xml", "w", encoding="utf-8").write(pom.replace(old, old.replace("0.1.0", "9.9.9")))
PY
# error FILE MESSAGE [MAVEN_OPTS]: mvn initialize fails with the one-line MESSAGE.
error() {
    ! MAVEN_OPTS=${3:-} mvn -B -o -Dstyle.color=never -f "$1" initialize >"$work/mvn.log" 2>&1 || fail "mvn -f $1 initialize passed"
    grep -F "on project cart: $2" "$work/mvn.log" | grep -q -- '-> \[Help 1\]$' || { cat "$work/mvn.log"; fail "no error: $2"; }
}
error pom-missing.xml "heapgrowth: cannot resolve dev.heapgrowth:heapgrowth-junit:jar:9.9.9: "
# A platform without the native libraries: a one-line warning, and the heap-growth tests are
# skipped (the test JVM, given the same os.arch, finds no engine in the jar), never failed.
# The test JVM is told the same os.arch through the pom's argLine property.
python3 - <<'PY'
pom = open("pom-with-plugin.xml", encoding="utf-8").read()
pom = pom.replace("</project.build.sourceEncoding>", "</project.build.sourceEncoding>\n    <argLine>-Dos.arch=aarch64</argLine>")
open("pom-aarch64.xml", "w", encoding="utf-8").write(pom)
PY
rm -f "$options"
MAVEN_OPTS=-Dos.arch=aarch64 mvn -B -o -Dstyle.color=never -f pom-aarch64.xml test \
    >"$work/mvn.log" 2>&1 || { cat "$work/mvn.log"; fail "mvn test on another platform failed"; }
[ "$(grep -c "^\[WARNING\] heapgrowth: no agent or engine for Linux/aarch64 (they are built for linux-x86_64): every @HeapGrowthTest will be reported as skipped$" "$work/mvn.log")" = 1 ] \
    || { cat "$work/mvn.log"; fail "no warning (once) about a platform without the libraries"; }
skipped="skipped:heapgrowth has no engine for Linux/aarch64 in this jar (no META-INF/native/linux-aarch64/libheapgrowth.so): heap-growth test skipped"
check "$results" "$leak=$skipped" "$clean=$skipped" "recordsTheJvmOptions=pass"
! grep -q -- "-agentpath:" "$options" || fail "an -agentpath: on another platform: $(cat "$options")"
echo "run-maven-sample: ok"
