//===- CpuIsa.h - the instruction sets CPU steps may use --------*- C++ -*-===//
//
// MPT_MAX_CPU_ISA=avx2 keeps CPU steps to what a CPU without AVX-512 has
// (x86-64-v3: AVX2, FMA, F16C), as oneDNN's ONEDNN_MAX_CPU_ISA does: the JIT
// targets that level and the runtime's kernels leave their AVX-512 paths
// (VDPBF16PS, AMX) alone. One machine then times and tests the code that CPUs
// without native f16/bf16 arithmetic run.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_CPUISA_H
#define MPT_RUNTIME_CPUISA_H

#include <string>

namespace mpt::runtime {

enum class CpuIsa {
  Native, // everything the host has
  AVX2,   // x86-64-v3, on a host that has at least that
};

/// MPT_MAX_CPU_ISA, read once: unset, empty or "native" is the host's whole
/// instruction set; "avx2" is x86-64-v3, or the host's own where it has less.
/// Native for any other value, which checkMaxCpuIsa reports.
CpuIsa maxCpuIsa();

/// Whether MPT_MAX_CPU_ISA parses and the BLAS library keeps to it: OpenBLAS
/// picks its kernels when it loads, from OPENBLAS_CORETYPE or the host, so a
/// limit it ignores would leave every sgemm on AVX-512. Otherwise false, with
/// `error` saying which and what to set.
bool checkMaxCpuIsa(std::string &error);

/// Whether CPU steps compute f16 natively: AVX512-FP16 under no limit. Without
/// it they compute f16 in f32 (compute-f16-in-f32), and their LLVM pipeline
/// keeps it there (WidenHalfSelectsPass).
bool hasF16Arithmetic();

/// The LLVM CPU the JIT's code targets under `isa`; null for the host.
const char *jitTargetCpu(CpuIsa isa);

} // namespace mpt::runtime

#endif // MPT_RUNTIME_CPUISA_H
