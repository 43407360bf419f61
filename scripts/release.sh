#!/usr/bin/env bash
# scripts/release.sh OUT [--version V] [--sign KEY] [--allow-dirty]: stages a release of heapgrowth
# from this checkout alone, everything a registry upload needs (docs/release.md says how to
# publish it):
#
#   OUT/maven/   a Maven repository (scripts/local-repo.sh): dev.heapgrowth:heapgrowth-junit,
#                heapgrowth-maven-plugin, heapgrowth-gradle-plugin and the plugin marker
#                dev.heapgrowth:dev.heapgrowth.gradle.plugin, each with a pom carrying what Maven
#                Central requires, -sources.jar, -javadoc.jar, .md5 and .sha1 (and .asc, signed)
#   OUT/heapgrowth-V-HOST.tar.gz   the CLI built for this machine (HOST: rustc's host triple,
#                x86_64-unknown-linux-gnu here), README.md and LICENSE; and its .sha256
#   OUT/heapgrowth-V.crate         the crate as `cargo package` builds and checks it; and its .sha256
#
# V is the version in Cargo.toml and maven-plugin/pom.xml (0.1.0); --version V only checks that
# this is the version meant, as a release of another version starts by changing both files.
# --sign KEY (or HEAPGROWTH_GPG_KEY=KEY) signs every file with that GnuPG key (FILE.asc; Maven
# Central requires it, a staged repository for a team's own use does not); without it nothing
# is signed, and the script says so. A checkout with uncommitted changes (tracked files changed,
# files git does not ignore added) is refused before anything is built; --allow-dirty stages
# them too: for tests, never for a release that is published.
# OUT must be new or empty: a release is never mixed with an older one's files. A staging that
# fails removes what it wrote there, so it can be run again into the same OUT.
set -euo pipefail
usage() { echo "usage: scripts/release.sh OUT [--version V] [--sign KEY] [--allow-dirty]" >&2; exit 2; }
out= want_version= allow_dirty=()
while [ $# -gt 0 ]; do
    case $1 in
        --version) [ $# -ge 2 ] || usage; want_version=$2; shift 2 ;;
        --sign) [ $# -ge 2 ] || usage; export HEAPGROWTH_GPG_KEY=$2; shift 2 ;;
        --allow-dirty) allow_dirty=(--allow-dirty); shift ;;
        -*) usage ;;
        *) [ -z "$out" ] || usage; out=$1; shift ;;
    esac
done
[ -n "$out" ] || usage
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
if [ -n "$want_version" ] && [ "$want_version" != "$version" ]; then
    echo "release: this checkout is version $version, not $want_version: set version in Cargo.toml and maven-plugin/pom.xml first" >&2
    exit 1
fi
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
    echo "release: $out is not empty; stage a release into a new directory" >&2
    exit 1
fi
# Every artifact is built from the working tree: refused here, uncommitted changes would go into
# the Maven repository and the tarball before `cargo package` (the last step) refused them.
changes=$(git status --porcelain)
if [ ${#allow_dirty[@]} -eq 0 ] && [ -n "$changes" ]; then
    echo "release: this checkout has uncommitted changes, and a release is staged from committed code:" >&2
    head -n 5 <<<"$changes" | sed 's/^/    /' >&2
    [ "$(wc -l <<<"$changes")" -le 5 ] || echo "    ..." >&2
    echo "release: commit or stash them, or pass --allow-dirty to stage them too (for tests, never for a published release)" >&2
    exit 1
fi
[ -e "$out" ] && made_out=false || made_out=true
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=
staged=false
# On any failure, what this run wrote into OUT goes (OUT was new or empty), and so does the
# scratch directory: a half-staged release is never left to be mistaken for a whole one.
cleanup() {
    [ -z "$work" ] || rm -rf "$work"
    if ! $staged; then
        if $made_out; then rm -rf -- "$out"; else find "$out/" -mindepth 1 -delete; fi
        echo "release: failed; removed what was staged in $out" >&2
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# Reached with changes only under --allow-dirty.
if [ -n "$changes" ]; then
    echo "release: staging uncommitted changes (--allow-dirty): not for a release that is published"
fi
target=${CARGO_TARGET_DIR:-$root/target}
if [ -n "${HEAPGROWTH_GPG_KEY:-}" ]; then
    echo "release: signing every file with GnuPG key $HEAPGROWTH_GPG_KEY"
else
    echo "release: not signed (Maven Central requires signatures: --sign KEY or HEAPGROWTH_GPG_KEY=KEY)"
fi
# shellcheck source=maven-repo.sh
source scripts/maven-repo.sh

echo "release: 1/3 the Maven repository"
scripts/local-repo.sh "$out/maven"

echo "release: 2/3 the command-line tool"
cargo build --release --locked --bin heapgrowth
host=$(rustc -vV | sed -n 's/^host: //p')
name=heapgrowth-$version-$host
work=$(mktemp -d)
mkdir "$work/$name"
# Without the debug info (profile.release has debug = 1 for profiling): a third of the size.
objcopy --strip-debug "$target/release/heapgrowth" "$work/$name/heapgrowth"
cp README.md LICENSE "$work/$name/"
# The same bytes from the same commit: owners, order and times do not depend on this machine.
tar --create --gzip --file "$out/$name.tar.gz" --directory "$work" --sort=name --owner=0 --group=0 \
    --numeric-owner --mtime="@$(git log -1 --format=%ct)" "$name"

echo "release: 3/3 the crate (cargo package builds it from its packaged files)"
cargo package --locked "${allow_dirty[@]}" --quiet
cp "$target/package/heapgrowth-$version.crate" "$out/"

for file in "$name.tar.gz" "heapgrowth-$version.crate"; do
    (cd "$out" && sha256sum "$file" >"$file.sha256")
    sign "$out/$file"
done
staged=true
echo "release: heapgrowth $version staged in $out:"
(cd "$out" && find . -type f ! -name '*.md5' ! -name '*.sha1' ! -name '*.asc' ! -name '*.sha256' | sort | sed 's|^\./|    |')
