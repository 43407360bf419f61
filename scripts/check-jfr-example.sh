#!/usr/bin/env bash
# Issues 29 and 34, reproduced: `heapgrowth run --jfr` on the bundled example (examples/cart,
# compiled as scripts/run-example.sh does), RUNS times on a quiet machine and RUNS times with
# two CPU-bound processes beside it (the busy.sh of the shared tools, or BUSY_SH). Prints one
# line per run: the exit status (1: growing), the verdict, whether Cart.AUDIT_TRAIL is named,
# the wall time against the time budget, the loops and the peak resident size. Opt-in (minutes):
#   scripts/check-jfr-example.sh            # RUNS=5, the default budget (60 s)
#   RUNS=3 BUDGET=5 scripts/check-jfr-example.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
budget=${BUDGET:-60}
busy=scripts/busy.sh
classes=target/example-classes
rm -rf "$classes"
mkdir -p "$classes"
javac --release 17 -d "$classes" $(find examples/cart/src -name '*.java')
cargo build --quiet --release
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

one() {
    local label=$1
    shift
    local start end status
    start=$(date +%s.%N)
    set +e
    "$@" /usr/bin/time -f '%M' -o "$out/rss" target/release/heapgrowth run --classpath "$classes" \
        --scenario com.example.cart.CartScenario --jfr --time-budget "$budget" --format json \
        >"$out/report.json" 2>"$out/log"
    status=$?
    set -e
    end=$(date +%s.%N)
    python3 - "$label" "$status" "$start" "$end" "$budget" "$out/report.json" "$out/rss" <<'EOF'
import json, sys
label, status, start, end, budget, report, rss = sys.argv[1:]
try:
    s = json.load(open(report))["scenarios"][0]
    samples = s.get("old_objects") or {}
    paths = [p for c in samples.get("growing", []) for p in c["paths"]] + samples.get("survivors", [])
    named = any("Cart.AUDIT_TRAIL" in step["text"] for p in paths for step in p["path"])
    verdict, loops = s["verdict"], s["loops"]
    why = s.get("verdict_reason") or ""
except Exception as e:  # a run that wrote no report
    verdict, loops, named, why = "none", 0, False, str(e)
print(f"{label}: exit {status}, {verdict}, AUDIT_TRAIL named: {named}, "
      f"{float(end) - float(start):.1f} s (budget {budget} s), {loops} loops, "
      f"{int(open(rss).read().split()[-1]) // 1024} MiB peak {why}")
EOF
}

for i in $(seq "$runs"); do one "quiet $i"; done
for i in $(seq "$runs"); do one "busy $i" "$busy"; done
