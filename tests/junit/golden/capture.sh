#!/usr/bin/env bash
# Captures the golden outputs of the JUnit extension's Java-side logic into expected/ (issue 31,
# before its port to Rust): Golden.java runs the extension's package-private statics over
# cases/. Run once from the Java that still has that logic (before the JUnit API 8 switch): the
# files it writes are then the contract the Rust ports are tested against (src/report/baseline.rs,
# src/report/index_page.rs, src/frontends/junit/{baseline_file,outcome}.rs).
#
# The extension's classes: HEAPGROWTH_JUNIT_JAR, else $CARGO_TARGET_DIR/java/heapgrowth-junit.jar
# (scripts/package-java.sh) when it exists, else compiled here from jvm-glue/ with the same javac
# line as scripts/package-java.sh (Golden needs no native library, so no cargo build).
# JUnit's API jars: JUNIT_API_JARS, else Debian's junit5 package (scripts/setup.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
junit_api=${JUNIT_API_JARS:-/usr/share/java/junit-jupiter-api.jar:/usr/share/java/apiguardian-api.jar:/usr/share/java/junit-platform-commons.jar:/usr/share/java/opentest4j.jar}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

jar=${HEAPGROWTH_JUNIT_JAR:-$target/java/heapgrowth-junit.jar}
if [ -f "$jar" ]; then
    extension=$jar
else
    extension=$work/extension
    sources=$(cd "$root" && find jvm-glue/src/junit/java jvm-glue/src/main/java/dev/heapgrowth/attribution \
        jvm-glue/src/main/java/dev/heapgrowth/settle -name '*.java'
        echo jvm-glue/src/main/java/dev/heapgrowth/glue/Throwables.java)
    # shellcheck disable=SC2086 # one path a word
    (cd "$root" && javac --release 17 -encoding UTF-8 -Xlint:all -Werror -d "$extension" -cp "$junit_api" $sources)
fi
javac --release 17 -encoding UTF-8 -Xlint:all -Werror -d "$work/golden" -cp "$extension:$junit_api" "$here/Golden.java"

rm -rf "$here/expected"
mkdir -p "$work/scratch"
# A UTF-8 locale: the JVM names files in sun.jnu.encoding, and the cases have non-ASCII names.
# user.dir fixes what toAbsolutePath() of a relative path shows.
LC_ALL=C.UTF-8 java -Duser.dir=/golden/cwd -ea -cp "$work/golden:$extension:$junit_api" \
    dev.heapgrowth.junit.Golden "$here/cases" "$here/expected" "$work/scratch"
echo "capture: $(find "$here/expected" -type f | wc -l) files in $here/expected (from $extension)"
