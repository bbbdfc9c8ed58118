//===- Setup.cpp - a Trainer's program, data and initial state ------------===//
//
// Everything a run needs before its first step, checked up front so that a
// typo does not cost hours of training: the options, the data inputs'
// roles, the data sets, the initial or resumed state, and the run's length.
//
//===----------------------------------------------------------------------===//

#include "TrainerState.h"

#include "mpt/safetensors.h"

#include "llvm/ADT/Twine.h"

#include <cstring>
#include <limits>
#include <map>
#include <unistd.h>

using namespace mpt;
using namespace mpt::runtime;
using llvm::Twine;

llvm::Error mpt::takeStatus(mpt_status_t status) {
  if (!status)
    return llvm::Error::success();
  std::string message = mpt_status_message(status);
  mpt_status_free(status);
  return llvm::createStringError(message);
}

std::string mpt::describe(const mpt_tensor_info_t &info) {
  std::string text = mpt_dtype_name(info.dtype);
  text += "[";
  for (int64_t d = 0; d < info.rank; ++d)
    text += (d ? "x" : "") + std::to_string(info.shape[d]);
  return text + "]";
}

const char *mpt::precisionName(mpt_precision_t precision) {
  switch (precision) {
  case MPT_PRECISION_F16:
    return "f16";
  case MPT_PRECISION_BF16:
    return "bf16";
  default:
    return "fp32";
  }
}

const char *mpt::evalMetricName(EvalMetric metric) {
  return metric == EvalMetric::Loss ? "validation loss" : "test accuracy";
}

static llvm::Error fail(const Twine &message) {
  return llvm::createStringError(message);
}

/// The options that need no program: each names its flag.
static llvm::Error checkOptions(const TrainerOptions &options) {
  if (options.epochs < 1)
    return fail("--epochs must be at least 1, got " + Twine(options.epochs));
  if (options.maxSteps < 0)
    return fail("--steps must be 0 (all) or more, got " +
                Twine(options.maxSteps));
  if (options.checkpointEvery > 0 && options.checkpointPath.empty())
    return fail("--checkpoint-every " + Twine(options.checkpointEvery) +
                " needs --checkpoint <file> to say where to save");
  if (options.checkpointEvery < 0)
    return fail("--checkpoint-every must be 0 or more, got " +
                Twine(options.checkpointEvery));
  if (options.injectNonFiniteRank < -1)
    return fail("--inject-nonfinite-rank must be a rank (0 or more) or -1 "
                "(every rank), got " +
                Twine(options.injectNonFiniteRank));
  if (options.compile.micro_batches < 1)
    return fail("--accumulate must be at least 1, got " +
                Twine(options.compile.micro_batches));
  if (!options.evalDataFiles.empty() && options.data != DataSource::Files)
    return fail(
        Twine("--eval-data gives the test set of --data name=file,...; ") +
        (options.data == DataSource::Tokens
             ? "the validation set of --tokens is --eval-tokens"
             : "Fashion-MNIST and the synthetic set bring their own"));
  if (!options.evalTokenFile.empty() && options.data != DataSource::Tokens)
    return fail("--eval-tokens gives the validation set of --tokens, which is "
                "missing");
  if (options.tokenBytes != 1 && options.tokenBytes != 2)
    return fail("--token-bytes must be 1 or 2, got " +
                Twine(options.tokenBytes));
  if (!options.injectNonFinite.empty() && options.data == DataSource::Tokens)
    return fail("--inject-nonfinite scales float examples; --tokens feeds "
                "token ids, which have none");
  for (int64_t step : options.injectNonFinite)
    if (step < 0)
      return fail("--inject-nonfinite " + Twine(step) +
                  " is not a step number (0 or more)");
  if (!options.checkpointPath.empty())
    if (std::string problem =
            checkWritable(options.checkpointPath, "--checkpoint");
        !problem.empty())
      return fail(problem);
  if (const char *report = options.compile.precision_report)
    if (std::string problem = checkWritable(report, "--precision-report");
        !problem.empty())
      return fail(problem);
  return llvm::Error::success();
}

/// The data inputs of `function`, in order.
static llvm::Expected<std::vector<mpt_tensor_info_t>>
inputInfos(mpt_program_t program, mpt_function_t function) {
  std::vector<mpt_tensor_info_t> infos(
      mpt_program_num_inputs(program, function));
  for (size_t i = 0; i < infos.size(); ++i)
    if (llvm::Error error =
            takeStatus(mpt_program_input_info(program, function, i, &infos[i])))
      return std::move(error);
  return infos;
}

/// Takes the training step's inputs: one float input (the examples) or the
/// token ids (batch x T) an embedding reads, and the class labels a loss
/// reads: one per example, or one per token id.
static llvm::Error bindTrainInputs(mpt_program_t program,
                                   const std::string &model,
                                   DataBinding &binding) {
  llvm::Expected<std::vector<mpt_tensor_info_t>> infos =
      inputInfos(program, MPT_FUNCTION_TRAIN);
  if (!infos)
    return infos.takeError();
  mpt_tensor_info_t labels{};
  for (const mpt_tensor_info_t &info : *infos) {
    bool isFloat = info.dtype == MPT_DTYPE_F32 || info.dtype == MPT_DTYPE_F16 ||
                   info.dtype == MPT_DTYPE_BF16;
    bool isIds = info.table_rows > 0 && info.rank == 2;
    if (((isFloat && info.rank >= 1) || isIds) && binding.examples.empty()) {
      binding.examples = info.name;
      binding.examplesType = info.dtype;
      binding.batchSize = info.shape[0];
      binding.exampleSize = info.num_elements / info.shape[0];
      binding.examplesShape = describe(info);
      binding.exampleDims.assign(info.shape + 1, info.shape + info.rank);
      if (isIds) {
        binding.tokenLength = info.shape[1];
        binding.tableRows = info.table_rows;
      }
    } else if (info.num_classes > 0 && binding.labels.empty() &&
               info.rank <= 2) {
      binding.labels = info.name;
      binding.numClasses = info.num_classes;
      if (info.has_ignored_label)
        binding.ignoredLabel = info.ignored_label;
      labels = info;
    } else {
      return fail(model +
                  ": mpt-run feeds a training step one float input (a "
                  "batch of examples) or token ids (batch x T, read by an "
                  "embedding), and the class labels that a loss reads; "
                  "input '" +
                  info.name + "' is " + describe(info) +
                  (info.num_classes ? " (labels)" : "") +
                  " and has no such role");
    }
  }
  if (binding.examples.empty() || binding.labels.empty())
    return fail(model +
                ": mpt-run needs a float input (examples) or token ids, and "
                "the class labels read by a loss; the training step has " +
                (binding.examples.empty() ? "no examples" : "no labels"));
  // Labels of a classifier are a vector of one per example; those of token
  // ids, one per id, flat or batch x T.
  int64_t perExample = binding.labelsPerExample();
  bool matches = labels.num_elements == binding.batchSize * perExample &&
                 (labels.rank == 1 || (binding.tokenLength &&
                                       labels.shape[0] == binding.batchSize));
  if (!matches) {
    std::string expected =
        binding.tokenLength
            ? std::to_string(binding.batchSize * perExample) +
                  " (one per id, flat or batch x T)"
            : "a vector of " + std::to_string(binding.batchSize);
    return fail(model + ": labels '" + binding.labels + "' are " +
                describe(labels) + "; the " + binding.examplesShape +
                (binding.tokenLength ? " token ids '" : " examples '") +
                binding.examples + "' take " + expected);
  }
  return llvm::Error::success();
}

/// Takes the eval step's input, a batch of examples like the training
/// step's, and checks that it returns logits.
static llvm::Error bindEvalInputs(mpt_program_t program,
                                  const std::string &model,
                                  DataBinding &binding) {
  llvm::Expected<std::vector<mpt_tensor_info_t>> infos =
      inputInfos(program, MPT_FUNCTION_EVAL);
  if (!infos)
    return infos.takeError();
  for (const mpt_tensor_info_t &info : *infos) {
    if (!binding.evalExamples.empty() ||
        info.num_elements != binding.evalBatchSize * binding.exampleSize)
      return fail(model + ": the eval step's inputs must be one batch of " +
                  Twine(binding.evalBatchSize) +
                  " examples like the training step's (" +
                  binding.examplesShape + "); input '" + info.name + "' is " +
                  describe(info));
    binding.evalExamples = info.name;
  }
  mpt_tensor_info_t logits;
  if (binding.evalExamples.empty() ||
      mpt_program_num_outputs(program, MPT_FUNCTION_EVAL) != 1)
    return fail(model + ": the eval step must take a batch of examples and "
                        "return the logits");
  if (llvm::Error error = takeStatus(
          mpt_program_output_info(program, MPT_FUNCTION_EVAL, 0, &logits)))
    return error;
  // Logits of token ids are per id: flat (batch*T x classes) or batch x T x
  // classes.
  int64_t rows = binding.evalBatchSize * binding.labelsPerExample();
  if (logits.rank < 2 || logits.shape[logits.rank - 1] != binding.numClasses ||
      logits.num_elements != rows * binding.numClasses)
    return fail(
        model + ": the eval step returns " + describe(logits) +
        "; mpt-run expects logits of " +
        (binding.tokenLength ? "batch*T x classes (" : "batch x classes (") +
        Twine(rows) + "x" + Twine(binding.numClasses) + ")");
  return llvm::Error::success();
}

/// The synthetic training set and a held-out quarter of the same classes.
static llvm::Error makeSyntheticData(const TrainerOptions &options,
                                     const DataBinding &binding, Dataset &train,
                                     Dataset &test) {
  int64_t examples = options.syntheticExamples;
  if (examples < binding.batchSize)
    return fail("--synthetic-examples must be at least one batch (" +
                Twine(binding.batchSize) + ")");
  // The training set, and the held-out quarter made with it, live in memory
  // twice while the sets are built.
  double bytesPerExample = 2.25 * double(binding.exampleSize) * sizeof(float);
  double memory = double(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  if (double(examples) * bytesPerExample > memory / 2)
    return fail("--synthetic-examples " + Twine(examples) + " of " +
                Twine(binding.exampleSize) + " values needs " +
                Twine(int64_t(double(examples) * bytesPerExample / (1 << 20))) +
                " MiB, more than half of this machine's " +
                Twine(int64_t(memory / (1 << 20))) + " MiB; at most " +
                Twine(int64_t(memory / 2 / bytesPerExample)) + " fit");
  train = makeSyntheticDataset(examples, 1, binding.exampleSize,
                               binding.numClasses, options.seed);
  // Held-out examples of the same classes: the set is seeded by example.
  Dataset all = makeSyntheticDataset(examples * 5 / 4, 1, binding.exampleSize,
                                     binding.numClasses, options.seed);
  test.count = all.count - train.count;
  test.height = 1;
  test.width = binding.exampleSize;
  test.images.assign(all.images.begin() + train.count * binding.exampleSize,
                     all.images.end());
  test.labels.assign(all.labels.begin() + train.count, all.labels.end());
  return llvm::Error::success();
}

/// "100x784"; "scalars" for no dimension.
static std::string joinDims(const std::vector<int64_t> &shape) {
  std::string text = shape.empty() ? "scalars" : "";
  for (size_t d = 0; d < shape.size(); ++d)
    text += (d ? "x" : "") + std::to_string(shape[d]);
  return text;
}

/// "<f4[100x784]".
static std::string describe(const SampleArray &array) {
  return array.elementType + "[" + joinDims(array.shape) + "]";
}

/// The examples and labels that `files` (of `flag`) give the step's data
/// inputs, as a dataset of `out.count` samples.
static llvm::Error
loadNamedFiles(const std::map<std::string, std::string> &files,
               const std::string &flag, const std::string &model,
               const DataBinding &binding, Dataset &out) {
  const std::string &x = binding.examples, &y = binding.labels;
  for (const auto &[name, path] : files)
    if (name != x && name != y)
      return fail(flag + " " + name + "=" + path + ": '" + name +
                  "' is not a data input of " + model +
                  " (its data inputs: " + x + ", " + y + ")");
  for (const std::string *name : {&x, &y})
    if (!files.count(*name))
      return fail(flag + " gives no file for '" + *name +
                  "', a data input of " + model);
  const std::string &xPath = files.at(x), &yPath = files.at(y);
  SampleArray examples, labels;
  std::string error;
  if (!loadSampleArray(xPath, x, examples, error) ||
      !loadSampleArray(yPath, y, labels, error))
    return fail(error);
  std::vector<int64_t> exampleDims(examples.shape.begin() + 1,
                                   examples.shape.end());
  if (examples.isInteger)
    return fail(xPath + ": input '" + x + "' takes floats (" +
                binding.examplesShape + "); the file holds " +
                describe(examples) + " (convert it: array.astype('float32'))");
  if (exampleDims != binding.exampleDims)
    return fail(xPath + ": input '" + x + "' takes samples of " +
                joinDims(binding.exampleDims) + " (" + binding.examplesShape +
                " without the batch); the file holds " + describe(examples) +
                ", samples of " + joinDims(exampleDims));
  if (!labels.isInteger || labels.shape.size() != 1)
    return fail(yPath + ": input '" + y +
                "' takes one integer class id per sample; the file holds " +
                describe(labels));
  if (labels.shape[0] != examples.shape[0])
    return fail(yPath + " holds " + Twine(labels.shape[0]) + " samples but " +
                xPath + " holds " + Twine(examples.shape[0]));
  for (size_t i = 0; i < labels.ints.size(); ++i)
    if ((labels.ints[i] < 0 || labels.ints[i] >= binding.numClasses) &&
        labels.ints[i] != binding.ignoredLabel)
      return fail(yPath + ": input '" + y + "': class id " +
                  Twine(labels.ints[i]) + " of sample " + Twine(i) +
                  " is outside [0, " + Twine(binding.numClasses) + ")");
  out.count = examples.shape[0];
  out.height = 1;
  out.width = binding.exampleSize;
  out.images = std::move(examples.floats);
  out.labels = std::move(labels.ints);
  return llvm::Error::success();
}

/// Whether the evaluation set that `flag` gives is to be read: it must be
/// given when the run uses the step's eval step, and only when there is one.
/// `request` says how to give it ("its test set with --eval-data ...").
static llvm::Expected<bool> wantsEvalSet(const TrainerOptions &options,
                                         const DataBinding &binding, bool given,
                                         const std::string &flag,
                                         const std::string &request) {
  const std::string &model = options.modelPath;
  if (given && !binding.hasEval)
    return fail(flag + ": " + model +
                " has no eval step (mpt.eval_step) to evaluate with");
  if (!given && binding.hasEval && options.evaluate)
    return fail(model + " has an eval step: give " + request +
                " (or --no-eval)");
  return given;
}

/// The user's training set and, for evaluations, test set.
static llvm::Error loadDataFiles(const TrainerOptions &options,
                                 const DataBinding &binding, Dataset &train,
                                 Dataset &test) {
  const std::string &model = options.modelPath;
  if (llvm::Error error =
          loadNamedFiles(options.dataFiles, "--data", model, binding, train))
    return error;
  llvm::Expected<bool> wanted = wantsEvalSet(
      options, binding, !options.evalDataFiles.empty(), "--eval-data",
      "its test set with --eval-data name=file,...");
  if (!wanted || !*wanted)
    return wanted.takeError();
  return loadNamedFiles(options.evalDataFiles, "--eval-data", model, binding,
                        test);
}

/// Maps the token file `path` (of `flag`) for the step's ids and labels: its
/// ids must be rows of the embedding and classes of the loss, and it must
/// hold a window of T + 1 tokens.
static llvm::Error openTokenFile(const std::string &path,
                                 const std::string &flag,
                                 const TrainerOptions &options,
                                 const DataBinding &binding, TokenFile &file) {
  std::string error;
  if (!file.open(path, options.tokenBytes,
                 std::min(binding.tableRows, binding.numClasses), error))
    return fail(flag + " " + error);
  if (file.size() <= binding.tokenLength)
    return fail(flag + " " + path + ": " + Twine(file.size()) +
                " tokens, fewer than one window of T + 1 = " +
                Twine(binding.tokenLength + 1) + " that the step's ids '" +
                binding.examples + "' (" + binding.examplesShape +
                ") and their next tokens need");
  return llvm::Error::success();
}

/// The token files, for a step that takes token ids; token ids need them.
static llvm::Error loadTokens(const TrainerOptions &options,
                              Trainer::State &state) {
  const DataBinding &binding = state.binding;
  const std::string &model = options.modelPath;
  bool tokens = options.data == DataSource::Tokens;
  if (tokens != (binding.tokenLength > 0))
    return fail(
        tokens ? "--tokens " + options.tokenFile + ": " + model +
                     " takes no token ids (an integer batch x T input read "
                     "by an embedding) and labels; its input '" +
                     binding.examples + "' is " + binding.examplesShape
               : model + ": input '" + binding.examples + "' (" +
                     binding.examplesShape +
                     ") takes token ids: give them with --tokens <file>");
  if (!tokens)
    return llvm::Error::success();
  if (llvm::Error error = openTokenFile(options.tokenFile, "--tokens", options,
                                        binding, state.trainTokens))
    return error;
  llvm::Expected<bool> wanted = wantsEvalSet(
      options, binding, !options.evalTokenFile.empty(), "--eval-tokens",
      "its validation tokens with --eval-tokens <file>");
  if (!wanted || !*wanted)
    return wanted.takeError();
  return openTokenFile(options.evalTokenFile, "--eval-tokens", options, binding,
                       state.evalTokens);
}

static llvm::Error loadData(const TrainerOptions &options,
                            const DataBinding &binding, Dataset &train,
                            Dataset &test) {
  if (options.data == DataSource::Synthetic)
    return makeSyntheticData(options, binding, train, test);
  if (options.data == DataSource::Files)
    return loadDataFiles(options, binding, train, test);
  std::string error;
  if (!loadFashionMnist(options.dataDir, "train", train, error) ||
      !loadFashionMnist(options.dataDir, "test", test, error))
    return fail(error);
  if (binding.exampleSize != train.height * train.width)
    return fail(options.modelPath + " takes examples of " +
                Twine(binding.exampleSize) +
                " values; Fashion-MNIST has 784 (28x28): use --data synthetic");
  // Only full batches are trained on: a smaller set would train nothing.
  if (train.count < binding.batchSize)
    return fail((options.dataDir.empty() ? kDefaultFashionMnistDirectory
                                         : options.dataDir) +
                ": the training set has " + Twine(train.count) +
                " examples, fewer than one batch of " +
                Twine(binding.batchSize));
  return llvm::Error::success();
}

/// The state tensors of `session` by name.
static llvm::Expected<std::map<std::string, mpt_tensor_info_t>>
stateByName(mpt_session_t session) {
  std::map<std::string, mpt_tensor_info_t> state;
  for (int64_t i = 0, e = mpt_session_num_state(session); i < e; ++i) {
    mpt_tensor_info_t info;
    if (llvm::Error error =
            takeStatus(mpt_session_state_info(session, i, &info)))
      return std::move(error);
    state[info.name] = info;
  }
  return state;
}

/// Overwrites state with the F32 tensors of a safetensors file, which must
/// have the shapes of the state they replace. The header is checked first:
/// a file of another model may hold gigabytes.
static llvm::Error loadInitialState(mpt_session_t session,
                                    const std::string &path) {
  SafetensorsFile file;
  std::string error;
  if (!file.open(path, error))
    return fail(error);
  llvm::Expected<std::map<std::string, mpt_tensor_info_t>> state =
      stateByName(session);
  if (!state)
    return state.takeError();
  for (const TensorEntry &tensor : file.tensors()) {
    auto it = state->find(tensor.name);
    if (it == state->end())
      return fail(path + ": no parameter or state named '" + tensor.name + "'");
    const mpt_tensor_info_t &info = it->second;
    std::string shape = tensor.dtype + "[";
    for (size_t d = 0; d < tensor.shape.size(); ++d)
      shape += (d ? "x" : "") + std::to_string(tensor.shape[d]);
    shape += "]";
    if (tensor.shape !=
        std::vector<int64_t>(info.shape, info.shape + info.rank))
      return fail(path + ": tensor '" + tensor.name + "' is " + shape +
                  ", but the state it initializes is " + describe(info) +
                  " (a transposed or flattened tensor?)");
    if (tensor.dtype != contract::dtype::F32)
      return fail(path + ": tensor '" + tensor.name + "' is " + shape +
                  "; --init-state reads F32 tensors");
  }
  std::vector<float> values;
  for (const TensorEntry &tensor : file.tensors()) {
    values.resize((tensor.end - tensor.begin) / sizeof(float));
    if (!file.read(tensor, values.data(), error))
      return fail(error);
    if (llvm::Error error = takeStatus(
            mpt_session_write_state(session, tensor.name.c_str(), values.data(),
                                    int64_t(values.size()))))
      return fail(path + ": " + llvm::toString(std::move(error)));
  }
  return llvm::Error::success();
}

/// Notes whether the state just loaded from `path` is finite: a non-finite
/// loss from it is the file's fault, not the precision's.
static llvm::Error noteLoadedState(Trainer::State &state,
                                   const std::string &path) {
  llvm::Expected<std::string> nonFinite = findNonFiniteState(state.session);
  if (!nonFinite)
    return nonFinite.takeError();
  state.nonFiniteLoaded = nonFinite->empty()
                              ? ""
                              : "the state loaded from " + path +
                                    " is not finite (" + *nonFinite + ")";
  return llvm::Error::success();
}

/// The run's length, its starting position and the steps it evaluates at.
static llvm::Error planRun(const TrainerOptions &options,
                           Trainer::State &state) {
  // Each global batch is one local batch per rank.
  int64_t batch = state.binding.batchSize * state.ranks;
  // Windows are drawn at random offsets: an epoch is as many steps as see
  // the file's tokens once on average, and at least one.
  state.stepsPerEpoch =
      options.data == DataSource::Tokens
          ? std::max<int64_t>(1, state.trainTokens.size() /
                                     (batch * state.binding.tokenLength))
          : state.train.count / batch;
  if (state.stepsPerEpoch == 0)
    return fail("the " + Twine(state.ranks) + " ranks' global batch of " +
                Twine(batch) + " examples (" + Twine(state.binding.batchSize) +
                " per rank) is more than the " + Twine(state.train.count) +
                " training examples");
  if (state.stepsPerEpoch >
      std::numeric_limits<int64_t>::max() / options.epochs)
    return fail("--epochs " + Twine(options.epochs) + " of " +
                Twine(state.stepsPerEpoch) +
                " steps each make more steps than a run can count (2^63 - 1)");
  int64_t epochSteps = state.stepsPerEpoch * options.epochs;
  state.totalSteps = options.maxSteps > 0
                         ? std::min(epochSteps, options.maxSteps)
                         : epochSteps;
  if (!options.resumePath.empty()) {
    if (llvm::Error error = takeStatus(mpt_session_load(
            state.session, options.resumePath.c_str(), &state.firstStep)))
      return error;
    if (llvm::Error error = noteLoadedState(state, options.resumePath))
      return error;
    if (state.firstStep > epochSteps)
      return fail(options.resumePath + ": position " + Twine(state.firstStep) +
                  " is outside this run's " + Twine(epochSteps) + " steps");
  }
  state.inject.insert(options.injectNonFinite.begin(),
                      options.injectNonFinite.end());
  state.evalSteps.insert(options.evalAt.begin(), options.evalAt.end());
  if (!state.evalSteps.empty() && !options.evaluate)
    return fail("--eval-at asks for evaluations that --no-eval turns off");
  if (!state.evalSteps.empty() && !state.binding.hasEval)
    return fail("--eval-at: " + options.modelPath +
                " has no eval step (mpt.eval_step) to evaluate with");
  for (int64_t at : state.evalSteps)
    if (at < 1 || at > state.totalSteps)
      return fail("--eval-at " + Twine(at) + " is outside this run's steps 1-" +
                  Twine(state.totalSteps));
  return llvm::Error::success();
}

/// The training step's scalar metrics that mpt_step_metrics_t does not hold,
/// which mpt_session_step_metric reads.
static llvm::Error listMetrics(Trainer::State &state) {
  namespace metric = contract::metric;
  for (int64_t i = 0,
               e = mpt_program_num_outputs(state.program, MPT_FUNCTION_TRAIN);
       i < e; ++i) {
    mpt_tensor_info_t info;
    if (llvm::Error error = takeStatus(mpt_program_output_info(
            state.program, MPT_FUNCTION_TRAIN, i, &info)))
      return error;
    if (info.num_elements == 1 &&
        !llvm::is_contained({metric::Loss, metric::LossScale, metric::Skipped,
                             metric::GradZero, metric::GradNonfinite},
                            llvm::StringRef(info.name)))
      state.metricNames.push_back(info.name);
  }
  return llvm::Error::success();
}

static llvm::Error setUp(const TrainerOptions &options, Trainer::State &state) {
  if (llvm::Error error = checkOptions(options))
    return error;
  joinRanks(state, options.compile.comm);
  if (llvm::Error error = takeStatus(mpt_program_compile(
          options.modelPath.c_str(), &options.compile, &state.program)))
    return error;
  DataBinding &binding = state.binding;
  if (llvm::Error error =
          bindTrainInputs(state.program, options.modelPath, binding))
    return error;
  binding.hasEval = mpt_program_has_eval(state.program);
  if (llvm::Error error = listMetrics(state))
    return error;
  // The compiled training step takes micro_batches of the batch it is
  // written for, which the eval step takes.
  binding.evalBatchSize = binding.batchSize / options.compile.micro_batches;
  if (binding.hasEval)
    if (llvm::Error error =
            bindEvalInputs(state.program, options.modelPath, binding))
      return error;
  if (options.batchSize && options.batchSize != binding.batchSize) {
    int64_t microBatches = options.compile.micro_batches;
    std::string takes =
        microBatches == 1
            ? " is written for batch " + std::to_string(binding.batchSize)
            : " with --accumulate " + std::to_string(microBatches) +
                  " takes batches of " + std::to_string(binding.batchSize) +
                  " (micro-batches of " +
                  std::to_string(binding.evalBatchSize) + ")";
    return fail(options.modelPath + takes + ", got --batch " +
                Twine(options.batchSize));
  }
  if (llvm::Error error = loadTokens(options, state))
    return error;
  if (options.data != DataSource::Tokens)
    if (llvm::Error error = loadData(options, binding, state.train, state.test))
      return error;
  if (llvm::Error error = takeStatus(
          mpt_session_create(state.program, options.seed, &state.session)))
    return error;
  if (!options.initStatePath.empty()) {
    if (llvm::Error error =
            loadInitialState(state.session, options.initStatePath))
      return error;
    if (llvm::Error error = noteLoadedState(state, options.initStatePath))
      return error;
  }
  if (llvm::Error error = planRun(options, state))
    return error;
  if (llvm::Error error = checkSamePlan(state, options))
    return error;
  return checkStateReplicated(
      state, "at the start (the same --seed, --init-state and --resume on "
             "every rank?)");
}

std::unique_ptr<Trainer> Trainer::create(const TrainerOptions &options,
                                         std::string &error) {
  auto state = std::make_unique<State>();
  state->staticLossScale = options.compile.loss_scale == MPT_LOSS_SCALE_STATIC;
  if (llvm::Error failure = setUp(options, *state)) {
    error = llvm::toString(std::move(failure));
    return nullptr;
  }
  return std::unique_ptr<Trainer>(new Trainer(options, std::move(state)));
}

Trainer::Trainer(const TrainerOptions &options, std::unique_ptr<State> state)
    : opts(options), state(std::move(state)) {
  // The compile options' strings were borrowed for compiling only.
  opts.compile.dump_prefix = nullptr;
  opts.compile.precision_report = nullptr;
}

Trainer::~Trainer() = default;

int64_t Trainer::batchSize() const { return state->binding.batchSize; }
int64_t Trainer::stepsPerEpoch() const { return state->stepsPerEpoch; }
int64_t Trainer::totalSteps() const { return state->totalSteps; }
bool Trainer::hasEval() const { return state->binding.hasEval; }
mpt_session_t Trainer::session() const { return state->session; }
const char *Trainer::compileWarnings() const {
  return mpt_program_warnings(state->program);
}
