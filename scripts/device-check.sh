#!/usr/bin/env bash
# Checks mpt on a machine with an NVIDIA GPU, within about 8 minutes, and
# writes everything to $OUT (default: out/):
#   1. a CUDA build (MPT_ENABLE_CUDA=ON) in build-cuda/,
#   2. nvidia-smi and mpt-cuda-check (does the backend start?),
#   3. the CUDA lit tests (the cuda-device ones run only when a device
#      answers; lit prints them as UNSUPPORTED otherwise): each example for
#      50 steps on the GPU against the CPU, bit-identical GPU state across a
#      skipped step, GPU<->CPU checkpoints, the C API on the GPU,
#   4. bench/gpu_step_vs_pytorch.py: mpt-run --device cuda against PyTorch
#      AMP on the scaled examples.
# NEVER RUN YET on a GPU: written on a machine without one.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${OUT:-$root/out}"
build="$root/build-cuda"
mkdir -p "$out"
log() { echo "[device-check $(date -u +%H:%M:%S)] $*" | tee -a "$out/device-check.log"; }

log "configure and build (CUDA on)"
if ! { cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMPT_ENABLE_CUDA=ON \
         && cmake --build "$build"; } > "$out/build.log" 2>&1; then
  log "build failed; see build.log"
  exit 1
fi

log "device"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || log "nvidia-smi failed"
"$build/bin/mpt-cuda-check" > "$out/mpt-cuda-check.txt" 2>&1
log "mpt-cuda-check: $(head -n 1 "$out/mpt-cuda-check.txt")"

log "CUDA lit tests"
timeout 330 /usr/lib/llvm-22/bin/lit -sv "$build/test/CUDA" > "$out/lit-cuda.txt" 2>&1
lit_status=$?
log "lit: $(grep -E '^ *(Passed|Failed|Unsupported)' "$out/lit-cuda.txt" | tr -s ' ' | tr '\n' ';')"
# The measured GPU-vs-CPU loss differences, pass or fail, for the record.
runs="$build/test/CUDA/Output/device-train-vs-cpu.test.tmp"
if [ -d "$runs" ]; then
  mkdir -p "$out/train-vs-cpu" && cp "$runs"/*.csv "$runs"/*.log "$out/train-vs-cpu/" 2>/dev/null
  for gpu in "$runs"/*.cuda.csv; do
    echo "$(basename "$gpu" .cuda.csv): $(python3 "$root/test/CUDA/Inputs/compare_losses.py" \
      "$gpu" "${gpu%.cuda.csv}.cpu.csv" --steps 50 --rtol 0 --atol 0 | sed -n 1p)"
  done > "$out/train-vs-cpu.txt"
fi

log "benchmark"
timeout 300 python3 "$root/bench/gpu_step_vs_pytorch.py" --mpt-run "$build/bin/mpt-run" \
  > "$out/gpu_step_vs_pytorch.txt" 2>&1
bench_status=$?
log "benchmark exit $bench_status; results in gpu_step_vs_pytorch.txt"
exit $(( lit_status != 0 || bench_status != 0 ))
