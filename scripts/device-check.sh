#!/usr/bin/env bash
# Checks mpt on a machine with an NVIDIA GPU, within 12 minutes, and
# writes the results to $OUT (default: out/), these files:
#   device-check.log      what ran, nvidia-smi, mpt-cuda-check, a short
#                         training run per example, the GPU-vs-CPU loss gaps;
#   build.log             the CUDA build, or the bundle's installation;
#   lit-cuda.txt          the CUDA and data-parallel lit tests (the
#                         cuda-device and nccl ones run only
#                         when a device answers: GPU against CPU for 50 steps,
#                         bit-identical state across a skipped step, GPU<->CPU
#                         checkpoints, the C API on the GPU);
#   gpu_step_vs_pytorch.txt  mpt-run --device cuda against PyTorch AMP;
#   imported_models_cuda.txt the imported PyTorch examples against PyTorch AMP
#                         (bench/imported_models.py --device cuda);
#   data_parallel_cuda.txt  one rank's step all-reducing through NCCL against
#                         no communication (bench/data_parallel.py --device cuda);
#   real_size_models.txt  GPT-2-small against PyTorch AMP: ms/step, MFU, peak
#                         memory (bench/real_size_models.py --gpu);
#   kernel-times-mlp.csv, kernel-times-transformer.csv  every launch's GPU
#                         time over 5 steps of the scaled f16 MLP and
#                         transformer (the runtime's MPT_CUDA_KERNEL_TIMES);
#   details.tar.gz        the tests' outputs and per-step metrics.
#
#   scripts/device-check.sh                  builds in build-cuda/ (needs the
#                                            apt LLVM/MLIR 22 and the toolkit)
#   scripts/device-check.sh --bundle FILE    installs a build packed by
#                                            scripts/make-device-bundle.sh, for
#                                            machines with no LLVM 22 and no
#                                            package registry (run as root)
#   --no-bench            skips the benchmark against PyTorch
#   --no-profile          skips the per-launch kernel times
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${OUT:-$root/out}"
bundle=""
bench=1
profile=1
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle="$2"; shift 2 ;;
    --no-bench) bench=0; shift ;;
    --no-profile) profile=0; shift ;;
    *) echo "device-check: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
log() { echo "[device-check $(date -u +%H:%M:%S)] $*" | tee -a "$out/device-check.log"; }
# Runs a command with a time limit, its output appended to the main log.
logged() {
  local limit="$1"
  shift
  echo "\$ $*" >> "$out/device-check.log"
  timeout "$limit" "$@" >> "$out/device-check.log" 2>&1
  local status=$?
  echo "(exit $status)" >> "$out/device-check.log"
  return $status
}

# The CUDA toolkit: $CUDA_HOME, /usr/local/cuda, or wherever ptxas is.
cuda_home="${CUDA_HOME:-/usr/local/cuda}"
if [ ! -x "$cuda_home/bin/ptxas" ]; then
  ptxas="$(command -v ptxas || find / -xdev -name ptxas -type f -path '*/bin/*' 2>/dev/null | head -n 1)"
  [ -n "$ptxas" ] && cuda_home="$(dirname "$(dirname "$ptxas")")"
fi
export CUDA_HOME="$cuda_home"

install_bundle() {
  # The bundle's build belongs at $root/build; its lit.site.cfg.py names the
  # source tree it was built from, which is made to point here.
  local stage=/opt/mpt-bundle/root
  rm -rf "$stage" && mkdir -p "$stage"
  tar -C "$stage" -xJf "$bundle" || return 1
  local built_src
  built_src="$(find "$stage" -path '*/build/test/lit.site.cfg.py' -exec \
    sed -n 's/^config.mpt_src_root = "\(.*\)"$/\1/p' {} + | head -n 1)"
  [ -n "$built_src" ] || { echo "no lit.site.cfg.py in the bundle"; return 1; }
  if [ "$built_src" != "$root" ]; then
    [ -e "$built_src" ] && [ ! -L "$built_src" ] && { echo "$built_src exists here"; return 1; }
    mkdir -p "$(dirname "$built_src")" && ln -sfn "$root" "$built_src"
  fi
  rm -rf "$root/build" && cp -a "$stage$built_src/build" "$root/build"
  cp -a "$stage/usr/lib/llvm-22" /usr/lib/ || return 1
  # The packed libraries, each only where this machine lacks its soname.
  mkdir -p /opt/mpt-bundle/use
  for lib in "$stage"/opt/mpt-bundle/lib/*; do
    local soname
    soname="$(basename "$lib")"
    if ldconfig -p | grep -q "^[[:space:]]*$soname "; then
      echo "system has $soname"
    else
      echo "using packed $soname"
      cp -a "$lib" /opt/mpt-bundle/use/
    fi
  done
  local dirs=(/opt/mpt-bundle/use /usr/lib/llvm-22/lib)
  # cuBLASLt from the toolkit, or from PyTorch's wheels.
  if ! ldconfig -p | grep -q libcublasLt.so.13 && [ ! -e "$cuda_home/lib64/libcublasLt.so.13" ]; then
    local lt
    lt="$(find / -xdev -name 'libcublasLt.so.13*' 2>/dev/null | head -n 1)"
    [ -n "$lt" ] && dirs+=("$(dirname "$lt")") && echo "cuBLASLt from $lt"
  fi
  printf '%s\n' "${dirs[@]}" > /etc/ld.so.conf.d/mpt-bundle.conf && ldconfig
  # The build looks for the toolkit at /usr/local/cuda.
  [ -e /usr/local/cuda ] || ln -s "$cuda_home" /usr/local/cuda
  ls -la "$cuda_home/" "$cuda_home/bin"; ldconfig -p | grep -E "cublas|libcuda"
  ldd "$root/build/bin/mpt-run" "/usr/lib/llvm-22/bin/mlir-runner" | grep -E 'not found|=> /opt'
  return 0
}

if [ -n "$bundle" ]; then
  log "install the bundle $bundle (CUDA_HOME=$cuda_home)"
  build="$root/build"
  install_bundle > "$out/build.log" 2>&1 || { log "bundle install failed; see build.log"; exit 1; }
else
  log "configure and build (CUDA on, CUDA_HOME=$cuda_home)"
  build="$root/build-cuda"
  if ! { cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMPT_ENABLE_CUDA=ON \
           && cmake --build "$build"; } > "$out/build.log" 2>&1; then
    log "build failed; see build.log"
    exit 1
  fi
fi

log "device"
logged 30 nvidia-smi
logged 30 "$build/bin/mpt-cuda-check"

log "short runs on the GPU"
for run in "mlp f16" "cnn_bn f16" "transformer_block bf16"; do
  set -- $run
  logged 60 "$build/bin/mpt-run" "$root/examples/$1.mlir" --device cuda --precision "$2" \
    --data synthetic --steps 20 --no-eval
done

# NCCL comes with PyTorch's CUDA wheels (nvidia-nccl-cu13): on the library
# path, the data-parallel tests and benchmark run its one-rank path.
nccl_lib="$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)"
if [ -n "$nccl_lib" ] && [ -e "$nccl_lib/libnccl.so.2" ]; then
  export LD_LIBRARY_PATH="$nccl_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  log "NCCL: $nccl_lib"
else
  log "NCCL: none (no nvidia-nccl-cu13); the nccl tests are unsupported"
fi

log "CUDA and data-parallel lit tests"
timeout "${LIT_TIMEOUT:-240}" python3 /usr/lib/llvm-22/bin/lit -sv --filter "${LIT_FILTER:-.}" \
  "$build/test/CUDA" "$build/test/Comm" > "$out/lit-cuda.txt" 2>&1
lit_status=$?
log "lit exit $lit_status: $(grep -E '^ *(Passed|Failed|Unsupported|Timed Out)' "$out/lit-cuda.txt" | tr -s ' ' | tr '\n' ';')"
# The measured GPU-vs-CPU loss differences, pass or fail, for the record.
runs="$build/test/CUDA/Output/device-train-vs-cpu.test.tmp"
for gpu in "$runs"/*.cuda.csv; do
  [ -e "$gpu" ] || continue
  log "$(basename "$gpu" .cuda.csv): $(python3 "$root/test/CUDA/Inputs/compare_losses.py" \
    "$gpu" "${gpu%.cuda.csv}.cpu.csv" --steps 50 --rtol 0 --atol 0 | sed -n 1p)"
done

if [ "$profile" = 1 ]; then
  log "per-launch GPU times (MPT_CUDA_KERNEL_TIMES)"
  models="$(mktemp -d)"
  python3 - "$root/bench" "$models" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import gpu_models
open(sys.argv[2] + "/mlp.mlir", "w").write(gpu_models.mlp(4096, 4096, 4096))
open(sys.argv[2] + "/transformer.mlir", "w").write(gpu_models.transformer(16, 512, 1024, 16))
PY
  for run in "mlp 16384" "transformer 64"; do
    set -- $run
    step=("$build/bin/mpt-run" "$models/$1.mlir" --device cuda --precision f16 --data synthetic
          --synthetic-examples "$2" --no-eval)
    MPT_CUDA_KERNEL_TIMES="$out/kernel-times-$1.csv" logged 60 "${step[@]}" --steps 5
    log "kernel times $1: $(python3 "$root/bench/gpu_step_vs_pytorch.py" \
      --kernel-times "$out/kernel-times-$1.csv" --steps 5 2>&1)"
  done
fi

[ "$bench" = 1 ] || { tar -C "$build/test" -czf "$out/details.tar.gz" CUDA/Output Comm/Output 2>/dev/null; exit $(( lit_status != 0 )); }
log "benchmark"
PYTHONUNBUFFERED=1 timeout "${BENCH_TIMEOUT:-180}" python3 "$root/bench/gpu_step_vs_pytorch.py" \
  --mpt-run "$build/bin/mpt-run" --steps 30 > "$out/gpu_step_vs_pytorch.txt" 2>&1
bench_status=$?
log "benchmark exit $bench_status"
cat "$out/gpu_step_vs_pytorch.txt" >> "$out/device-check.log"
# The imported PyTorch examples against PyTorch AMP, through the Python API.
log "imported models"
PYTHONUNBUFFERED=1 PYTHONPATH="$build/lib/python3/dist-packages" timeout "${IMPORTED_BENCH_TIMEOUT:-80}" \
  python3 "$root/bench/imported_models.py" --device cuda --models mlp,cnn,gpt --pairs 3 --steps 10 \
  > "$out/imported_models_cuda.txt" 2>&1
imported_status=$?
log "imported models exit $imported_status"
cat "$out/imported_models_cuda.txt" >> "$out/device-check.log"

# Issue 38: one rank's step all-reducing through NCCL against the same step
# without communication.
log "data parallel on the GPU"
PYTHONUNBUFFERED=1 timeout "${DATA_PARALLEL_TIMEOUT:-60}" python3 "$root/bench/data_parallel.py" \
  --device cuda --mpt-run "$build/bin/mpt-run" --precisions f16 --pairs 2 --steps 50 \
  > "$out/data_parallel_cuda.txt" 2>&1
data_parallel_status=$?
log "data parallel exit $data_parallel_status"
cat "$out/data_parallel_cuda.txt" >> "$out/device-check.log"

# GPT-2-small at its real size (124M parameters, sequence 1024): mpt f16
# against PyTorch AMP, with MFU and peak memory (compiling it takes minutes).
log "real-size models"
PYTHONUNBUFFERED=1 PYTHONPATH="$build/lib/python3/dist-packages" timeout "${REAL_SIZE_TIMEOUT:-200}" \
  python3 "$root/bench/real_size_models.py" --gpu --models "${REAL_SIZE_MODELS:-gpt2-small}" \
  --precisions f16 --pairs 3 --steps 5 > "$out/real_size_models.txt" 2>&1
real_size_status=$?
log "real-size models exit $real_size_status"
cat "$out/real_size_models.txt" >> "$out/device-check.log"

tar -C "$build/test" -czf "$out/details.tar.gz" CUDA/Output Comm/Output 2>/dev/null
exit $(( lit_status != 0 || bench_status != 0 || imported_status != 0 || data_parallel_status != 0 || real_size_status != 0 ))
