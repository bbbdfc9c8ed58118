//===- Handles.h - what the C API's handles hold ----------------*- C++ -*-===//
//
// A program handle shares its compiled program and public views with the
// sessions created from it; a session holds its state in backend memory,
// its bound inputs' staging, and the steps queued with unread metrics.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_API_HANDLES_H
#define MPT_RUNTIME_API_HANDLES_H

#include "Program.h"
#include "api/Memory.h"
#include "api/Tensors.h"

#include <deque>
#include <memory>
#include <vector>

namespace mpt::runtime::api {

/// Two buffers per input, used in turn, so the host fills one while the
/// device may still be copying the previous batch out of the other.
struct InputStaging {
  struct Slot {
    StagingMemory memory;
    uint64_t copied = 0; // fence after the copy out of it
  };
  Slot slots[2];
  int next = 0;
  /// The slot mpt_session_input_staging lent out, or -1.
  int lent = -1;
};

/// Where a step's metrics land, at fixed offsets, once its fence is reached;
/// the program's other scalar metrics (ProgramData::extraMetrics) follow, one
/// slot each.
struct StepMetricsLayout {
  static constexpr size_t loss = 0, lossScale = 4, skipped = 8, gradZero = 16,
                          gradNonFinite = 24, bytes = 32, extraSlot = 8;
  static size_t extra(size_t index) { return bytes + index * extraSlot; }
};

/// A step that ran or was queued and whose metrics were not read yet.
struct QueuedStep {
  StagingMemory metrics;
  uint64_t done = 0;
  int64_t bytesAllReduced = 0;
  StepMemory memory;
};

/// More than this many queued steps with unread metrics is a caller that
/// never reads them.
constexpr size_t kMaxStepsInFlight = 16;

/// The compiled program and its public views, shared by the handle and the
/// sessions created from it.
struct ProgramData {
  std::unique_ptr<Program> program;
  /// The ranks the training step sums its gradients over, on memory of
  /// `device`; null in one process.
  mpt_comm_t comm = nullptr;
  mpt_device_t device = MPT_DEVICE_CPU;
  std::vector<PublicTensor> trainInputs, trainOutputs, evalInputs, evalOutputs,
      state;
  int64_t lossResult = -1, scaleResult = -1, skippedResult = -1;
  int64_t gradZeroResult = -1, gradNonFiniteResult = -1;
  /// The training step's scalar metrics that mpt_step_metrics_t does not hold
  /// (grad_norm, the step's own), read with mpt_session_step_metric.
  std::vector<PublicTensor> extraMetrics;
  /// The bytes of a session's buffers for the training step, by what they
  /// hold; `total` is their sum.
  mpt_memory_bytes_t sessionMemory{};

  const Signature &signature() const { return program->signature; }
  const std::vector<PublicTensor> &inputs(mpt_function_t function) const {
    return function == MPT_FUNCTION_EVAL ? evalInputs : trainInputs;
  }
  const std::vector<PublicTensor> &outputs(mpt_function_t function) const {
    return function == MPT_FUNCTION_EVAL ? evalOutputs : trainOutputs;
  }
};

} // namespace mpt::runtime::api

struct mpt_program_s {
  std::shared_ptr<mpt::runtime::api::ProgramData> data;
};

struct mpt_session_s {
  using DeviceBuffer = mpt::runtime::api::DeviceBuffer;
  using InputStaging = mpt::runtime::api::InputStaging;
  using StagingMemory = mpt::runtime::api::StagingMemory;

  std::shared_ptr<mpt::runtime::api::ProgramData> program;
  mpt::runtime::Backend *backend = nullptr;
  std::vector<DeviceBuffer> args, results, evalInputs, evalResults;
  std::vector<bool> trainBound, evalBound;
  /// Host copies of bound inputs on their way to the device, kept across
  /// steps: a batch of tens of MB allocated per step costs page faults.
  std::vector<InputStaging> trainStaging, evalStaging;
  /// Steps whose metrics were not read yet, oldest first, and metric buffers
  /// to reuse (page-locked memory is slow to allocate).
  std::deque<mpt::runtime::api::QueuedStep> queuedSteps;
  std::vector<StagingMemory> spareMetrics;
  /// The extra metrics of the step whose metrics were returned last, one per
  /// ProgramData::extraMetrics; empty before any.
  std::vector<double> lastExtraMetrics;
  bool evalRan = false, trainRan = false;
  /// Set once a step's collective failed: the step then applied this rank's
  /// own gradients, so the state is no longer the other ranks', and it is
  /// neither stepped nor saved again.
  std::string failedCollective;
};

namespace mpt::runtime::api {

// Shared by the program, session and state entry points.

bool isFunction(mpt_function_t function);
/// INVALID_ARGUMENT for a value outside mpt_function_e, NOT_FOUND for the
/// eval step of a module without one.
mpt_status_t checkFunction(const ProgramData &program, mpt_function_t function,
                           const char *caller);
const char *functionName(mpt_function_t function);
/// FAILED_PRECONDITION once a step's collective failed (failedCollective).
mpt_status_t checkCollectivesHeld(mpt_session_t session, const char *caller);

/// Waits for the copies just queued, and the work before them, so that a
/// device failure is reported by the call that copied (before a checkpoint
/// is written, or values read), not by the session's next step.
mpt_status_t finishCopies(Backend &backend, const char *caller);

/// Rounds the master at train argument `master`, whose device buffer now
/// holds `values` (in its own type), into its persistent working copies, so
/// that the copies stay what the step that updates the master would write.
mpt_status_t writeWorkingCopies(mpt_session_t session, int64_t master,
                                const uint8_t *values, const char *caller);

} // namespace mpt::runtime::api

#endif // MPT_RUNTIME_API_HANDLES_H
