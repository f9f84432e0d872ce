#!/usr/bin/env bash
# Installs what the benchmark suite needs beyond the Swift toolchain: SQLite's C library and
# headers (Debian's libsqlite3-dev), which both baselines (the C API and GRDB) link against.
set -euo pipefail
if ! dpkg -s libsqlite3-dev >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
    $SUDO apt-get update
    $SUDO apt-get install -y libsqlite3-dev
fi
