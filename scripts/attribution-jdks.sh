#!/usr/bin/env bash
# The attribution tests on two JDKs (issue 32): `cargo test --test end_to_end attribution` and
# `cargo test --test jvm_layer`, first with the default JDK (JAVA_HOME unset: the `java` on
# PATH, 17 here), then with JAVA_HOME=JDK25 (default /usr/lib/jvm/temurin-25-jdk-amd64). Opt-in
# (about twice the time of those tests), not part of scripts/test.sh. Prints each run's
# `test result` line (and the failed tests' names); exit 1 if any failed.
#
#   scripts/attribution-jdks.sh [JDK25]
set -uo pipefail
cd "$(dirname "$0")/.."
jdk25=${1:-/usr/lib/jvm/temurin-25-jdk-amd64}
[ -x "$jdk25/bin/java" ] || { echo "no JDK at $jdk25" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=0
for jdk in default "$jdk25"; do
    for target in "end_to_end attribution" "jvm_layer"; do
        set -- $target
        if [ "$jdk" = default ]; then
            label="default JDK ($(java -version 2>&1 | head -1))"
            (unset JAVA_HOME; nice -n 19 cargo test --locked --test "$@") >"$log" 2>&1
        else
            label="$jdk"
            JAVA_HOME=$jdk nice -n 19 cargo test --locked --test "$@" >"$log" 2>&1
        fi
        code=$?
        [ "$code" -eq 0 ] || failed=$((failed + 1))
        echo "$label, cargo test --test $*: $(grep '^test result' "$log" | tail -1)"
        grep -E '^test .* FAILED$' "$log" | sed 's/^/    /'
        [ "$code" -eq 0 ] || grep -q '^test result' "$log" || tail -5 "$log" | sed 's/^/    /'
    done
done
echo "$failed of 4 runs failed"
[ "$failed" -eq 0 ]
