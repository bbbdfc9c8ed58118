//===- trainer.h - the training loop over the mpt C API ---------*- C++ -*-===//
//
// A training run of one compiled step: it binds the data sources to the
// inputs the signature declares, queues steps (ahead of their metrics on a
// device that runs queued work), evaluates test accuracy, saves checkpoints
// and diagnoses non-finite training. mpt-run is a command line over it; a
// Python binding or one rank of data-parallel training can own a Trainer just
// as well: it holds no process-global state and reports through an observer.
// Written over the C API (runtime.h) only; no LLVM or MLIR types appear here.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_TRAINER_H
#define MPT_TRAINER_H

#include "mpt/runtime.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mpt {

/// Files: the user's tensors (TrainerOptions::dataFiles); Tokens: token
/// files (TrainerOptions::tokenFile) for a language model.
enum class DataSource { FashionMnist, Synthetic, Files, Tokens };

/// What an evaluation measures: the test accuracy of a classifier, or, on
/// token files, the mean validation loss.
enum class EvalMetric { Accuracy, Loss };

/// What a run does when the loss is not finite, or the loss scale cannot
/// avoid overflow.
enum class NonFinitePolicy {
  Stop,    // say so, stop, and fail the run
  Warn,    // say so once and train on
  Continue // train on silently
};

/// Everything a run is given. The names of mpt-run's flags appear in brackets:
/// the messages name the flags, which a caller of another kind maps to its
/// own.
struct TrainerOptions {
  TrainerOptions() { mpt_compile_options_init(&compile); }

  std::string modelPath;         // the training step's .mlir file
  mpt_compile_options_t compile; // (--precision, --device, --accumulate, ...)
                                 // whose strings are borrowed by create().
                                 // With a communicator (--data-parallel),
                                 // each rank trains on its shard of every
                                 // global batch of batch x ranks examples, in
                                 // the order of one process with that batch;
                                 // losses are the ranks' mean, and
                                 // checkpoints are written by rank 0 alone.
  int64_t epochs = 1;            // (--epochs) at least 1
  int64_t maxSteps = 0;          // (--steps) steps in all; 0: every epoch
  int64_t batchSize = 0;         // (--batch) 0: the graph's
  uint64_t seed = 0;             // of the initial state and the data order
  DataSource data = DataSource::FashionMnist; // (--data)
  std::string dataDir; // Fashion-MNIST's IDX files; empty: the default
  /// DataSource::Files: for each data input of the training step (by name),
  /// a .npy file or a safetensors file (its tensor of that name, or its only
  /// one) whose first dimension counts the samples (--data x=a.npy,y=b.npy);
  /// and the test set of the same form (--eval-data), which a step with an
  /// eval step needs unless `evaluate` is off.
  std::map<std::string, std::string> dataFiles, evalDataFiles;
  /// DataSource::Tokens: flat files of `tokenBytes`-wide tokens
  /// (--tokens, --eval-tokens, --token-bytes). The step takes ids (batch x T,
  /// read by an embedding) and their next tokens as class labels (batch*T or
  /// batch x T); each sequence is a window of T + 1 tokens at an
  /// offset drawn from the seed and the batch's number (rank r's of step s is
  /// s x ranks + r, so N ranks do not draw what one process with N times the
  /// batch would), and an epoch is as many steps as the file has tokens per
  /// global batch (batch x T x ranks). The eval file is evaluated on its
  /// consecutive non-overlapping windows.
  std::string tokenFile, evalTokenFile;
  int tokenBytes = 1;
  int64_t syntheticExamples = 4096;     // training examples, synthetic
  std::vector<int64_t> injectNonFinite; // steps whose examples are inf
  int injectNonFiniteRank = -1;         // on this rank only; -1: every rank
  std::string checkpointPath;           // saved at the end, if set
  int64_t checkpointEvery = 0;          // and every this many steps
  std::string resumePath;               // a checkpoint to continue from
  std::string initStatePath;   // F32 tensors that overwrite initial state
  bool evaluate = true;        // (--no-eval) at the end of each epoch
  std::vector<int64_t> evalAt; // also after these numbers of steps
  NonFinitePolicy onNonFinite = NonFinitePolicy::Stop;
};

/// One training step's metrics, as the run recorded them.
struct StepRecord {
  int64_t step, epoch;
  float loss, lossScale;
  bool skipped;
  int64_t gradZero, gradNonFinite;
  int64_t bytesAllReduced; // by this rank: 0 in one process
  int64_t peakMemoryBytes; // the step's memory at its highest
  /// The step's other scalar metrics (grad_norm, the step's own), one per
  /// TrainResult::metricNames.
  std::vector<double> metrics;
};

struct Evaluation {
  int64_t steps; // trained before it
  double value;  // of Trainer::evalMetric()
};

/// Where the run stands after a step.
struct TrainProgress {
  int64_t epoch;       // from 0
  int64_t epochs;      // of the run
  int64_t stepInEpoch; // steps done of this epoch
  int64_t stepsPerEpoch;
  int64_t skipped; // steps skipped so far
};

/// What a run reports while it trains. Every callback runs on the thread that
/// called Trainer::run.
class TrainerObserver {
public:
  virtual ~TrainerObserver() = default;
  /// After each step's metrics are read.
  virtual void onStep(const StepRecord &, const TrainProgress &) {}
  /// After an evaluation that is not at an epoch's end (evalAt).
  virtual void onEvaluation(const Evaluation &) {}
  /// After each epoch, with its last step and its evaluation (of
  /// Trainer::evalMetric()) if it was evaluated.
  virtual void onEpochEnd(const StepRecord &, const TrainProgress &,
                          std::optional<double>) {}
  /// A problem with what to try: the first non-finite loss or gradients (an
  /// error when the policy stops the run, a warning otherwise), or a
  /// checkpoint saved with non-finite state under Warn or Continue (a
  /// warning). Each is said once per run.
  virtual void onNonFinite(const std::string &, bool /*isError*/) {}
};

/// What a run did.
struct TrainResult {
  std::vector<StepRecord> records;
  /// The names of StepRecord::metrics.
  std::vector<std::string> metricNames;
  std::vector<double> epochEvaluations; // at each epoch's end
  std::vector<Evaluation> evaluations;  // every one, epoch ends included
  int64_t firstStep = 0;                // where the run started (a resume)
  int64_t steps = 0;                    // trained by this run
  int64_t skipped = 0;
  double seconds = 0;
  double msPerStep = 0;
  double msPerStepAfterFirst = 0; // the first also pays one-time costs
  double msPerStepQueueing = 0;   // host time preparing and queueing a step
  double msPerStepWaiting = 0;    // host time waiting for its metrics
  /// The memory of the step that needed the most, by what it held.
  mpt_memory_bytes_t peakMemory{};
  /// Set when the policy stopped the run at this step's non-finite metrics.
  std::optional<int64_t> stoppedAt;
  /// The run ended early because requestStop was called.
  bool interrupted = false;
  /// A failure that ended the run before its outputs (a step that could not
  /// run); nothing was saved.
  std::string fatalError;
  /// Problems that fail the run once its outputs are written (a checkpoint
  /// not saved, a non-finite loss under the Stop policy).
  std::vector<std::string> errors;
};

class Trainer {
public:
  /// Compiles the step, binds its data inputs, loads the data, and creates a
  /// session with its initial, resumed or given state. On failure returns
  /// null with `error` naming the problem and the input that caused it.
  static std::unique_ptr<Trainer> create(const TrainerOptions &options,
                                         std::string &error);
  ~Trainer();
  Trainer(const Trainer &) = delete;
  Trainer &operator=(const Trainer &) = delete;

  /// Trains to the end of the last epoch (or options.maxSteps) and saves the
  /// final checkpoint. Call once.
  TrainResult run(TrainerObserver &observer);

  /// Asks a running run to stop after the step in progress: it then saves
  /// the checkpoint as at its end and returns with `interrupted`. Safe to
  /// call from a signal handler or another thread.
  void requestStop() { stopRequested.store(true, std::memory_order_relaxed); }

  const TrainerOptions &options() const { return opts; }
  /// The batch size the graph is written for.
  int64_t batchSize() const;
  int64_t stepsPerEpoch() const;
  int64_t totalSteps() const;
  bool hasEval() const;
  EvalMetric evalMetric() const {
    return opts.data == DataSource::Tokens ? EvalMetric::Loss
                                           : EvalMetric::Accuracy;
  }
  /// Borrowed: valid while the trainer lives.
  mpt_session_t session() const;
  /// The compiler's warnings on the model, one per line; "" when none.
  /// Borrowed: valid while the trainer lives.
  const char *compileWarnings() const;

  struct State;

private:
  Trainer(const TrainerOptions &options, std::unique_ptr<State> state);
  TrainerOptions opts;
  std::unique_ptr<State> state;
  std::atomic<bool> stopRequested{false};
  static_assert(std::atomic<bool>::is_always_lock_free,
                "requestStop must be safe in a signal handler");
};

/// The name --precision takes: "fp32", "f16" or "bf16".
const char *precisionName(mpt_precision_t precision);

/// "test accuracy" or "validation loss".
const char *evalMetricName(EvalMetric metric);

//===-- Outputs -----------------------------------------------------------===//
// Each returns an error naming the file, or "" on success; none leaves a
// partial file behind.

/// An error unless `path` can be written: its directory exists and is
/// writable, and the path is not a directory. `what` names the output.
std::string checkWritable(const std::string &path, const std::string &what);

/// Per-step metrics, one row per step:
/// step,epoch,loss,loss_scale,skipped,grad_zero,grad_nonfinite, then the
/// step's other scalar metrics (TrainResult::metricNames)
std::string writeMetricsCsv(const std::string &path, const TrainResult &result);

/// The per-step metrics, every evaluation and the run's summary (model,
/// precision, batch, steps, timings).
std::string writeMetricsJson(const std::string &path, const Trainer &trainer,
                             const TrainResult &result);

/// loss.png and loss_scale.png (skipped steps marked) and, when the run
/// evaluated, accuracy.png (test accuracy or validation loss per epoch), drawn
/// by gnuplot in `directory` with their data (metrics.dat, accuracy.dat) and
/// script (plot.gp).
std::string writePlots(const std::string &directory, const Trainer &trainer,
                       const TrainResult &result);

} // namespace mpt

#endif // MPT_TRAINER_H
