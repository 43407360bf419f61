#!/usr/bin/env bash
# Runs a command on a busy machine, as CI runners and laptops are: BUSY CPU-bound processes
# (default 2, one per core of a 2-core runner) spin beside it and stop when it ends. Exit
# status: the command's.
#   scripts/busy.sh scripts/test.sh
#   BUSY=1 scripts/busy.sh target/release/heapgrowth run --classpath C --scenario S
set -u
[ $# -gt 0 ] || { echo "usage: scripts/busy.sh COMMAND [ARGS...]" >&2; exit 2; }
count=${BUSY:-2}
[[ "$count" =~ ^[0-9]+$ ]] || { echo "busy.sh: BUSY must be a whole number, not '$count'" >&2; exit 2; }
spinners=()
stop_spinners() { [ ${#spinners[@]} -eq 0 ] || kill "${spinners[@]}" 2>/dev/null; }
trap stop_spinners EXIT
trap 'exit 130' INT TERM
for ((i = 0; i < count; i++)); do
    sh -c 'while :; do :; done' &
    spinners+=($!)
done
"$@"
