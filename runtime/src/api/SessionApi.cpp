//===- SessionApi.cpp - the C API's sessions --------------------*- C++ -*-===//
//
// A session's state in backend memory, binding inputs through staging,
// running and queueing steps, evaluating, and reading outputs. Nothing here
// knows the model: everything follows the step's signature.
//
//===----------------------------------------------------------------------===//

#include "api/Handles.h"
#include "api/Initializers.h"
#include "comm/StepCollectives.h"

#include <cmath>
#include <cstring>
#include <string>

using namespace mpt::runtime;
using namespace mpt::runtime::api;

namespace mpt::runtime::api {

/// Waits for the copies just queued, and the work before them, so that a
/// device failure is reported by the call that copied (before a checkpoint
/// is written, or values read), not by the session's next step.
mpt_status_t finishCopies(Backend &backend, const char *caller) {
  std::string error;
  if (backend.wait(backend.fence(), error))
    return nullptr;
  return makeStatus(MPT_STATUS_INTERNAL,
                    std::string(caller) + ": the device failed: " + error);
}

/// Rounds the master at train argument `master`, whose device buffer now
/// holds `values` (in its own type), into its persistent working copies, so
/// that the copies stay what the step that updates the master would write.
mpt_status_t writeWorkingCopies(mpt_session_t session, int64_t master,
                                const uint8_t *values, const char *caller) {
  const Signature &signature = session->program->signature();
  const ArgInfo &masterArg = signature.trainArgs[master];
  for (size_t i = 0; i < signature.trainArgs.size(); ++i) {
    const ArgInfo &copy = signature.trainArgs[i];
    if (copy.init != InitKind::Copy || copy.workingCopyOf != master)
      continue;
    HostBuffer rounded;
    if (!rounded.allocate(copy.shape.bytes()))
      return outOfHostMemory(caller, copy.shape);
    std::string error = convert(values, masterArg.shape.kind, rounded.get(),
                                copy.shape.kind, copy.shape.numElements());
    if (!error.empty() || masterArg.shape.dims != copy.shape.dims)
      return makeStatus(MPT_STATUS_INTERNAL, "working copy '" + copy.name +
                                                 "' of '" + masterArg.name +
                                                 "': " + error);
    session->backend->copyToDevice(session->args[i].get(), rounded.get(),
                                   rounded.bytes());
  }
  return nullptr;
}

mpt_status_t checkCollectivesHeld(mpt_session_t session, const char *caller) {
  if (session->failedCollective.empty())
    return nullptr;
  return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                    std::string(caller) +
                        ": an earlier step's all-reduce failed (" +
                        session->failedCollective +
                        "), so this rank's state is no longer the others'");
}

} // namespace mpt::runtime::api

namespace {

/// Allocates one zeroed device buffer per shape; an empty one for a null
/// shape (a carried result, which the step writes into its argument).
mpt_status_t allocateAll(Backend *backend,
                         const std::vector<const TensorShape *> &shapes,
                         std::vector<DeviceBuffer> &buffers) {
  for (const TensorShape *shape : shapes) {
    if (!shape) {
      buffers.emplace_back();
      continue;
    }
    void *data = backend->allocate(shape->bytes());
    if (!data)
      return makeStatus(MPT_STATUS_OUT_OF_MEMORY,
                        "out of device memory allocating " + shape->describe());
    buffers.emplace_back(backend, data, shape->bytes());
  }
  return nullptr;
}

std::vector<DeviceTensor> trainTensors(mpt_session_t session) {
  const Signature &signature = session->program->signature();
  std::vector<DeviceTensor> tensors;
  for (size_t i = 0; i < signature.trainArgs.size(); ++i)
    tensors.push_back({session->args[i].get(), &signature.trainArgs[i].shape});
  // A carried result is written into its argument's buffer.
  for (size_t r = 0; r < signature.trainResults.size(); ++r)
    if (signature.trainResults[r].next < 0)
      tensors.push_back(
          {session->results[r].get(), &signature.trainResults[r].shape});
  return tensors;
}

/// The input or output (`what`) `name` of `function` among `tensors`, or
/// NOT_FOUND listing them.
mpt_status_t findTensor(const std::vector<PublicTensor> &tensors,
                        mpt_function_t function, const char *name,
                        const char *what, const char *caller,
                        const PublicTensor *&found) {
  found = findNamed(tensors, name);
  if (found)
    return nullptr;
  return makeStatus(MPT_STATUS_NOT_FOUND,
                    std::string(caller) + ": the " + functionName(function) +
                        " has no " + what + " named '" + name + "'; its " +
                        what + "s are " + namesOf(tensors));
}

/// The element kind of a dtype a caller passed, or INVALID_ARGUMENT.
mpt_status_t checkDtype(mpt_dtype_t dtype, const char *caller,
                        ElementKind &kind) {
  std::optional<ElementKind> known = toKind(dtype);
  if (!known)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(caller) + ": unknown dtype " +
                          std::to_string(int(dtype)));
  kind = *known;
  return nullptr;
}

/// INVALID_ARGUMENT unless `bytes` holds the elements of the input or output
/// (`what`) `tensor` as `kind`.
mpt_status_t checkByteCount(const PublicTensor &tensor, const char *what,
                            ElementKind kind, size_t bytes,
                            const char *caller) {
  int64_t count = tensor.shape.numElements();
  if (bytes == size_t(count) * elementBytes(kind))
    return nullptr;
  return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                    std::string(caller) + ": " + what + " '" + tensor.name +
                        "' is " + tensor.shape.describe() + ": " +
                        std::to_string(count) + " " + elementName(kind) +
                        " elements are " +
                        std::to_string(count * elementBytes(kind)) +
                        " bytes, got " + std::to_string(bytes));
}

/// INVALID_ARGUMENT unless every value in `source` (of `kind`) lies in
/// [0, `count`) or is `allowed` (a label the loss ignores): the class labels
/// of a loss or the ids of an embedding, which `values`, `value` (one of them)
/// and `reason` name in the error.
mpt_status_t checkIndices(const PublicTensor &input, ElementKind kind,
                          const uint8_t *source, int64_t count,
                          std::optional<int64_t> allowed, const char *values,
                          const char *value, const std::string &reason,
                          const char *caller) {
  if (isFloatKind(kind))
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(caller) + ": input '" + input.name +
                          "' holds " + values + "; bind integers, not " +
                          elementName(kind));
  for (int64_t i = 0, n = input.shape.numElements(); i < n; ++i) {
    int64_t index = loadInteger(source, kind, i);
    if ((index < 0 || index >= count) && index != allowed)
      return makeStatus(
          MPT_STATUS_INVALID_ARGUMENT,
          std::string(caller) + ": input '" + input.name + "': " + value + " " +
              std::to_string(index) + " at index " + std::to_string(i) +
              " is outside [0, " + std::to_string(count) + "): " + reason);
  }
  return nullptr;
}

InputStaging &stagingOf(mpt_session_s &session, mpt_function_t function,
                        const PublicTensor &input) {
  std::vector<InputStaging> &staging = function == MPT_FUNCTION_EVAL
                                           ? session.evalStaging
                                           : session.trainStaging;
  if (staging.size() <= size_t(input.index))
    staging.resize(input.index + 1);
  return staging[input.index];
}

/// Takes the slot the next batch of `input` goes through, once the device no
/// longer copies out of it; an error names `caller` and the input.
mpt_status_t takeStagingSlot(Backend &backend, InputStaging &staging,
                             const PublicTensor &input, const char *caller,
                             InputStaging::Slot *&slot) {
  slot = &staging.slots[staging.next];
  staging.next ^= 1;
  staging.lent = -1;
  std::string error;
  if (!backend.wait(slot->copied, error))
    return makeStatus(MPT_STATUS_INTERNAL,
                      std::string(caller) + ": input '" + input.name +
                          "': an earlier step or copy failed: " + error);
  size_t bytes = input.shape.bytes();
  if (slot->memory.bytes() != bytes || !slot->memory.get()) {
    slot->memory = StagingMemory(&backend, backend.allocateHost(bytes), bytes);
    if (!slot->memory.get())
      return outOfHostMemory(caller, input.shape);
  }
  return nullptr;
}

/// Copies a batch of `input`, of `kind`, into its device buffer `buffer`.
mpt_status_t copyInput(mpt_session_s &session, mpt_function_t function,
                       const PublicTensor &input, ElementKind kind,
                       const uint8_t *source, DeviceBuffer &buffer,
                       const char *caller) {
  size_t bytes = input.shape.bytes();
  // Same kind: a copy that cannot fail, straight into memory the host can
  // write. A conversion can fail midway, so it goes through staging and
  // leaves the bound input as it was.
  if (void *direct = session.backend->hostWritable(buffer.get());
      direct && kind == input.shape.kind) {
    std::memcpy(direct, source, bytes);
    return nullptr;
  }
  InputStaging &inputStaging = stagingOf(session, function, input);
  InputStaging::Slot *slot = nullptr;
  // The batch was written into the slot mpt_session_input_staging lent.
  if (inputStaging.lent >= 0 && kind == input.shape.kind &&
      source == inputStaging.slots[inputStaging.lent].memory.get()) {
    slot = &inputStaging.slots[inputStaging.lent];
    inputStaging.lent = -1;
  } else {
    MPT_RETURN_IF_ERROR(
        takeStagingSlot(*session.backend, inputStaging, input, caller, slot));
    std::string error =
        convert(source, kind, static_cast<uint8_t *>(slot->memory.get()),
                input.shape.kind, input.shape.numElements());
    if (!error.empty())
      return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                        std::string(caller) + ": input '" + input.name +
                            "' is " + input.shape.describe() + ": " + error);
  }
  session.backend->copyToDevice(buffer.get(), slot->memory.get(), bytes);
  slot->copied = session.backend->fence();
  return nullptr;
}

/// Runs or queues one training step and queues the copies of its metrics.
mpt_status_t queueStep(mpt_session_t session, const char *caller) {
  MPT_RETURN_IF_ERROR(checkCollectivesHeld(session, caller));
  for (const PublicTensor &input : session->program->trainInputs)
    if (!session->trainBound[input.index])
      return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                        std::string(caller) + ": input '" + input.name +
                            "' of the training step is not bound");
  if (session->queuedSteps.size() >= kMaxStepsInFlight)
    return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                      std::string(caller) + ": " +
                          std::to_string(kMaxStepsInFlight) +
                          " queued steps have unread metrics; read them with "
                          "mpt_session_step_metrics first");
  return guarded(caller, [&]() -> mpt_status_t {
    const ProgramData &program = *session->program;
    const Signature &signature = program.signature();
    Backend &backend = *session->backend;
    QueuedStep queued;
    size_t metricBytes = StepMetricsLayout::extra(program.extraMetrics.size());
    if (!session->spareMetrics.empty()) {
      queued.metrics = std::move(session->spareMetrics.back());
      session->spareMetrics.pop_back();
    } else if (queued.metrics = StagingMemory(
                   &backend, backend.allocateHost(metricBytes), metricBytes);
               !queued.metrics.get()) {
      return makeStatus(MPT_STATUS_OUT_OF_MEMORY,
                        std::string(caller) +
                            ": out of host memory for the step's metrics");
    }
    std::string error;
    StepCollectives collectives(program.comm, program.device);
    if (!backend.run(signature.trainFunction, trainTensors(session), error)) {
      session->spareMetrics.push_back(std::move(queued.metrics));
      return makeStatus(MPT_STATUS_INTERNAL,
                        "the training step failed: " + error);
    }
    if (!collectives.error().empty()) {
      session->failedCollective = collectives.error();
      session->spareMetrics.push_back(std::move(queued.metrics));
      return makeStatus(MPT_STATUS_UNAVAILABLE,
                        std::string(caller) +
                            ": the step's gradient all-reduce failed: " +
                            collectives.error());
    }
    queued.bytesAllReduced = collectives.bytes();
    queued.memory = backend.lastRunMemory();
    session->trainRan = true;
    // The copies are queued before the next step can overwrite the results.
    auto copyOut = [&](int64_t result, size_t offset, size_t bytes) {
      if (result >= 0)
        backend.copyToHostAsync(static_cast<uint8_t *>(queued.metrics.get()) +
                                    offset,
                                session->results[result].get(), bytes);
    };
    copyOut(program.lossResult, StepMetricsLayout::loss, sizeof(float));
    copyOut(program.scaleResult, StepMetricsLayout::lossScale, sizeof(float));
    copyOut(program.skippedResult, StepMetricsLayout::skipped, 1);
    copyOut(program.gradZeroResult, StepMetricsLayout::gradZero,
            sizeof(int64_t));
    copyOut(program.gradNonFiniteResult, StepMetricsLayout::gradNonFinite,
            sizeof(int64_t));
    for (size_t i = 0; i < program.extraMetrics.size(); ++i)
      copyOut(program.extraMetrics[i].index, StepMetricsLayout::extra(i),
              program.extraMetrics[i].shape.bytes());
    queued.done = backend.fence();
    session->queuedSteps.push_back(std::move(queued));
    return nullptr;
  });
}

/// A scalar of `kind` at `bytes` as a double.
double scalarAsDouble(const uint8_t *bytes, ElementKind kind) {
  if (isFloatKind(kind)) {
    float value;
    (void)convert(bytes, kind, reinterpret_cast<uint8_t *>(&value),
                  ElementKind::F32, 1);
    return value;
  }
  int64_t value;
  (void)convert(bytes, kind, reinterpret_cast<uint8_t *>(&value),
                ElementKind::I64, 1);
  return double(value);
}

/// The session's buffers plus the step's own at their peak.
mpt_memory_bytes_t peakMemory(const ProgramData &program,
                              const StepMemory &step) {
  mpt_memory_bytes_t memory = program.sessionMemory;
  auto atPeak = [&](StepBufferKind kind) { return step.atPeak[size_t(kind)]; };
  memory.workspace += atPeak(StepBufferKind::Workspace);
  memory.activations += atPeak(StepBufferKind::Activations);
  memory.gradients += atPeak(StepBufferKind::Gradients);
  memory.working_copies += atPeak(StepBufferKind::WorkingCopies);
  memory.total += step.peak;
  return memory;
}

/// Waits for the oldest queued step and takes its metrics.
mpt_status_t takeStepMetrics(mpt_session_t session, const char *caller,
                             mpt_step_metrics_t *metrics) {
  if (session->queuedSteps.empty())
    return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                      std::string(caller) +
                          ": no queued step has unread metrics");
  QueuedStep queued = std::move(session->queuedSteps.front());
  session->queuedSteps.pop_front();
  std::string error;
  bool ok = session->backend->wait(queued.done, error);
  const ProgramData &program = *session->program;
  const auto *block = static_cast<const uint8_t *>(queued.metrics.get());
  auto scalar = [&](int64_t result, size_t offset, auto fallback) {
    using T = decltype(fallback);
    if (result < 0)
      return fallback;
    T value;
    std::memcpy(&value, block + offset, sizeof(T));
    return value;
  };
  if (metrics) {
    metrics->loss =
        scalar(program.lossResult, StepMetricsLayout::loss, float(NAN));
    metrics->loss_scale =
        scalar(program.scaleResult, StepMetricsLayout::lossScale, 1.0f);
    metrics->skipped = scalar(program.skippedResult, StepMetricsLayout::skipped,
                              uint8_t(0)) != 0;
    metrics->grad_zero = scalar(program.gradZeroResult,
                                StepMetricsLayout::gradZero, int64_t(-1));
    metrics->grad_nonfinite =
        scalar(program.gradNonFiniteResult, StepMetricsLayout::gradNonFinite,
               int64_t(-1));
    metrics->bytes_all_reduced = queued.bytesAllReduced;
    metrics->peak_memory = peakMemory(program, queued.memory);
  }
  session->lastExtraMetrics.clear();
  for (size_t i = 0; i < program.extraMetrics.size(); ++i)
    session->lastExtraMetrics.push_back(
        scalarAsDouble(block + StepMetricsLayout::extra(i),
                       program.extraMetrics[i].shape.kind));
  session->spareMetrics.push_back(std::move(queued.metrics));
  if (!ok)
    return makeStatus(MPT_STATUS_INTERNAL,
                      std::string(caller) +
                          ": the training step failed: " + error);
  return nullptr;
}

} // namespace

extern "C" {

mpt_status_t mpt_session_create(mpt_program_t program, uint64_t seed,
                                mpt_session_t *out) {
  static const char *kCaller = "mpt_session_create";
  MPT_RETURN_IF_ERROR(
      checkNotNull(kCaller, {{"program", program}, {"session", out}}));
  *out = nullptr;
  return guarded(kCaller, [&]() -> mpt_status_t {
    auto session = std::make_unique<mpt_session_s>();
    session->program = program->data;
    Backend *backend = program->data->program->backend.get();
    session->backend = backend;
    const Signature &signature = program->data->signature();

    std::vector<const TensorShape *> argShapes, resultShapes, evalInputShapes,
        evalResultShapes;
    for (const ArgInfo &arg : signature.trainArgs)
      argShapes.push_back(&arg.shape);
    for (const ResultInfo &result : signature.trainResults)
      resultShapes.push_back(result.next < 0 ? &result.shape : nullptr);
    for (const EvalArgInfo &arg : signature.evalArgs)
      evalInputShapes.push_back(&arg.shape);
    for (const NamedTensor &result : signature.evalResults)
      evalResultShapes.push_back(&result.shape);
    // Eval arguments that read state use the session's state buffers; the
    // extra buffers they get here stay unused and cost one shape each.
    for (auto [shapes, buffers] :
         {std::pair(&argShapes, &session->args),
          std::pair(&resultShapes, &session->results),
          std::pair(&evalInputShapes, &session->evalInputs),
          std::pair(&evalResultShapes, &session->evalResults)})
      MPT_RETURN_IF_ERROR(allocateAll(backend, *shapes, *buffers));
    session->trainBound.assign(signature.trainArgs.size(), false);
    session->evalBound.assign(signature.evalArgs.size(), false);

    // State from its initializer; working copies from their master.
    for (size_t i = 0; i < signature.trainArgs.size(); ++i) {
      const ArgInfo &arg = signature.trainArgs[i];
      if (arg.role == Role::Data || arg.init == InitKind::Copy)
        continue;
      HostBuffer host;
      if (!host.allocate(arg.shape.bytes()))
        return outOfHostMemory(kCaller, arg.shape);
      initialize(arg, i, seed, host);
      backend->copyToDevice(session->args[i].get(), host.get(), host.bytes());
      MPT_RETURN_IF_ERROR(
          writeWorkingCopies(session.get(), i, host.get(), kCaller));
    }
    MPT_RETURN_IF_ERROR(finishCopies(*backend, kCaller));
    *out = session.release();
    return nullptr;
  });
}

void mpt_session_free(mpt_session_t session) { delete session; }

mpt_status_t mpt_session_bind_input(mpt_session_t session,
                                    mpt_function_t function, const char *name,
                                    mpt_dtype_t dtype, const void *data,
                                    size_t bytes) {
  static const char *kCaller = "mpt_session_bind_input";
  MPT_RETURN_IF_ERROR(checkNotNull(
      kCaller, {{"session", session}, {"name", name}, {"data", data}}));
  MPT_RETURN_IF_ERROR(checkFunction(*session->program, function, kCaller));
  ElementKind kind = ElementKind::F32;
  MPT_RETURN_IF_ERROR(checkDtype(dtype, kCaller, kind));
  const PublicTensor *input = nullptr;
  MPT_RETURN_IF_ERROR(findTensor(session->program->inputs(function), function,
                                 name, "input", kCaller, input));
  MPT_RETURN_IF_ERROR(checkByteCount(*input, "input", kind, bytes, kCaller));
  return guarded(kCaller, [&]() -> mpt_status_t {
    const auto *source = static_cast<const uint8_t *>(data);
    if (input->classes > 0)
      MPT_RETURN_IF_ERROR(checkIndices(
          *input, kind, source, input->classes, input->ignoredLabel,
          "class labels", "label",
          "the loss has " + std::to_string(input->classes) + " classes" +
              (input->ignoredLabel
                   ? " and ignores " + std::to_string(*input->ignoredLabel)
                   : ""),
          kCaller));
    if (input->tableRows > 0)
      MPT_RETURN_IF_ERROR(checkIndices(*input, kind, source, input->tableRows,
                                       std::nullopt, "embedding ids", "id",
                                       "the embedding table has " +
                                           std::to_string(input->tableRows) +
                                           " rows",
                                       kCaller));
    bool eval = function == MPT_FUNCTION_EVAL;
    DeviceBuffer &buffer =
        eval ? session->evalInputs[input->index] : session->args[input->index];
    MPT_RETURN_IF_ERROR(
        copyInput(*session, function, *input, kind, source, buffer, kCaller));
    (eval ? session->evalBound : session->trainBound)[input->index] = true;
    return nullptr;
  });
}

mpt_status_t mpt_session_input_staging(mpt_session_t session,
                                       mpt_function_t function,
                                       const char *name, void **data,
                                       size_t *bytes) {
  static const char *kCaller = "mpt_session_input_staging";
  MPT_RETURN_IF_ERROR(checkNotNull(kCaller, {{"session", session},
                                             {"name", name},
                                             {"data", data},
                                             {"bytes", bytes}}));
  *data = nullptr;
  *bytes = 0;
  MPT_RETURN_IF_ERROR(checkFunction(*session->program, function, kCaller));
  const PublicTensor *input = nullptr;
  MPT_RETURN_IF_ERROR(findTensor(session->program->inputs(function), function,
                                 name, "input", kCaller, input));
  return guarded(kCaller, [&]() -> mpt_status_t {
    InputStaging &inputStaging = stagingOf(*session, function, *input);
    int index = inputStaging.next;
    InputStaging::Slot *slot = nullptr;
    MPT_RETURN_IF_ERROR(takeStagingSlot(*session->backend, inputStaging, *input,
                                        kCaller, slot));
    inputStaging.lent = index;
    *data = slot->memory.get();
    *bytes = slot->memory.bytes();
    return nullptr;
  });
}

mpt_status_t mpt_session_step(mpt_session_t session,
                              mpt_step_metrics_t *metrics) {
  static const char *kCaller = "mpt_session_step";
  MPT_RETURN_IF_ERROR(checkNotNull(kCaller, {{"session", session}}));
  if (!session->queuedSteps.empty())
    return makeStatus(
        MPT_STATUS_FAILED_PRECONDITION,
        std::string(kCaller) + ": " +
            std::to_string(session->queuedSteps.size()) +
            " steps queued by mpt_session_step_async have unread metrics; "
            "read them with mpt_session_step_metrics first");
  MPT_RETURN_IF_ERROR(queueStep(session, kCaller));
  return takeStepMetrics(session, kCaller, metrics);
}

mpt_status_t mpt_session_step_async(mpt_session_t session) {
  static const char *kCaller = "mpt_session_step_async";
  MPT_RETURN_IF_ERROR(checkNotNull(kCaller, {{"session", session}}));
  return queueStep(session, kCaller);
}

mpt_status_t mpt_session_step_metrics(mpt_session_t session,
                                      mpt_step_metrics_t *metrics) {
  static const char *kCaller = "mpt_session_step_metrics";
  MPT_RETURN_IF_ERROR(
      checkNotNull(kCaller, {{"session", session}, {"metrics", metrics}}));
  return takeStepMetrics(session, kCaller, metrics);
}

mpt_status_t mpt_session_step_metric(mpt_session_t session, const char *name,
                                     double *value) {
  static const char *kCaller = "mpt_session_step_metric";
  MPT_RETURN_IF_ERROR(checkNotNull(
      kCaller, {{"session", session}, {"name", name}, {"value", value}}));
  const std::vector<PublicTensor> &metrics = session->program->extraMetrics;
  const PublicTensor *metric = nullptr;
  MPT_RETURN_IF_ERROR(findTensor(metrics, MPT_FUNCTION_TRAIN, name,
                                 "extra metric", kCaller, metric));
  if (session->lastExtraMetrics.empty())
    return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                      std::string(kCaller) +
                          ": no step's metrics have been returned yet");
  *value = session->lastExtraMetrics[metric - metrics.data()];
  return nullptr;
}

int64_t mpt_session_steps_in_flight(mpt_session_t session) {
  return session ? int64_t(session->queuedSteps.size()) : 0;
}

mpt_status_t mpt_session_eval(mpt_session_t session) {
  static const char *kCaller = "mpt_session_eval";
  MPT_RETURN_IF_ERROR(checkNotNull(kCaller, {{"session", session}}));
  MPT_RETURN_IF_ERROR(
      checkFunction(*session->program, MPT_FUNCTION_EVAL, kCaller));
  for (const PublicTensor &input : session->program->evalInputs)
    if (!session->evalBound[input.index])
      return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                        std::string(kCaller) + ": input '" + input.name +
                            "' of the eval step is not bound");
  return guarded(kCaller, [&]() -> mpt_status_t {
    const Signature &signature = session->program->signature();
    std::vector<DeviceTensor> tensors;
    for (size_t i = 0; i < signature.evalArgs.size(); ++i) {
      const EvalArgInfo &arg = signature.evalArgs[i];
      void *data = arg.stateOf >= 0 ? session->args[arg.stateOf].get()
                                    : session->evalInputs[i].get();
      tensors.push_back({data, &arg.shape});
    }
    for (size_t r = 0; r < signature.evalResults.size(); ++r)
      tensors.push_back(
          {session->evalResults[r].get(), &signature.evalResults[r].shape});
    std::string error;
    if (!session->backend->run(signature.evalFunction, tensors, error))
      return makeStatus(MPT_STATUS_INTERNAL, "the eval step failed: " + error);
    session->evalRan = true;
    return nullptr;
  });
}

mpt_status_t mpt_session_read_output(mpt_session_t session,
                                     mpt_function_t function, const char *name,
                                     mpt_dtype_t dtype, void *data,
                                     size_t bytes) {
  static const char *kCaller = "mpt_session_read_output";
  MPT_RETURN_IF_ERROR(checkNotNull(
      kCaller, {{"session", session}, {"name", name}, {"data", data}}));
  MPT_RETURN_IF_ERROR(checkFunction(*session->program, function, kCaller));
  ElementKind kind = ElementKind::F32;
  MPT_RETURN_IF_ERROR(checkDtype(dtype, kCaller, kind));
  const PublicTensor *output = nullptr;
  MPT_RETURN_IF_ERROR(findTensor(session->program->outputs(function), function,
                                 name, "output", kCaller, output));
  bool eval = function == MPT_FUNCTION_EVAL;
  if (!(eval ? session->evalRan : session->trainRan))
    return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                      std::string(kCaller) + ": the " + functionName(function) +
                          " has not run yet");
  MPT_RETURN_IF_ERROR(checkByteCount(*output, "output", kind, bytes, kCaller));
  int64_t count = output->shape.numElements();
  return guarded(kCaller, [&]() -> mpt_status_t {
    const DeviceBuffer &buffer = eval ? session->evalResults[output->index]
                                      : session->results[output->index];
    HostBuffer host;
    if (!host.allocate(output->shape.bytes()))
      return outOfHostMemory(kCaller, output->shape);
    session->backend->copyToHost(host.get(), buffer.get(), host.bytes());
    MPT_RETURN_IF_ERROR(finishCopies(*session->backend, kCaller));
    std::string error = convert(host.get(), output->shape.kind,
                                static_cast<uint8_t *>(data), kind, count);
    if (!error.empty())
      return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                        std::string(kCaller) + ": output '" + name + "' is " +
                            output->shape.describe() + ": " + error);
    return nullptr;
  });
}

} // extern "C"
