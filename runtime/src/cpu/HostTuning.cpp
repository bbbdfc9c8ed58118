//===- HostTuning.cpp - the CPU lowering's options for this host --------===//

#include "cpu/HostTuning.h"

#include "cpu/CpuIsa.h"
#include "cpu/GemmBF16.h"

namespace mpt::runtime {

void tuneForHost(LowerToCPUOptions &options) {
#if defined(__x86_64__)
  // Masked 16-bit loads and stores need AVX512BW; without AVX-512, LLVM
  // emulates them lane by lane, and 8 f32 lanes fill a register.
  bool avx512 = maxCpuIsa() == CpuIsa::Native &&
                __builtin_cpu_supports("avx512f") &&
                __builtin_cpu_supports("avx512bw");
  options.vectorWidth = avx512 ? 16 : 8;
  // AMD's cores run the masked stores of a predicated 14-wide row slowly:
  // on a Zen 5, one thread, the CNN's FP32 step took 4.8 ms predicated
  // and 3.7 ms in loops of 8, 4 and 2 lanes (f16 5.7 and 4.3 ms). Intel's
  // keep predication, measured there (Sapphire Rapids) before the loops of
  // halving widths existed.
  options.predicateVectorLoops = avx512 && __builtin_cpu_is("intel");
  // Without VCVTNEPS2BF16, LLVM rounds each bf16 result in a library call.
  options.expandBF16Rounding = !hasDotBF16();
#else
  options.expandBF16Rounding = true;
#endif
  options.computeF16InF32 = !hasF16Arithmetic();
}

} // namespace mpt::runtime
