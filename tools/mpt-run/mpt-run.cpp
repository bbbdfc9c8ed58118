//===- mpt-run.cpp - train an mpt training step -----------------*- C++ -*-===//
//
// The command-line face of the runtime: compiles a training step (FP32, or
// f16/bf16 mixed precision), trains it on Fashion-MNIST or synthetic data
// with a progress bar, evaluates test accuracy, and writes metrics, plots
// and checkpoints. It uses the runtime's C API only.
//
//===----------------------------------------------------------------------===//

#include "mpt/runtime.h"

#include "Data.h"
#include "Safetensors.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <unistd.h>

using namespace mpt::runtime;
namespace cl = llvm::cl;

static cl::OptionCategory category("mpt-run options");
static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<training step .mlir>"),
                                      cl::cat(category));
static cl::opt<std::string>
    precision("precision", cl::desc("fp32, f16 or bf16 (mixed precision)"),
              cl::init("fp32"), cl::cat(category));
static cl::opt<int64_t> epochs("epochs", cl::desc("Epochs to train"),
                               cl::init(1), cl::cat(category));
static cl::opt<int64_t>
    maxSteps("steps", cl::desc("Stop after this many steps in total (0: all)"),
             cl::init(0), cl::cat(category));
static cl::opt<int64_t>
    batchSize("batch",
              cl::desc("Batch size; must be the one the graph is written for"),
              cl::init(0), cl::cat(category));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of initial state and data order"),
                              cl::init(0), cl::cat(category));
static cl::opt<std::string> dataSource("data",
                                       cl::desc("fashion-mnist or synthetic"),
                                       cl::init("fashion-mnist"),
                                       cl::cat(category));
static cl::opt<std::string>
    dataDir("data-dir", cl::desc("Directory of the Fashion-MNIST IDX files"),
            cl::init(kDefaultFashionMnistDirectory), cl::cat(category));
static cl::opt<int64_t> syntheticExamples(
    "synthetic-examples",
    cl::desc("Training examples of the synthetic set (a quarter as many for "
             "testing)"),
    cl::init(4096), cl::cat(category));
static cl::opt<std::string> lossScale("loss-scale",
                                      cl::desc("auto, dynamic, static or none"),
                                      cl::init("auto"), cl::cat(category));
static cl::opt<double> initScale("init-scale", cl::desc("Initial loss scale"),
                                 cl::init(65536.0), cl::cat(category));
static cl::opt<int64_t>
    growthInterval("growth-interval",
                   cl::desc("Finite steps before the loss scale grows"),
                   cl::init(2000), cl::cat(category));
static cl::list<int64_t> injectNonFinite(
    "inject-nonfinite",
    cl::desc("Global step numbers (from 0) whose examples are scaled by inf, "
             "to test skipped steps"),
    cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string> metricsCsv("metrics-csv",
                                       cl::desc("Write per-step metrics (CSV)"),
                                       cl::cat(category));
static cl::opt<std::string>
    metricsJson("metrics-json",
                cl::desc("Write per-step metrics and the summary (JSON)"),
                cl::cat(category));
static cl::opt<std::string>
    plotDir("plot-dir",
            cl::desc("Write loss.png and loss_scale.png here (gnuplot)"),
            cl::cat(category));
static cl::opt<std::string>
    checkpointPath("checkpoint",
                   cl::desc("Save all state here at the end (safetensors)"),
                   cl::cat(category));
static cl::opt<int64_t>
    checkpointEvery("checkpoint-every",
                    cl::desc("Also save every this many steps (0: never)"),
                    cl::init(0), cl::cat(category));
static cl::opt<std::string>
    resumePath("resume", cl::desc("Continue from this checkpoint"),
               cl::cat(category));
static cl::opt<std::string> initStatePath(
    "init-state",
    cl::desc("Initial values for the named F32 tensors of a safetensors file "
             "(e.g. weights exported from PyTorch); other state keeps its "
             "initializer"),
    cl::cat(category));
static cl::opt<bool> cpuKernels(
    "cpu-kernels",
    cl::desc("Call the runtime's BLAS kernels (=false: generic loops)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> noEval("no-eval", cl::desc("Skip test evaluation"),
                            cl::cat(category));
static cl::opt<bool> quiet("quiet", cl::desc("No progress bar"),
                           cl::cat(category));
static cl::opt<std::string>
    dumpPrefix("dump-ir",
               cl::desc("Write <prefix>.mixed.mlir and <prefix>.llvm.mlir"),
               cl::cat(category));

namespace {

[[noreturn]] void fail(const llvm::Twine &message) {
  llvm::errs() << "mpt-run: error: " << message << "\n";
  std::exit(1);
}

void check(mpt_status_t status) {
  if (!status)
    return;
  std::string message = mpt_status_message(status);
  mpt_status_free(status);
  fail(message);
}

struct StepRecord {
  int64_t step, epoch;
  float loss, lossScale;
  bool skipped;
  int64_t gradZero, gradNonFinite;
};

/// Accuracy on every example of `data`; the last partial batch is padded.
double evaluate(mpt_session_t session, const mpt_batch_info_t &info,
                const Dataset &data) {
  int64_t correct = 0;
  std::vector<float> examples(info.batch_size * info.example_size);
  std::vector<float> logits(info.batch_size * info.num_classes);
  for (int64_t start = 0; start < data.count; start += info.batch_size) {
    int64_t n = std::min(info.batch_size, data.count - start);
    std::fill(examples.begin(), examples.end(), 0.0f);
    std::copy(data.images.begin() + start * info.example_size,
              data.images.begin() + (start + n) * info.example_size,
              examples.begin());
    check(mpt_session_predict(session, examples.data(), logits.data()));
    for (int64_t i = 0; i < n; ++i) {
      const float *row = logits.data() + i * info.num_classes;
      int64_t best = std::max_element(row, row + info.num_classes) - row;
      correct += best == data.labels[start + i];
    }
  }
  return data.count ? double(correct) / double(data.count) : 0.0;
}

void drawProgress(int64_t epoch, int64_t done, int64_t total,
                  const StepRecord &last, int64_t skipped) {
  constexpr int kWidth = 30;
  int filled = total ? int(kWidth * done / total) : kWidth;
  llvm::errs() << "\repoch " << epoch + 1 << "/" << epochs << " ["
               << std::string(filled, '#') << std::string(kWidth - filled, '.')
               << "] " << done << "/" << total << " loss "
               << llvm::format("%.4f", last.loss) << " scale "
               << llvm::format("%g", last.lossScale) << " skipped " << skipped
               << "   ";
}

void writePlots(const std::vector<StepRecord> &records) {
  if (std::error_code ec = llvm::sys::fs::create_directories(plotDir))
    fail("cannot create plot directory '" + plotDir + "': " + ec.message());
  llvm::ErrorOr<std::string> gnuplot = llvm::sys::findProgramByName("gnuplot");
  if (!gnuplot)
    fail("--plot-dir needs gnuplot (Debian package gnuplot-nox), which is "
         "not on PATH");
  std::string dataPath = plotDir + "/metrics.dat";
  std::string scriptPath = plotDir + "/plot.gp";
  {
    std::error_code ec;
    llvm::raw_fd_ostream data(dataPath, ec);
    if (ec)
      fail("cannot write '" + dataPath + "': " + ec.message());
    for (const StepRecord &r : records)
      data << r.step << " " << r.loss << " " << r.lossScale << "\n";
    llvm::raw_fd_ostream script(scriptPath, ec);
    if (ec)
      fail("cannot write '" + scriptPath + "': " + ec.message());
    std::string title =
        llvm::sys::path::filename(inputFile).str() + " (" + precision + ")";
    script << "set terminal pngcairo size 900,500 noenhanced\n"
           << "set xlabel 'step'\nset grid\n"
           << "set output '" << plotDir << "/loss.png'\n"
           << "set ylabel 'loss'\n"
           << "plot '" << dataPath << "' using 1:2 with lines title '" << title
           << "'\n"
           << "set output '" << plotDir << "/loss_scale.png'\n"
           << "set ylabel 'loss scale'\nset logscale y 2\n"
           << "plot '" << dataPath << "' using 1:3 with steps title '" << title
           << "'\n";
  }
  std::string message;
  if (llvm::sys::ExecuteAndWait(*gnuplot, {*gnuplot, scriptPath}, std::nullopt,
                                {}, 0, 0, &message) != 0)
    fail("gnuplot failed on '" + scriptPath + "': " + message);
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mpt-run: train an mpt training step on Fashion-MNIST or synthetic "
      "data\n");

  mpt_compile_options_t options;
  mpt_compile_options_init(&options);
  if (precision == "fp32")
    options.precision = MPT_PRECISION_FP32;
  else if (precision == "f16")
    options.precision = MPT_PRECISION_F16;
  else if (precision == "bf16")
    options.precision = MPT_PRECISION_BF16;
  else
    fail("unknown --precision '" + precision + "'; expected fp32, f16 or bf16");
  if (epochs < 1)
    fail("--epochs must be at least 1, got " + llvm::Twine(epochs));
  options.loss_scale = lossScale.c_str();
  options.init_scale = initScale;
  options.growth_interval = growthInterval;
  if (!dumpPrefix.empty())
    options.dump_prefix = dumpPrefix.c_str();
  options.cpu_kernels = cpuKernels;

  mpt_program_t program;
  check(mpt_program_compile(inputFile.c_str(), &options, &program));
  mpt_batch_info_t info;
  check(mpt_program_batch_info(program, &info));
  if (batchSize && batchSize != info.batch_size)
    fail(inputFile + " is written for batch " + llvm::Twine(info.batch_size) +
         ", got --batch " + llvm::Twine(batchSize));

  Dataset train, test;
  std::string error;
  if (dataSource == "fashion-mnist") {
    if (!loadFashionMnist(dataDir, "train", train, error) ||
        !loadFashionMnist(dataDir, "test", test, error))
      fail(error);
    if (info.example_size != train.height * train.width)
      fail(inputFile + " takes examples of " + llvm::Twine(info.example_size) +
           " values; Fashion-MNIST has 784 (28x28): use --data synthetic");
  } else if (dataSource == "synthetic") {
    if (syntheticExamples < info.batch_size)
      fail("--synthetic-examples must be at least one batch (" +
           llvm::Twine(info.batch_size) + ")");
    int64_t classes = info.num_classes ? info.num_classes : 10;
    train = makeSyntheticDataset(syntheticExamples, 1, info.example_size,
                                 classes, seed);
    // Held-out examples of the same classes: the set is seeded by example.
    Dataset all = makeSyntheticDataset(syntheticExamples * 5 / 4, 1,
                                       info.example_size, classes, seed);
    test.count = all.count - train.count;
    test.height = 1;
    test.width = info.example_size;
    test.images.assign(all.images.begin() + train.count * info.example_size,
                       all.images.end());
    test.labels.assign(all.labels.begin() + train.count, all.labels.end());
  } else {
    fail("unknown --data '" + dataSource +
         "'; expected fashion-mnist or synthetic");
  }

  mpt_session_t session;
  check(mpt_session_create(program, seed, &session));
  int64_t stepsPerEpoch = train.count / info.batch_size;
  int64_t totalSteps = stepsPerEpoch * epochs;
  if (maxSteps > 0)
    totalSteps = std::min<int64_t>(totalSteps, maxSteps);
  int64_t step = 0;
  if (!initStatePath.empty()) {
    std::vector<TensorRecord> tensors;
    std::map<std::string, std::string> metadata;
    if (!readSafetensors(initStatePath, tensors, metadata, error))
      fail(error);
    for (const TensorRecord &tensor : tensors) {
      if (tensor.dtype != "F32")
        fail(initStatePath + ": tensor '" + tensor.name + "' is " +
             tensor.dtype + "; --init-state reads F32 tensors");
      std::vector<float> values(tensor.data.size() / sizeof(float));
      std::memcpy(values.data(), tensor.data.data(), tensor.data.size());
      mpt_status_t status = mpt_session_write_state(
          session, tensor.name.c_str(), values.data(), int64_t(values.size()));
      if (status) {
        std::string message = mpt_status_message(status);
        mpt_status_free(status);
        fail(initStatePath + ": " + message);
      }
    }
  }
  if (!resumePath.empty()) {
    check(mpt_session_load(session, resumePath.c_str(), &step));
    if (step < 0 || step > stepsPerEpoch * epochs)
      fail(resumePath + ": position " + llvm::Twine(step) +
           " is outside this run's " + llvm::Twine(stepsPerEpoch * epochs) +
           " steps");
  }
  std::set<int64_t> inject(injectNonFinite.begin(), injectNonFinite.end());

  std::vector<StepRecord> records;
  std::vector<double> accuracies;
  std::vector<float> examples(info.batch_size * info.example_size);
  std::vector<int32_t> labels(info.batch_size);
  int64_t skipped = 0;
  bool tty = !quiet && isatty(STDERR_FILENO);
  auto start = std::chrono::steady_clock::now();
  int64_t firstStep = step;
  std::vector<int64_t> order;
  int64_t orderEpoch = -1;
  while (step < totalSteps) {
    int64_t epoch = step / stepsPerEpoch, batch = step % stepsPerEpoch;
    if (epoch != orderEpoch) {
      order = epochOrder(train.count, seed, epoch);
      orderEpoch = epoch;
    }
    gatherBatch(train, order, batch, info.batch_size, examples.data(),
                labels.data());
    if (inject.count(step))
      for (float &value : examples)
        value *= INFINITY;
    mpt_step_metrics_t metrics;
    check(mpt_session_step(session, examples.data(), labels.data(), &metrics));
    StepRecord record{step,
                      epoch,
                      metrics.loss,
                      metrics.loss_scale,
                      metrics.skipped != 0,
                      metrics.grad_zero,
                      metrics.grad_nonfinite};
    skipped += record.skipped;
    records.push_back(record);
    ++step;
    if (tty && (step % 10 == 0 || batch + 1 == stepsPerEpoch))
      drawProgress(epoch, batch + 1, stepsPerEpoch, record, skipped);
    if (checkpointEvery > 0 && step % checkpointEvery == 0 &&
        !checkpointPath.empty())
      check(mpt_session_save(session, checkpointPath.c_str(), step));
    bool epochDone = step % stepsPerEpoch == 0 || step == totalSteps;
    if (!epochDone)
      continue;
    if (tty)
      llvm::errs() << "\n";
    llvm::outs() << "epoch " << epoch + 1 << ": steps " << step << ", loss "
                 << llvm::format("%.4f", record.loss) << ", loss scale "
                 << llvm::format("%g", record.lossScale) << ", skipped "
                 << skipped;
    if (info.num_classes && !noEval) {
      double accuracy = evaluate(session, info, test);
      accuracies.push_back(accuracy);
      llvm::outs() << ", test accuracy " << llvm::format("%.4f", accuracy);
    }
    llvm::outs() << "\n";
    llvm::outs().flush();
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  int64_t ran = step - firstStep;
  llvm::outs() << "trained " << ran << " steps in "
               << llvm::format("%.2f", seconds) << " s ("
               << llvm::format("%.3f", ran ? 1000.0 * seconds / ran : 0.0)
               << " ms/step), skipped " << skipped << "\n";

  if (!checkpointPath.empty())
    check(mpt_session_save(session, checkpointPath.c_str(), step));
  if (!metricsCsv.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream csv(metricsCsv, ec);
    if (ec)
      fail("cannot write '" + metricsCsv + "': " + ec.message());
    csv << "step,epoch,loss,loss_scale,skipped,grad_zero,grad_nonfinite\n";
    for (const StepRecord &r : records)
      csv << r.step << "," << r.epoch << "," << llvm::format("%.9g", r.loss)
          << "," << llvm::format("%.9g", r.lossScale) << "," << int(r.skipped)
          << "," << r.gradZero << "," << r.gradNonFinite << "\n";
  }
  if (!metricsJson.empty()) {
    llvm::json::Array steps;
    for (const StepRecord &r : records)
      steps.push_back(llvm::json::Object{{"step", r.step},
                                         {"epoch", r.epoch},
                                         {"loss", double(r.loss)},
                                         {"loss_scale", double(r.lossScale)},
                                         {"skipped", r.skipped},
                                         {"grad_zero", r.gradZero},
                                         {"grad_nonfinite", r.gradNonFinite}});
    llvm::json::Array accuracyArray;
    for (double a : accuracies)
      accuracyArray.push_back(a);
    llvm::json::Object summary{
        {"model", inputFile},
        {"precision", precision},
        {"batch", info.batch_size},
        {"steps", ran},
        {"skipped", skipped},
        {"seconds", seconds},
        {"ms_per_step", ran ? 1000.0 * seconds / ran : 0.0},
        {"test_accuracy", std::move(accuracyArray)},
        {"metrics", std::move(steps)}};
    std::error_code ec;
    llvm::raw_fd_ostream json(metricsJson, ec);
    if (ec)
      fail("cannot write '" + metricsJson + "': " + ec.message());
    json << llvm::formatv("{0:2}", llvm::json::Value(std::move(summary)))
         << "\n";
  }
  if (!plotDir.empty())
    writePlots(records);
  mpt_session_free(session);
  mpt_program_free(program);
  return 0;
}
