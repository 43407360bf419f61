#!/usr/bin/env bash
# Tests of the Java side, end to end: builds the extension and plugin jars
# (scripts/package-java.sh: the plugin is compiled against Gradle 4.4.1 and Gradle 8.11.1's API),
# runs the plugin's ProjectBuilder unit tests under Debian's Gradle 4.4.1, the Maven Surefire
# sample (without and with the Maven plugin, which scripts/local-repo.sh builds and installs into
# the local Maven repository, its unit tests first) and the Gradle 4.4.1 sample (both offline
# from the extension's point of view: a
# leaking test must fail with the tree report, a clean one pass, and the baseline gate hold), and
# JUnit tests leaking through real libraries under the plugin's agent (each marks its own line),
# and plain test JVMs under the console launcher (unusable settings files, parallel execution,
# SIGTERM and SIGHUP during a heap dump).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/package-java.sh
echo "test-gradle-plugin: ProjectBuilder unit tests (Gradle 4.4.1)"
home=$(mktemp -d)
trap 'rm -rf "$home" gradle-plugin/build gradle-plugin/.gradle' EXIT
(cd gradle-plugin && GRADLE_USER_HOME=$home gradle --offline --no-daemon -q test)
tests/junit/run-maven-sample.sh
gradle-plugin/run-gradle-sample.sh
tests/junit/run-gradle-libraries.sh
tests/junit/run-launcher.sh
