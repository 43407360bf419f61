#!/usr/bin/env bash
# Builds OUT/heapgrowth-gradle-plugin.jar (OUT defaults to target/java) from gradle-plugin/src,
# with OUT/heapgrowth-junit.jar (scripts/package-java.sh builds it first) inside, and its
# -sources.jar and -javadoc.jar.
#
# The plugin is compiled twice, so that API drift fails the build:
#   - against Debian's Gradle 4.4.1 (/usr/share/gradle): these classes go into the jar;
#   - against the newest Gradle API on Maven Central (dev.gradleplugins:gradle-api 8.11.1, fetched
#     into the local Maven repository by scripts/setup.sh or here), where a deprecated call is an
#     error as well (-Xlint:all -Werror): the plugin is written for today's API, and what 4.4.1
#     lacks goes through GradleCompat by reflection.
set -euo pipefail
# Maven's console library ends every run with ESC[0m (a colour reset), even with -B and -q,
# where it is all the output: not on our console.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
out=$(cd "${1:-$(dirname "$0")/../target/java}" && pwd)
cd "$(dirname "$0")"
GRADLE_API_8_VERSION=8.11.1
GROOVY_3_VERSION=3.0.22
repo=${MAVEN_REPO:-$HOME/.m2/repository}
[ -f "$out/heapgrowth-junit.jar" ] || { echo "build-plugin: $out/heapgrowth-junit.jar missing" >&2; exit 1; }
[ -d /usr/share/gradle/lib ] || { echo "build-plugin: Debian's gradle package is missing (apt-get install gradle)" >&2; exit 1; }

gradle_api_8=$repo/dev/gradleplugins/gradle-api/$GRADLE_API_8_VERSION/gradle-api-$GRADLE_API_8_VERSION.jar
groovy_3=$repo/org/codehaus/groovy/groovy/$GROOVY_3_VERSION/groovy-$GROOVY_3_VERSION.jar
if [ ! -f "$gradle_api_8" ] || [ ! -f "$groovy_3" ]; then
    mvn -B -q dependency:get -Dtransitive=false -Dartifact=dev.gradleplugins:gradle-api:$GRADLE_API_8_VERSION
    mvn -B -q dependency:get -Dtransitive=false -Dartifact=org.codehaus.groovy:groovy:$GROOVY_3_VERSION
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sources=$(find src/main/java -name '*.java')
gradle_4=$(ls /usr/share/gradle/lib/*.jar /usr/share/gradle/lib/plugins/*.jar /usr/share/java/groovy-all.jar /usr/share/java/slf4j-api.jar | tr '\n' ':')
# Java 8 bytecode: Gradle 4.4.1 may itself run on Java 8.
javac --release 8 -encoding UTF-8 -Xlint:all -Werror -d "$work/classes" -cp "$gradle_4" $sources
echo "build-plugin: compiled against Gradle 4.4.1"
javac --release 8 -encoding UTF-8 -Xlint:all -Werror -d "$work/classes-8" -cp "$gradle_api_8:$groovy_3" $sources
echo "build-plugin: compiled against Gradle $GRADLE_API_8_VERSION's API"

cp -r src/main/resources/. "$work/classes/"
mkdir -p "$work/classes/dev/heapgrowth/gradle"
cp "$out/heapgrowth-junit.jar" "$work/classes/dev/heapgrowth/gradle/heapgrowth-junit.jar"
rm -f "$out/heapgrowth-gradle-plugin.jar"
jar --create --file "$out/heapgrowth-gradle-plugin.jar" -C "$work/classes" .
# shellcheck source=../scripts/java-docs.sh
source ../scripts/java-docs.sh
# shellcheck disable=SC2086 # one path a word
sources_and_javadoc_jars "$out/heapgrowth-gradle-plugin" "$gradle_4" $sources
echo "build-plugin: $out/heapgrowth-gradle-plugin.jar, -sources.jar, -javadoc.jar"
