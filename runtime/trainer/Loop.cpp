//===- Loop.cpp - the training loop ---------------------------------------===//
//
// Queues steps, reads their metrics, evaluates, checkpoints and diagnoses
// non-finite training. On a device that runs queued work the next step is
// queued before this one's metrics are read, so that the host prepares
// batches while the device trains; never past a point that needs the state
// (an evaluation, a checkpoint, the end).
//
//===----------------------------------------------------------------------===//

#include "TrainerState.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>

using namespace mpt;
using namespace mpt::runtime;
using Clock = std::chrono::steady_clock;

static std::string formatScale(float scale) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", scale);
  return text;
}

static double secondsSince(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

/// Runs the eval step on one batch of its input, `bytes` of `dtype`, and
/// reads the logits.
static llvm::Error evaluateBatch(mpt_session_t session,
                                 const DataBinding &binding, mpt_dtype_t dtype,
                                 const void *batch, size_t bytes,
                                 std::vector<float> &logits) {
  if (llvm::Error error = takeStatus(mpt_session_bind_input(
          session, MPT_FUNCTION_EVAL, binding.evalExamples.c_str(), dtype,
          batch, bytes)))
    return error;
  if (llvm::Error error = takeStatus(mpt_session_eval(session)))
    return error;
  return takeStatus(mpt_session_read_output(
      session, MPT_FUNCTION_EVAL, contract::name::Logits, MPT_DTYPE_F32,
      logits.data(), logits.size() * sizeof(float)));
}

/// Accuracy on every example of `data` whose label the loss does not ignore;
/// the last partial batch is padded.
static llvm::Expected<double> evaluate(mpt_session_t session,
                                       const DataBinding &binding,
                                       const Dataset &data) {
  int64_t correct = 0, counted = 0;
  int64_t batch = binding.evalBatchSize, size = binding.exampleSize;
  std::vector<float> examples(batch * size);
  std::vector<float> logits(batch * binding.numClasses);
  for (int64_t start = 0; start < data.count; start += batch) {
    int64_t n = std::min(batch, data.count - start);
    std::fill(examples.begin(), examples.end(), 0.0f);
    std::copy(data.images.begin() + start * size,
              data.images.begin() + (start + n) * size, examples.begin());
    if (llvm::Error error =
            evaluateBatch(session, binding, MPT_DTYPE_F32, examples.data(),
                          examples.size() * sizeof(float), logits))
      return std::move(error);
    for (int64_t i = 0; i < n; ++i) {
      int64_t label = data.labels[start + i];
      if (label == binding.ignoredLabel)
        continue;
      const float *row = logits.data() + i * binding.numClasses;
      int64_t best = std::max_element(row, row + binding.numClasses) - row;
      correct += best == label;
      ++counted;
    }
  }
  return counted ? double(correct) / double(counted) : 0.0;
}

/// The mean cross-entropy of the eval step's logits over the consecutive
/// non-overlapping windows of T + 1 tokens of `file` (the last partial batch
/// is padded with window 0, whose loss is not counted).
static llvm::Expected<double> evaluateLoss(mpt_session_t session,
                                           const DataBinding &binding,
                                           const TokenFile &file) {
  int64_t batch = binding.evalBatchSize, length = binding.tokenLength;
  int64_t classes = binding.numClasses;
  int64_t windows = (file.size() - 1) / length;
  std::vector<int32_t> ids(batch * length), targets(batch * length);
  std::vector<float> logits(batch * length * classes);
  double total = 0;
  for (int64_t start = 0; start < windows; start += batch) {
    int64_t n = std::min(batch, windows - start);
    std::vector<int64_t> offsets(batch, 0);
    for (int64_t i = 0; i < n; ++i)
      offsets[i] = (start + i) * length;
    gatherTokenWindows(file, offsets, length, ids.data(), targets.data());
    if (llvm::Error error =
            evaluateBatch(session, binding, MPT_DTYPE_I32, ids.data(),
                          ids.size() * sizeof(int32_t), logits))
      return std::move(error);
    for (int64_t t = 0; t < n * length; ++t) {
      const float *row = logits.data() + t * classes;
      float highest = *std::max_element(row, row + classes);
      double sum = 0;
      for (int64_t c = 0; c < classes; ++c)
        sum += std::exp(double(row[c]) - highest);
      total += std::log(sum) + highest - row[targets[t]];
    }
  }
  return total / double(windows * length);
}

llvm::Expected<std::string> mpt::findNonFiniteState(mpt_session_t session) {
  std::vector<float> values;
  for (int64_t i = 0, e = mpt_session_num_state(session); i < e; ++i) {
    mpt_tensor_info_t info;
    if (llvm::Error error =
            takeStatus(mpt_session_state_info(session, i, &info)))
      return std::move(error);
    if (info.dtype != MPT_DTYPE_F32 && info.dtype != MPT_DTYPE_F16 &&
        info.dtype != MPT_DTYPE_BF16)
      continue;
    values.resize(info.num_elements);
    if (llvm::Error error = takeStatus(mpt_session_read_state(
            session, info.name, values.data(), info.num_elements)))
      return std::move(error);
    for (int64_t j = 0; j < info.num_elements; ++j)
      if (!std::isfinite(values[j]))
        return llvm::formatv("'{0}' holds {1} at index {2}", info.name,
                             std::isnan(values[j]) ? "nan"
                             : values[j] > 0       ? "inf"
                                                   : "-inf",
                             j)
            .str();
  }
  return std::string();
}

namespace {

/// One call of Trainer::run: the loop's position and what it recorded.
class Run {
public:
  Run(const TrainerOptions &options, Trainer::State &state,
      const std::atomic<bool> &stopRequested, TrainerObserver &observer)
      : options(options), state(state), binding(state.binding),
        stopRequested(stopRequested), observer(observer), step(state.firstStep),
        queued(state.firstStep),
        queueAhead(options.compile.device == MPT_DEVICE_CUDA),
        examplesAreF32(binding.examplesType == MPT_DTYPE_F32),
        batchElements(size_t(binding.batchSize * binding.exampleSize)),
        examples(examplesAreF32 ? 0 : batchElements),
        labels(binding.batchSize * binding.labelsPerExample()),
        tokenIds(binding.tokenLength ? batchElements : 0) {
    result.firstStep = state.firstStep;
    result.metricNames = state.metricNames;
  }

  TrainResult run();

private:
  llvm::Error queueStep(int64_t s);
  llvm::Error bindExamples(int64_t s, int64_t batch);
  llvm::Error bindTokens(int64_t index);
  llvm::Expected<StepRecord> recordStep();
  bool stateNeededAfter(int64_t steps) const;
  void diagnose(const StepRecord &record);
  std::string diagnoseNonFinite(const StepRecord &record) const;
  void save();
  llvm::Error evaluateAfterStep(const StepRecord &record);
  llvm::Error trainStep();
  void summarize(Clock::time_point start);
  TrainProgress progress() const {
    return {(step - 1) / state.stepsPerEpoch, options.epochs,
            (step - 1) % state.stepsPerEpoch + 1, state.stepsPerEpoch,
            result.skipped};
  }

  const TrainerOptions &options;
  Trainer::State &state;
  const DataBinding &binding;
  const std::atomic<bool> &stopRequested;
  TrainerObserver &observer;
  TrainResult result;
  /// The next step whose metrics are read, and the next step to queue.
  int64_t step, queued;
  bool queueAhead, examplesAreF32;
  size_t batchElements;
  // Host memory for an f32 batch that an f16 or bf16 input takes with an
  // injected overflow: multiplied before it is rounded, as on the device.
  // Other batches are gathered into the session's staging memory.
  std::vector<float> examples;
  std::vector<int32_t> labels, tokenIds;
  std::vector<int64_t> order;
  int64_t orderEpoch = -1;
  bool nonFiniteReported = false, nonFiniteSaveReported = false;
  /// A stop was requested, of any rank, when the last step was read.
  bool stopAgreed = false;
  /// One process heeds a request up to the end of a step (an observer's
  /// onStep may make it); ranks heed the one they agreed on, or one rank
  /// would stop alone.
  bool stopBetweenSteps() const {
    return state.ranks == 1 ? stopRequested.load(std::memory_order_relaxed)
                            : stopAgreed;
  }
  /// The run ends early, unsaved: the non-finite policy stopped it, or a
  /// save failed.
  bool stopped = false;
  std::optional<int64_t> lastSaved;
  double queueingSeconds = 0, waitingSeconds = 0;
  // The first step also pays one-time costs (GEMM plans, device buffers).
  Clock::time_point afterFirstStep;
};

} // namespace

/// Gathers step `s`'s examples into the input. A batch of tens of MB costs
/// milliseconds per host copy: gathered into the session's staging memory,
/// in the input's type, it is copied once.
llvm::Error Run::bindExamples(int64_t s, int64_t batch) {
  bool injected =
      state.inject.count(s) != 0 && (options.injectNonFiniteRank < 0 ||
                                     options.injectNonFiniteRank == state.rank);
  const char *name = binding.examples.c_str();
  if (!examplesAreF32 && injected) {
    gatherBatch(state.train, order, batch, binding.batchSize, examples.data(),
                labels.data());
    for (float &value : examples)
      value *= INFINITY;
    return takeStatus(mpt_session_bind_input(
        state.session, MPT_FUNCTION_TRAIN, name, MPT_DTYPE_F32, examples.data(),
        batchElements * sizeof(float)));
  }
  void *staging = nullptr;
  size_t batchBytes = 0;
  if (llvm::Error error = takeStatus(mpt_session_input_staging(
          state.session, MPT_FUNCTION_TRAIN, name, &staging, &batchBytes)))
    return error;
  if (examplesAreF32) {
    auto *batchExamples = static_cast<float *>(staging);
    gatherBatch(state.train, order, batch, binding.batchSize, batchExamples,
                labels.data());
    if (injected)
      for (size_t i = 0; i < batchElements; ++i)
        batchExamples[i] *= INFINITY;
  } else {
    gatherBatch(state.train, order, batch, binding.batchSize,
                static_cast<uint16_t *>(staging),
                binding.examplesType == MPT_DTYPE_BF16 ? HalfKind::BF16
                                                       : HalfKind::F16,
                labels.data());
  }
  return takeStatus(mpt_session_bind_input(state.session, MPT_FUNCTION_TRAIN,
                                           name, binding.examplesType, staging,
                                           batchBytes));
}

/// Gathers the token windows of local batch `index` into the ids and
/// labels: a window's first T tokens are the ids, the T after its first the
/// labels.
llvm::Error Run::bindTokens(int64_t index) {
  const TokenFile &file = state.trainTokens;
  std::vector<int64_t> offsets = tokenWindowOffsets(
      file.size(), binding.tokenLength, options.seed, index, binding.batchSize);
  gatherTokenWindows(file, offsets, binding.tokenLength, tokenIds.data(),
                     labels.data());
  return takeStatus(mpt_session_bind_input(
      state.session, MPT_FUNCTION_TRAIN, binding.examples.c_str(),
      MPT_DTYPE_I32, tokenIds.data(), tokenIds.size() * sizeof(int32_t)));
}

/// Binds step `s`'s batch and queues the step.
llvm::Error Run::queueStep(int64_t s) {
  auto queueStart = Clock::now();
  int64_t epoch = s / state.stepsPerEpoch, batch = s % state.stepsPerEpoch;
  bool tokens = options.data == DataSource::Tokens;
  if (epoch != orderEpoch && !tokens) {
    order = epochOrder(state.train.count, options.seed, epoch);
    orderEpoch = epoch;
  }
  // Rank r's shard of global batch b is local batch b * ranks + r; the token
  // windows of a step are drawn from the step's global number.
  llvm::Error error = tokens
                          ? bindTokens(s * state.ranks + state.rank)
                          : bindExamples(s, batch * state.ranks + state.rank);
  if (!error)
    error = takeStatus(mpt_session_bind_input(
        state.session, MPT_FUNCTION_TRAIN, binding.labels.c_str(),
        MPT_DTYPE_I32, labels.data(), labels.size() * sizeof(int32_t)));
  if (!error)
    error = takeStatus(mpt_session_step_async(state.session));
  if (error)
    return llvm::createStringError(
        "step " + llvm::Twine(s) + " (" +
        (options.data == DataSource::Synthetic ? "synthetic"
         : options.data == DataSource::Files   ? "--data"
         : tokens                              ? "--tokens"
                                               : "fashion-mnist") +
        " batch " + llvm::Twine(batch) + " of epoch " + llvm::Twine(epoch + 1) +
        "): " + llvm::toString(std::move(error)));
  if (s > result.firstStep)
    queueingSeconds += secondsSince(queueStart);
  return llvm::Error::success();
}

/// Reads the metrics of the oldest queued step, which is step `step`.
llvm::Expected<StepRecord> Run::recordStep() {
  mpt_step_metrics_t metrics;
  auto waitStart = Clock::now();
  if (llvm::Error error =
          takeStatus(mpt_session_step_metrics(state.session, &metrics)))
    return std::move(error);
  if (step > result.firstStep)
    waitingSeconds += secondsSince(waitStart);
  // Every rank stops after the same step, whichever the signal reached.
  llvm::Expected<RanksAfterStep> agreed = agreeAfterStep(
      state, metrics.loss, stopRequested.load(std::memory_order_relaxed));
  if (!agreed)
    return agreed.takeError();
  stopAgreed = agreed->stop;
  // A NaN's sign bit depends on which operand the CPU propagated, which
  // vectorization and threading change: every NaN is reported as "nan".
  float loss = std::isnan(agreed->meanLoss)
                   ? std::numeric_limits<float>::quiet_NaN()
                   : agreed->meanLoss;
  StepRecord record{step,
                    step / state.stepsPerEpoch,
                    loss,
                    metrics.loss_scale,
                    metrics.skipped != 0,
                    metrics.grad_zero,
                    metrics.grad_nonfinite,
                    metrics.bytes_all_reduced,
                    metrics.peak_memory.total,
                    {}};
  for (const std::string &name : state.metricNames) {
    double value;
    if (llvm::Error error = takeStatus(
            mpt_session_step_metric(state.session, name.c_str(), &value)))
      return std::move(error);
    record.metrics.push_back(value);
  }
  result.skipped += record.skipped;
  if (metrics.peak_memory.total > result.peakMemory.total)
    result.peakMemory = metrics.peak_memory;
  result.records.push_back(record);
  if (step == result.firstStep)
    afterFirstStep = Clock::now();
  ++step;
  return record;
}

bool Run::stateNeededAfter(int64_t steps) const {
  return steps == state.totalSteps ||
         (options.checkpointEvery > 0 &&
          steps % options.checkpointEvery == 0) ||
         state.evalSteps.count(steps) ||
         (steps % state.stepsPerEpoch == 0 && binding.hasEval &&
          options.evaluate);
}

/// What went wrong when a step's loss or gradients are not finite, with what
/// to try; empty when the step is healthy. A skipped step at a scale above
/// the scaler's floor is loss scaling doing its job.
std::string Run::diagnoseNonFinite(const StepRecord &record) const {
  std::string step = "step " + std::to_string(record.step) + ": ";
  std::string loss = llvm::formatv("{0}", record.loss).str();
  std::string precision = precisionName(options.compile.precision);
  // No step trains non-finite state to finite: the file is at fault.
  if (!std::isfinite(record.loss) && !state.nonFiniteLoaded.empty())
    return step + "the loss is " + loss + ": " + state.nonFiniteLoaded +
           ", so no step can train from it.";
  if (!std::isfinite(record.loss) && !record.skipped)
    return step + "the loss is " + loss +
           ": training diverged and the parameters are no longer finite. "
           "Try a smaller learning rate or gradient clipping" +
           (precision == "fp32"
                ? std::string(".")
                : ", or --precision fp32 (or f16 with loss scaling).");
  if (!std::isfinite(record.loss))
    return step + "the loss is " + loss +
           " already in the forward pass (values beyond the range of " +
           precision +
           "), which loss scaling cannot fix; the step was skipped. Try a "
           "smaller learning rate, --precision bf16 or --precision fp32.";
  // A static scale does not back off: the overflow that skipped this step
  // will skip the next ones too.
  if (record.skipped && state.staticLossScale)
    return step + "the gradients are not finite at the static loss scale " +
           formatScale(record.lossScale) +
           ", which does not back off; the step was skipped and later ones "
           "will be too. Try a smaller --init-scale or --loss-scale dynamic.";
  if (record.skipped && record.lossScale <= options.compile.min_scale)
    return step + "the gradients are not finite even at loss scale " +
           formatScale(record.lossScale) +
           ", the lowest (--min-scale); the step was skipped and later ones "
           "will be too. Try a lower --min-scale, a smaller learning rate, "
           "--precision bf16 or --precision fp32.";
  return {};
}

/// Reports the first non-finite step (not one injected on purpose), and
/// stops the run there under the Stop policy.
void Run::diagnose(const StepRecord &record) {
  if (state.inject.count(record.step) ||
      options.onNonFinite == NonFinitePolicy::Continue || nonFiniteReported)
    return;
  std::string problem = diagnoseNonFinite(record);
  if (problem.empty())
    return;
  nonFiniteReported = true;
  bool stop = options.onNonFinite == NonFinitePolicy::Stop;
  observer.onNonFinite(problem, stop);
  if (!stop)
    return;
  result.errors.push_back(
      "the run met a non-finite loss or gradients (see above)");
  result.stoppedAt = record.step;
  stopped = true;
}

/// Saves the checkpoint after `step` steps. A state that is not finite
/// (training diverged) is not saved over the last good checkpoint under the
/// Stop policy, and is saved with a warning under the others, which train on
/// past non-finite steps on purpose.
void Run::save() {
  const std::string &path = options.checkpointPath;
  // Rank 0 writes what every rank holds: checked, so that a rank that went
  // its own way is an error, not a checkpoint of one rank's state.
  if (llvm::Error error = checkStateReplicated(
          state, "after step " + std::to_string(step - 1))) {
    result.errors.push_back(llvm::toString(std::move(error)));
    stopped = true;
    return;
  }
  llvm::Expected<std::string> nonFinite = findNonFiniteState(state.session);
  if (!nonFinite) {
    result.errors.push_back(llvm::toString(nonFinite.takeError()));
    stopped = true;
    return;
  }
  if (!nonFinite->empty()) {
    bool keep = options.onNonFinite == NonFinitePolicy::Stop;
    std::string problem =
        path + ": the state after step " + std::to_string(step - 1) +
        " is not finite (" + *nonFinite + ")" +
        (!keep ? "; saved as it is"
         : lastSaved
             ? "; not saved: the file keeps the checkpoint after step " +
                   std::to_string(*lastSaved - 1)
             : "; not saved");
    if (!nonFiniteSaveReported) {
      nonFiniteSaveReported = true;
      if (keep)
        result.errors.push_back(problem);
      else
        observer.onNonFinite(problem, /*isError=*/false);
    }
    if (keep)
      return;
  }
  if (state.rank != 0) {
    lastSaved = step;
    return;
  }
  if (llvm::Error error =
          takeStatus(mpt_session_save(state.session, path.c_str(), step))) {
    result.errors.push_back(llvm::toString(std::move(error)));
    stopped = true;
    return;
  }
  lastSaved = step;
}

/// The evaluations after a step: at the steps asked for, and at each epoch's
/// end, which the observer hears of.
llvm::Error Run::evaluateAfterStep(const StepRecord &record) {
  bool epochDone = step % state.stepsPerEpoch == 0 || step == state.totalSteps;
  if (!epochDone && !state.evalSteps.count(step))
    return llvm::Error::success();
  std::optional<double> value;
  if (epochDone ? binding.hasEval && options.evaluate : true) {
    llvm::Expected<double> measured =
        options.data == DataSource::Tokens
            ? evaluateLoss(state.session, binding, state.evalTokens)
            : evaluate(state.session, binding, state.test);
    if (!measured)
      return measured.takeError();
    value = *measured;
    result.evaluations.push_back({step, *value});
  }
  if (!epochDone) {
    observer.onEvaluation({step, *value});
    return llvm::Error::success();
  }
  if (value)
    result.epochEvaluations.push_back(*value);
  observer.onEpochEnd(record, progress(), value);
  return llvm::Error::success();
}

/// Queues what may run next, then records, diagnoses, saves and evaluates
/// step `step`.
llvm::Error Run::trainStep() {
  if (queued == step)
    if (llvm::Error error = queueStep(queued++))
      return error;
  if (queueAhead && queued < state.totalSteps && !stateNeededAfter(queued))
    if (llvm::Error error = queueStep(queued++))
      return error;
  llvm::Expected<StepRecord> record = recordStep();
  if (!record)
    return record.takeError();
  observer.onStep(*record, progress());
  diagnose(*record);
  if (!stopped && options.checkpointEvery > 0 &&
      step % options.checkpointEvery == 0)
    save();
  if (stopped)
    return llvm::Error::success();
  return evaluateAfterStep(*record);
}

void Run::summarize(Clock::time_point start) {
  result.seconds = secondsSince(start);
  int64_t ran = result.steps = step - result.firstStep;
  result.msPerStep = ran ? 1000.0 * result.seconds / ran : 0.0;
  if (ran < 2)
    return;
  result.msPerStepAfterFirst =
      1000.0 * secondsSince(afterFirstStep) / (ran - 1);
  result.msPerStepQueueing = 1000.0 * queueingSeconds / (ran - 1);
  result.msPerStepWaiting = 1000.0 * waitingSeconds / (ran - 1);
}

TrainResult Run::run() {
  auto start = afterFirstStep = Clock::now();
  while (step < state.totalSteps && !stopped) {
    if (llvm::Error error = trainStep()) {
      result.fatalError = llvm::toString(std::move(error));
      return std::move(result);
    }
    // A signal lands between steps: the step it interrupted has finished.
    if (stopBetweenSteps() && !stopped && step < state.totalSteps) {
      result.interrupted = true;
      break;
    }
  }
  // A step queued behind the one that stopped the run has run too.
  while (queued > step)
    if (llvm::Expected<StepRecord> record = recordStep(); !record) {
      result.fatalError = llvm::toString(record.takeError());
      return std::move(result);
    }
  summarize(start);
  // A failed final save must not lose the metrics: the caller writes them.
  if (!options.checkpointPath.empty() && !stopped)
    save();
  else if (llvm::Error error = checkStateReplicated(state, "at the end"))
    result.errors.push_back(llvm::toString(std::move(error)));
  return std::move(result);
}

TrainResult Trainer::run(TrainerObserver &observer) {
  return Run(opts, *state, stopRequested, observer).run();
}
