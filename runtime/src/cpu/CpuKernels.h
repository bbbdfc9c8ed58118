//===- CpuKernels.h - BLAS-backed kernels for compiled code -----*- C++ -*-===//
//
// mpt-convert-linalg-to-cpu-kernels turns bufferized matmuls into calls to
// mpt_cpu_matmul_<type>_<rank>d and convolutions into calls to
// mpt_cpu_conv2d_<type>; these are their implementations, on OpenBLAS's sgemm
// (convolutions through im2col). f16 and bf16 inputs widen exactly to f32, so
// the result is the f32-accumulated product the linalg op defines; bf16 ones
// go to the runtime's bf16 product instead where the CPU has one (GemmBF16.h),
// which accumulates the same products in f32. Each adds its product to the
// output, or with `accumulate` 0 writes it there without reading the output
// (the compiler drops the zero fill before).
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_CPUKERNELS_H
#define MPT_RUNTIME_CPUKERNELS_H

#include <vector>

namespace mpt::runtime {

struct CpuKernel {
  const char *name; // the C-interface symbol the compiled code calls
  void *address;
};

/// Every kernel, the driver of outlined parallel loops
/// (mpt_cpu_parallel_for), and the float conversion routines compiled code may
/// call that the host's libgcc lacks, for the JIT's symbol table.
const std::vector<CpuKernel> &cpuKernels();

} // namespace mpt::runtime

#endif // MPT_RUNTIME_CPUKERNELS_H
