#!/usr/bin/env bash
# Compiles the bundled example (examples/cart) and runs heapgrowth on its two scenarios: one
# leaks two items per loop into a static list, the other is clean. Exits 1, as heapgrowth does
# when something grows.
set -euo pipefail
cd "$(dirname "$0")/.."
classes=target/example-classes
rm -rf "$classes"
mkdir -p "$classes"
javac --release 17 -d "$classes" $(find examples/cart/src -name '*.java')
cargo run --quiet --release -- run --classpath "$classes" \
    --scenario com.example.cart.CartScenario \
    --scenario com.example.cart.CheckoutOnlyScenario "$@"
