#!/usr/bin/env bash
# scripts/local-repo.sh [--no-build] [DIR]: builds every artifact a user of heapgrowth needs and
# puts it into the Maven repository DIR (created if missing; default target/local-repo, or
# CARGO_TARGET_DIR/local-repo when that is set), each with a pom carrying what Maven Central
# requires (scripts/maven-repo.sh), its -sources.jar and -javadoc.jar, a .sha1 and .md5 beside
# each file (and a .asc with HEAPGROWTH_GPG_KEY set) and a maven-metadata.xml per artifact:
#
#   dev.heapgrowth:heapgrowth-junit:VERSION         the JUnit 5 extension, the native libraries inside
#   dev.heapgrowth:heapgrowth-maven-plugin:VERSION  the Maven plugin (goal prepare-agent)
#   dev.heapgrowth:heapgrowth-gradle-plugin:VERSION and its plugin marker
#       dev.heapgrowth:dev.heapgrowth.gradle.plugin:VERSION (written by gradle-plugin/publish.sh)
#
# scripts/release.sh stages a release's Maven repository with this. DIR may be Maven's own local
# repository (~/.m2/repository): Maven builds then find the artifacts with no <repositories> in
# their pom. Writing the same version again replaces it. VERSION is the crate's (Cargo.toml).
#
# --no-build: take the jars scripts/package-java.sh built before (the end-to-end scripts run it
# first) instead of running it again; the Maven plugin is built either way (mvn, its
# dependencies from Maven Central).
set -euo pipefail
build=1
if [ "${1:-}" = --no-build ]; then
    build=0
    shift
fi
[ $# -le 1 ] || { echo "usage: scripts/local-repo.sh [--no-build] [DIR]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
mkdir -p "$target" "${1:-$target/local-repo}"
target=$(cd "$target" && pwd)
repo=$(cd "${1:-$target/local-repo}" && pwd)
group=dev.heapgrowth
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
[ -n "$version" ] || { echo "local-repo: no version in Cargo.toml" >&2; exit 1; }
plugin_version=$(sed -n '/<artifactId>heapgrowth-maven-plugin<\/artifactId>/{n;s/ *<version>\(.*\)<\/version>/\1/p;q}' \
    maven-plugin/pom.xml)
[ "$plugin_version" = "$version" ] \
    || { echo "local-repo: maven-plugin/pom.xml is version $plugin_version, Cargo.toml $version" >&2; exit 1; }

if [ "$build" = 1 ]; then
    scripts/package-java.sh
fi
junit_jar=$target/java/heapgrowth-junit.jar
[ -f "$junit_jar" ] || { echo "local-repo: $junit_jar missing; run scripts/package-java.sh" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "local-repo: building the Maven plugin (its unit tests run)"
# Its class path too, for its javadoc.
mvn -B -f maven-plugin/pom.xml -Dheapgrowth.buildDirectory="$target/maven-plugin" package dependency:build-classpath \
    -Dmdep.outputFile="$work/plugin-classpath.txt" >"$work/mvn.log" 2>&1 \
    || { cat "$work/mvn.log"; echo "local-repo: the Maven plugin did not build" >&2; exit 1; }
plugin_jar=$target/maven-plugin/heapgrowth-maven-plugin-$version.jar

# shellcheck source=maven-repo.sh
source "$root/scripts/maven-repo.sh"
# shellcheck source=java-docs.sh
source "$root/scripts/java-docs.sh"
# shellcheck disable=SC2046 # one path a word
sources_and_javadoc_jars "${plugin_jar%.jar}" "$target/maven-plugin/classes:$(cat "$work/plugin-classpath.txt")" \
    $(find maven-plugin/src/main/java -name '*.java')

# The extension's pom: no dependencies, as the project that uses it brings JUnit 5 itself.
pom_xml heapgrowth-junit jar "heapgrowth JUnit 5 extension" \
    "@HeapGrowthTest: fails a JUnit 5 test whose loops grow the heap, with the path that holds the growth; the engine and JVMTI agent for linux-x86_64 inside" \
    >"$work/heapgrowth-junit.pom"
publish_artifact "$repo" "$group" heapgrowth-junit "$version" "$work/heapgrowth-junit.pom" "$junit_jar"
publish_artifact "$repo" "$group" heapgrowth-maven-plugin "$version" maven-plugin/pom.xml "$plugin_jar"
echo "local-repo: $group:heapgrowth-junit:$version and $group:heapgrowth-maven-plugin:$version in $repo"
gradle-plugin/publish.sh "$repo" "$target/java/heapgrowth-gradle-plugin.jar"
