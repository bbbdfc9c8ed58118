//===- CpuIsa.cpp - the instruction sets CPU steps may use ------*- C++ -*-===//

#include "CpuIsa.h"

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

} // namespace

bool parseMaxCpuIsa(const char *value, CpuIsa &isa, std::string &error) {
  if (!value || !*value || std::strcmp(value, "native") == 0) {
    isa = CpuIsa::Native;
    return true;
  }
  if (std::strcmp(value, "avx2") == 0) {
#if defined(__x86_64__)
    isa = hostHasAVX2Level() ? CpuIsa::AVX2 : CpuIsa::Native;
    return true;
#else
    error = "MPT_MAX_CPU_ISA is 'avx2', which needs an x86-64 CPU";
    return false;
#endif
  }
  error = std::string("MPT_MAX_CPU_ISA is '") + value +
          "'; expected 'avx2' or 'native'";
  return false;
}

CpuIsa maxCpuIsa() {
  static const CpuIsa isa = [] {
    CpuIsa parsed;
    std::string error;
    return parseMaxCpuIsa(std::getenv("MPT_MAX_CPU_ISA"), parsed, error)
               ? parsed
               : CpuIsa::Native;
  }();
  return isa;
}

bool checkMaxCpuIsa(std::string &error) {
  CpuIsa isa;
  if (!parseMaxCpuIsa(std::getenv("MPT_MAX_CPU_ISA"), isa, error))
    return false;
  if (isa == CpuIsa::Native)
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

const char *jitTargetCpu(CpuIsa isa) {
  return isa == CpuIsa::AVX2 ? "x86-64-v3" : nullptr;
}

} // namespace mpt::runtime
