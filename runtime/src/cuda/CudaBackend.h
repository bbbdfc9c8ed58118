//===- CudaBackend.h - compiled steps on an NVIDIA GPU ----------*- C++ -*-===//

#ifndef MPT_RUNTIME_CUDA_CUDABACKEND_H
#define MPT_RUNTIME_CUDA_CUDABACKEND_H

#include "../Backend.h"

#include <memory>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace mpt::runtime {

/// JIT-compiles the host code of `module` (lowered by mpt-lower-to-cuda, entry
/// points with C wrappers, one embedded fatbin), links it against the
/// runtime's mgpu* and cuBLASLt entry points, starts the driver and loads the
/// kernels, and reads the step signature. Null with `error` set on failure;
/// without a driver or a device, `deviceUnavailable` is set and `error` says
/// what is missing. With `captureGraphs`, an entry point run a second time on
/// the same buffers is captured as a CUDA graph, and later runs on them
/// replay it with one launch.
std::unique_ptr<Backend> createCudaBackend(mlir::ModuleOp module,
                                           std::string &signatureJson,
                                           std::string &error,
                                           bool &deviceUnavailable,
                                           bool captureGraphs);

} // namespace mpt::runtime

#endif // MPT_RUNTIME_CUDA_CUDABACKEND_H
