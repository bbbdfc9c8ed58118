//===- CudaRuntime.h - the runtime's CUDA layer -----------------*- C++ -*-===//
//
// The CUDA driver is loaded with dlopen (never linked), so that every build
// runs on machines without a GPU. Compiled steps call the mgpu* functions
// that MLIR's gpu-to-llvm emits and the mpt_cuda_* GEMM entry points; both are
// implemented here. They cannot return errors (their ABI is fixed), so the
// first failure is recorded and taken by the caller after the step.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_CUDA_CUDARUNTIME_H
#define MPT_RUNTIME_CUDA_CUDARUNTIME_H

#include <string>
#include <vector>

namespace mpt::cuda {

/// Loads the driver (libcuda.so.1, or $MPT_CUDA_DRIVER_LIBRARY) and makes
/// device 0's primary context current. Returns an empty string on success,
/// else what is missing: the library, a usable driver, or a device.
std::string initialize();

/// The first error recorded by an mgpu*/mpt_cuda_* call since the last call,
/// then cleared; empty if there was none.
std::string takeError();

/// Called by a runtime backend before it runs compiled code. Recorded errors
/// are then no longer printed on stderr (which serves compiled code that
/// nobody takes them from, under mlir-runner): the backend reports them. And
/// the host waits compiled code asks for (mgpuStreamSynchronize) are
/// skipped, so a step never blocks the host: every launch, copy and GEMM is
/// ordered on the one stream anyway, compiled host code never reads device
/// memory, and the backend synchronizes before it copies anything out.
void driveFromBackend();

struct Symbol {
  const char *name; // the symbol compiled code calls
  void *address;
};

/// The mgpu* and mpt_cuda_* entry points, for the JIT's symbol table.
const std::vector<Symbol> &symbols();

} // namespace mpt::cuda

#endif // MPT_RUNTIME_CUDA_CUDARUNTIME_H
