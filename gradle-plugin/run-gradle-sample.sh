#!/usr/bin/env bash
# End to end under Debian's Gradle 4.4.1, offline: the sample project samples/cart applies the
# packaged plugin (target/java/heapgrowth-gradle-plugin.jar, from scripts/package-java.sh).
# Asserts that the leaking test fails with the tree report (and the agent's capabilities, since
# the plugin adds -agentpath:), the clean one passes, the reports are written, and the baseline
# gate: -Pheapgrowth.updateBaseline=true rewrites it, an accepted path passes, a new path fails,
# a stale path is reported.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
plugin=${CARGO_TARGET_DIR:-$here/../target}/java/heapgrowth-gradle-plugin.jar
[ -f "$plugin" ] || { echo "run-gradle-sample: $plugin missing; run scripts/package-java.sh" >&2; exit 1; }
command -v gradle >/dev/null || { echo "run-gradle-sample: no gradle (apt-get install gradle)" >&2; exit 1; }
check() { python3 "$here/../tests/junit/check_results.py" "$@"; }
fail() { echo "run-gradle-sample: $*" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r samples/cart "$work/project"
rm -rf "$work/project/build" "$work/project/.gradle"
cd "$work/project"
export GRADLE_USER_HOME=$work/gradle-home
leak=openingAndClosingTheCartDoesNotLeak
clean=addingAndClearingItemsDoesNotLeak
results=build/test-results/test
reports=build/reports/heapgrowth
run() {
    rm -rf "$results" "$reports"
    gradle --offline --no-daemon -q -PheapgrowthPluginJar="$plugin" "$@" test >"$work/gradle.log" 2>&1 && echo 0 || echo 1
}

echo "run-gradle-sample: gradle $(gradle --version 2>/dev/null | sed -n 's/^Gradle //p')"
echo "run-gradle-sample: 1. no baseline: the leak fails with the report, the clean test passes"
[ "$(run)" = 1 ] || { cat "$work/gradle.log"; fail "gradle test passed despite the leak"; }
check "$results" "$leak=fail:╰→STATIC_FIELD Cart.AUDIT_TRAIL -> instance of java.util.ArrayList" \
    "anAssertionThatFailsInALoopFailsTheTest=fail:the cart is empty ==> expected: <0> but was: <1>" \
    "$leak=fail:Retained size:" "$leak=fail:ARRAY_ENTRY ArrayList.[x] -> instance of com.example.cart.Cart\$Session" \
    "$leak=fail:field-modification events yes" "$clean=pass" \
    "$leak=fail:call(s) to add()" "$leak=fail:at com.example.cart.Cart.open(Cart.java:16)"
for ext in txt json; do
    [ -s "$reports/com.example.cart.CartTest.$leak.$ext" ] || fail "no $ext report in $reports"
done

echo "run-gradle-sample: 2. -Pheapgrowth.updateBaseline=true rewrites the baseline and passes"
baseline=$work/heapgrowth-baseline.txt
# (The throwing test still fails: a baseline accepts growth, not exceptions.)
run -PheapgrowthBaseline="$baseline" -Pheapgrowth.updateBaseline=true >/dev/null
check "$results" "$leak=pass" "$clean=pass" "anAssertionThatFailsInALoopFailsTheTest=fail"
grep -q "^## com.example.cart.CartTest.$leak\$" "$baseline" || fail "baseline lacks the test's section"
grep -q "^╰→STATIC_FIELD Cart.AUDIT_TRAIL" "$baseline" || fail "baseline lacks the path"

echo "run-gradle-sample: 3. with the baseline the accepted path passes"
run -PheapgrowthBaseline="$baseline" >/dev/null
check "$results" "$leak=pass" "$clean=pass" "anAssertionThatFailsInALoopFailsTheTest=fail"

echo "run-gradle-sample: 4. a baseline with another path: the new path fails, the stale one is reported"
sed -i 's/Cart.AUDIT_TRAIL/Cart.OLD_AUDIT_TRAIL/' "$baseline"
[ "$(run -PheapgrowthBaseline="$baseline")" = 1 ] || fail "new path passed"
check "$results" "$leak=fail:Cart.AUDIT_TRAIL" "$clean=pass" "anAssertionThatFailsInALoopFailsTheTest=fail"
grep -q "OLD_AUDIT_TRAIL" "$reports/com.example.cart.CartTest.$leak.txt" || fail "stale baseline path not reported"
echo "run-gradle-sample: ok"
