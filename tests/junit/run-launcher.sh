#!/usr/bin/env bash
# JUnit tests of tests/junit/launcher, each run in a plain test JVM by the JUnit Platform console
# launcher (no build tool between the JVM and the script), on the packaged extension jar:
#   files     a baseline or ignore file that is a directory or not UTF-8 fails the test with
#             exactly one line naming the file and what is wrong; a rewrite leaves such a file
#             as it was
# usage: run-launcher.sh [files]...   (default: all)
# JUNIT_CONSOLE_JAR: the launcher (default Maven Central's junit-platform-console-standalone
# 1.14.1, the JUnit of the Maven sample, fetched into the local Maven repository if missing).
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
jar=${CARGO_TARGET_DIR:-$here/../../target}/java/heapgrowth-junit.jar
[ -f "$jar" ] || { echo "run-launcher: $jar missing; run scripts/package-java.sh" >&2; exit 1; }
fail() { echo "run-launcher: $*" >&2; exit 1; }
sections=("$@")
[ ${#sections[@]} -gt 0 ] || sections=(files)

CONSOLE_VERSION=1.14.1
launcher=${JUNIT_CONSOLE_JAR:-$HOME/.m2/repository/org/junit/platform/junit-platform-console-standalone/$CONSOLE_VERSION/junit-platform-console-standalone-$CONSOLE_VERSION.jar}
if [ ! -f "$launcher" ]; then
    mvn -B -q dependency:get -Dtransitive=false \
        -Dartifact=org.junit.platform:junit-platform-console-standalone:$CONSOLE_VERSION
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac --release 17 -encoding UTF-8 -g -d "$work/classes" -cp "$launcher:$jar" $(find launcher/src -name '*.java')
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
}

for section in "${sections[@]}"; do
    case $section in
        files) "$section" ;;
        *) fail "unknown section $section (files)" ;;
    esac
done
echo "run-launcher: ok (${sections[*]})"
