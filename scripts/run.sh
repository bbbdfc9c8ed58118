#!/usr/bin/env bash
# The main job: installs dependencies, builds, and trains the MLP example on Fashion-MNIST in
# f16 mixed precision for 2 epochs, with metrics, plots and a checkpoint under out/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MPT_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" mpt-opt mpt-run
out="$root/out"
mkdir -p "$out"
"$build/bin/mpt-run" "$root/examples/mlp.mlir" --precision f16 --epochs 2 --batch 128 --seed 0 \
  --metrics-csv "$out/mlp-f16.csv" --metrics-json "$out/mlp-f16.json" \
  --plot-dir "$out/plots" --checkpoint "$out/mlp-f16.safetensors" "$@"
echo "metrics: $out/mlp-f16.csv, plots: $out/plots/loss.png $out/plots/loss_scale.png $out/plots/accuracy.png"
