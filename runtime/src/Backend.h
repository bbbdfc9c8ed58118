//===- Backend.h - what a device gives the runtime --------------*- C++ -*-===//
//
// The session holds its state in device memory and runs the compiled entry
// points there; a backend provides exactly that. The CPU backend runs JIT'd
// code on host memory; a CUDA backend implements the same interface with
// device memory and its own lowering, behind the same C API.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_BACKEND_H
#define MPT_RUNTIME_BACKEND_H

#include "Signature.h"

#include <cstddef>
#include <string>
#include <vector>

namespace mpt::runtime {

/// A device buffer and the tensor it holds, as an entry point receives it.
struct DeviceTensor {
  void *data;
  const TensorShape *shape;
};

class Backend {
public:
  virtual ~Backend() = default;
  /// Zero-filled device memory for `bytes` bytes, or null when out of memory.
  virtual void *allocate(size_t bytes) = 0;
  virtual void deallocate(void *buffer) = 0;
  virtual void copyToDevice(void *device, const void *host, size_t bytes) = 0;
  virtual void copyToHost(void *host, const void *device, size_t bytes) = 0;
  /// `buffer` itself where the host may write it directly (the CPU backend),
  /// so inputs are stored without a staging copy; null otherwise.
  virtual void *hostWritable(void * /*buffer*/) { return nullptr; }
  /// Runs `function` on its arguments then its results, in the signature's
  /// order; false with `error` set if it could not run.
  virtual bool run(const std::string &function,
                   const std::vector<DeviceTensor> &tensors,
                   std::string &error) = 0;
};

} // namespace mpt::runtime

#endif // MPT_RUNTIME_BACKEND_H
