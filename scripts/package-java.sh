#!/usr/bin/env bash
# Builds the Java artifacts into target/java/:
#   heapgrowth-junit.jar   the JUnit 5 extension (@HeapGrowthTest) with the engine
#                          (libheapgrowth.so) and the JVMTI agent inside, under
#                          META-INF/native/<os>-<arch>/ (this machine's: linux-x86_64)
#   heapgrowth-junit-sources.jar, heapgrowth-junit-javadoc.jar   what Maven Central wants beside it
#   heapgrowth-gradle-plugin.jar   the Gradle plugin `dev.heapgrowth` (when gradle-plugin/ has
#                          its compile classpath: Debian's Gradle 4.4.1 in /usr/share/gradle)
# Needs: cargo, a JDK 17+, Debian's junit5 package (or JUNIT_API_JARS=jar:jar:...).
# HEAPGROWTH_NATIVE_DIRS=DIR adds the native folders other platforms built, DIR/<os>-<arch>/.
# With CARGO_TARGET_DIR set, the build and the jars go there (CARGO_TARGET_DIR/java), so a second
# checkout or engineer can build beside target/ without waiting on its lock.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
out=$target/java
mkdir -p "$out"

cargo build --release --lib --locked
agent=$(ls -t "$target"/release/build/heapgrowth-*/out/libheapgrowth_agent.so | head -n1)

junit_api=${JUNIT_API_JARS:-/usr/share/java/junit-jupiter-api.jar:/usr/share/java/apiguardian-api.jar:/usr/share/java/junit-platform-commons.jar:/usr/share/java/opentest4j.jar}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# This machine's folder, <os>-<arch>. A build on another platform adds its own folder beside it
# (docs/release.md), for the extension to load the one of the JVM it runs in.
native=$work/classes/META-INF/native/linux-x86_64
mkdir -p "$native"
# The extension plus the glue classes every JVM heapgrowth works in has (one source, also in
# the engine's glue jar): attribution follows growing paths through them in the test JVM,
# Throwables describes exceptions, and the settler waits for background work before each dump.
sources=$(find jvm-glue/src/junit/java jvm-glue/src/main/java/dev/heapgrowth/attribution \
    jvm-glue/src/main/java/dev/heapgrowth/settle -name '*.java'
    echo jvm-glue/src/main/java/dev/heapgrowth/glue/Throwables.java)
# shellcheck disable=SC2086 # one path a word
javac --release 17 -encoding UTF-8 -Xlint:all -Werror -d "$work/classes" -cp "$junit_api" $sources
# The debug info (profile.release has debug = 1) would make the jar 20 MB.
objcopy --strip-debug "$target/release/libheapgrowth.so" "$native/libheapgrowth.so"
cp "$agent" "$native/libheapgrowth_agent.so"
# The folders other machines built (docs/release.md: the CI matrix), HEAPGROWTH_NATIVE_DIRS/<os>-<arch>/;
# this machine's own build stands for its platform.
for dir in ${HEAPGROWTH_NATIVE_DIRS:+"$HEAPGROWTH_NATIVE_DIRS"/*/}; do
    platform=$(basename "$dir")
    [ -d "$dir" ] && [ "$platform" != linux-x86_64 ] || continue
    mkdir -p "$work/classes/META-INF/native/$platform"
    cp "$dir"* "$work/classes/META-INF/native/$platform/"
    echo "package: META-INF/native/$platform/ from $dir"
done
rm -f "$out"/heapgrowth-junit*.jar
jar --create --file "$out/heapgrowth-junit.jar" -C "$work/classes" .
# shellcheck source=java-docs.sh
source scripts/java-docs.sh
# shellcheck disable=SC2086
sources_and_javadoc_jars "$out/heapgrowth-junit" "$junit_api" $sources
echo "package: $out/heapgrowth-junit.jar, -sources.jar, -javadoc.jar"

if [ -x gradle-plugin/build-plugin.sh ]; then
    gradle-plugin/build-plugin.sh "$out"
fi
