//===- mpt-run.cpp - train an mpt training step -----------------*- C++ -*-===//
//
// The command-line face of the trainer (mpt/trainer.h): compiles a training
// step (FP32, or f16/bf16 mixed precision), trains it on Fashion-MNIST,
// synthetic data, the user's tensors or token files with a progress bar,
// evaluates test accuracy (validation loss on tokens), and writes metrics,
// plots and checkpoints. SIGINT and SIGTERM end the run after the step in
// progress, with its metrics and checkpoint written; a second one ends it at
// once.
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "mpt/comm.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <csignal>
#include <unistd.h>

using namespace mpt;

namespace {

/// "rank 1: " in a data-parallel run but on rank 0, which speaks for all.
std::string rankPrefix;

/// One write per message, so that ranks sharing a terminal do not
/// interleave their lines.
void printError(const std::string &message) {
  llvm::errs() << ("mpt-run: " + rankPrefix + "error: " + message + "\n");
}

[[noreturn]] void fail(const std::string &message) {
  printError(message);
  std::exit(1);
}

/// --data-parallel: this process's communicator, which must outlive the
/// trainer. Ranks but 0 then write no outputs and print only errors.
struct Communicator {
  mpt_comm_t comm = nullptr;
  ~Communicator() { mpt_comm_free(comm); }
};

void joinLauncherWorld(RunOptions &options, Communicator &communicator) {
  mpt_comm_options_t commOptions;
  mpt_comm_options_init(&commOptions);
  commOptions.device = options.trainer.compile.device;
  commOptions.timeout_seconds = options.commTimeout;
  if (mpt_status_t status = mpt_comm_init(&commOptions, &communicator.comm)) {
    std::string message =
        std::string("--data-parallel: ") + mpt_status_message(status);
    mpt_status_free(status);
    fail(message);
  }
  options.trainer.compile.comm = communicator.comm;
  int rank = mpt_comm_rank(communicator.comm);
  if (rank == 0)
    return;
  rankPrefix = "rank " + std::to_string(rank) + ": ";
  options.quiet = true;
  options.metricsCsv.clear();
  options.metricsJson.clear();
  options.plotDir.clear();
}

/// Progress bar on a terminal, epoch lines and evaluations on stdout.
class ConsoleObserver : public TrainerObserver {
public:
  ConsoleObserver(bool tty, EvalMetric metric)
      : tty(tty), metricName(evalMetricName(metric)) {}

  void onStep(const StepRecord &record,
              const TrainProgress &progress) override {
    if (!tty || ((record.step + 1) % 10 != 0 &&
                 progress.stepInEpoch != progress.stepsPerEpoch))
      return;
    constexpr int kWidth = 30;
    int filled = int(kWidth * progress.stepInEpoch / progress.stepsPerEpoch);
    llvm::errs() << "\repoch " << progress.epoch + 1 << "/" << progress.epochs
                 << " [" << std::string(filled, '#')
                 << std::string(kWidth - filled, '.') << "] "
                 << progress.stepInEpoch << "/" << progress.stepsPerEpoch
                 << " loss " << llvm::format("%.4f", record.loss) << " scale "
                 << llvm::format("%g", record.lossScale) << " skipped "
                 << progress.skipped << "   ";
  }

  void onEvaluation(const Evaluation &evaluation) override {
    endProgressLine();
    llvm::outs() << "step " << evaluation.steps << ": " << metricName << " "
                 << llvm::format("%.4f", evaluation.value) << "\n";
  }

  void onEpochEnd(const StepRecord &last, const TrainProgress &progress,
                  std::optional<double> evaluation) override {
    endProgressLine();
    llvm::outs() << "epoch " << progress.epoch + 1 << ": steps "
                 << last.step + 1 << ", loss "
                 << llvm::format("%.4f", last.loss) << ", loss scale "
                 << llvm::format("%g", last.lossScale) << ", skipped "
                 << progress.skipped;
    if (evaluation)
      llvm::outs() << ", " << metricName << " "
                   << llvm::format("%.4f", *evaluation);
    llvm::outs() << "\n";
    llvm::outs().flush();
  }

  void onNonFinite(const std::string &problem, bool isError) override {
    endProgressLine();
    llvm::errs() << "mpt-run: " << (isError ? "error" : "warning") << ": "
                 << problem << "\n";
  }

private:
  void endProgressLine() {
    if (tty)
      llvm::errs() << "\n";
  }
  bool tty;
  const char *metricName;
};

// The signal handler's view of the run: the trainer while it trains.
std::atomic<Trainer *> signalledTrainer{nullptr};
std::atomic<int> stopSignal{0};
static_assert(std::atomic<Trainer *>::is_always_lock_free &&
              std::atomic<int>::is_always_lock_free);

void stopTraining(int signal) {
  stopSignal.store(signal, std::memory_order_relaxed);
  if (Trainer *trainer = signalledTrainer.load())
    trainer->requestStop();
}

/// SIGINT and SIGTERM stop the run after its step; the handler is reset, so
/// a second signal terminates at once.
void stopOnSignals(Trainer &trainer) {
  signalledTrainer = &trainer;
  struct sigaction action = {};
  action.sa_handler = stopTraining;
  action.sa_flags = SA_RESETHAND | SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM})
    sigaction(signal, &action, nullptr);
}

void printSummary(const Trainer &trainer, const TrainResult &result) {
  if (result.stoppedAt) {
    int64_t last = result.firstStep + result.steps - 1;
    llvm::errs() << "mpt-run: stopped after step " << last;
    if (last != *result.stoppedAt)
      llvm::errs() << " (queued on the device before step " << *result.stoppedAt
                   << "'s metrics were read)";
    llvm::errs() << " (--on-nonfinite=warn or continue trains on)\n";
  }
  llvm::raw_ostream &out = llvm::outs();
  out << "trained " << result.steps << " steps";
  if (trainer.options().compile.device == MPT_DEVICE_CPU) {
    out << " on " << mpt_cpu_threads() << " CPU thread"
        << (mpt_cpu_threads() == 1 ? "" : "s");
    if (llvm::StringRef(mpt_cpu_isa()) != "native")
      out << " (" << mpt_cpu_isa() << " only)";
  }
  out << " in " << llvm::format("%.2f", result.seconds) << " s ("
      << llvm::format("%.3f", result.msPerStep) << " ms/step";
  if (result.steps > 1)
    out << "; " << llvm::format("%.3f", result.msPerStepAfterFirst)
        << " after the first";
  out << "), skipped " << result.skipped;
  if (!result.records.empty() && result.records.back().bytesAllReduced)
    out << ", all-reduced " << result.records.back().bytesAllReduced
        << " bytes per step over "
        << mpt_comm_size(trainer.options().compile.comm) << " ranks";
  out << "\n";
  if (const mpt_memory_bytes_t &peak = result.peakMemory; peak.total)
    out << "peak memory " << peak.total << " bytes: parameters "
        << peak.parameters << ", masters " << peak.masters
        << ", working copies " << peak.working_copies << ", gradients "
        << peak.gradients << ", activations " << peak.activations
        << ", optimizer state " << peak.optimizer_state << ", other state "
        << peak.other_state << ", data " << peak.data << ", workspace "
        << peak.workspace << "\n";
  out.flush();
}

/// Writes the outputs the flags ask for; the problems of those that failed.
std::vector<std::string> writeOutputs(const RunOptions &options,
                                      const Trainer &trainer,
                                      const TrainResult &result) {
  std::vector<std::string> problems;
  auto keep = [&](std::string problem) {
    if (!problem.empty())
      problems.push_back(std::move(problem));
  };
  if (!options.metricsCsv.empty())
    keep(writeMetricsCsv(options.metricsCsv, result));
  if (!options.metricsJson.empty())
    keep(writeMetricsJson(options.metricsJson, trainer, result));
  if (!options.plotDir.empty())
    keep(writePlots(options.plotDir, trainer, result));
  return problems;
}

/// Which signal ended the run, where, and what it kept.
std::string describeInterruption(const RunOptions &options,
                                 const TrainResult &result) {
  int signal = stopSignal.load();
  std::string message =
      (signal == 0 ? std::string("stopped with the rank that was interrupted")
                   : std::string("interrupted by ") +
                         (signal == SIGINT ? "SIGINT" : "SIGTERM")) +
      " after step " + std::to_string(result.firstStep + result.steps - 1);
  std::vector<std::string> kept;
  if (!options.metricsCsv.empty() || !options.metricsJson.empty())
    kept.push_back("the metrics");
  // Rank 0 writes the checkpoint for every rank.
  if (!options.trainer.checkpointPath.empty() && rankPrefix.empty())
    kept.push_back("the checkpoint");
  if (!options.plotDir.empty())
    kept.push_back("the plots");
  for (size_t i = 0; i < kept.size(); ++i)
    message += (i == 0                 ? "; "
                : i + 1 == kept.size() ? " and "
                                       : ", ") +
               kept[i];
  if (kept.empty())
    return message;
  bool singular = kept.size() == 1 && kept[0] == "the checkpoint";
  return message + (singular ? " was written" : " were written");
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  RunOptions options;
  std::string error;
  if (!parseCommandLine(argc, argv, options, error))
    fail(error);
  // Outputs are checked before the run, so that hours of training are not
  // lost to a typo in a path.
  for (const std::string *path : {&options.metricsCsv, &options.metricsJson})
    if (!path->empty())
      if (std::string problem = checkWritable(*path, "metrics");
          !problem.empty())
        fail(problem);
  Communicator communicator;
  if (options.dataParallel)
    joinLauncherWorld(options, communicator);
  std::unique_ptr<Trainer> trainer = Trainer::create(options.trainer, error);
  if (!trainer)
    fail(error);

  // Rank 0 speaks for every rank; the others report only their errors.
  if (rankPrefix.empty())
    llvm::errs() << trainer->compileWarnings();
  ConsoleObserver console(!options.quiet && isatty(STDERR_FILENO),
                          trainer->evalMetric());
  TrainerObserver silent;
  stopOnSignals(*trainer);
  TrainResult result = trainer->run(
      rankPrefix.empty() ? static_cast<TrainerObserver &>(console) : silent);
  signalledTrainer = nullptr;
  if (!result.fatalError.empty())
    fail(result.fatalError);
  if (rankPrefix.empty())
    printSummary(*trainer, result);
  std::vector<std::string> errors = result.errors;
  for (std::string &problem : writeOutputs(options, *trainer, result))
    errors.push_back(std::move(problem));
  if (result.interrupted)
    errors.push_back(describeInterruption(options, result));
  for (const std::string &message : errors)
    printError(message);
  if (communicator.comm) {
    // Rank 0 has written the outputs and the checkpoint once every rank is
    // here: none may end the job (an exit makes the launcher end the others)
    // before that. A rank that does not come fails the barrier at the
    // timeout.
    mpt_status_free(mpt_comm_barrier(communicator.comm));
    // Exits without leaving MPI, which would wait for ranks that may be
    // waiting for this one: the launcher ends them.
    if (!errors.empty()) {
      llvm::outs().flush();
      std::exit(1);
    }
  }
  // A rank that fails must exit non-zero, so that the launcher ends the
  // others rather than leave them waiting in a collective.
  return errors.empty() ? 0 : 1;
}
