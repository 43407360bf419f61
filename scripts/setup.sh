#!/usr/bin/env bash
# Installs what building and testing heapgrowth needs and the machine lacks: a JDK (17 or
# newer, with javac and the JNI/JVMTI headers), a C compiler for the small JVMTI agent, and
# Rust. Safe to run again.
set -euo pipefail

need_apt=()
command -v javac >/dev/null 2>&1 || need_apt+=(openjdk-17-jdk-headless)
command -v cc >/dev/null 2>&1 || need_apt+=(gcc libc6-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need_apt[@]}"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: Rust is missing; install it with rustup (https://rustup.rs), then run this again" >&2
    exit 1
fi
echo "setup: javac $(javac -version 2>&1 | cut -d' ' -f2), $(cargo --version), $(cc --version | head -n1)"
