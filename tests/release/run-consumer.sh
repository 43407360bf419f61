#!/usr/bin/env bash
# tests/release/run-consumer.sh: heapgrowth as a newcomer gets it, by coordinates. Stages a release
# (scripts/release.sh) and checks its files and poms, then builds the README's snippets as written,
# each knowing only the staged directory (the README's /tmp/heapgrowth-0.1.0 is replaced by this
# run's own; the cargo snippet's ../heapgrowth by this checkout):
#   1. the staged files, checksums and pom metadata (check_staged.py), and signing with a key;
#   2. the command-line quick start: the tarball's binary finds the README's leak and its line;
#   3. Maven: a fresh project of the README's pom fragment and test class, an empty private local
#      repository (nothing from ~/.m2; JUnit and Maven's plugins from Maven Central): the leaking
#      test fails naming the user's line, its clean twin passes;
#   4. Gradle 4.4.1: the README's settings.gradle and docs/junit.md's Gradle 4.4.1 build.gradle,
#      a private GRADLE_USER_HOME; the same verdicts; the README's build.gradle (today's Gradle,
#      which cannot run here) differs from it only in how JUnit 5 is run;
#   5. cargo: the README's Cargo.toml lines and tests/leaks.rs compile as written, the
#      first run asks for the snapshot, an accepted one records the growing path.
# Every xml, groovy, toml, rust and java block of the README must carry a snippet= tag
# (tests/release/snippets.py), so none goes untested.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "run-consumer: $*" >&2; exit 1; }
check() { python3 "$root/tests/junit/check_results.py" "$@"; }
command -v gradle >/dev/null || fail "no gradle (scripts/setup.sh installs Debian's)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/staged
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n1)
project_url=$(sed -n 's/^repository = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n1)
host=$(rustc -vV | sed -n 's/^host: //p')
leak=loginAndLogoutDoesNotLeak
clean=loginWithoutAuditAndLogoutDoesNotLeak
look_here="at com.example.Sessions.login(Sessions.java:13)   ← look here"

echo "run-consumer: 1. scripts/release.sh stages $version; its files and poms"
# Refused before anything is built: another version than the checkout's, a directory in use.
! "$root/scripts/release.sh" "$work/other" --version 9.9.9 >"$work/release.log" 2>&1 \
    && grep -q "^release: this checkout is version $version, not 9.9.9" "$work/release.log" \
    || fail "release.sh --version 9.9.9: $(cat "$work/release.log")"
mkdir "$work/used" && touch "$work/used/kept"
! "$root/scripts/release.sh" "$work/used" >"$work/release.log" 2>&1 && grep -q "is not empty" "$work/release.log" \
    && [ "$(ls "$work/used")" = kept ] || fail "release.sh into a directory in use: $(cat "$work/release.log")"
# Uncommitted changes are refused before anything is built, and a staging that fails removes
# what it wrote: checked on a throwaway checkout holding this release.sh, whose first step
# (a stand-in for local-repo.sh) writes part of a repository and whose second (cargo build, with
# no crate there) fails. Not on this checkout: a developer's may have changes.
fake=$work/fake-checkout
mkdir -p "$fake/scripts"
cp "$root/scripts/release.sh" "$fake/scripts/"
echo 'sign() { :; }' >"$fake/scripts/maven-repo.sh"
printf '#!/bin/sh\nmkdir -p "$1/dev" && echo part >"$1/dev/part"\n' >"$fake/scripts/local-repo.sh"
chmod +x "$fake/scripts/local-repo.sh"
printf 'version = "%s"\n' "$version" >"$fake/Cargo.toml"
git -C "$fake" init -q && git -C "$fake" add -A
git -C "$fake" -c user.name=test -c user.email=test@example.com commit -qm "a checkout"
echo "# changed" >>"$fake/Cargo.toml" && touch "$fake/added"
! "$fake/scripts/release.sh" "$work/dirty" >"$work/release.log" 2>&1 \
    && grep -q "^release: this checkout has uncommitted changes" "$work/release.log" \
    && grep -q "^     M Cargo.toml" "$work/release.log" && grep -q "^    ?? added" "$work/release.log" \
    && [ ! -e "$work/dirty" ] || fail "release.sh with uncommitted changes: $(cat "$work/release.log")"
! "$fake/scripts/release.sh" "$work/dirty" --allow-dirty >"$work/release.log" 2>&1 \
    && grep -q "^release: staging uncommitted changes" "$work/release.log" \
    && grep -q "^release: failed; removed what was staged in $work/dirty" "$work/release.log" \
    && [ ! -e "$work/dirty" ] || fail "release.sh that fails into a new directory: $(cat "$work/release.log")"
mkdir "$work/empty"
! "$fake/scripts/release.sh" "$work/empty" --allow-dirty >"$work/release.log" 2>&1 \
    && [ -d "$work/empty" ] && [ -z "$(ls -A "$work/empty")" ] \
    || fail "release.sh that fails into an empty directory: $(ls -AR "$work/empty") $(cat "$work/release.log")"
# A folder another platform's build would add (docs/release.md): packaging only, never loaded here.
mkdir -p "$work/native/macos-aarch64"
echo "not a library: the packaging test's stand-in" >"$work/native/macos-aarch64/libheapgrowth.dylib"
HEAPGROWTH_NATIVE_DIRS=$work/native "$root/scripts/release.sh" "$out" --version "$version" --allow-dirty \
    >"$work/release.log" 2>&1 || { cat "$work/release.log"; fail "scripts/release.sh failed"; }
# (Listings go through a file: with pipefail, grep -q ending a pipe early fails the unzip before it.)
unzip -Z1 "$out/maven/dev/heapgrowth/heapgrowth-junit/$version/heapgrowth-junit-$version.jar" >"$work/listing"
grep -qx "META-INF/native/macos-aarch64/libheapgrowth.dylib" "$work/listing" \
    || fail "HEAPGROWTH_NATIVE_DIRS's folder is not in the jar"
grep -q "^release: not signed" "$work/release.log" || fail "release.sh does not say the release is not signed"
python3 "$here/check_staged.py" "$out" "$version" "$project_url" "$host"
# docs/release.md's Central bundle: the repository without maven-metadata.xml, every file in it.
(cd "$out/maven" && zip -qr ../central-bundle.zip dev -x '*/maven-metadata.xml*')
unzip -Z1 "$out/central-bundle.zip" >"$work/listing"
[ "$(grep -v '/$' "$work/listing" | sort)" = "$(cd "$out/maven" && find dev -type f ! -name 'maven-metadata.xml*' | sort)" ] \
    && ! grep -q maven-metadata "$work/listing" || fail "docs/release.md's Central bundle is not the repository"
rm "$out/central-bundle.zip"
grep -qxF "<url>$project_url</url>" <(sed 's/^ *//' "$root/maven-plugin/pom.xml") \
    || fail "maven-plugin/pom.xml's url is not Cargo.toml's repository $project_url"
# Signing: the same functions with a throwaway key, each signature verified.
export GNUPGHOME=$work/gnupg
mkdir -m 700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key 'heapgrowth release test <release-test@example.invalid>' ed25519 sign never 2>/dev/null
(
    # shellcheck source=../../scripts/maven-repo.sh
    source "$root/scripts/maven-repo.sh"
    HEAPGROWTH_GPG_KEY=release-test@example.invalid
    dir=$out/maven/dev/heapgrowth/heapgrowth-junit/$version
    publish_artifact "$work/signed" dev.heapgrowth heapgrowth-junit "$version" "$dir/heapgrowth-junit-$version.pom" \
        "$dir/heapgrowth-junit-$version.jar"
)
signed=$work/signed/dev/heapgrowth/heapgrowth-junit/$version
for file in "$signed"/*.jar "$signed"/*.pom; do
    gpg --batch --quiet --verify "$file.asc" "$file" 2>/dev/null || fail "no valid signature for $file"
done
[ "$(find "$out" -name '*.asc' | wc -l)" = 0 ] || fail "an unsigned release has .asc files"

python3 "$here/snippets.py" --out "$work/snippets" --every-block "$root/README.md" \
    --replace "/tmp/heapgrowth-0.1.0=$out" --replace "\"../heapgrowth\"=\"$root\"" \
    "$root/README.md" "$root/docs/junit.md" >/dev/null
snippets=$work/snippets

echo "run-consumer: 2. the command-line quick start (at ${SECONDS} s)"
mkdir "$work/cli"
(cd "$work/cli" && bash "$snippets/cli/quickstart.sh" >"$work/cli.log" 2>&1) && fail "the CLI quick start exited 0 on the leak"
grep -q "STATIC_FIELD Leak.KEPT" "$work/cli.log" && grep -qF "at com.example.Leak.run(Leak.java:4)   ← look here" "$work/cli.log" \
    || { cat "$work/cli.log"; fail "the CLI quick start does not show what the README says"; }

# project DIR: a new project of the user's code (Sessions) and the README's test class.
project() {
    mkdir -p "$1/src/test/java/com/example"
    cp -r "$here/consumer/src/main" "$1/src/"
    cp "$snippets/junit/src/test/java/com/example/SessionsTest.java" "$1/src/test/java/com/example/"
}

echo "run-consumer: 3. Maven: the README's pom fragment, an empty local repository (at ${SECONDS} s)"
project "$work/maven"
cp "$here/consumer/src/test/java/com/example/CleanSessionsTest.java" "$work/maven/src/test/java/com/example/"
# What every pom has around the README's fragment (the compiler settings a project already has).
{
    cat <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>sessions</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.source>17</maven.compiler.source>
    <maven.compiler.target>17</maven.compiler.target>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
EOF
    cat "$snippets/maven/pom.xml"
    echo '</project>'
} >"$work/maven/pom.xml"
echo '<settings/>' >"$work/settings.xml"
(cd "$work/maven" && mvn -B -Dstyle.color=never -s "$work/settings.xml" -Dmaven.repo.local="$work/m2" test \
    >"$work/mvn.log" 2>&1) && { cat "$work/mvn.log"; fail "mvn test passed despite the leak"; }
[ -d "$work/maven/target/surefire-reports" ] || { cat "$work/mvn.log"; fail "mvn ran no test"; }
check "$work/maven/target/surefire-reports" "$leak=fail:STATIC_FIELD Sessions.AUDIT -> instance of java.util.ArrayList" \
    "$leak=fail:$look_here" "$clean=pass"
# Every heapgrowth artifact came from the staged repository (the README's id), none from elsewhere.
for artifact in heapgrowth-junit heapgrowth-maven-plugin; do
    grep -q "^$artifact-$version.jar>heapgrowth-staged=$" "$work/m2/dev/heapgrowth/$artifact/$version/_remote.repositories" \
        || fail "$artifact did not come from the staged repository: $(cat "$work/m2/dev/heapgrowth/$artifact/$version/_remote.repositories" 2>&1)"
done

echo "run-consumer: 4. Gradle $(gradle --version 2>/dev/null | sed -n 's/^Gradle //p'): the README's settings.gradle, a new GRADLE_USER_HOME (at ${SECONDS} s)"
project "$work/gradle"
rm "$work/gradle/src/test/java/com/example/SessionsTest.java" # Gradle 4.4.1 needs the JUnit 4 runner: its variant
cp "$here/consumer/src/gradle-test/java/com/example/GradleSessionsTest.java" "$work/gradle/src/test/java/com/example/"
cp "$snippets/gradle/settings.gradle" "$snippets/gradle-4.4.1/build.gradle" "$work/gradle/"
(cd "$work/gradle" && GRADLE_USER_HOME=$work/gradle-home gradle --no-daemon --console=plain test >"$work/gradle.log" 2>&1) \
    && { cat "$work/gradle.log"; fail "gradle test passed despite the leak"; }
[ -d "$work/gradle/build/test-results/test" ] || { cat "$work/gradle.log"; fail "gradle ran no test"; }
check "$work/gradle/build/test-results/test" "$leak=fail:STATIC_FIELD Sessions.AUDIT -> instance of java.util.ArrayList" \
    "$leak=fail:$look_here" "$clean=pass"
grep -qF "$look_here" "$work/gradle.log" || fail "the Gradle console does not show the report (exceptionFormat 'full')"
# Today's build.gradle in the README: every line but how JUnit 5 runs is in the 4.4.1 one.
python3 - "$snippets/gradle/build.gradle" "$snippets/gradle-4.4.1/build.gradle" <<'PY' || fail "the README's build.gradle drifted from docs/junit.md's Gradle 4.4.1 one"
import sys
today, old = (open(path).read().split("\n") for path in sys.argv[1:])
only_today = {"    testRuntimeOnly 'org.junit.platform:junit-platform-launcher:1.14.1'", "test { useJUnitPlatform() }"}
missing = [line for line in today if line and not line.startswith("//") and line not in only_today and line not in old]
sys.exit(f"lines not in the 4.4.1 build.gradle: {missing}" if missing else 0)
PY

echo "run-consumer: 5. cargo: the README's Cargo.toml lines and tests/leaks.rs (at ${SECONDS} s)"
crate=$work/cargo
mkdir -p "$crate/src" "$crate/java"
cp -r "$snippets/cargo/." "$crate/"
{
    printf '[package]\nname = "sessions"\nversion = "0.1.0"\nedition = "2021"\n\n'
    cat "$snippets/cargo/Cargo.toml"
} >"$crate/Cargo.toml"
: >"$crate/src/lib.rs"
cp "$work/cli/java/Leak.java" "$crate/java/" # the README's java_sources("java") compiles "Leak.java above"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
(cd "$crate" && INSTA_UPDATE=no cargo test --test leaks >"$work/cargo.log" 2>&1) \
    && { cat "$work/cargo.log"; fail "the first cargo test passed with no snapshot"; }
grep -q "com.example.Leak has no snapshot yet" "$work/cargo.log" \
    || { cat "$work/cargo.log"; fail "the first cargo test did not fail for want of a snapshot"; }
(cd "$crate" && INSTA_UPDATE=always cargo test --test leaks >"$work/cargo.log" 2>&1) \
    || { cat "$work/cargo.log"; fail "cargo test with INSTA_UPDATE=always failed"; }
grep -q "STATIC_FIELD Leak.KEPT" "$crate/snapshots/com.example.Leak.snap" \
    || fail "the accepted snapshot lacks the growing path: $(cat "$crate/snapshots/com.example.Leak.snap")"
echo "run-consumer: ok (${SECONDS} s)"
