//===- TrainerState.h - what a Trainer holds --------------------*- C++ -*-===//
//
// Shared by the trainer's units: its session, data and run plan, and the
// conversion of C API statuses to errors.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_TRAINER_TRAINERSTATE_H
#define MPT_TRAINER_TRAINERSTATE_H

#include "mpt/trainer.h"

#include "mpt/Contract/Contract.h"
#include "mpt/data.h"

#include "llvm/Support/Error.h"

#include <set>

namespace mpt {

/// The step's data inputs as the data sources fill them: a batch of examples
/// (the float input, or the token ids an embedding reads) and their class
/// labels (the integer input a loss reads: with token ids, one per token).
struct DataBinding {
  std::string examples, labels, evalExamples;
  std::string examplesShape;        // as describe() gives it
  std::vector<int64_t> exampleDims; // one example's: the input's but the batch
  int64_t batchSize = 0, exampleSize = 0, numClasses = 0;
  /// Token ids (batch x T): T, and the embedding's rows; 0 for examples.
  int64_t tokenLength = 0, tableRows = 0;
  /// Labels per example: T for token ids, 1 otherwise.
  int64_t labelsPerExample() const { return tokenLength ? tokenLength : 1; }
  /// A label the loss ignores (its ignore_index), which the labels may hold.
  std::optional<int64_t> ignoredLabel;
  /// The eval step's batch: the training step's over its micro-batches
  /// (mpt_compile_options_t::micro_batches), which the step is written for.
  int64_t evalBatchSize = 0;
  bool hasEval = false;
  /// The examples input's type: f32, the data's own, or the f16 or bf16 a
  /// step lowered for a GPU takes (rounded as the batch is gathered).
  mpt_dtype_t examplesType = MPT_DTYPE_F32;
};

struct Trainer::State {
  ~State() {
    mpt_session_free(session);
    mpt_program_free(program);
  }
  mpt_program_t program = nullptr;
  mpt_session_t session = nullptr;
  DataBinding binding;
  /// The training step's scalar metrics beyond mpt_step_metrics_t.
  std::vector<std::string> metricNames;
  runtime::Dataset train, test;
  runtime::TokenFile trainTokens, evalTokens;
  int64_t stepsPerEpoch = 0, totalSteps = 0;
  /// The position the run starts at: 0, or the resumed checkpoint's.
  int64_t firstStep = 0;
  bool staticLossScale = false;
  std::set<int64_t> inject, evalSteps;
  /// What of the state loaded by --init-state or --resume is not finite, and
  /// from which file; empty when it is finite.
  std::string nonFiniteLoaded;
  /// Data parallelism (the compile options' comm): this process's rank of
  /// `ranks`, which each take their shard of every global batch.
  mpt_comm_t comm = nullptr;
  int rank = 0, ranks = 1;
};

/// The status's message as an error, releasing it; success for null.
llvm::Error takeStatus(mpt_status_t status);

/// "F32[784x3]".
std::string describe(const mpt_tensor_info_t &info);

/// Takes this process's place among the ranks of `comm` (null: one
/// process).
void joinRanks(Trainer::State &state, mpt_comm_t comm);

/// What the ranks agree on after each step.
struct RanksAfterStep {
  float meanLoss; // of the ranks' losses
  bool stop;      // some rank was asked to stop (a signal reaches one rank)
};
/// One collective after each step; `loss` and `stop` as they are in one
/// process.
llvm::Expected<RanksAfterStep> agreeAfterStep(const Trainer::State &state,
                                              float loss, bool stop);

/// Fails, on every rank, unless every rank plans the same run: the same
/// steps, checkpoints and evaluations, so the same collectives.
llvm::Error checkSamePlan(const Trainer::State &state,
                          const TrainerOptions &options);

/// Fails, on every rank, unless every rank holds the same parameters
/// (compared as a hash); `when` says when, for the message ("after step
/// 10").
llvm::Error checkStateReplicated(const Trainer::State &state,
                                 const std::string &when);

/// The first float state element that is not finite, as "'name' holds nan at
/// index i"; empty when every one is.
llvm::Expected<std::string> findNonFiniteState(mpt_session_t session);

} // namespace mpt

#endif // MPT_TRAINER_TRAINERSTATE_H
