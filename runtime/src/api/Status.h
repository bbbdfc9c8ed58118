//===- Status.h - statuses at the C boundary --------------------*- C++ -*-===//
//
// Every C entry point checks its arguments, never lets an exception or a
// failed allocation escape, and turns problems into statuses that name their
// cause (after IREE's runtime/src/iree/base/status.h).
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_API_STATUS_H
#define MPT_RUNTIME_API_STATUS_H

#include "mpt/runtime.h"

#include <initializer_list>
#include <new>
#include <string>

struct mpt_status_s {
  mpt_status_code_t code;
  std::string message;
};

/// Returns the status `expression` evaluates to unless it is success.
#define MPT_RETURN_IF_ERROR(expression)                                        \
  do {                                                                         \
    if (mpt_status_t mptStatus_ = (expression))                                \
      return mptStatus_;                                                       \
  } while (false)

namespace mpt::runtime::api {

mpt_status_t makeStatus(mpt_status_code_t code, std::string message);

/// A pointer argument of a C entry point, named as runtime.h names it.
struct PointerArgument {
  const char *name;
  const void *value;
};

/// INVALID_ARGUMENT naming `caller` and the first of `arguments` that is
/// NULL; success when none is.
mpt_status_t checkNotNull(const char *caller,
                          std::initializer_list<PointerArgument> arguments);

/// Runs `body`, turning a failed allocation into a status: the library is
/// built without exceptions, but the standard library's allocations may still
/// throw std::bad_alloc where exceptions are enabled; nothing crosses the C
/// boundary either way.
template <typename Body> mpt_status_t guarded(const char *function, Body body) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return makeStatus(MPT_STATUS_OUT_OF_MEMORY,
                      std::string(function) + ": out of memory");
  } catch (...) {
    return makeStatus(MPT_STATUS_INTERNAL,
                      std::string(function) + ": unexpected exception");
  }
#else
  (void)function;
  return body();
#endif
}

} // namespace mpt::runtime::api

#endif // MPT_RUNTIME_API_STATUS_H
