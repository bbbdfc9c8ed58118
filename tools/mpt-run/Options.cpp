//===- Options.cpp - mpt-run's command line -------------------------------===//

#include "Options.h"

#include "mpt/data.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

using namespace mpt;
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
static cl::opt<std::string> dataSource(
    "data",
    cl::desc("fashion-mnist, synthetic, or the step's data inputs from files: "
             "name=file,... (.npy, or a .safetensors file's tensor of that "
             "name or its only one; the first dimension counts the samples)"),
    cl::init("fashion-mnist"), cl::cat(category));
static cl::opt<std::string> evalData(
    "eval-data",
    cl::desc("With --data name=file,...: the test set, in the same form"),
    cl::cat(category));
static cl::opt<std::string> tokenFile(
    "tokens",
    cl::desc("Train a language model on this flat file of token ids "
             "(nanoGPT's train.bin): the step's ids (batch x T) are windows "
             "at seeded offsets, its labels the tokens after them"),
    cl::cat(category));
static cl::opt<std::string> evalTokenFile(
    "eval-tokens",
    cl::desc("With --tokens: the validation tokens, whose mean loss over "
             "consecutive windows is evaluated"),
    cl::cat(category));
static cl::opt<int> tokenBytes(
    "token-bytes",
    cl::desc("With --tokens: bytes per token, 1 or 2 (uint16 little-endian)"),
    cl::init(1), cl::cat(category));
static cl::opt<std::string>
    dataDir("data-dir", cl::desc("Directory of the Fashion-MNIST IDX files"),
            cl::init(runtime::kDefaultFashionMnistDirectory),
            cl::cat(category));
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
static cl::opt<double>
    minScale("min-scale",
             cl::desc("Lower bound of the dynamic loss scale (below 1 lets "
                      "gradients that overflow at 1 train on)"),
             cl::init(kCompileDefaults.min_scale), cl::cat(category));
static cl::opt<double> maxScale("max-scale",
                                cl::desc("Upper bound of the dynamic loss "
                                         "scale"),
                                cl::init(kCompileDefaults.max_scale),
                                cl::cat(category));
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
static cl::opt<std::string> plotDir(
    "plot-dir",
    cl::desc("Write loss.png, loss_scale.png (skipped steps marked) and "
             "accuracy.png (test accuracy per epoch; validation_loss.png with "
             "--tokens) here (gnuplot)"),
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
static cl::opt<int64_t> accumulate(
    "accumulate",
    cl::desc("Micro-batches per optimizer step: the training step, written "
             "for one micro-batch, sums the gradients of this many before "
             "each update; a batch (--batch, steps per epoch) is all of them"),
    cl::init(kCompileDefaults.micro_batches), cl::cat(category));
static cl::opt<mpt_recompute_e> recompute(
    "recompute",
    cl::desc("Forward segments the backward recomputes instead of keeping "
             "their activations (mpt-recompute); results are bit-identical"),
    cl::values(clEnumValN(MPT_RECOMPUTE_NONE, "none", "keep every activation"),
               clEnumValN(MPT_RECOMPUTE_SQRT, "sqrt",
                          "about sqrt(N) segments of the N forward ops"),
               clEnumValN(MPT_RECOMPUTE_MARKED, "marked",
                          "segments ended by the ops marked mpt.segment_end")),
    cl::init(mpt_recompute_e(kCompileDefaults.recompute)), cl::cat(category));
static cl::opt<bool> cudaGraphs(
    "cuda-graphs",
    cl::desc("CUDA: from its second run, each step replays as one captured "
             "CUDA graph (=false: launch its kernels one by one)"),
    cl::init(kCompileDefaults.cuda_graphs != 0), cl::cat(category));
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
static cl::opt<bool> dataParallel(
    "data-parallel",
    cl::desc("Train as one rank of the launcher's world (mpiexec -n N): each "
             "rank takes its shard of every global batch of N x the graph's "
             "batch, and the step sums the gradients across the ranks"),
    cl::cat(category));
static cl::opt<mpt_grad_reduce_e> gradReduce(
    "grad-reduce",
    cl::desc("With --data-parallel: the type gradients are "
             "summed in"),
    cl::values(clEnumValN(MPT_GRAD_REDUCE_AUTO, "auto",
                          "f32 for bf16 gradients, their own type otherwise"),
               clEnumValN(MPT_GRAD_REDUCE_COMPUTE, "compute",
                          "their own type: f16/bf16 send half the bytes"),
               clEnumValN(MPT_GRAD_REDUCE_F32, "f32", "f32")),
    cl::init(mpt_grad_reduce_e(kCompileDefaults.grad_reduce)),
    cl::cat(category));
static cl::opt<double> bucketMb(
    "bucket-mb",
    cl::desc("With --data-parallel: MiB of gradients per all-reduce (0: 25, "
             "as DDP)"),
    cl::init(0), cl::cat(category));
static cl::opt<double> commTimeout(
    "comm-timeout",
    cl::desc("With --data-parallel: seconds a collective (with --device "
             "cuda, a wait for the GPU's queued work) waits for the other "
             "ranks before the run fails"),
    cl::init(600), cl::cat(category));
static cl::opt<int> injectNonFiniteRank(
    "inject-nonfinite-rank",
    cl::desc("With --inject-nonfinite: only on this rank (-1: every rank)"),
    cl::init(-1), cl::cat(category));
static cl::opt<std::string>
    dumpPrefix("dump-ir",
               cl::desc("Write <prefix>.mixed.mlir and <prefix>.llvm.mlir"),
               cl::cat(category));
static cl::opt<std::string> precisionReport(
    "precision-report",
    cl::desc("Write the step's ops per precision, casts and bytes of state "
             "per category, before and after the mixed-precision rewrite "
             "(JSON)"),
    cl::cat(category));

/// The compile options; false with `error` for an unknown name.
static bool parseCompileOptions(mpt_compile_options_t &options,
                                std::string &error) {
  if (precision == "fp32")
    options.precision = MPT_PRECISION_FP32;
  else if (precision == "f16")
    options.precision = MPT_PRECISION_F16;
  else if (precision == "bf16")
    options.precision = MPT_PRECISION_BF16;
  else
    error =
        "unknown --precision '" + precision + "'; expected fp32, f16 or bf16";
  if (device == "cpu")
    options.device = MPT_DEVICE_CPU;
  else if (device == "cuda")
    options.device = MPT_DEVICE_CUDA;
  else if (error.empty())
    error = "unknown --device '" + device + "'; expected cpu or cuda";
  // Borrowed: the flags live as long as the process.
  options.loss_scale = lossScale;
  options.init_scale = initScale;
  options.growth_interval = growthInterval;
  options.min_scale = minScale;
  options.max_scale = maxScale;
  if (!dumpPrefix.empty())
    options.dump_prefix = dumpPrefix.c_str();
  if (!precisionReport.empty())
    options.precision_report = precisionReport.c_str();
  options.cpu_kernels = cpuKernels;
  options.parallel_min_iterations = parallelMinIterations;
  if (persistentWorkingCopies != cl::BOU_UNSET)
    options.persistent_working_copies =
        persistentWorkingCopies == cl::BOU_TRUE ? 1 : 0;
  options.grad_reduce = gradReduce;
  if (!(bucketMb >= 0 && bucketMb <= 1024 * 1024) && error.empty())
    error = "--bucket-mb must be in [0, 1048576], got " +
            std::to_string(bucketMb.getValue());
  options.bucket_bytes = int64_t(bucketMb * 1024 * 1024);
  options.micro_batches = accumulate;
  options.recompute = recompute;
  options.cuda_graphs = cudaGraphs;
  return error.empty();
}

/// "x=a.npy,y=b.npy" of `flag` as files by input name; false with `error` for
/// an entry without a name or a file, or a name given twice.
static bool parseNamedFiles(const std::string &flag, const std::string &text,
                            std::map<std::string, std::string> &files,
                            std::string &error) {
  llvm::SmallVector<llvm::StringRef> entries;
  llvm::StringRef(text).split(entries, ',');
  for (llvm::StringRef entry : entries) {
    auto [name, path] = entry.split('=');
    if (name.empty() || path.empty()) {
      error = "--" + flag + " '" + entry.str() +
              "': expected name=file, naming a data input of the step";
      return false;
    }
    if (!files.emplace(name.str(), path.str()).second) {
      error = "--" + flag + " gives '" + name.str() + "' twice";
      return false;
    }
  }
  return true;
}

/// The options naming a choice; false with `error` for an unknown one.
static bool parseChoices(TrainerOptions &options, std::string &error) {
  if (onNonFinite == "stop")
    options.onNonFinite = NonFinitePolicy::Stop;
  else if (onNonFinite == "warn")
    options.onNonFinite = NonFinitePolicy::Warn;
  else if (onNonFinite == "continue")
    options.onNonFinite = NonFinitePolicy::Continue;
  else
    error = "unknown --on-nonfinite '" + onNonFinite +
            "'; expected stop, warn or continue";
  if (dataSource == "fashion-mnist")
    options.data = DataSource::FashionMnist;
  else if (dataSource == "synthetic")
    options.data = DataSource::Synthetic;
  else if (llvm::StringRef(dataSource).contains('='))
    options.data = DataSource::Files;
  else if (error.empty())
    error = "unknown --data '" + dataSource +
            "'; expected fashion-mnist, synthetic or name=file,...";
  if (error.empty() && options.data == DataSource::Files)
    parseNamedFiles("data", dataSource, options.dataFiles, error);
  if (error.empty() && !evalData.empty())
    parseNamedFiles("eval-data", evalData, options.evalDataFiles, error);
  if (error.empty() && !tokenFile.empty()) {
    if (dataSource.getNumOccurrences())
      error = "--tokens and --data each give the training data; give one";
    options.data = DataSource::Tokens;
    options.tokenFile = tokenFile;
  }
  options.evalTokenFile = evalTokenFile;
  options.tokenBytes = tokenBytes;
  return error.empty();
}

bool mpt::parseCommandLine(int argc, char **argv, RunOptions &options,
                           std::string &error) {
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mpt-run: train an mpt training step on Fashion-MNIST, synthetic "
      "data, your own tensors or token files\n");
  TrainerOptions &trainer = options.trainer;
  if (!parseCompileOptions(trainer.compile, error) ||
      !parseChoices(trainer, error))
    return false;
  trainer.modelPath = inputFile;
  trainer.epochs = epochs;
  trainer.maxSteps = maxSteps;
  trainer.batchSize = batchSize;
  trainer.seed = seed;
  trainer.dataDir = dataDir;
  trainer.syntheticExamples = syntheticExamples;
  trainer.injectNonFinite.assign(injectNonFinite.begin(),
                                 injectNonFinite.end());
  trainer.injectNonFiniteRank = injectNonFiniteRank;
  trainer.checkpointPath = checkpointPath;
  trainer.checkpointEvery = checkpointEvery;
  trainer.resumePath = resumePath;
  trainer.initStatePath = initStatePath;
  trainer.evaluate = !noEval;
  trainer.evalAt.assign(evalAt.begin(), evalAt.end());
  options.metricsCsv = metricsCsv;
  options.metricsJson = metricsJson;
  options.plotDir = plotDir;
  options.quiet = quiet;
  options.dataParallel = dataParallel;
  options.commTimeout = commTimeout;
  return true;
}
