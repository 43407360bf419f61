#!/usr/bin/env bash
# Issue 29: `heapgrowth watch --pid --jfr` on a service that leaks 16 KiB a request (about 4 %
# of the bytes it allocates; examples/service) and on its clean twin, with the default queue of
# 256 samples. For each: the exit status (1 growing, 0 clean, 3 inconclusive), the verdict, the
# seconds the watch took, the samples judged and collections seen, and the method the report
# marks `look here`. Opt-in (up to FOR per service, 3 minutes by default):
#   scripts/check-watch-jfr.sh                   # leak then clean, --every 10s --for 3m
#   MODES=leak EVERY=5s FOR=2m scripts/check-watch-jfr.sh
set -euo pipefail
cd "$(dirname "$0")/.."
every=${EVERY:-10s}
for=${FOR:-3m}
modes=${MODES:-leak clean}
classes=target/service-classes
rm -rf "$classes"
mkdir -p "$classes"
javac --release 17 -d "$classes" $(find examples/service/src -name '*.java')
cargo build --quiet --release
out=$(mktemp -d)
service=
trap '[ -n "$service" ] && kill "$service" 2>/dev/null; rm -rf "$out"' EXIT

for mode in $modes; do
    java -Xmx1g -cp "$classes" com.example.service.SessionService "$mode" >"$out/service.log" 2>&1 &
    service=$!
    until grep -q ready "$out/service.log"; do sleep 0.2; done
    start=$(date +%s.%N)
    set +e
    target/release/heapgrowth watch --pid "$service" --jfr --every "$every" --for "$for" \
        --format json >"$out/report.json" 2>"$out/watch.log"
    status=$?
    set -e
    end=$(date +%s.%N)
    kill "$service" 2>/dev/null || true
    wait "$service" 2>/dev/null || true
    service=
    python3 - "$mode" "$status" "$start" "$end" "$out/report.json" <<'PY'
import json, sys
mode, status, start, end, report = sys.argv[1:]
try:
    s = json.load(open(report))["scenarios"][0]
except Exception as e:
    print(f"{mode}: exit {status}, no report ({e})")
    sys.exit(0)
o = s.get("old_objects") or {}
paths = [p for c in o.get("growing", []) for p in c["paths"]] + o.get("survivors", [])
looks = set()
for p in paths:
    for stack in p["stacks"]:
        if stack["place_to_look"] is not None:
            looks.add(stack["frames"][stack["place_to_look"]])
held = [x["held_at"] for x in o.get("survivors", [])]
classes = [c["class"] for c in o.get("growing", [])]
print(f"{mode}: exit {status}, {s['verdict']}, {float(end) - float(start):.0f} s, "
      f"{o.get('samples_judged')} samples judged over {len(o.get('dumps', []))} dumps, "
      f"{o.get('collections')} collections; classes {classes}, survivors held at {held}; "
      f"look here: {sorted(looks)} {s.get('verdict_reason') or ''}")
PY
done
