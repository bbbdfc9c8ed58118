#!/usr/bin/env bash
# The test command: installs dependencies, builds, and runs the whole lit suite.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MPT_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
/usr/lib/llvm-22/bin/lit -sv "$build/test" 2>&1 | tee "$log" || status=$?

# One plain summary line that any CI reader understands.
# lit pads the names ("  Passed           : 72").
count() { sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | tail -n 1; }
passed=$(count Passed); failed=$(count Failed); unsupported=$(count Unsupported)
echo "lit: ${passed:-0} passed, ${failed:-0} failed, ${unsupported:-0} skipped"
exit "$status"
