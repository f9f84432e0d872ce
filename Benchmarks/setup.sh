#!/usr/bin/env bash
# Installs what the benchmark suite needs beyond the Swift toolchain: SQLite's C library and
# headers (Debian's libsqlite3-dev), the baseline GraphStore is measured against.
set -euo pipefail
if ! dpkg -s libsqlite3-dev >/dev/null 2>&1; then
    apt-get update
    apt-get install -y libsqlite3-dev
fi
