//===- PackedArguments.h - tensors as packed memref arguments ---*- C++ -*-===//
//
// The entry points' C wrappers take one ranked memref descriptor per tensor;
// ExecutionEngine::invokePacked takes a pointer to a pointer to each. Both
// backends pass their buffers (host or device addresses) this way.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_PACKEDARGUMENTS_H
#define MPT_RUNTIME_PACKEDARGUMENTS_H

#include "Backend.h"

#include <cstdint>
#include <vector>

namespace mpt::runtime {

class PackedArguments {
public:
  /// Row-major descriptors {allocated, aligned, offset, sizes, strides}.
  explicit PackedArguments(const std::vector<DeviceTensor> &tensors)
      : descriptors(tensors.size()), descriptorPointers(tensors.size()),
        packed(tensors.size()) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      const std::vector<int64_t> &dims = tensors[i].shape->dims;
      std::vector<int64_t> &descriptor = descriptors[i];
      descriptor.resize(3 + 2 * dims.size());
      auto pointer = reinterpret_cast<int64_t>(tensors[i].data);
      descriptor[0] = pointer;
      descriptor[1] = pointer;
      descriptor[2] = 0;
      int64_t stride = 1;
      for (size_t d = dims.size(); d-- > 0;) {
        descriptor[3 + d] = dims[d];
        descriptor[3 + dims.size() + d] = stride;
        stride *= dims[d];
      }
      descriptorPointers[i] = descriptor.data();
      packed[i] = &descriptorPointers[i];
    }
  }
  std::vector<void *> &get() { return packed; }

private:
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> descriptorPointers;
  std::vector<void *> packed;
};

} // namespace mpt::runtime

#endif // MPT_RUNTIME_PACKEDARGUMENTS_H
