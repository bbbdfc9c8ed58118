//===- StateApi.cpp - the C API's state and checkpoints ---------*- C++ -*-===//
//
// Reading and writing a session's parameters and state, and saving and
// loading them as safetensors checkpoints.
//
//===----------------------------------------------------------------------===//

#include "api/Handles.h"
#include "mpt/Contract/Contract.h"
#include "mpt/safetensors.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>

using namespace mpt::runtime;
using namespace mpt::runtime::api;

namespace {

const char *const kCheckpointFormat = mpt::contract::format::Checkpoint;

/// A state tensor by name with `count` elements, or an error saying which
/// does not match.
mpt_status_t findState(mpt_session_t session, const char *name,
                       const void *values, int64_t count, const char *caller,
                       const PublicTensor *&found) {
  MPT_RETURN_IF_ERROR(checkNotNull(
      caller, {{"session", session}, {"name", name}, {"values", values}}));
  found = findNamed(session->program->state, name);
  if (!found)
    return makeStatus(MPT_STATUS_NOT_FOUND,
                      std::string(caller) + ": no parameter or state named '" +
                          name + "'");
  if (count != found->shape.numElements())
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(caller) + ": '" + name + "' is " +
                          found->shape.describe() + " with " +
                          std::to_string(found->shape.numElements()) +
                          " elements, not " + std::to_string(count));
  return nullptr;
}

/// The checkpoint's position metadata, or DATA_LOSS for a file that is not
/// an mpt checkpoint or holds a bad position.
mpt_status_t readPosition(const char *path,
                          const std::map<std::string, std::string> &metadata,
                          int64_t &position) {
  auto format = metadata.find(mpt::contract::key::Format);
  auto saved = metadata.find(mpt::contract::key::Position);
  if (format == metadata.end() || format->second != kCheckpointFormat ||
      saved == metadata.end())
    return makeStatus(MPT_STATUS_DATA_LOSS,
                      std::string(path) +
                          ": not an mpt checkpoint (no \"format\": \"" +
                          kCheckpointFormat + "\" metadata)");
  const std::string &text = saved->second;
  char *end = nullptr;
  errno = 0;
  long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || !end || *end != '\0' || errno == ERANGE || parsed < 0)
    return makeStatus(MPT_STATUS_DATA_LOSS,
                      std::string(path) + ": bad \"position\" metadata '" +
                          text + "' (expected a non-negative integer)");
  position = parsed;
  return nullptr;
}

/// The checkpoint's entry of each state tensor, in the session's order, or
/// INVALID_ARGUMENT for a checkpoint of another model or precision.
mpt_status_t matchState(mpt_session_t session, const char *path,
                        const SafetensorsFile &file,
                        std::vector<const TensorEntry *> &entries) {
  std::map<std::string, const TensorEntry *> byName;
  for (const TensorEntry &entry : file.tensors())
    byName[entry.name] = &entry;
  for (const PublicTensor &tensor : session->program->state) {
    auto it = byName.find(tensor.name);
    if (it == byName.end())
      return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                        std::string(path) + ": no tensor '" + tensor.name +
                            "' (a checkpoint of another model or "
                            "precision?)");
    const TensorEntry &entry = *it->second;
    if (entry.dtype != elementName(tensor.shape.kind) ||
        entry.shape != tensor.shape.dims)
      return makeStatus(
          MPT_STATUS_INVALID_ARGUMENT,
          std::string(path) + ": tensor '" + tensor.name + "' is " +
              TensorShape{
                  elementKindNamed(entry.dtype).value_or(ElementKind::F32),
                  entry.shape}
                  .describe() +
              ", the program's is " + tensor.shape.describe());
    entries.push_back(&entry);
  }
  if (byName.size() != entries.size())
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(path) +
                          ": holds tensors the program does not have");
  return nullptr;
}

} // namespace

extern "C" {

int64_t mpt_session_num_state(mpt_session_t session) {
  return session ? int64_t(session->program->state.size()) : 0;
}

mpt_status_t mpt_session_state_info(mpt_session_t session, int64_t index,
                                    mpt_tensor_info_t *info) {
  static const char *kCaller = "mpt_session_state_info";
  MPT_RETURN_IF_ERROR(
      checkNotNull(kCaller, {{"session", session}, {"info", info}}));
  const std::vector<PublicTensor> &state = session->program->state;
  if (index < 0 || index >= int64_t(state.size()))
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(kCaller) + ": index " +
                          std::to_string(index) + " is outside the " +
                          std::to_string(state.size()) + " state tensors");
  return fillInfo(state[index], info);
}

mpt_status_t mpt_session_read_state(mpt_session_t session, const char *name,
                                    float *values, int64_t count) {
  static const char *kCaller = "mpt_session_read_state";
  const PublicTensor *state = nullptr;
  MPT_RETURN_IF_ERROR(findState(session, name, values, count, kCaller, state));
  return guarded(kCaller, [&]() -> mpt_status_t {
    HostBuffer host;
    if (!host.allocate(state->shape.bytes()))
      return outOfHostMemory(kCaller, state->shape);
    session->backend->copyToHost(host.get(), session->args[state->index].get(),
                                 host.bytes());
    MPT_RETURN_IF_ERROR(finishCopies(*session->backend, kCaller));
    for (int64_t e = 0; e < count; ++e)
      values[e] = float(loadValue(host.get(), state->shape.kind, e));
    return nullptr;
  });
}

mpt_status_t mpt_session_write_state(mpt_session_t session, const char *name,
                                     const float *values, int64_t count) {
  static const char *kCaller = "mpt_session_write_state";
  const PublicTensor *state = nullptr;
  MPT_RETURN_IF_ERROR(findState(session, name, values, count, kCaller, state));
  return guarded(kCaller, [&]() -> mpt_status_t {
    ElementKind kind = state->shape.kind;
    HostBuffer host;
    if (!host.allocate(state->shape.bytes()))
      return outOfHostMemory(kCaller, state->shape);
    if (isFloatKind(kind)) {
      for (int64_t e = 0; e < count; ++e)
        storeFloat(host.get(), kind, e, values[e]);
    } else {
      auto [low, high] = integerRange(kind);
      for (int64_t e = 0; e < count; ++e) {
        double value = values[e];
        // double(high) + 1 is exact: 2^63, 2^31 or 2, the first value past.
        if (!std::isfinite(value) || value != std::trunc(value) ||
            value < double(low) || value >= double(high) + 1.0)
          return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                            std::string(kCaller) + ": '" + name + "' is " +
                                state->shape.describe() + "; value " +
                                std::to_string(values[e]) + " at index " +
                                std::to_string(e) + " is not an integer in [" +
                                std::to_string(low) + ", " +
                                std::to_string(high) + "]");
        storeInteger(host.get(), kind, e, int64_t(value));
      }
    }
    if (std::string problem = outsideDomain(
            session->program->signature().trainArgs[state->index], host.get());
        !problem.empty())
      return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                        std::string(kCaller) + ": '" + name + "': " + problem);
    session->backend->copyToDevice(session->args[state->index].get(),
                                   host.get(), host.bytes());
    MPT_RETURN_IF_ERROR(
        writeWorkingCopies(session, state->index, host.get(), kCaller));
    return finishCopies(*session->backend, kCaller);
  });
}

mpt_status_t mpt_session_save(mpt_session_t session, const char *path,
                              int64_t position) {
  static const char *kCaller = "mpt_session_save";
  MPT_RETURN_IF_ERROR(
      checkNotNull(kCaller, {{"session", session}, {"path", path}}));
  // Checked here: the writer would make "<path>.tmp.<pid>" of it first.
  if (!*path)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(kCaller) + ": path is empty");
  MPT_RETURN_IF_ERROR(checkCollectivesHeld(session, kCaller));
  return guarded(kCaller, [&]() -> mpt_status_t {
    std::vector<TensorRecord> tensors;
    for (const PublicTensor &state : session->program->state) {
      TensorRecord record;
      record.name = state.name;
      record.dtype = elementName(state.shape.kind);
      record.shape = state.shape.dims;
      record.data.resize(state.shape.bytes());
      session->backend->copyToHost(record.data.data(),
                                   session->args[state.index].get(),
                                   record.data.size());
      tensors.push_back(std::move(record));
    }
    // A failed copy must not become a checkpoint.
    MPT_RETURN_IF_ERROR(finishCopies(*session->backend, kCaller));
    std::map<std::string, std::string> metadata = {
        {mpt::contract::key::Format, kCheckpointFormat},
        {mpt::contract::key::Position, std::to_string(position)}};
    std::string error;
    if (!writeSafetensors(path, tensors, metadata, error))
      return makeStatus(MPT_STATUS_IO_ERROR, error);
    return nullptr;
  });
}

mpt_status_t mpt_session_load(mpt_session_t session, const char *path,
                              int64_t *position) {
  static const char *kCaller = "mpt_session_load";
  MPT_RETURN_IF_ERROR(
      checkNotNull(kCaller, {{"session", session}, {"path", path}}));
  return guarded(kCaller, [&]() -> mpt_status_t {
    SafetensorsFile file;
    std::string error;
    if (!file.open(path, error))
      return makeStatus(MPT_STATUS_DATA_LOSS, error);
    // Check everything before changing anything: the header before reading
    // the data, every value before writing any.
    int64_t savedPosition = 0;
    MPT_RETURN_IF_ERROR(readPosition(path, file.metadata(), savedPosition));
    std::vector<const TensorEntry *> entries;
    MPT_RETURN_IF_ERROR(matchState(session, path, file, entries));
    const std::vector<PublicTensor> &state = session->program->state;
    std::vector<std::vector<uint8_t>> values(state.size());
    for (size_t i = 0; i < state.size(); ++i) {
      values[i].resize(state[i].shape.bytes());
      if (!file.read(*entries[i], values[i].data(), error))
        return makeStatus(MPT_STATUS_DATA_LOSS, error);
      const ArgInfo &arg =
          session->program->signature().trainArgs[state[i].index];
      if (std::string problem = outsideDomain(arg, values[i].data());
          !problem.empty())
        return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                          std::string(path) + ": tensor '" + state[i].name +
                              "': " + problem);
    }
    for (size_t i = 0; i < state.size(); ++i) {
      session->backend->copyToDevice(session->args[state[i].index].get(),
                                     values[i].data(), values[i].size());
      MPT_RETURN_IF_ERROR(writeWorkingCopies(session, state[i].index,
                                             values[i].data(), kCaller));
    }
    MPT_RETURN_IF_ERROR(finishCopies(*session->backend, kCaller));
    if (position)
      *position = savedPosition;
    return nullptr;
  });
}

} // extern "C"
