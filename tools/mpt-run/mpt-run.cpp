//===- mpt-run.cpp - train an mpt training step -----------------*- C++ -*-===//
//
// The command-line face of the runtime: compiles a training step (FP32, or
// f16/bf16 mixed precision), trains it on Fashion-MNIST or synthetic data
// with a progress bar, evaluates test accuracy, and writes metrics, plots
// and checkpoints. It uses the runtime's C API only.
//
//===----------------------------------------------------------------------===//

#include "mpt/runtime.h"

#include "mpt/Contract/Contract.h"

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

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
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
static cl::opt<std::string>
    device("device",
           cl::desc("cpu, or cuda (device 0 of the NVIDIA driver; state stays "
                    "on the GPU)"),
           cl::init("cpu"), cl::cat(category));
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
/// The C API's defaults, which the options below start from.
static const mpt_compile_options_t kCompileDefaults = [] {
  mpt_compile_options_t defaults;
  mpt_compile_options_init(&defaults);
  return defaults;
}();
static cl::opt<mpt_loss_scale_e> lossScale(
    "loss-scale", cl::desc("How to scale the loss"),
    cl::values(clEnumValN(MPT_LOSS_SCALE_AUTO, "auto",
                          "dynamic for f16, none otherwise"),
               clEnumValN(MPT_LOSS_SCALE_DYNAMIC, "dynamic",
                          "back off on overflow, grow when stable"),
               clEnumValN(MPT_LOSS_SCALE_STATIC, "static", "a fixed scale"),
               clEnumValN(MPT_LOSS_SCALE_NONE, "none", "no loss scaling")),
    cl::init(mpt_loss_scale_e(kCompileDefaults.loss_scale)), cl::cat(category));
static cl::opt<double> initScale("init-scale", cl::desc("Initial loss scale"),
                                 cl::init(kCompileDefaults.init_scale),
                                 cl::cat(category));
static cl::opt<int64_t> growthInterval(
    "growth-interval", cl::desc("Finite steps before the loss scale grows"),
    cl::init(kCompileDefaults.growth_interval), cl::cat(category));
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
    cl::init(kCompileDefaults.cpu_kernels != 0), cl::cat(category));
static cl::opt<int64_t> parallelMinIterations(
    "parallel-min-iterations",
    cl::desc("CPU: ops of at least this many loop iterations run over "
             "mpt_cpu_threads() threads (0: every op on one thread)"),
    cl::init(kCompileDefaults.parallel_min_iterations), cl::cat(category));
static cl::opt<cl::boolOrDefault> persistentWorkingCopies(
    "persistent-working-copies",
    cl::desc("Mixed precision: the update rounds each master to its f16/bf16 "
             "copy for the next step (=false: each step rounds them at its "
             "start; default: on for cuda, off for cpu). Same results"),
    cl::cat(category));
static cl::opt<bool> noEval("no-eval", cl::desc("Skip test evaluation"),
                            cl::cat(category));
static cl::list<int64_t>
    evalAt("eval-at",
           cl::desc("Also evaluate test accuracy after these numbers of steps "
                    "(the end of each epoch always is)"),
           cl::CommaSeparated, cl::cat(category));
static cl::opt<bool> quiet("quiet", cl::desc("No progress bar"),
                           cl::cat(category));
static cl::opt<std::string> onNonFinite(
    "on-nonfinite",
    cl::desc("When the loss is not finite, or the loss scale cannot avoid "
             "overflow: stop (exit 1, the default), warn (say so once and "
             "train on) or continue"),
    cl::init("stop"), cl::cat(category));
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

/// The step's data inputs as mpt-run's data sources fill them: a batch of
/// examples (the float input) and their class labels (the integer input a
/// loss reads).
struct DataBinding {
  std::string examples, labels, evalExamples;
  int64_t batchSize = 0, exampleSize = 0, numClasses = 0;
  bool hasEval = false;
  /// The examples input's type: f32, the data's own, or the f16 or bf16 a
  /// step lowered for a GPU takes (rounded as the batch is gathered).
  mpt_dtype_t examplesType = MPT_DTYPE_F32;
};

std::string describe(const mpt_tensor_info_t &info) {
  std::string text = mpt_dtype_name(info.dtype);
  text += "[";
  for (int64_t d = 0; d < info.rank; ++d)
    text += (d ? "x" : "") + std::to_string(info.shape[d]);
  return text + "]";
}

/// Maps the data inputs the signature declares to the data source.
DataBinding bindDataInputs(mpt_program_t program) {
  DataBinding binding;
  std::string examplesShape;
  for (int64_t i = 0, e = mpt_program_num_inputs(program, MPT_FUNCTION_TRAIN);
       i < e; ++i) {
    mpt_tensor_info_t info;
    check(mpt_program_input_info(program, MPT_FUNCTION_TRAIN, i, &info));
    bool isFloat = info.dtype == MPT_DTYPE_F32 || info.dtype == MPT_DTYPE_F16 ||
                   info.dtype == MPT_DTYPE_BF16;
    if (isFloat && binding.examples.empty() && info.rank >= 1) {
      binding.examples = info.name;
      binding.examplesType = info.dtype;
      binding.batchSize = info.shape[0];
      binding.exampleSize = info.num_elements / info.shape[0];
      examplesShape = describe(info);
    } else if (info.num_classes > 0 && binding.labels.empty() &&
               info.rank == 1) {
      binding.labels = info.name;
      binding.numClasses = info.num_classes;
      if (binding.batchSize && info.shape[0] != binding.batchSize)
        fail(inputFile + ": labels '" + info.name + "' hold " +
             llvm::Twine(info.shape[0]) + " values for a batch of " +
             llvm::Twine(binding.batchSize));
      binding.batchSize = info.shape[0];
    } else {
      fail(inputFile +
           ": mpt-run feeds a training step one float input (a "
           "batch of examples) and one vector of class labels "
           "that a loss reads; input '" +
           info.name + "' is " + describe(info) +
           (info.num_classes ? " (labels)" : "") + " and has no such role");
    }
  }
  if (binding.examples.empty() || binding.labels.empty())
    fail(inputFile +
         ": mpt-run needs a float input (examples) and a vector "
         "of class labels read by a loss; the training step has " +
         (binding.examples.empty() ? "no examples" : "no labels"));
  binding.hasEval = mpt_program_has_eval(program);
  if (!binding.hasEval)
    return binding;
  for (int64_t i = 0, e = mpt_program_num_inputs(program, MPT_FUNCTION_EVAL);
       i < e; ++i) {
    mpt_tensor_info_t info;
    check(mpt_program_input_info(program, MPT_FUNCTION_EVAL, i, &info));
    if (!binding.evalExamples.empty() ||
        info.num_elements != binding.batchSize * binding.exampleSize)
      fail(inputFile +
           ": the eval step's inputs must be one batch of "
           "examples like the training step's (" +
           examplesShape + "); input '" + info.name + "' is " + describe(info));
    binding.evalExamples = info.name;
  }
  mpt_tensor_info_t logits;
  if (binding.evalExamples.empty() ||
      mpt_program_num_outputs(program, MPT_FUNCTION_EVAL) != 1)
    fail(inputFile + ": the eval step must take a batch of examples and "
                     "return the logits");
  check(mpt_program_output_info(program, MPT_FUNCTION_EVAL, 0, &logits));
  if (logits.rank != 2 || logits.shape[0] != binding.batchSize ||
      logits.shape[1] != binding.numClasses)
    fail(inputFile + ": the eval step returns " + describe(logits) +
         "; mpt-run expects logits of batch x classes (" +
         llvm::Twine(binding.batchSize) + "x" +
         llvm::Twine(binding.numClasses) + ")");
  return binding;
}

/// Accuracy on every example of `data`; the last partial batch is padded.
double evaluate(mpt_session_t session, const DataBinding &binding,
                const Dataset &data) {
  int64_t correct = 0;
  int64_t batch = binding.batchSize, size = binding.exampleSize;
  std::vector<float> examples(batch * size);
  std::vector<float> logits(batch * binding.numClasses);
  for (int64_t start = 0; start < data.count; start += batch) {
    int64_t n = std::min(batch, data.count - start);
    std::fill(examples.begin(), examples.end(), 0.0f);
    std::copy(data.images.begin() + start * size,
              data.images.begin() + (start + n) * size, examples.begin());
    check(mpt_session_bind_input(
        session, MPT_FUNCTION_EVAL, binding.evalExamples.c_str(), MPT_DTYPE_F32,
        examples.data(), examples.size() * sizeof(float)));
    check(mpt_session_eval(session));
    check(mpt_session_read_output(
        session, MPT_FUNCTION_EVAL, mpt::contract::name::Logits, MPT_DTYPE_F32,
        logits.data(), logits.size() * sizeof(float)));
    for (int64_t i = 0; i < n; ++i) {
      const float *row = logits.data() + i * binding.numClasses;
      int64_t best = std::max_element(row, row + binding.numClasses) - row;
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

/// Fails unless `path` can be written: its directory exists and is writable
/// and the path is not a directory.
void checkWritable(const std::string &path, const char *what) {
  llvm::StringRef parent = llvm::sys::path::parent_path(path);
  std::string directory = parent.empty() ? "." : parent.str();
  if (!llvm::sys::fs::is_directory(directory))
    fail("cannot write " + llvm::Twine(what) + " '" + path + "': directory '" +
         directory + "' does not exist");
  if (llvm::sys::fs::is_directory(path))
    fail("cannot write " + llvm::Twine(what) + " '" + path +
         "': it is a directory");
  if (access(directory.c_str(), W_OK) != 0)
    fail("cannot write " + llvm::Twine(what) + " '" + path + "': directory '" +
         directory + "' is not writable: " + std::strerror(errno));
}

/// Writes `text` to `path`; on failure removes what was written of a regular
/// file and returns an error naming the file.
std::string writeFile(const std::string &path, const std::string &text) {
  std::error_code ec;
  {
    llvm::raw_fd_ostream out(path, ec);
    if (ec)
      return "cannot write '" + path + "': " + ec.message();
    out << text;
    out.close();
    ec = out.error();
    out.clear_error();
  }
  if (!ec)
    return {};
  if (llvm::sys::fs::is_regular_file(path))
    llvm::sys::fs::remove(path);
  return "cannot write '" + path + "': " + ec.message();
}

/// Overwrites state with the F32 tensors of a safetensors file, which must
/// have the shapes of the state they replace.
void loadInitialState(mpt_session_t session, const std::string &path) {
  std::vector<TensorRecord> tensors;
  std::map<std::string, std::string> metadata;
  std::string error;
  if (!readSafetensors(path, tensors, metadata, error))
    fail(error);
  std::map<std::string, mpt_tensor_info_t> state;
  for (int64_t i = 0, e = mpt_session_num_state(session); i < e; ++i) {
    mpt_tensor_info_t info;
    check(mpt_session_state_info(session, i, &info));
    state[info.name] = info;
  }
  for (const TensorRecord &tensor : tensors) {
    auto it = state.find(tensor.name);
    if (it == state.end())
      fail(path + ": no parameter or state named '" + tensor.name + "'");
    const mpt_tensor_info_t &info = it->second;
    std::string shape = tensor.dtype + "[";
    for (size_t d = 0; d < tensor.shape.size(); ++d)
      shape += (d ? "x" : "") + std::to_string(tensor.shape[d]);
    shape += "]";
    if (tensor.shape !=
        std::vector<int64_t>(info.shape, info.shape + info.rank))
      fail(path + ": tensor '" + tensor.name + "' is " + shape +
           ", but the state it initializes is " + describe(info) +
           " (a transposed or flattened tensor?)");
    if (tensor.dtype != mpt::contract::dtype::F32)
      fail(path + ": tensor '" + tensor.name + "' is " + shape +
           "; --init-state reads F32 tensors");
    std::vector<float> values(tensor.data.size() / sizeof(float));
    std::memcpy(values.data(), tensor.data.data(), tensor.data.size());
    mpt_status_t status = mpt_session_write_state(
        session, tensor.name.c_str(), values.data(), int64_t(values.size()));
    if (status) {
      std::string message = mpt_status_message(status);
      mpt_status_free(status);
      fail(path + ": " + message);
    }
  }
}

/// What went wrong when a step's loss or gradients are not finite, with what
/// to try; empty when the step is healthy. A skipped step at a scale above 1
/// is loss scaling doing its job.
std::string diagnoseNonFinite(const StepRecord &record) {
  std::string step = "step " + std::to_string(record.step) + ": ";
  std::string loss = llvm::formatv("{0}", record.loss).str();
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
           precision.getValue() +
           "), which loss scaling cannot fix; the step was skipped. Try a "
           "smaller learning rate, --precision bf16 or --precision fp32.";
  // A static scale does not back off: the overflow that skipped this step
  // will skip the next ones too.
  if (record.skipped && lossScale == MPT_LOSS_SCALE_STATIC) {
    std::string scale;
    llvm::raw_string_ostream(scale) << llvm::format("%g", record.lossScale);
    return step + "the gradients are not finite at the static loss scale " +
           scale +
           ", which does not back off; the step was skipped and later ones "
           "will be too. Try a smaller --init-scale or --loss-scale dynamic.";
  }
  if (record.skipped && record.lossScale <= 1.0f)
    return step + "the gradients are not finite even at loss scale " +
           llvm::formatv("{0}", record.lossScale).str() +
           ", the lowest; the step was skipped and later ones will be too. "
           "Try a smaller learning rate, --precision bf16 or --precision "
           "fp32.";
  return {};
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
  if (device == "cpu")
    options.device = MPT_DEVICE_CPU;
  else if (device == "cuda")
    options.device = MPT_DEVICE_CUDA;
  else
    fail("unknown --device '" + device + "'; expected cpu or cuda");
  if (epochs < 1)
    fail("--epochs must be at least 1, got " + llvm::Twine(epochs));
  options.loss_scale = lossScale;
  options.init_scale = initScale;
  options.growth_interval = growthInterval;
  if (!dumpPrefix.empty())
    options.dump_prefix = dumpPrefix.c_str();
  options.cpu_kernels = cpuKernels;
  options.parallel_min_iterations = parallelMinIterations;
  if (persistentWorkingCopies != cl::BOU_UNSET)
    options.persistent_working_copies =
        persistentWorkingCopies == cl::BOU_TRUE ? 1 : 0;

  if (checkpointEvery > 0 && checkpointPath.empty())
    fail("--checkpoint-every " + llvm::Twine(checkpointEvery) +
         " needs --checkpoint <file> to say where to save");
  if (checkpointEvery < 0)
    fail("--checkpoint-every must be 0 or more, got " +
         llvm::Twine(checkpointEvery));
  enum class NonFinitePolicy { Stop, Warn, Continue };
  NonFinitePolicy policy = NonFinitePolicy::Stop;
  if (onNonFinite == "warn")
    policy = NonFinitePolicy::Warn;
  else if (onNonFinite == "continue")
    policy = NonFinitePolicy::Continue;
  else if (onNonFinite != "stop")
    fail("unknown --on-nonfinite '" + onNonFinite +
         "'; expected stop, warn or continue");
  // Outputs are checked before the run, so that hours of training are not
  // lost to a typo in a path.
  if (!checkpointPath.empty())
    checkWritable(checkpointPath, "--checkpoint");
  for (const std::string *path :
       {&metricsCsv.getValue(), &metricsJson.getValue()})
    if (!path->empty())
      checkWritable(*path, "metrics");

  mpt_program_t program;
  check(mpt_program_compile(inputFile.c_str(), &options, &program));
  DataBinding binding = bindDataInputs(program);
  if (batchSize && batchSize != binding.batchSize)
    fail(inputFile + " is written for batch " + llvm::Twine(binding.batchSize) +
         ", got --batch " + llvm::Twine(batchSize));

  Dataset train, test;
  std::string error;
  if (dataSource == "fashion-mnist") {
    if (!loadFashionMnist(dataDir, "train", train, error) ||
        !loadFashionMnist(dataDir, "test", test, error))
      fail(error);
    if (binding.exampleSize != train.height * train.width)
      fail(inputFile + " takes examples of " +
           llvm::Twine(binding.exampleSize) +
           " values; Fashion-MNIST has 784 (28x28): use --data synthetic");
  } else if (dataSource == "synthetic") {
    if (syntheticExamples < binding.batchSize)
      fail("--synthetic-examples must be at least one batch (" +
           llvm::Twine(binding.batchSize) + ")");
    // The training set, and the held-out quarter made with it, live in memory
    // twice while the sets are built.
    double bytes = double(syntheticExamples) * 2.25 *
                   double(binding.exampleSize) * sizeof(float);
    double memory = double(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
    if (bytes > memory / 2)
      fail("--synthetic-examples " + llvm::Twine(syntheticExamples) + " of " +
           llvm::Twine(binding.exampleSize) + " values needs " +
           llvm::Twine(int64_t(bytes / (1 << 20))) +
           " MiB, more than half of this machine's " +
           llvm::Twine(int64_t(memory / (1 << 20))) + " MiB; at most " +
           llvm::Twine(int64_t(memory / 2 /
                               (2.25 * binding.exampleSize * sizeof(float)))) +
           " fit");
    train = makeSyntheticDataset(syntheticExamples, 1, binding.exampleSize,
                                 binding.numClasses, seed);
    // Held-out examples of the same classes: the set is seeded by example.
    Dataset all =
        makeSyntheticDataset(syntheticExamples * 5 / 4, 1, binding.exampleSize,
                             binding.numClasses, seed);
    test.count = all.count - train.count;
    test.height = 1;
    test.width = binding.exampleSize;
    test.images.assign(all.images.begin() + train.count * binding.exampleSize,
                       all.images.end());
    test.labels.assign(all.labels.begin() + train.count, all.labels.end());
  } else {
    fail("unknown --data '" + dataSource +
         "'; expected fashion-mnist or synthetic");
  }

  mpt_session_t session;
  check(mpt_session_create(program, seed, &session));
  int64_t stepsPerEpoch = train.count / binding.batchSize;
  int64_t totalSteps = stepsPerEpoch * epochs;
  if (maxSteps > 0)
    totalSteps = std::min<int64_t>(totalSteps, maxSteps);
  int64_t step = 0;
  if (!initStatePath.empty())
    loadInitialState(session, initStatePath);
  if (!resumePath.empty()) {
    check(mpt_session_load(session, resumePath.c_str(), &step));
    if (step > stepsPerEpoch * epochs)
      fail(resumePath + ": position " + llvm::Twine(step) +
           " is outside this run's " + llvm::Twine(stepsPerEpoch * epochs) +
           " steps");
  }
  std::set<int64_t> inject(injectNonFinite.begin(), injectNonFinite.end());
  std::set<int64_t> evalSteps(evalAt.begin(), evalAt.end());
  if (!evalSteps.empty() && noEval)
    fail("--eval-at asks for evaluations that --no-eval turns off");
  if (!evalSteps.empty() && !binding.hasEval)
    fail("--eval-at: " + inputFile +
         " has no eval step (mpt.eval_step) to evaluate with");
  for (int64_t at : evalSteps)
    if (at < 1 || at > totalSteps)
      fail("--eval-at " + llvm::Twine(at) + " is outside this run's steps 1-" +
           llvm::Twine(totalSteps));

  std::vector<StepRecord> records;
  std::vector<double> accuracies;
  // Every evaluation, by the number of steps trained before it.
  std::vector<std::pair<int64_t, double>> evaluations;
  size_t batchElements = size_t(binding.batchSize * binding.exampleSize);
  // Host memory for an f32 batch that an f16 or bf16 input takes with an
  // injected overflow: multiplied before it is rounded, as on the device.
  // Other batches are gathered into the session's staging memory.
  bool examplesAreF32 = binding.examplesType == MPT_DTYPE_F32;
  std::vector<float> examples(examplesAreF32 ? 0 : batchElements);
  std::vector<int32_t> labels(binding.batchSize);
  int64_t skipped = 0;
  bool tty = !quiet && isatty(STDERR_FILENO);
  auto start = std::chrono::steady_clock::now();
  // The first step also pays one-time costs (GEMM plans, device buffers).
  auto afterFirstStep = start;
  int64_t firstStep = step;
  std::vector<int64_t> order;
  int64_t orderEpoch = -1;
  // Problems that end the run with a non-zero exit once metrics are written.
  std::vector<std::string> errors;
  bool nonFiniteReported = false, stopped = false;
  // Host time per step after the first: preparing and queueing it, and
  // waiting for its metrics (on a GPU, the device's time the host did not
  // hide).
  double queueingSeconds = 0, waitingSeconds = 0;
  auto secondsSince = [](std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         since)
        .count();
  };
  // Binds step `s`'s batch and queues the step.
  auto queueStep = [&](int64_t s) {
    auto queueStart = std::chrono::steady_clock::now();
    int64_t epoch = s / stepsPerEpoch, batch = s % stepsPerEpoch;
    if (epoch != orderEpoch) {
      order = epochOrder(train.count, seed, epoch);
      orderEpoch = epoch;
    }
    // A batch of tens of MB costs milliseconds per host copy: gathered into
    // the session's staging memory, in the input's type, it is copied once.
    mpt_status_t status = nullptr;
    bool injected = inject.count(s) != 0;
    if (examplesAreF32 || !injected) {
      void *staging = nullptr;
      size_t batchBytes = 0;
      status = mpt_session_input_staging(session, MPT_FUNCTION_TRAIN,
                                         binding.examples.c_str(), &staging,
                                         &batchBytes);
      if (!status && examplesAreF32) {
        auto *batchExamples = static_cast<float *>(staging);
        gatherBatch(train, order, batch, binding.batchSize, batchExamples,
                    labels.data());
        if (injected)
          for (size_t i = 0; i < batchElements; ++i)
            batchExamples[i] *= INFINITY;
      } else if (!status) {
        gatherBatch(train, order, batch, binding.batchSize,
                    static_cast<uint16_t *>(staging),
                    binding.examplesType == MPT_DTYPE_BF16 ? HalfKind::BF16
                                                           : HalfKind::F16,
                    labels.data());
      }
      if (!status)
        status = mpt_session_bind_input(
            session, MPT_FUNCTION_TRAIN, binding.examples.c_str(),
            binding.examplesType, staging, batchBytes);
    } else {
      gatherBatch(train, order, batch, binding.batchSize, examples.data(),
                  labels.data());
      for (float &value : examples)
        value *= INFINITY;
      status = mpt_session_bind_input(
          session, MPT_FUNCTION_TRAIN, binding.examples.c_str(), MPT_DTYPE_F32,
          examples.data(), batchElements * sizeof(float));
    }
    if (!status)
      status = mpt_session_bind_input(
          session, MPT_FUNCTION_TRAIN, binding.labels.c_str(), MPT_DTYPE_I32,
          labels.data(), labels.size() * sizeof(int32_t));
    if (!status)
      status = mpt_session_step_async(session);
    if (status) {
      std::string message = mpt_status_message(status);
      mpt_status_free(status);
      fail("step " + llvm::Twine(s) + " (" + dataSource + " batch " +
           llvm::Twine(batch) + " of epoch " + llvm::Twine(epoch + 1) +
           "): " + message);
    }
    if (s > firstStep)
      queueingSeconds += secondsSince(queueStart);
  };
  // Reads the metrics of the oldest queued step, which is step `step`.
  auto recordStep = [&]() -> const StepRecord & {
    mpt_step_metrics_t metrics;
    auto waitStart = std::chrono::steady_clock::now();
    check(mpt_session_step_metrics(session, &metrics));
    if (step > firstStep)
      waitingSeconds += secondsSince(waitStart);
    // A NaN's sign bit depends on which operand the CPU propagated, which
    // vectorization and threading change: every NaN is reported as "nan".
    float loss = std::isnan(metrics.loss)
                     ? std::numeric_limits<float>::quiet_NaN()
                     : metrics.loss;
    StepRecord record{step,
                      step / stepsPerEpoch,
                      loss,
                      metrics.loss_scale,
                      metrics.skipped != 0,
                      metrics.grad_zero,
                      metrics.grad_nonfinite};
    skipped += record.skipped;
    records.push_back(record);
    if (step == firstStep)
      afterFirstStep = std::chrono::steady_clock::now();
    ++step;
    return records.back();
  };
  // On a GPU the next step is queued before this one's metrics are read, so
  // the host prepares batches while the device trains; never past a point
  // that needs the state (an evaluation, a checkpoint, the end).
  bool queueAhead = options.device == MPT_DEVICE_CUDA;
  auto stateNeededAfter = [&](int64_t steps) {
    return steps == totalSteps ||
           (checkpointEvery > 0 && steps % checkpointEvery == 0) ||
           evalSteps.count(steps) ||
           (steps % stepsPerEpoch == 0 && binding.hasEval && !noEval);
  };
  int64_t queued = step, stoppedAt = -1;
  while (step < totalSteps && !stopped) {
    if (queued == step)
      queueStep(queued++);
    if (queueAhead && queued < totalSteps && !stateNeededAfter(queued))
      queueStep(queued++);
    int64_t epoch = step / stepsPerEpoch, batch = step % stepsPerEpoch;
    const StepRecord &record = recordStep();
    bool injected = inject.count(record.step);
    if (tty && (step % 10 == 0 || batch + 1 == stepsPerEpoch))
      drawProgress(epoch, batch + 1, stepsPerEpoch, record, skipped);

    if (!injected && policy != NonFinitePolicy::Continue) {
      std::string problem = diagnoseNonFinite(record);
      if (!problem.empty() && !nonFiniteReported) {
        nonFiniteReported = true;
        if (tty)
          llvm::errs() << "\n";
        llvm::errs() << "mpt-run: "
                     << (policy == NonFinitePolicy::Stop ? "error" : "warning")
                     << ": " << problem << "\n";
        if (policy == NonFinitePolicy::Stop) {
          errors.push_back("the run met a non-finite loss or gradients (see "
                           "above)");
          stoppedAt = record.step;
          stopped = true;
        }
      }
    }
    if (!stopped && checkpointEvery > 0 && step % checkpointEvery == 0) {
      if (mpt_status_t status =
              mpt_session_save(session, checkpointPath.c_str(), step)) {
        errors.push_back(mpt_status_message(status));
        mpt_status_free(status);
        stopped = true;
      }
    }
    bool epochDone = step % stepsPerEpoch == 0 || step == totalSteps;
    if (stopped)
      continue;
    if (!epochDone) {
      if (evalSteps.count(step)) {
        double accuracy = evaluate(session, binding, test);
        evaluations.push_back({step, accuracy});
        if (tty)
          llvm::errs() << "\n";
        llvm::outs() << "step " << step << ": test accuracy "
                     << llvm::format("%.4f", accuracy) << "\n";
      }
      continue;
    }
    if (tty)
      llvm::errs() << "\n";
    llvm::outs() << "epoch " << epoch + 1 << ": steps " << step << ", loss "
                 << llvm::format("%.4f", record.loss) << ", loss scale "
                 << llvm::format("%g", record.lossScale) << ", skipped "
                 << skipped;
    if (binding.hasEval && !noEval) {
      double accuracy = evaluate(session, binding, test);
      accuracies.push_back(accuracy);
      evaluations.push_back({step, accuracy});
      llvm::outs() << ", test accuracy " << llvm::format("%.4f", accuracy);
    }
    llvm::outs() << "\n";
    llvm::outs().flush();
  }
  // A step queued behind the one that stopped the run has run too.
  while (queued > step)
    recordStep();
  if (stoppedAt >= 0) {
    llvm::errs() << "mpt-run: stopped after step " << step - 1;
    if (step - 1 != stoppedAt)
      llvm::errs() << " (queued on the device before step " << stoppedAt
                   << "'s metrics were read)";
    llvm::errs() << " (--on-nonfinite=warn or continue trains on)\n";
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  int64_t ran = step - firstStep;
  double msPerStepAfterFirst =
      ran > 1 ? 1000.0 *
                    std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - afterFirstStep)
                        .count() /
                    (ran - 1)
              : 0.0;
  llvm::outs() << "trained " << ran << " steps";
  if (options.device == MPT_DEVICE_CPU) {
    llvm::outs() << " on " << mpt_cpu_threads() << " CPU thread"
                 << (mpt_cpu_threads() == 1 ? "" : "s");
    if (llvm::StringRef(mpt_cpu_isa()) != "native")
      llvm::outs() << " (" << mpt_cpu_isa() << " only)";
  }
  llvm::outs() << " in " << llvm::format("%.2f", seconds) << " s ("
               << llvm::format("%.3f", ran ? 1000.0 * seconds / ran : 0.0)
               << " ms/step";
  if (ran > 1)
    llvm::outs() << "; " << llvm::format("%.3f", msPerStepAfterFirst)
                 << " after the first";
  llvm::outs() << "), skipped " << skipped << "\n";
  llvm::outs().flush();

  // A failed final save must not lose the metrics: they are written anyway.
  if (!checkpointPath.empty() && !stopped) {
    if (mpt_status_t status =
            mpt_session_save(session, checkpointPath.c_str(), step)) {
      errors.push_back(mpt_status_message(status));
      mpt_status_free(status);
    }
  }
  if (!metricsCsv.empty()) {
    std::string text;
    llvm::raw_string_ostream csv(text);
    namespace metric = mpt::contract::metric;
    csv << "step,epoch," << metric::Loss << "," << metric::LossScale << ","
        << metric::Skipped << "," << metric::GradZero << ","
        << metric::GradNonfinite << "\n";
    for (const StepRecord &r : records)
      csv << r.step << "," << r.epoch << "," << llvm::format("%.9g", r.loss)
          << "," << llvm::format("%.9g", r.lossScale) << "," << int(r.skipped)
          << "," << r.gradZero << "," << r.gradNonFinite << "\n";
    if (std::string problem = writeFile(metricsCsv, text); !problem.empty())
      errors.push_back(problem);
  }
  if (!metricsJson.empty()) {
    llvm::json::Array steps;
    for (const StepRecord &r : records)
      steps.push_back(llvm::json::Object{
          {"step", r.step},
          {"epoch", r.epoch},
          {mpt::contract::metric::Loss, double(r.loss)},
          {mpt::contract::metric::LossScale, double(r.lossScale)},
          {mpt::contract::metric::Skipped, r.skipped},
          {mpt::contract::metric::GradZero, r.gradZero},
          {mpt::contract::metric::GradNonfinite, r.gradNonFinite}});
    llvm::json::Array accuracyArray;
    for (double a : accuracies)
      accuracyArray.push_back(a);
    llvm::json::Array evaluationArray;
    for (auto [at, accuracy] : evaluations)
      evaluationArray.push_back(
          llvm::json::Object{{"step", at}, {"test_accuracy", accuracy}});
    llvm::json::Object summary{
        {"model", inputFile},
        {"precision", precision},
        {"batch", binding.batchSize},
        {"steps", ran},
        {mpt::contract::metric::Skipped, skipped},
        {"seconds", seconds},
        {"ms_per_step", ran ? 1000.0 * seconds / ran : 0.0},
        {"ms_per_step_after_first", msPerStepAfterFirst},
        {"ms_per_step_queueing",
         ran > 1 ? 1000.0 * queueingSeconds / (ran - 1) : 0.0},
        {"ms_per_step_waiting",
         ran > 1 ? 1000.0 * waitingSeconds / (ran - 1) : 0.0},
        {"test_accuracy", std::move(accuracyArray)},
        {"evaluations", std::move(evaluationArray)},
        {"metrics", std::move(steps)}};
    std::string text;
    llvm::raw_string_ostream json(text);
    json << llvm::formatv("{0:2}", llvm::json::Value(std::move(summary)))
         << "\n";
    if (std::string problem = writeFile(metricsJson, text); !problem.empty())
      errors.push_back(problem);
  }
  if (!plotDir.empty())
    writePlots(records);
  mpt_session_free(session);
  mpt_program_free(program);
  for (const std::string &message : errors)
    llvm::errs() << "mpt-run: error: " << message << "\n";
  return errors.empty() ? 0 : 1;
}
