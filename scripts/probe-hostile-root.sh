#!/usr/bin/env bash
# The probes of scripts/probe-hostile.sh that need root (issue 30), opt-in: links another
# user planted in a shared, sticky directory (an output path, a component of it, the
# --keep-dumps-dir, a scenario's directory inside it), a read-only directory and another user's
# file in a sticky directory seen by a user who is not root, and a full TMPDIR (a small tmpfs) during a dump. Needs root, `setpriv`,
# the user `nobody`, tmpfs mounts and a JDK (javac, java). About 30 s.
#
#   sudo scripts/probe-hostile-root.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
    echo "probe-hostile-root: needs root (another user's links, a tmpfs); skipped"
    exit 0
fi
cargo build --locked --quiet --bin heapgrowth --example hostile_dumps
work=$(mktemp -d)
mounted=
cleanup() {
    [ -n "$mounted" ] && umount "$mounted" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
# The binary where `nobody` can run it.
cp target/debug/heapgrowth "$work/heapgrowth"
bin=$work/heapgrowth
mkdir -m 700 "$work/tmp"
export TMPDIR=$work/tmp
target/debug/examples/hostile_dumps "$work"
chmod 644 "$work"/hostile-*.hprof
d1=$work/hostile-1.hprof d2=$work/hostile-2.hprof d3=$work/hostile-3.hprof
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
failures=0
fail() { echo "probe: FAIL: $*"; failures=$((failures + 1)); }

# want NAME STATUS PART: the last command's status and one stderr line with PART.
want() {
    local name=$1 wanted=$2 part=$3
    if [ "$status" -ne "$wanted" ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -qF -- "$part" "$work/err"; then
        fail "$name: exit $status, wanted $wanted and one line with '$part': $(head -c 400 "$work/err")"
    else
        echo "probe: ok: $name"
    fi
}

# A shared directory, as /tmp is: world-writable and sticky.
shared=$work/shared
mkdir -m 1777 "$shared"
victim=$work/victim.txt
echo "root's file" >"$victim"
as_nobody mkdir -m 755 "$shared/nobodys"

# An output that is another user's link: refused, the link's target unchanged.
as_nobody ln -s "$victim" "$shared/report.txt"
status=0; "$bin" diff "$d1" "$d2" "$d3" --output "$shared/report.txt" >/dev/null 2>"$work/err" || status=$?
want "--output is another user's symlink" 2 "is a symbolic link owned by another user"
[ "$(cat "$victim")" = "root's file" ] || fail "the link's target was written"
as_nobody ln -s "$shared/nobodys" "$shared/out"
status=0; "$bin" diff "$d1" "$d2" "$d3" --html "$shared/out/page.html" >/dev/null 2>"$work/err" || status=$?
want "--html through another user's directory link" 2 "is a symbolic link owned by another user"
[ -e "$shared/nobodys/page.html" ] && fail "the page went into another user's directory"

# --keep-dumps-dir that is another user's link: refused before the JVM starts.
as_nobody ln -s "$shared/nobodys" "$shared/dumps"
status=0; "$bin" run --classpath "$work" --scenario x.Y --keep-dumps failed \
    --keep-dumps-dir "$shared/dumps" >/dev/null 2>"$work/err" || status=$?
want "--keep-dumps-dir is another user's symlink" 2 "is a symbolic link owned by another user"

# Scenarios for the runs below: a leak, a clean one, and one whose heap is too big for the
# small TMPDIR.
mkdir -p "$work/src/probe" "$work/classes"
cat >"$work/src/probe/Leak.java" <<'EOF'
package probe;
public class Leak implements Runnable {
    static final java.util.List<byte[]> KEPT = new java.util.ArrayList<>();
    public void run() { KEPT.add(new byte[64]); }
}
EOF
cat >"$work/src/probe/Clean.java" <<'EOF'
package probe;
public class Clean implements Runnable {
    public void run() { new java.util.ArrayList<byte[]>().add(new byte[64]); }
}
EOF
cat >"$work/src/probe/Big.java" <<'EOF'
package probe;
public class Big implements Runnable {
    static final byte[][] HELD = new byte[48][];
    static { for (int i = 0; i < HELD.length; i++) HELD[i] = new byte[1 << 20]; }
    public void run() { }
}
EOF
javac -d "$work/classes" "$work"/src/probe/*.java
chmod -R a+rX "$work/classes"

# A scenario's directory in a shared --keep-dumps-dir that another user planted as a link:
# the dumps are not kept there, and the link's target keeps its mode.
as_nobody ln -s "$shared/nobodys" "$shared/probe.Leak"
status=0; "$bin" run --classpath "$work/classes" --scenario probe.Leak --no-attribution \
    --keep-dumps failed --keep-dumps-dir "$shared" >"$work/out" 2>"$work/err" || status=$?
if [ "$(stat -c %a "$shared/nobodys")" != 755 ] || [ -n "$(ls -A "$shared/nobodys")" ]; then
    fail "kept dumps went through another user's link (or changed its target's mode)"
elif ! grep -q "Heap dumps not kept: .*not a private directory" "$work/out"; then
    fail "planted scenario directory: the report does not say why dumps were not kept: $(tail -3 "$work/out")"
else
    echo "probe: ok: a scenario directory planted as a link in --keep-dumps-dir"
fi

# Without the link: the scenario's directory is made 0700, the dumps 0600.
rm -rf "${shared:?}"/*
status=0; "$bin" run --classpath "$work/classes" --scenario probe.Leak --no-attribution \
    --keep-dumps failed --keep-dumps-dir "$shared" >"$work/out" 2>"$work/err" || status=$?
if [ "$status" -ne 1 ] || [ "$(stat -c '%a %U' "$shared/probe.Leak")" != "700 root" ]; then
    fail "kept dumps: exit $status, directory $(stat -c '%a %U' "$shared/probe.Leak" 2>&1)"
else
    echo "probe: ok: kept dumps in a private directory of their own"
fi

# A directory the user cannot write to, as a user who is not root.
mkdir -m 755 "$work/readonly"
status=0; as_nobody env TMPDIR=/tmp "$bin" diff "$d1" "$d2" "$d3" --output "$work/readonly/r.txt" \
    >/dev/null 2>"$work/err" || status=$?
want "--output in a directory the user cannot write" 2 "cannot create a file in"

# Another user's file in a shared, sticky directory: only its owner, the directory's owner or
# root may rename over it, so a user is refused before any work (not after, when the report
# cannot be written).
echo "root's report" >"$shared/taken.txt"
chmod 644 "$shared/taken.txt"
status=0; as_nobody env TMPDIR=/tmp "$bin" diff "$d1" "$d2" "$d3" --output "$shared/taken.txt" \
    >/dev/null 2>"$work/err" || status=$?
want "--output is another user's file in a sticky directory" 2 "another user's file (uid 0) in a sticky directory"
[ "$(cat "$shared/taken.txt")" = "root's report" ] || fail "another user's file was replaced"

# A full TMPDIR during a dump: that scenario fails saying so, and the next one still runs
# (the failed dump's space is freed at once).
small=$work/small-tmp
mkdir "$small"
mount -t tmpfs -o size=32m,mode=700 tmpfs "$small"
mounted=$small
for round in 1 2 3; do
    status=0
    TMPDIR=$small "$bin" run --classpath "$work/classes" --scenario probe.Big --scenario probe.Clean \
        --no-attribution >"$work/out" 2>"$work/err" || status=$?
    if ! grep -q "Scenario probe.Big: error: .*No space left" "$work/out"; then
        fail "full TMPDIR, round $round: probe.Big did not fail for space: $(head -c 400 "$work/out")"
    elif ! grep -q "Scenario probe.Clean: no growing objects" "$work/out"; then
        fail "full TMPDIR, round $round: the next scenario failed too: $(grep Clean "$work/out" | head -c 400)"
    elif [ -n "$(ls -A "$small")" ]; then
        fail "full TMPDIR, round $round: left $(ls -A "$small")"
    else
        echo "probe: ok: full TMPDIR, round $round"
    fi
done

if [ "$failures" -gt 0 ]; then
    echo "probe-hostile-root: $failures probe(s) failed"
    exit 1
fi
echo "probe-hostile-root: all probes passed"
