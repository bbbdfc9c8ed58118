//===- KernelTimes.h - GPU time of each launch, without a profiler -*- C++ -*-//
//
// When $MPT_CUDA_KERNEL_TIMES names a file, every kernel launch and cuBLASLt
// GEMM of compiled code is bracketed by two events on the runtime's stream,
// and writeKernelTimes appends "launch,name,microseconds" per launch, in
// launch order, to that file. The events cost a little device time each, so
// this is for profiling (the GPU benchmark's update phase), never on by
// default.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_CUDA_KERNELTIMES_H
#define MPT_RUNTIME_CUDA_KERNELTIMES_H

#include <string>

namespace mpt::cuda {

/// Whether $MPT_CUDA_KERNEL_TIMES asks for times.
bool kernelTimesEnabled();

/// Records the start of a launch of `name` (a kernel's or entry point's) on
/// the stream.
void beginKernelTime(std::string name);

/// Records the end of the launch begun last.
void endKernelTime();

/// Waits for the recorded launches and appends their times to the file;
/// false after recording an error if it cannot.
bool writeKernelTimes();

} // namespace mpt::cuda

#endif // MPT_RUNTIME_CUDA_KERNELTIMES_H
