//===- Status.cpp - the C API's statuses ------------------------*- C++ -*-===//

#include "api/Status.h"

using namespace mpt::runtime::api;

namespace {

/// Returned when even a status cannot be allocated; mpt_status_free ignores
/// it.
mpt_status_s outOfMemoryStatus{MPT_STATUS_OUT_OF_MEMORY,
                               "out of memory (allocating a status)"};

} // namespace

mpt_status_t mpt::runtime::api::makeStatus(mpt_status_code_t code,
                                           std::string message) {
  mpt_status_t status = new (std::nothrow) mpt_status_s{code, {}};
  if (!status)
    return &outOfMemoryStatus;
  status->message = std::move(message);
  return status;
}

mpt_status_t mpt::runtime::api::checkNotNull(
    const char *caller, std::initializer_list<PointerArgument> arguments) {
  for (const PointerArgument &argument : arguments)
    if (!argument.value)
      return makeStatus(MPT_STATUS_INVALID_ARGUMENT, std::string(caller) +
                                                         ": " + argument.name +
                                                         " is NULL");
  return nullptr;
}

extern "C" {

mpt_status_code_t mpt_status_code(mpt_status_t status) {
  return status ? status->code : MPT_STATUS_OK;
}

const char *mpt_status_message(mpt_status_t status) {
  return status ? status->message.c_str() : "";
}

void mpt_status_free(mpt_status_t status) {
  if (status != &outOfMemoryStatus)
    delete status;
}

} // extern "C"
