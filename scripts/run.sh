#!/usr/bin/env bash
# The main job: installs dependencies, builds, and rewrites the MLP training step into f16 mixed
# precision, printing the FP32-vs-mixed report.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MPT_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
out="$root/out"
mkdir -p "$out"
"$build/bin/mpt-opt" "$root/examples/mlp.mlir" \
  --mpt-mixed-precision="compute-type=f16 report=$out/mlp-report.json" -o "$out/mlp-f16.mlir"
echo "mixed-precision step: $out/mlp-f16.mlir"
cat "$out/mlp-report.json"
