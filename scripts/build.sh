#!/usr/bin/env bash
# Configures (once) and builds mpt into build/. Usage: scripts/build.sh [ninja targets...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MPT_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" ${1:+--target "$@"}
