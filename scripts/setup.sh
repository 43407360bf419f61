#!/usr/bin/env bash
# Installs what building and testing heapgrowth needs and the machine lacks: a JDK (17 or
# newer, with javac and the JNI/JVMTI headers), a C compiler for the small JVMTI agent, Debian's
# chromium for the HTML report's browser test, and Rust. Safe to run again.
set -euo pipefail
# Maven's console library ends every run with ESC[0m (a colour reset), even with -B and -q,
# where it is all the output: not on our console.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"

need_apt=()
command -v javac >/dev/null 2>&1 || need_apt+=(openjdk-17-jdk-headless)
command -v cc >/dev/null 2>&1 || need_apt+=(gcc libc6-dev)
# libFuzzer, for the reader's fuzz target (scripts/fuzz.sh), is C++.
command -v c++ >/dev/null 2>&1 || need_apt+=(g++)
# The JUnit extension and the Gradle plugin (scripts/test-gradle-plugin.sh): Debian's Gradle
# 4.4.1 and JUnit 5/JUnit 4 jars, Maven, objcopy (strips the library packed into the jar),
# python3 (reads the JUnit XML results).
command -v gradle >/dev/null 2>&1 || need_apt+=(gradle)
[ -f /usr/share/java/junit-platform-runner.jar ] || need_apt+=(junit5)
[ -f /usr/share/java/junit4.jar ] || need_apt+=(junit4)
command -v mvn >/dev/null 2>&1 || need_apt+=(maven)
command -v objcopy >/dev/null 2>&1 || need_apt+=(binutils)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
# Signing in the release test (tests/release/run-consumer.sh); reading jars (gradle-plugin/publish.sh).
command -v gpg >/dev/null 2>&1 || need_apt+=(gnupg)
command -v unzip >/dev/null 2>&1 || need_apt+=(unzip)
# Headless Chromium draws the HTML report in its end-to-end test (tests/end_to_end/html.rs).
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need_apt[@]}"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: Rust is missing; install it with rustup (https://rustup.rs), then run this again" >&2
    exit 1
fi
# The newest Gradle API on Maven Central, to compile the Gradle plugin against (gradle-plugin/build-plugin.sh).
m2=${MAVEN_REPO:-$HOME/.m2/repository}
[ -f "$m2/dev/gradleplugins/gradle-api/8.11.1/gradle-api-8.11.1.jar" ] \
    || mvn -B -q dependency:get -Dtransitive=false -Dartifact=dev.gradleplugins:gradle-api:8.11.1
[ -f "$m2/org/codehaus/groovy/groovy/3.0.22/groovy-3.0.22.jar" ] \
    || mvn -B -q dependency:get -Dtransitive=false -Dartifact=org.codehaus.groovy:groovy:3.0.22
# The jars that the real-library scenarios (tests/corpus/libs/src: Caffeine, Guava, Commons Pool,
# Logback, Micrometer leaks and their clean twins) compile and run against, with their transitive
# runtime dependencies, as listed in tests/corpus/libs/pom.xml (see the README beside it). They go
# to target/corpus-libs/, git-ignored; fetched again only when that list is newer than the copy.
root=$(cd "$(dirname "$0")/.." && pwd)
corpus_libs=$root/target/corpus-libs
if [ ! -f "$corpus_libs/.fetched" ] || [ "$root/tests/corpus/libs/pom.xml" -nt "$corpus_libs/.fetched" ]; then
    rm -rf "$corpus_libs"
    mvn -B -q -f "$root/tests/corpus/libs/pom.xml" dependency:copy-dependencies \
        -DoutputDirectory="$corpus_libs"
    touch "$corpus_libs/.fetched"
fi
echo "setup: javac $(javac -version 2>&1 | cut -d' ' -f2), $(cargo --version), $(cc --version | head -n1)"
