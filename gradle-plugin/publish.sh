#!/usr/bin/env bash
# gradle-plugin/publish.sh DIR [PLUGIN_JAR]: publishes the Gradle plugin into the Maven
# repository DIR (created if missing), so that a build resolves it by id and version:
#
#   // settings.gradle                              // build.gradle
#   pluginManagement {                              plugins {
#       repositories { maven { url 'DIR' } }            id 'dev.heapgrowth' version '0.1.0'
#   }                                               }
#
# It writes, with a .sha1 and .md5 beside each file and a maven-metadata.xml per artifact
# (scripts/maven-repo.sh):
#   dev/heapgrowth/heapgrowth-gradle-plugin/VERSION/   the plugin jar (the extension inside), its
#       pom, -sources.jar and -javadoc.jar (from beside PLUGIN_JAR: build-plugin.sh writes them)
#   dev/heapgrowth/dev.heapgrowth.gradle.plugin/VERSION/   the plugin marker: a pom that depends on
#       the jar, which is how Gradle finds the artifact of a plugin id (ID:ID.gradle.plugin:VERSION)
#
# PLUGIN_JAR defaults to ${CARGO_TARGET_DIR:-target}/java/heapgrowth-gradle-plugin.jar, which
# scripts/package-java.sh builds; VERSION is the crate's (Cargo.toml). scripts/local-repo.sh calls
# this (DIR defaults there to target/local-repo, where the sample projects look); it works on its
# own as well. Publishing the same version again replaces it.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: gradle-plugin/publish.sh DIR [PLUGIN_JAR]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
jar=${2:-${CARGO_TARGET_DIR:-$root/target}/java/heapgrowth-gradle-plugin.jar}
[ -f "$jar" ] || { echo "publish: $jar missing; run scripts/package-java.sh" >&2; exit 1; }
mkdir -p "$1"
repo=$(cd "$1" && pwd)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n1)
[ -n "$version" ] || { echo "publish: no version in $root/Cargo.toml" >&2; exit 1; }
group=dev.heapgrowth
plugin_id=dev.heapgrowth
artifact=heapgrowth-gradle-plugin
marker=$plugin_id.gradle.plugin
# The id the jar declares must be the one the marker is published under.
unzip -p "$jar" "META-INF/gradle-plugins/$plugin_id.properties" | grep -q '^implementation-class=' \
    || { echo "publish: $jar does not declare plugin $plugin_id" >&2; exit 1; }

# shellcheck source=../scripts/maven-repo.sh
source "$root/scripts/maven-repo.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pom_xml "$artifact" jar "heapgrowth Gradle plugin" \
    "Gradle plugin dev.heapgrowth: runs @HeapGrowthTest tests with heapgrowth's JVMTI agent, so failures show the stacks that grew a leak (the JUnit 5 extension and its native libraries inside)" \
    >"$work/$artifact.pom"
publish_artifact "$repo" "$group" "$artifact" "$version" "$work/$artifact.pom" "$jar"
pom_xml "$marker" pom "Gradle plugin marker of $plugin_id" \
    "How Gradle finds the artifact of plugin id $plugin_id: a pom that depends on it" "$artifact" >"$work/$marker.pom"
publish_artifact "$repo" "$group" "$marker" "$version" "$work/$marker.pom"
echo "publish: $group:$artifact:$version and its marker $group:$marker:$version in $repo"
