#!/usr/bin/env bash
# JUnit tests that leak through real libraries (tests/junit/gradle-libraries), under Debian's
# Gradle 4.4.1 with the dev.heapgrowth plugin, so the test JVM runs with heapgrowth's agent:
# every leaking test fails and its message marks the test's own `// GROWS` line as the place to
# look ("at com.example.libs.CacheTest.guavaCacheKeepsEveryRequest(CacheTest.java:21)   ← look
# here"), through the library's frames and JDK packages no module opens; every clean twin passes.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
plugin=${CARGO_TARGET_DIR:-$here/../../target}/java/heapgrowth-gradle-plugin.jar
libs=$here/../../target/corpus-libs
[ -f "$plugin" ] || { echo "run-gradle-libraries: $plugin missing; run scripts/package-java.sh" >&2; exit 1; }
[ -f "$libs/.fetched" ] || { echo "run-gradle-libraries: $libs missing; run scripts/setup.sh" >&2; exit 1; }
fail() { echo "run-gradle-libraries: $*" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r gradle-libraries "$work/project"
cd "$work/project"
export GRADLE_USER_HOME=$work/gradle-home
if gradle --offline --no-daemon -q -PheapgrowthPluginJar="$plugin" -PcorpusLibs="$libs" test \
    >"$work/gradle.log" 2>&1; then
    fail "gradle test passed despite the leaks"
fi
# Each test method's expectation: a method with a GROWS line must fail and look there, the others
# pass.
mapfile -t want < <(python3 - src/test/java/com/example/libs/*.java <<'PY'
import os, re, sys
want = {}
for path in sys.argv[1:]:
    name = os.path.basename(path)[:-5]
    method, previous = None, ""
    for number, line in enumerate(open(path), 1):
        declared = re.search(r"void (\w+)\(", line)
        if declared and "@HeapGrowthTest" in previous:
            method = declared.group(1)
            want[method] = "pass"
        elif method and "// GROWS" in line:
            want[method] = f"fail:at com.example.libs.{name}.{method}({name}.java:{number})   ← look here"
        previous = line
for method, expectation in want.items():
    print(f"{method}={expectation}")
PY
)
[ "${#want[@]}" -ge 14 ] || fail "found only ${#want[@]} tests in the project"
python3 "$here/check_results.py" build/test-results/test "${want[@]}" \
    || { cat "$work/gradle.log" >&2; fail "unexpected results"; }
echo "run-gradle-libraries: ok (${#want[@]} tests)"
