//===- Memory.h - device, staging and host buffers --------------*- C++ -*-===//
//
// Owners of the memory a session holds: device buffers and page-locked
// staging memory from its backend, and host buffers whose allocation failure
// is a status, not an abort.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_API_MEMORY_H
#define MPT_RUNTIME_API_MEMORY_H

#include "Backend.h"
#include "api/Status.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>

namespace mpt::runtime::api {

/// Memory from the backend, given back to it with `release`.
template <void (Backend::*release)(void *)> class BackendMemory {
public:
  BackendMemory() = default;
  BackendMemory(Backend *backend, void *data, size_t bytes)
      : backend(backend), data(data), size(bytes) {}
  BackendMemory(BackendMemory &&other) noexcept { *this = std::move(other); }
  BackendMemory &operator=(BackendMemory &&other) noexcept {
    std::swap(backend, other.backend);
    std::swap(data, other.data);
    std::swap(size, other.size);
    return *this;
  }
  ~BackendMemory() {
    if (data)
      (backend->*release)(data);
  }
  void *get() const { return data; }
  size_t bytes() const { return size; }

private:
  Backend *backend = nullptr;
  void *data = nullptr;
  size_t size = 0;
};

/// One tensor in device memory.
using DeviceBuffer = BackendMemory<&Backend::deallocate>;
/// Host memory that copies may use while the host goes on (page-locked on a
/// GPU).
using StagingMemory = BackendMemory<&Backend::freeHost>;

/// Host memory for one tensor, allocated without aborting on failure.
class HostBuffer {
public:
  bool allocate(size_t bytes) {
    data.reset(static_cast<uint8_t *>(std::calloc(bytes ? bytes : 1, 1)));
    size = bytes;
    return data != nullptr;
  }
  uint8_t *get() const { return data.get(); }
  size_t bytes() const { return size; }

private:
  struct Free {
    void operator()(uint8_t *pointer) const { std::free(pointer); }
  };
  std::unique_ptr<uint8_t, Free> data;
  size_t size = 0;
};

inline mpt_status_t outOfHostMemory(const char *caller,
                                    const TensorShape &shape) {
  return makeStatus(MPT_STATUS_OUT_OF_MEMORY, std::string(caller) +
                                                  ": out of host memory for " +
                                                  shape.describe());
}

} // namespace mpt::runtime::api

#endif // MPT_RUNTIME_API_MEMORY_H
