//===- Scratch.h - scratch buffers the CPU kernels keep ---------*- C++ -*-===//

#ifndef MPT_RUNTIME_SCRATCH_H
#define MPT_RUNTIME_SCRATCH_H

#include <cstddef>
#include <vector>

namespace mpt::runtime {

/// The storage of `buffer`, grown to at least `size` elements and never
/// shrunk. Kernels keep their scratch (thread_local) across calls of
/// different shapes; resizing it down and up again cleared the regrown part
/// on every call (a quarter of the memset time of a bf16 CNN step).
template <typename T> T *scratchBuffer(std::vector<T> &buffer, size_t size) {
  if (buffer.size() < size)
    buffer.resize(size);
  return buffer.data();
}

} // namespace mpt::runtime

#endif // MPT_RUNTIME_SCRATCH_H
