#!/usr/bin/env bash
# Probes heapgrowth's command line with dumps and paths someone else controls, as a careful
# user and an attacker would try them (issue 30): names from a crafted dump with terminal
# escapes, CR LF and bidi controls; inputs that are FIFOs, devices, directories, empty,
# truncated, the same dump through a hard link, a symlink or another spelling; outputs that
# are an input, each other, a directory, a device, in a missing directory; a dump truncated
# while it is read (the end-to-end test hostile::a_dump_truncated_while_read_...: it needs
# large dumps); too little address space; unusable --keep-dumps-dir. Each probe must end
# in time, with the exit status it expects, one `heapgrowth:` line on stderr where it fails,
# no byte a terminal acts on in what is printed, and inputs and outputs as they were.
# Prints one line per probe; exits 1 if any probe fails. About 10 s; no JVM, no root.
# Probes that need root (another user's links, a full TMPDIR): scripts/probe-hostile-root.sh.
#
#   scripts/probe-hostile.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --locked --quiet --bin heapgrowth --example hostile_dumps
bin=$PWD/target/debug/heapgrowth
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
mkdir "$work/tmp"
export TMPDIR=$work/tmp
target/debug/examples/hostile_dumps "$work"
d1=$work/hostile-1.hprof d2=$work/hostile-2.hprof d3=$work/hostile-3.hprof
sum_before=$(cat "$d1" "$d2" "$d3" | sha256sum)
failures=0

fail() { echo "probe: FAIL: $*"; failures=$((failures + 1)); }

# Bytes a terminal or viewer acts on, other than line feeds: C0/C1 controls, bidi controls,
# line separators.
acting() { LC_ALL=C.UTF-8 grep -P '[\x00-\x09\x0b-\x1f\x7f\x{80}-\x{9f}\x{61c}\x{200e}\x{200f}\x{202a}-\x{202e}\x{2066}-\x{2069}\x{2028}\x{2029}]' "$1" >/dev/null; }

# expect NAME STATUS PART -- ARGS...: runs heapgrowth ARGS (at most 30 s), wants exit STATUS
# and, for status 2, exactly one stderr line, containing PART; nothing acting in either
# stream; TMPDIR left empty.
expect() {
    local name=$1 want=$2 part=$3
    shift 4
    local status=0
    timeout 30 "$bin" "$@" >"$work/out" 2>"$work/err" </dev/null || status=$?
    if [ "$status" -ne "$want" ]; then
        fail "$name: exit $status, wanted $want: $(head -c 300 "$work/err")"
        return
    fi
    if [ "$want" -eq 2 ]; then
        if [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -qF -- "$part" "$work/err"; then
            fail "$name: wanted one line with '$part', got: $(head -c 400 "$work/err")"
            return
        fi
    elif [ -n "$part" ] && ! grep -qF -- "$part" "$work/out"; then
        fail "$name: the report lacks '$part'"
        return
    fi
    if acting "$work/out" || acting "$work/err"; then
        fail "$name: a control or bidi character reached the terminal"
        return
    fi
    if [ -n "$(ls -A "$TMPDIR")" ]; then
        fail "$name: left $(ls -A "$TMPDIR") in TMPDIR"
        rm -rf "${TMPDIR:?}"/*
        return
    fi
    echo "probe: ok: $name"
}

# Names from a crafted dump: escaped in the text report, the HTML page, the JSON.
expect "hostile names, text report" 1 'Holder.fitems\u{1b}[2J\u{2067}' -- diff "$d1" "$d2" "$d3"
expect "hostile names, full stacks" 1 'worker\n\u{202e}evil\u{1b}[m' -- diff "$d1" "$d2" "$d3" --full-stacks
expect "hostile names, JSON to stdout" 1 '' -- diff "$d1" "$d2" "$d3" --format json
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/out" || fail "JSON report does not parse"
expect "hostile names, HTML page" 1 '' -- diff "$d1" "$d2" "$d3" --html "$work/page.html"
if acting "$work/page.html" || grep -qF '</script><b>' "$work/page.html"; then
    fail "hostile names reach the HTML page's source unescaped"
fi

# Inputs that are no dump, or the same dump again.
mkfifo "$work/fifo.hprof"
expect "a FIFO as a dump" 2 "FIFO" -- diff "$d1" "$d2" "$work/fifo.hprof"
expect "/dev/zero as a dump" 2 "device" -- diff "$d1" "$d2" /dev/zero
expect "/dev/stdin as a dump" 2 "not a regular file" -- diff "$d1" "$d2" /dev/stdin
expect "a directory as a dump" 2 "it is a directory" -- diff "$d1" "$d2" "$work"
: >"$work/empty.hprof"
expect "an empty dump" 2 "not an HPROF heap dump" -- diff "$d1" "$d2" "$work/empty.hprof"
head -c 31 "$d3" >"$work/header-only.hprof"
expect "a dump of a header only" 2 "header-only.hprof" -- diff "$d1" "$d2" "$work/header-only.hprof"
head -c $(($(stat -c %s "$d3") - 9)) "$d3" >"$work/cut.hprof"
expect "a truncated dump" 2 "cut.hprof" -- diff "$d1" "$d2" "$work/cut.hprof"
ln "$d1" "$work/hard.hprof"
expect "the same dump through a hard link" 2 "is given twice" -- diff "$d1" "$d2" "$work/hard.hprof"
ln -s "$d1" "$work/soft.hprof"
expect "the same dump through a symlink" 2 "is given twice" -- diff "$d1" "$d2" "$work/soft.hprof"
expect "the same dump spelled twice" 2 "is given twice" -- diff "$d1" "$d2" "$work/tmp/../hostile-1.hprof"
expect "a dump that does not exist" 2 "cannot read heap dump" -- diff "$d1" "$d2" "$work/missing.hprof"

# Outputs that would replace an input or each other, or cannot be written.
expect "--output is an input" 2 "is the same file as the input" -- diff "$d1" "$d2" "$d3" --output "$d3"
expect "--html is an input" 2 "is the same file as the input" -- diff "$d1" "$d2" "$d3" --html "$d2"
expect "--output is a hard link of an input" 2 "is the same file as the input" -- diff "$d1" "$d2" "$d3" --output "$work/hard.hprof"
expect "--output is a symlink to an input" 2 "is the same file as the input" -- diff "$d1" "$d2" "$d3" --output "$work/soft.hprof"
echo "rule" >"$work/rules.txt"
expect "--output is the ignore file" 2 "is the same file as the input" -- diff "$d1" "$d2" "$d3" --ignore-file "$work/rules.txt" --output "$work/rules.txt"
expect "--output and --html the same" 2 "are the same file" -- diff "$d1" "$d2" "$d3" --output "$work/r" --html "$work/./r"
expect "--output a directory" 2 "it is a directory" -- diff "$d1" "$d2" "$d3" --output "$work"
expect "--output a device" 2 "not a regular file" -- diff "$d1" "$d2" "$d3" --output /dev/full
expect "--html in a missing directory" 2 "does not exist" -- diff "$d1" "$d2" "$d3" --html "$work/missing/page.html"
expect "--output whose name holds escapes" 2 'x\u{1b}[31m' -- diff "$d1" "$d2" "$d3" --output "$work/missing/x"$'\e[31m'
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$work/closed" && chmod 500 "$work/closed"
    expect "--output in a read-only directory" 2 "cannot create a file in" -- diff "$d1" "$d2" "$d3" --output "$work/closed/r.txt"
fi
expect "--output written whole" 1 '' -- diff "$d1" "$d2" "$d3" --output "$work/report.txt"
if [ -s "$work/out" ] || ! grep -q "growing nodes" "$work/report.txt" || acting "$work/report.txt"; then
    fail "--output: the report is not in the file alone, escaped"
fi
ls -A "$work" | grep -q '\.tmp$' && fail "a temporary file was left beside the report"

# --keep-dumps-dir: checked before the JVM starts.
expect "--keep-dumps-dir is a file" 2 "it is not a directory" -- run --classpath "$work" --scenario x.Y --keep-dumps failed --keep-dumps-dir "$d1"
expect "--keep-dumps-dir under a missing directory" 2 "does not exist" -- run --classpath "$work" --scenario x.Y --keep-dumps all --keep-dumps-dir "$work/missing/dumps"

# Too little address space: a report or one line, never an abort with a backtrace.
for kib in 30000 45000; do
    status=0
    (ulimit -v $kib && exec "$bin" diff "$d1" "$d2" "$d3") >/dev/null 2>"$work/err" || status=$?
    if [ "$status" -gt 2 ] || grep -q "panicked\|backtrace\|memory allocation of" "$work/err"; then
        fail "ulimit -v $kib: exit $status: $(head -c 300 "$work/err")"
    else
        echo "probe: ok: ulimit -v $kib (exit $status)"
    fi
done

[ "$(cat "$d1" "$d2" "$d3" | sha256sum)" = "$sum_before" ] || fail "an input dump was changed"
if [ "$failures" -gt 0 ]; then
    echo "probe-hostile: $failures probe(s) failed"
    exit 1
fi
echo "probe-hostile: all probes passed"
