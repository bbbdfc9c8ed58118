//===- CpuIsa.cpp - the instruction sets CPU steps may use ------*- C++ -*-===//

#include "cpu/CpuIsa.h"

#include <cblas.h>
#include <cstdlib>
#include <cstring>

namespace mpt::runtime {

namespace {

bool hostHasAVX2Level() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("x86-64-v3");
#else
  return false;
#endif
}

struct MaxCpuIsa {
  CpuIsa isa = CpuIsa::Native;
  std::string error; // empty if the value parses
};

/// MPT_MAX_CPU_ISA, read once: the kernels and the compiler then agree on it.
const MaxCpuIsa &readMaxCpuIsa() {
  static const MaxCpuIsa parsed = [] {
    MaxCpuIsa result;
    const char *value = std::getenv("MPT_MAX_CPU_ISA");
    if (!value || !*value || std::strcmp(value, "native") == 0)
      return result;
    if (std::strcmp(value, "avx2") != 0) {
      result.error = std::string("MPT_MAX_CPU_ISA is '") + value +
                     "'; expected 'avx2' or 'native'";
      return result;
    }
#if defined(__x86_64__)
    if (hostHasAVX2Level())
      result.isa = CpuIsa::AVX2;
#else
    result.error = "MPT_MAX_CPU_ISA is 'avx2', which needs an x86-64 CPU";
#endif
    return result;
  }();
  return parsed;
}

} // namespace

CpuIsa maxCpuIsa() { return readMaxCpuIsa().isa; }

bool checkMaxCpuIsa(std::string &error) {
  const MaxCpuIsa &parsed = readMaxCpuIsa();
  if (!parsed.error.empty()) {
    error = parsed.error;
    return false;
  }
  if (parsed.isa == CpuIsa::Native)
    return true;
  // OpenBLAS's cores with AVX-512 kernels (its names, 0.3.21).
  const char *core = openblas_get_corename();
  for (const char *avx512Core : {"SkylakeX", "Cooperlake", "SapphireRapids"}) {
    if (core && std::strcmp(core, avx512Core) == 0) {
      error = std::string("MPT_MAX_CPU_ISA is 'avx2', but OpenBLAS runs its ") +
              core + " kernels (AVX-512): set OPENBLAS_CORETYPE=Haswell too";
      return false;
    }
  }
  return true;
}

bool hasF16Arithmetic() {
#if defined(__x86_64__)
  return maxCpuIsa() == CpuIsa::Native && __builtin_cpu_supports("avx512fp16");
#else
  return false;
#endif
}

const char *jitTargetCpu(CpuIsa isa) {
  return isa == CpuIsa::AVX2 ? "x86-64-v3" : nullptr;
}

} // namespace mpt::runtime
