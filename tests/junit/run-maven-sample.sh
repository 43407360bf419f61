#!/usr/bin/env bash
# End to end under Maven Surefire: the sample project in tests/junit/maven-sample uses the
# packaged extension jar (target/java/heapgrowth-junit.jar, from scripts/package-java.sh),
# installed into the local Maven repository as a user would. Asserts that the leaking test fails
# with the tree report, the clean one passes, the reports are written, and the baseline gate:
# rewrite, accepted path passes, new path fails, stale path reported.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
jar=${CARGO_TARGET_DIR:-$here/../../target}/java/heapgrowth-junit.jar
[ -f "$jar" ] || { echo "run-maven-sample: $jar missing; run scripts/package-java.sh" >&2; exit 1; }
check() { python3 "$here/check_results.py" "$@"; }
fail() { echo "run-maven-sample: $*" >&2; exit 1; }

mvn -B -q install:install-file -Dfile="$jar" -DgroupId=dev.heapgrowth -DartifactId=heapgrowth-junit \
    -Dversion=0.1.0 -Dpackaging=jar
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r maven-sample "$work/project"
cd "$work/project"
leak=openingAndClosingTheCartDoesNotLeak
clean=addingAndClearingItemsDoesNotLeak
results=target/surefire-reports
run() { rm -rf "$results"; mvn -B "$@" test >"$work/mvn.log" 2>&1 && echo 0 || echo 1; }

echo "run-maven-sample: 1. no baseline: the leak fails with the report, the clean test passes"
[ "$(run)" = 1 ] || fail "mvn test passed despite the leak"
check "$results" "$leak=fail:╰→STATIC_FIELD Cart.AUDIT_TRAIL -> instance of java.util.ArrayList" \
    "anAssertionThatFailsInALoopFailsTheTest=fail:the cart is empty ==> expected: <0> but was: <1>" \
    "$leak=fail:Retained size:" "$leak=fail:ARRAY_ENTRY ArrayList.[x] -> instance of com.example.cart.Cart\$Session" \
    "$leak=fail:Agent: heapgrowth's JVMTI agent is not loaded" "$clean=pass" \
    "$leak=fail:Not attributed: heapgrowth's JVMTI agent is not loaded, and only a recording proxy works without it" \
    "$leak=fail:a proxy cannot go into the final field Cart.AUDIT_TRAIL" \
    "anAcceptedLeakPassesWithItsReason=pass"
grep -q "^Ignored (com.example.cart.Cart.AUDIT_TRAIL: the audit trail is kept on purpose): STATIC_FIELD Cart.AUDIT_TRAIL" \
    "target/reports/heapgrowth/com.example.cart.CartTest.anAcceptedLeakPassesWithItsReason.txt" \
    || fail "the ignored path is not listed with its reason"
for ext in txt json; do
    [ -s "target/reports/heapgrowth/com.example.cart.CartTest.$leak.$ext" ] || fail "no $ext report"
done
grep -q '"STATIC_FIELD"' "target/reports/heapgrowth/com.example.cart.CartTest.$leak.json" || fail "JSON lacks the path"

echo "run-maven-sample: 2. rewriting the baseline passes and records the path"
baseline=$work/heapgrowth-baseline.txt
# (The throwing test still fails: a baseline accepts growth, not exceptions.)
run -Dheapgrowth.baseline="$baseline" -Dheapgrowth.updateBaseline=true >/dev/null
check "$results" "$leak=pass" "$clean=pass" "anAssertionThatFailsInALoopFailsTheTest=fail"
grep -q "^## com.example.cart.CartTest.$leak\$" "$baseline" || fail "baseline lacks the test's section"
grep -q "^╰→STATIC_FIELD Cart.AUDIT_TRAIL" "$baseline" || fail "baseline lacks the path"

echo "run-maven-sample: 3. with the baseline the accepted path passes"
run -Dheapgrowth.baseline="$baseline" >/dev/null
check "$results" "$leak=pass" "$clean=pass" "anAssertionThatFailsInALoopFailsTheTest=fail"

echo "run-maven-sample: 4. a baseline with another path: the new path fails, the stale one is reported"
sed -i 's/Cart.AUDIT_TRAIL/Cart.OLD_AUDIT_TRAIL/' "$baseline"
[ "$(run -Dheapgrowth.baseline="$baseline")" = 1 ] || fail "new path passed"
check "$results" "$leak=fail:Cart.AUDIT_TRAIL" "$clean=pass" "anAssertionThatFailsInALoopFailsTheTest=fail"
grep -q "Baseline paths that no longer grow" "target/reports/heapgrowth/com.example.cart.CartTest.$leak.txt" \
    || fail "stale baseline path not reported"
grep -q "OLD_AUDIT_TRAIL" "target/reports/heapgrowth/com.example.cart.CartTest.$leak.txt" || fail "stale path not named"
echo "run-maven-sample: 5. an ignore file (heapgrowth.ignoreFile) accepts the leak for every test"
printf '# accepted growth\ncom.example.cart.Cart.AUDIT_TRAIL known, fixed in the next release\n' >"$work/ignore.txt"
run -Dheapgrowth.ignoreFile="$work/ignore.txt" >/dev/null
check "$results" "$leak=pass" "$clean=pass" "anAcceptedLeakPassesWithItsReason=pass"
grep -q "^Ignored (com.example.cart.Cart.AUDIT_TRAIL: known, fixed in the next release)" \
    "target/reports/heapgrowth/com.example.cart.CartTest.$leak.txt" || fail "the ignore file's reason is not in the report"
echo "run-maven-sample: ok"
