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
#include "StepMemory.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
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

  // A device that runs queued work (the GPU) lets the host prepare the next
  // batch while a step runs. Copies between device memory and host memory
  // from allocateHost may still be running when copyToDevice or
  // copyToHostAsync return: they have completed once a fence taken after
  // them has been waited for. Everything else is ordered as it was called.

  /// Zero-filled host memory for such copies (page-locked on a GPU), or null
  /// when out of memory.
  virtual void *allocateHost(size_t bytes) {
    return std::calloc(bytes ? bytes : 1, 1);
  }
  virtual void freeHost(void *host) { std::free(host); }
  virtual void copyToHostAsync(void *host, const void *device, size_t bytes) {
    copyToHost(host, device, bytes);
  }
  /// Marks the work queued so far.
  virtual uint64_t fence() { return 0; }
  /// Returns once the work before `fence` has completed; false with `error`
  /// set if some of it failed.
  virtual bool wait(uint64_t /*fence*/, std::string & /*error*/) {
    return true;
  }
  /// Runs `function` on its arguments then its results, in the signature's
  /// order, but for carried results (`next`), which the function writes into
  /// their argument's buffer; false with `error` set if it could not run.
  virtual bool run(const std::string &function,
                   const std::vector<DeviceTensor> &tensors,
                   std::string &error) = 0;
  /// The buffers the last `run` allocated for itself, with their peak; all
  /// zero where the device does not count them.
  virtual StepMemory lastRunMemory() const { return {}; }
};

} // namespace mpt::runtime

#endif // MPT_RUNTIME_BACKEND_H
