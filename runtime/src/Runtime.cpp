//===- Runtime.cpp - the mpt runtime C API ----------------------*- C++ -*-===//

#include "mpt/runtime.h"

#include "Float16.h"
#include "Program.h"
#include "Safetensors.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace mpt::runtime;

struct mpt_status_s {
  mpt_status_code_t code;
  std::string message;
};

namespace {

mpt_status_t makeStatus(mpt_status_code_t code, std::string message) {
  return new mpt_status_s{code, std::move(message)};
}

/// A 64-byte aligned buffer: vectorized compiled code may assume alignment.
class Buffer {
public:
  explicit Buffer(size_t bytes)
      : data(static_cast<uint8_t *>(
                 std::aligned_alloc(64, ((bytes + 63) / 64) * 64 + 64)),
             &std::free),
        size(bytes) {
    std::memset(data.get(), 0, size);
  }
  uint8_t *get() const { return data.get(); }
  size_t bytes() const { return size; }

private:
  std::unique_ptr<uint8_t, decltype(&std::free)> data;
  size_t size;
};

/// splitmix64: a small, fully specified generator, so that initial state is
/// the same on every platform for a given seed.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }

private:
  uint64_t state;
};

float loadFloat(const uint8_t *data, ElementKind kind, int64_t i) {
  switch (kind) {
  case ElementKind::F32:
    return reinterpret_cast<const float *>(data)[i];
  case ElementKind::F16:
    return f16ToFloat(reinterpret_cast<const uint16_t *>(data)[i]);
  case ElementKind::BF16:
    return bf16ToFloat(reinterpret_cast<const uint16_t *>(data)[i]);
  case ElementKind::I64:
    return float(reinterpret_cast<const int64_t *>(data)[i]);
  case ElementKind::I32:
    return float(reinterpret_cast<const int32_t *>(data)[i]);
  case ElementKind::I1:
    return data[i] ? 1.0f : 0.0f;
  }
  return 0.0f;
}

void storeFloat(uint8_t *data, ElementKind kind, int64_t i, float value) {
  switch (kind) {
  case ElementKind::F32:
    reinterpret_cast<float *>(data)[i] = value;
    return;
  case ElementKind::F16:
    reinterpret_cast<uint16_t *>(data)[i] = floatToF16(value);
    return;
  case ElementKind::BF16:
    reinterpret_cast<uint16_t *>(data)[i] = floatToBF16(value);
    return;
  case ElementKind::I64:
    reinterpret_cast<int64_t *>(data)[i] = int64_t(value);
    return;
  case ElementKind::I32:
    reinterpret_cast<int32_t *>(data)[i] = int32_t(value);
    return;
  case ElementKind::I1:
    data[i] = value != 0.0f;
    return;
  }
}

bool isFloatKind(ElementKind kind) {
  return kind == ElementKind::F32 || kind == ElementKind::F16 ||
         kind == ElementKind::BF16;
}

std::string describe(const TensorShape &shape) {
  std::string text = elementName(shape.kind);
  text += "[";
  for (size_t i = 0; i < shape.dims.size(); ++i)
    text += (i ? "x" : "") + std::to_string(shape.dims[i]);
  return text + "]";
}

} // namespace

struct mpt_program_s {
  std::unique_ptr<Program> program;
  mpt_batch_info_t info{};
  int64_t examplesArg = -1, labelsArg = -1, evalExamplesArg = -1;
  int64_t lossResult = -1, scaleResult = -1, skippedResult = -1;
  int64_t gradZeroResult = -1, gradNonFiniteResult = -1;
};

struct mpt_session_s {
  mpt_program_s *program;
  std::vector<Buffer> args, results, evalArgs;
  std::unique_ptr<Buffer> logits;
  std::vector<int64_t> stateArgs; // param and state arguments, in order
};

extern "C" {

mpt_status_code_t mpt_status_code(mpt_status_t status) { return status->code; }
const char *mpt_status_message(mpt_status_t status) {
  return status->message.c_str();
}
void mpt_status_free(mpt_status_t status) { delete status; }

void mpt_compile_options_init(mpt_compile_options_t *options) {
  options->precision = MPT_PRECISION_FP32;
  options->loss_scale = "auto";
  options->init_scale = 65536.0;
  options->growth_interval = 2000;
  options->dump_prefix = nullptr;
  options->cpu_kernels = 1;
}

mpt_status_t mpt_program_compile(const char *mlirPath,
                                 const mpt_compile_options_t *options,
                                 mpt_program_t *out) {
  if (!mlirPath || !options || !out)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_program_compile: null argument");
  CompileOptions compile;
  switch (options->precision) {
  case MPT_PRECISION_FP32:
    compile.computeType = "f32";
    break;
  case MPT_PRECISION_F16:
    compile.computeType = "f16";
    break;
  case MPT_PRECISION_BF16:
    compile.computeType = "bf16";
    break;
  default:
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "unknown precision " +
                          std::to_string(int(options->precision)));
  }
  compile.lossScale = options->loss_scale ? options->loss_scale : "auto";
  compile.cpuKernels = options->cpu_kernels != 0;
  compile.initScale = options->init_scale;
  compile.growthInterval = options->growth_interval;
  if (options->dump_prefix)
    compile.dumpPrefix = options->dump_prefix;

  std::string error;
  bool isCompileError = false;
  auto result = std::make_unique<mpt_program_s>();
  result->program = Program::compile(mlirPath, compile, error, isCompileError);
  if (!result->program)
    return makeStatus(isCompileError ? MPT_STATUS_COMPILE_ERROR
                                     : MPT_STATUS_NOT_FOUND,
                      error);

  // Bind the data arguments: one float tensor of examples, one integer
  // tensor of labels, with the batch as their leading dimension.
  const std::vector<ArgInfo> &args = result->program->args();
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].role != Role::Data)
      continue;
    bool isFloat = isFloatKind(args[i].shape.kind);
    int64_t &slot = isFloat ? result->examplesArg : result->labelsArg;
    if (slot >= 0 || args[i].shape.dims.empty() ||
        (isFloat && args[i].shape.kind != ElementKind::F32) ||
        (!isFloat && (args[i].shape.dims.size() != 1 ||
                      (args[i].shape.kind != ElementKind::I32 &&
                       args[i].shape.kind != ElementKind::I64))))
      return makeStatus(
          MPT_STATUS_INVALID_ARGUMENT,
          std::string(mlirPath) +
              ": the runtime binds one f32 data argument (a batch of "
              "examples) and one i32 or i64 vector (their labels); data "
              "argument '" +
              args[i].name + "' is " + describe(args[i].shape));
    slot = int64_t(i);
  }
  if (result->examplesArg < 0 || result->labelsArg < 0)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(mlirPath) +
                          ": the training step needs an f32 data argument "
                          "(examples) and an integer one (labels)");
  const TensorShape &examples = args[result->examplesArg].shape;
  result->info.batch_size = examples.dims[0];
  result->info.example_size = examples.numElements() / examples.dims[0];
  if (args[result->labelsArg].shape.dims[0] != result->info.batch_size)
    return makeStatus(
        MPT_STATUS_INVALID_ARGUMENT,
        std::string(mlirPath) + ": the labels argument holds " +
            std::to_string(args[result->labelsArg].shape.dims[0]) +
            " labels for a batch of " +
            std::to_string(result->info.batch_size));

  const std::vector<ResultInfo> &results = result->program->results();
  for (size_t r = 0; r < results.size(); ++r) {
    if (results[r].metric == "loss")
      result->lossResult = int64_t(r);
    else if (results[r].metric == "loss_scale")
      result->scaleResult = int64_t(r);
    else if (results[r].metric == "skipped")
      result->skippedResult = int64_t(r);
    else if (results[r].metric == "grad_zero")
      result->gradZeroResult = int64_t(r);
    else if (results[r].metric == "grad_nonfinite")
      result->gradNonFiniteResult = int64_t(r);
  }
  if (result->lossResult < 0 ||
      results[result->lossResult].shape.kind != ElementKind::F32)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(mlirPath) +
                          ": the training step must return an f32 metric "
                          "named \"loss\"");

  if (result->program->hasEval()) {
    const auto &evalArgs = result->program->evalArguments();
    for (size_t i = 0; i < evalArgs.size(); ++i) {
      if (!evalArgs[i].isData)
        continue;
      if (evalArgs[i].shape.kind != ElementKind::F32 ||
          evalArgs[i].shape.numElements() != examples.numElements())
        return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                          std::string(mlirPath) +
                              ": the eval step's data argument must hold a "
                              "batch of examples like the training step's (" +
                              describe(examples) + "), got " +
                              describe(evalArgs[i].shape));
      result->evalExamplesArg = int64_t(i);
    }
    const TensorShape &logits = result->program->evalResult();
    if (result->evalExamplesArg < 0 || logits.kind != ElementKind::F32 ||
        logits.dims.size() != 2 || logits.dims[0] != result->info.batch_size)
      return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                        std::string(mlirPath) +
                            ": the eval step must take one batch of examples "
                            "and return f32 logits of shape batch x classes, "
                            "got " +
                            describe(logits));
    result->info.num_classes = logits.dims[1];
  }
  *out = result.release();
  return nullptr;
}

void mpt_program_free(mpt_program_t program) { delete program; }

mpt_status_t mpt_program_batch_info(mpt_program_t program,
                                    mpt_batch_info_t *info) {
  if (!program || !info)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_program_batch_info: null argument");
  *info = program->info;
  return nullptr;
}

mpt_status_t mpt_session_create(mpt_program_t program, uint64_t seed,
                                mpt_session_t *out) {
  if (!program || !out)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_session_create: null argument");
  auto session = std::make_unique<mpt_session_s>();
  session->program = program;
  const std::vector<ArgInfo> &args = program->program->args();
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgInfo &arg = args[i];
    session->args.emplace_back(arg.shape.bytes());
    if (arg.role == Role::Data)
      continue;
    session->stateArgs.push_back(int64_t(i));
    uint8_t *data = session->args.back().get();
    int64_t count = arg.shape.numElements();
    switch (arg.init) {
    case InitKind::Zeros:
      break;
    case InitKind::Ones:
      for (int64_t e = 0; e < count; ++e)
        storeFloat(data, arg.shape.kind, e, 1.0f);
      break;
    case InitKind::Value:
      std::memcpy(data, arg.initValue.data(),
                  std::min(arg.initValue.size(), arg.shape.bytes()));
      break;
    case InitKind::KaimingUniform: {
      // Each tensor has its own stream, so adding a tensor leaves the others.
      Random random(seed * 0x100000001b3ull + i);
      double bound = 1.0 / std::sqrt(double(std::max<int64_t>(arg.fanIn, 1)));
      for (int64_t e = 0; e < count; ++e)
        storeFloat(data, arg.shape.kind, e,
                   float((2.0 * random.uniform() - 1.0) * bound));
      break;
    }
    }
  }
  // Working copies start as their master, rounded.
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].workingCopyOf < 0)
      continue;
    const ArgInfo &master = args[args[i].workingCopyOf];
    for (int64_t e = 0, n = args[i].shape.numElements(); e < n; ++e)
      storeFloat(session->args[i].get(), args[i].shape.kind, e,
                 loadFloat(session->args[args[i].workingCopyOf].get(),
                           master.shape.kind, e));
  }
  for (const ResultInfo &result : program->program->results())
    session->results.emplace_back(result.shape.bytes());
  if (program->program->hasEval()) {
    for (const EvalArgInfo &arg : program->program->evalArguments())
      session->evalArgs.emplace_back(arg.isData ? arg.shape.bytes() : 0);
    session->logits =
        std::make_unique<Buffer>(program->program->evalResult().bytes());
  }
  *out = session.release();
  return nullptr;
}

void mpt_session_free(mpt_session_t session) { delete session; }

mpt_status_t mpt_session_step(mpt_session_t session, const float *examples,
                              const int32_t *labels,
                              mpt_step_metrics_t *metrics) {
  if (!session || !examples || !labels)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_session_step: null argument");
  mpt_program_s *program = session->program;
  const std::vector<ArgInfo> &args = program->program->args();
  int64_t batch = program->info.batch_size;
  std::memcpy(session->args[program->examplesArg].get(), examples,
              args[program->examplesArg].shape.bytes());
  uint8_t *labelData = session->args[program->labelsArg].get();
  if (args[program->labelsArg].shape.kind == ElementKind::I32)
    std::memcpy(labelData, labels, batch * sizeof(int32_t));
  else
    for (int64_t i = 0; i < batch; ++i)
      reinterpret_cast<int64_t *>(labelData)[i] = labels[i];

  std::vector<void *> buffers;
  for (Buffer &buffer : session->args)
    buffers.push_back(buffer.get());
  for (Buffer &buffer : session->results)
    buffers.push_back(buffer.get());
  std::string error;
  if (!program->program->runTrain(buffers, error))
    return makeStatus(MPT_STATUS_INTERNAL, "training step failed: " + error);

  // The next step reads what this one produced.
  const std::vector<ResultInfo> &results = program->program->results();
  for (size_t r = 0; r < results.size(); ++r)
    if (results[r].next >= 0)
      std::swap(session->args[results[r].next], session->results[r]);
  if (metrics) {
    metrics->loss = *reinterpret_cast<const float *>(
        session->results[program->lossResult].get());
    metrics->loss_scale =
        program->scaleResult >= 0
            ? *reinterpret_cast<const float *>(
                  session->results[program->scaleResult].get())
            : 1.0f;
    metrics->skipped = program->skippedResult >= 0 &&
                       session->results[program->skippedResult].get()[0] != 0;
    auto count = [&](int64_t result) {
      return result >= 0 ? *reinterpret_cast<const int64_t *>(
                               session->results[result].get())
                         : int64_t{-1};
    };
    metrics->grad_zero = count(program->gradZeroResult);
    metrics->grad_nonfinite = count(program->gradNonFiniteResult);
  }
  return nullptr;
}

mpt_status_t mpt_session_predict(mpt_session_t session, const float *examples,
                                 float *logits) {
  if (!session || !examples || !logits)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_session_predict: null argument");
  mpt_program_s *program = session->program;
  if (!program->program->hasEval())
    return makeStatus(MPT_STATUS_NOT_FOUND,
                      "the module has no function marked 'mpt.eval_step'");
  const auto &evalArgs = program->program->evalArguments();
  std::vector<void *> buffers;
  for (size_t i = 0; i < evalArgs.size(); ++i) {
    if (evalArgs[i].isData) {
      std::memcpy(session->evalArgs[i].get(), examples,
                  evalArgs[i].shape.bytes());
      buffers.push_back(session->evalArgs[i].get());
    } else {
      buffers.push_back(session->args[evalArgs[i].stateOf].get());
    }
  }
  buffers.push_back(session->logits->get());
  std::string error;
  if (!program->program->runEval(buffers, error))
    return makeStatus(MPT_STATUS_INTERNAL, "eval step failed: " + error);
  std::memcpy(logits, session->logits->get(), session->logits->bytes());
  return nullptr;
}

int64_t mpt_session_num_state(mpt_session_t session) {
  return int64_t(session->stateArgs.size());
}

const char *mpt_session_state_name(mpt_session_t session, int64_t index) {
  if (index < 0 || index >= int64_t(session->stateArgs.size()))
    return nullptr;
  return session->program->program->args()[session->stateArgs[index]]
      .name.c_str();
}

namespace {
/// The argument index of state tensor `name` holding `count` elements, or an
/// error naming what does not match.
mpt_status_t findState(mpt_session_t session, const char *name,
                       const void *values, int64_t count, const char *caller,
                       int64_t &index) {
  if (!session || !name || !values)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(caller) + ": null argument");
  index = -1;
  for (int64_t candidate : session->stateArgs)
    if (session->program->program->args()[candidate].name == name)
      index = candidate;
  if (index < 0)
    return makeStatus(MPT_STATUS_NOT_FOUND,
                      std::string("no parameter or state named '") + name +
                          "'");
  const TensorShape &shape = session->program->program->args()[index].shape;
  if (count != shape.numElements())
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string("'") + name + "' has " +
                          std::to_string(shape.numElements()) +
                          " elements, not " + std::to_string(count));
  return nullptr;
}
} // namespace

mpt_status_t mpt_session_read_state(mpt_session_t session, const char *name,
                                    float *values, int64_t count) {
  int64_t index;
  if (mpt_status_t status = findState(session, name, values, count,
                                      "mpt_session_read_state", index))
    return status;
  const TensorShape &shape = session->program->program->args()[index].shape;
  for (int64_t e = 0; e < count; ++e)
    values[e] = loadFloat(session->args[index].get(), shape.kind, e);
  return nullptr;
}

mpt_status_t mpt_session_write_state(mpt_session_t session, const char *name,
                                     const float *values, int64_t count) {
  int64_t index;
  if (mpt_status_t status = findState(session, name, values, count,
                                      "mpt_session_write_state", index))
    return status;
  const TensorShape &shape = session->program->program->args()[index].shape;
  for (int64_t e = 0; e < count; ++e)
    storeFloat(session->args[index].get(), shape.kind, e, values[e]);
  return nullptr;
}

static const char *const kCheckpointFormat = "mpt-checkpoint-1";

mpt_status_t mpt_session_save(mpt_session_t session, const char *path,
                              int64_t position) {
  if (!session || !path)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_session_save: null argument");
  std::vector<TensorRecord> tensors;
  for (int64_t index : session->stateArgs) {
    const ArgInfo &arg = session->program->program->args()[index];
    TensorRecord record;
    record.name = arg.name;
    record.dtype = elementName(arg.shape.kind);
    record.shape = arg.shape.dims;
    const uint8_t *data = session->args[index].get();
    record.data.assign(data, data + arg.shape.bytes());
    tensors.push_back(std::move(record));
  }
  std::map<std::string, std::string> metadata = {
      {"format", kCheckpointFormat}, {"position", std::to_string(position)}};
  std::string error;
  if (!writeSafetensors(path, tensors, metadata, error))
    return makeStatus(MPT_STATUS_INTERNAL, error);
  return nullptr;
}

mpt_status_t mpt_session_load(mpt_session_t session, const char *path,
                              int64_t *position) {
  if (!session || !path)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_session_load: null argument");
  std::vector<TensorRecord> tensors;
  std::map<std::string, std::string> metadata;
  std::string error;
  if (!readSafetensors(path, tensors, metadata, error))
    return makeStatus(MPT_STATUS_DATA_LOSS, error);
  auto format = metadata.find("format");
  auto savedPosition = metadata.find("position");
  if (format == metadata.end() || format->second != kCheckpointFormat ||
      savedPosition == metadata.end())
    return makeStatus(MPT_STATUS_DATA_LOSS,
                      std::string(path) +
                          ": not an mpt checkpoint (no \"format\": \"" +
                          kCheckpointFormat + "\" metadata)");
  // Check everything before changing anything.
  std::map<std::string, const TensorRecord *> byName;
  for (const TensorRecord &record : tensors)
    byName[record.name] = &record;
  for (int64_t index : session->stateArgs) {
    const ArgInfo &arg = session->program->program->args()[index];
    auto it = byName.find(arg.name);
    if (it == byName.end())
      return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                        std::string(path) + ": no tensor '" + arg.name +
                            "' (a checkpoint of another model or precision?)");
    const TensorRecord &record = *it->second;
    if (record.dtype != elementName(arg.shape.kind) ||
        record.shape != arg.shape.dims)
      return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                        std::string(path) + ": tensor '" + arg.name +
                            "' does not match the program's " +
                            describe(arg.shape));
  }
  if (byName.size() != session->stateArgs.size())
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(path) +
                          ": holds tensors the program does not have");
  char *end = nullptr;
  long long parsed = std::strtoll(savedPosition->second.c_str(), &end, 10);
  if (!end || *end != '\0')
    return makeStatus(MPT_STATUS_DATA_LOSS, std::string(path) +
                                                ": bad position metadata '" +
                                                savedPosition->second + "'");
  for (int64_t index : session->stateArgs) {
    const ArgInfo &arg = session->program->program->args()[index];
    const TensorRecord &record = *byName[arg.name];
    std::memcpy(session->args[index].get(), record.data.data(),
                record.data.size());
  }
  if (position)
    *position = parsed;
  return nullptr;
}

} // extern "C"
