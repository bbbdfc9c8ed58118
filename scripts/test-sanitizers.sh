#!/usr/bin/env bash
# The sanitizer and fuzzing stage of CI, after scripts/test.sh: one clang build
# in build-san/ (MPT_SANITIZE=ON: ASan+UBSan, and the libFuzzer target), then
#   1. the runtime unit tests and a subset of lit under ASan+UBSan;
#   2. the libFuzzer target for MPT_FUZZ_SECONDS (default 90) from its seeds.
# Longer fuzzing, from the repository root, after this script has built it:
#   mkdir -p fuzz-corpus && build-san/bin/mpt-fuzz -max_total_time=36000 \
#     -timeout=30 -rss_limit_mb=4096 -jobs=8 -workers=8 fuzz-corpus build-san/fuzz/seeds
# (each crash is written to ./crash-<sha1>; reproduce with build-san/bin/mpt-fuzz FILE).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MPT_SAN_BUILD_DIR:-$root/build-san}"
fuzz_seconds="${MPT_FUZZ_SECONDS:-90}"
"$root/scripts/install-deps.sh"

start=$SECONDS
if [ ! -f "$build/build.ninja" ]; then
  # -O1 with line tables: sanitizer reports with file:line, at half the
  # compile time of -O3. No CUDA layer: it cannot run here, and its shared
  # library would need the sanitizer runtimes linked into it. No MPI: MPICH
  # loads UCX, whose libucm patches mmap as it loads and jumps into ASan's
  # interceptors (SEGV before main); the collectives build for one process.
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG" \
    -DMPT_SANITIZE=ON -DMPT_ENABLE_CUDA=OFF -DMPT_ENABLE_MPI=OFF
fi
cmake --build "$build"
echo "test-sanitizers: build took $((SECONDS - start)) s"

# libMLIR and libLLVM are not instrumented, but LLVM's allocator headers
# inlined into our code poison the free part of a shared BumpPtrAllocator slab
# that MLIR's own (uninstrumented) code then allocates from: a false
# use-after-poison in whichever code touches that memory first. Manual
# poisoning is therefore off; ASan still checks every allocation it makes.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:allow_user_poisoning=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp}"
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer

# The sanitized subset: the runtime (unit tests, errors, checkpoints, state
# files, loss scaling), every pass and conversion on IR, and the pipelines.
# Left out: end-to-end training and the mlir-runner integration tests, whose
# time goes into uninstrumented JIT code and libMLIR.
start=$SECONDS
/usr/lib/llvm-22/bin/lit -sv \
  "$build/test/Runtime/runtime-unittests.test" \
  "$build/test/Runtime/mpt-run-errors.test" \
  "$build/test/Runtime/mpt-run-checks.test" \
  "$build/test/Runtime/c-api.test" \
  "$build/test/Runtime/checkpoint.test" \
  "$build/test/Runtime/init-state.test" \
  "$build/test/Runtime/loss-scale-trajectory.test" \
  "$build/test/Dialect" "$build/test/Transforms" "$build/test/Codegen" \
  "$build/test/Conversion" \
  "$build/test/Pipelines" "$build/test/Examples" "$build/test/Fuzz"
echo "test-sanitizers: sanitized lit subset took $((SECONDS - start)) s"

start=$SECONDS
corpus="$(mktemp -d)"
trap 'rm -rf "$corpus"' EXIT
# Crash reproducers go to build-san/fuzz/ for CI to keep.
"$build/bin/mpt-fuzz" -max_total_time="$fuzz_seconds" -timeout=30 \
  -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$build/fuzz/" "$corpus" "$build/fuzz/seeds"
echo "test-sanitizers: fuzzing took $((SECONDS - start)) s"
