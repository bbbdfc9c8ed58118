//===- Runtime.cpp - the mpt runtime C API ----------------------*- C++ -*-===//
//
// The C boundary: checks every argument, never lets an exception or a failed
// allocation escape, and turns problems into statuses that name their cause.
// Sessions keep their state in backend (device) memory and follow the step's
// signature; nothing here knows the model.
//
//===----------------------------------------------------------------------===//

#include "mpt/runtime.h"

#include "CpuIsa.h"
#include "Float16.h"
#include "ParallelFor.h"
#include "Program.h"
#include "Safetensors.h"
#include "mpt/Contract/Contract.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

using namespace mpt::runtime;

struct mpt_status_s {
  mpt_status_code_t code;
  std::string message;
};

namespace {

/// Returned when even a status cannot be allocated; mpt_status_free ignores
/// it.
mpt_status_s outOfMemoryStatus{MPT_STATUS_OUT_OF_MEMORY,
                               "out of memory (allocating a status)"};

mpt_status_t makeStatus(mpt_status_code_t code, std::string message) {
  mpt_status_t status = new (std::nothrow) mpt_status_s{code, {}};
  if (!status)
    return &outOfMemoryStatus;
  status->message = std::move(message);
  return status;
}

mpt_status_t nullArgument(const char *function, const char *argument) {
  return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                    std::string(function) + ": " + argument + " is NULL");
}

/// Runs `body`, turning a failed allocation into a status: the library is
/// built without exceptions, but the standard library's allocations may still
/// throw std::bad_alloc where exceptions are enabled; nothing crosses the C
/// boundary either way.
template <typename Body> mpt_status_t guarded(const char *function, Body body) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return makeStatus(MPT_STATUS_OUT_OF_MEMORY,
                      std::string(function) + ": out of memory");
  } catch (...) {
    return makeStatus(MPT_STATUS_INTERNAL,
                      std::string(function) + ": unexpected exception");
  }
#else
  (void)function;
  return body();
#endif
}

std::optional<ElementKind> toKind(mpt_dtype_t dtype) {
  switch (dtype) {
  case MPT_DTYPE_F32:
    return ElementKind::F32;
  case MPT_DTYPE_F16:
    return ElementKind::F16;
  case MPT_DTYPE_BF16:
    return ElementKind::BF16;
  case MPT_DTYPE_I64:
    return ElementKind::I64;
  case MPT_DTYPE_I32:
    return ElementKind::I32;
  case MPT_DTYPE_BOOL:
    return ElementKind::I1;
  }
  return std::nullopt;
}

mpt_dtype_t toDtype(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return MPT_DTYPE_F32;
  case ElementKind::F16:
    return MPT_DTYPE_F16;
  case ElementKind::BF16:
    return MPT_DTYPE_BF16;
  case ElementKind::I64:
    return MPT_DTYPE_I64;
  case ElementKind::I32:
    return MPT_DTYPE_I32;
  case ElementKind::I1:
    return MPT_DTYPE_BOOL;
  }
  return MPT_DTYPE_F32;
}

double loadValue(const uint8_t *data, ElementKind kind, int64_t i) {
  switch (kind) {
  case ElementKind::F32:
    return reinterpret_cast<const float *>(data)[i];
  case ElementKind::F16:
    return f16ToFloat(reinterpret_cast<const uint16_t *>(data)[i]);
  case ElementKind::BF16:
    return bf16ToFloat(reinterpret_cast<const uint16_t *>(data)[i]);
  case ElementKind::I64:
    return double(reinterpret_cast<const int64_t *>(data)[i]);
  case ElementKind::I32:
    return reinterpret_cast<const int32_t *>(data)[i];
  case ElementKind::I1:
    return data[i] ? 1.0 : 0.0;
  }
  return 0.0;
}

int64_t loadInteger(const uint8_t *data, ElementKind kind, int64_t i) {
  switch (kind) {
  case ElementKind::I64:
    return reinterpret_cast<const int64_t *>(data)[i];
  case ElementKind::I32:
    return reinterpret_cast<const int32_t *>(data)[i];
  case ElementKind::I1:
    return data[i] != 0;
  default:
    return int64_t(loadValue(data, kind, i));
  }
}

/// Stores a float into a float element (rounding to nearest even).
void storeFloat(uint8_t *data, ElementKind kind, int64_t i, double value) {
  switch (kind) {
  case ElementKind::F32:
    reinterpret_cast<float *>(data)[i] = float(value);
    return;
  case ElementKind::F16:
    reinterpret_cast<uint16_t *>(data)[i] = floatToF16(float(value));
    return;
  case ElementKind::BF16:
    reinterpret_cast<uint16_t *>(data)[i] = floatToBF16(float(value));
    return;
  default:
    return;
  }
}

/// The range of an integer element type.
std::pair<int64_t, int64_t> integerRange(ElementKind kind) {
  switch (kind) {
  case ElementKind::I32:
    return {std::numeric_limits<int32_t>::min(),
            std::numeric_limits<int32_t>::max()};
  case ElementKind::I1:
    return {0, 1};
  default:
    return {std::numeric_limits<int64_t>::min(),
            std::numeric_limits<int64_t>::max()};
  }
}

void storeInteger(uint8_t *data, ElementKind kind, int64_t i, int64_t value) {
  switch (kind) {
  case ElementKind::I64:
    reinterpret_cast<int64_t *>(data)[i] = value;
    return;
  case ElementKind::I32:
    reinterpret_cast<int32_t *>(data)[i] = int32_t(value);
    return;
  case ElementKind::I1:
    data[i] = value != 0;
    return;
  default:
    return;
  }
}

/// Converts `count` elements from `fromKind` to `toKind`: floats among
/// floats, integers among integers (checked against the target's range).
/// Returns an empty string or what does not convert.
std::string convert(const uint8_t *from, ElementKind fromKind, uint8_t *to,
                    ElementKind toKind, int64_t count) {
  if (fromKind == toKind) {
    std::memcpy(to, from, count * elementBytes(toKind));
    return {};
  }
  if (isFloatKind(fromKind) != isFloatKind(toKind))
    return std::string("cannot convert ") + elementName(fromKind) + " to " +
           elementName(toKind);
  bool fromAlignedF32 =
      fromKind == ElementKind::F32 &&
      reinterpret_cast<uintptr_t>(from) % alignof(float) == 0 &&
      reinterpret_cast<uintptr_t>(to) % alignof(uint16_t) == 0;
  if (fromAlignedF32 &&
      (toKind == ElementKind::F16 || toKind == ElementKind::BF16)) {
    roundFloats(reinterpret_cast<const float *>(from),
                reinterpret_cast<uint16_t *>(to), size_t(count),
                toKind == ElementKind::F16 ? HalfKind::F16 : HalfKind::BF16);
    return {};
  }
  if (isFloatKind(toKind)) {
    for (int64_t i = 0; i < count; ++i)
      storeFloat(to, toKind, i, loadValue(from, fromKind, i));
    return {};
  }
  auto [low, high] = integerRange(toKind);
  for (int64_t i = 0; i < count; ++i) {
    int64_t value = loadInteger(from, fromKind, i);
    if (value < low || value > high)
      return "value " + std::to_string(value) + " at index " +
             std::to_string(i) + " does not fit " + elementName(toKind);
    storeInteger(to, toKind, i, value);
  }
  return {};
}

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

/// Memory from the backend, given back to it with `release`.
template <void (Backend::*release)(void *)> class BackendMemory {
public:
  BackendMemory() = default;
  BackendMemory(Backend *backend, void *data, size_t bytes)
      : backend(backend), data(data), size(bytes) {}
  BackendMemory(BackendMemory &&other) noexcept { *this = std::move(other); }
  BackendMemory &operator=(BackendMemory &&other) noexcept {
    std::swap(backend, other.backend);
    std::swap(data, other.data);
    std::swap(size, other.size);
    return *this;
  }
  ~BackendMemory() {
    if (data)
      (backend->*release)(data);
  }
  void *get() const { return data; }
  size_t bytes() const { return size; }

private:
  Backend *backend = nullptr;
  void *data = nullptr;
  size_t size = 0;
};

/// One tensor in device memory.
using DeviceBuffer = BackendMemory<&Backend::deallocate>;
/// Host memory that copies may use while the host goes on (page-locked on a
/// GPU).
using StagingMemory = BackendMemory<&Backend::freeHost>;

/// Host memory for one tensor, allocated without aborting on failure.
class HostBuffer {
public:
  bool allocate(size_t bytes) {
    data.reset(static_cast<uint8_t *>(std::calloc(bytes ? bytes : 1, 1)));
    size = bytes;
    return data != nullptr;
  }
  uint8_t *get() const { return data.get(); }
  size_t bytes() const { return size; }

private:
  struct Free {
    void operator()(uint8_t *pointer) const { std::free(pointer); }
  };
  std::unique_ptr<uint8_t, Free> data;
  size_t size = 0;
};

mpt_status_t outOfHostMemory(const char *caller, const TensorShape &shape) {
  return makeStatus(MPT_STATUS_OUT_OF_MEMORY, std::string(caller) +
                                                  ": out of host memory for " +
                                                  shape.describe());
}

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

/// Where a step's metrics land, at fixed offsets, once its fence is reached.
struct StepMetricsLayout {
  static constexpr size_t loss = 0, lossScale = 4, skipped = 8, gradZero = 16,
                          gradNonFinite = 24, bytes = 32;
};

/// A step that ran or was queued and whose metrics were not read yet.
struct QueuedStep {
  StagingMemory metrics;
  uint64_t done = 0;
};

/// More than this many queued steps with unread metrics is a caller that
/// never reads them.
constexpr size_t kMaxStepsInFlight = 16;

/// What the C API shows of one tensor: its name and shape, with the storage
/// the returned info borrows.
struct PublicTensor {
  std::string name;
  TensorShape shape;
  int64_t classes = 0;
  int64_t index = -1; // argument or result index in its function
};

mpt_status_t fillInfo(const PublicTensor &tensor, mpt_tensor_info_t *info) {
  if (tensor.shape.dims.size() > MPT_MAX_RANK)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "'" + tensor.name + "' has rank " +
                          std::to_string(tensor.shape.dims.size()) +
                          ", more than MPT_MAX_RANK");
  std::memset(info, 0, sizeof(*info));
  info->name = tensor.name.c_str();
  info->dtype = toDtype(tensor.shape.kind);
  info->rank = int64_t(tensor.shape.dims.size());
  for (size_t d = 0; d < tensor.shape.dims.size(); ++d)
    info->shape[d] = tensor.shape.dims[d];
  info->num_elements = tensor.shape.numElements();
  info->num_bytes = tensor.shape.bytes();
  info->num_classes = tensor.classes;
  return nullptr;
}

} // namespace

/// The compiled program and its public views, shared by the handle and the
/// sessions created from it.
struct ProgramData {
  std::unique_ptr<Program> program;
  std::vector<PublicTensor> trainInputs, trainOutputs, evalInputs, evalOutputs,
      state;
  int64_t lossResult = -1, scaleResult = -1, skippedResult = -1;
  int64_t gradZeroResult = -1, gradNonFiniteResult = -1;

  const Signature &signature() const { return program->signature; }
  const std::vector<PublicTensor> &inputs(mpt_function_t function) const {
    return function == MPT_FUNCTION_EVAL ? evalInputs : trainInputs;
  }
  const std::vector<PublicTensor> &outputs(mpt_function_t function) const {
    return function == MPT_FUNCTION_EVAL ? evalOutputs : trainOutputs;
  }
};

struct mpt_program_s {
  std::shared_ptr<ProgramData> data;
};

struct mpt_session_s {
  std::shared_ptr<ProgramData> program;
  Backend *backend = nullptr;
  std::vector<DeviceBuffer> args, results, evalInputs, evalResults;
  std::vector<bool> trainBound, evalBound;
  /// Host copies of bound inputs on their way to the device, kept across
  /// steps: a batch of tens of MB allocated per step costs page faults.
  std::vector<InputStaging> trainStaging, evalStaging;
  /// Steps whose metrics were not read yet, oldest first, and metric buffers
  /// to reuse (page-locked memory is slow to allocate).
  std::deque<QueuedStep> queuedSteps;
  std::vector<StagingMemory> spareMetrics;
  bool evalRan = false, trainRan = false;
};

namespace {

bool isFunction(mpt_function_t function) {
  return function == MPT_FUNCTION_TRAIN || function == MPT_FUNCTION_EVAL;
}

mpt_status_t checkFunction(const ProgramData &program, mpt_function_t function,
                           const char *caller) {
  if (!isFunction(function))
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(caller) + ": unknown function " +
                          std::to_string(int(function)));
  if (function == MPT_FUNCTION_EVAL && !program.signature().hasEval())
    return makeStatus(MPT_STATUS_NOT_FOUND,
                      std::string(caller) +
                          ": the module has no function marked "
                          "'mpt.eval_step'");
  return nullptr;
}

/// Builds the public views of a freshly compiled program.
mpt_status_t describe(ProgramData &data, const std::string &path) {
  const Signature &signature = data.signature();
  for (size_t i = 0; i < signature.trainArgs.size(); ++i) {
    const ArgInfo &arg = signature.trainArgs[i];
    PublicTensor tensor{arg.name, arg.shape, arg.classes, int64_t(i)};
    if (arg.role == Role::Data)
      data.trainInputs.push_back(tensor);
    else if (arg.init != InitKind::Copy) // a working copy follows its master
      data.state.push_back(tensor);
  }
  for (size_t r = 0; r < signature.trainResults.size(); ++r) {
    const ResultInfo &result = signature.trainResults[r];
    if (result.metric.empty())
      continue;
    data.trainOutputs.push_back({result.metric, result.shape, 0, int64_t(r)});
    bool scalar = result.shape.numElements() == 1;
    auto expect = [&](const char *name, ElementKind kind, int64_t &slot) {
      if (result.metric == name && scalar && result.shape.kind == kind)
        slot = int64_t(r);
    };
    namespace metric = mpt::contract::metric;
    expect(metric::Loss, ElementKind::F32, data.lossResult);
    expect(metric::LossScale, ElementKind::F32, data.scaleResult);
    expect(metric::Skipped, ElementKind::I1, data.skippedResult);
    expect(metric::GradZero, ElementKind::I64, data.gradZeroResult);
    expect(metric::GradNonfinite, ElementKind::I64, data.gradNonFiniteResult);
  }
  for (size_t i = 0; i < signature.evalArgs.size(); ++i) {
    const EvalArgInfo &arg = signature.evalArgs[i];
    if (arg.stateOf < 0)
      data.evalInputs.push_back({arg.name, arg.shape, 0, int64_t(i)});
  }
  for (size_t r = 0; r < signature.evalResults.size(); ++r)
    data.evalOutputs.push_back({signature.evalResults[r].name,
                                signature.evalResults[r].shape, 0, int64_t(r)});
  for (const auto *list : {&data.trainInputs, &data.trainOutputs,
                           &data.evalInputs, &data.evalOutputs, &data.state})
    for (const PublicTensor &tensor : *list)
      if (tensor.shape.dims.size() > MPT_MAX_RANK)
        return makeStatus(MPT_STATUS_COMPILE_ERROR,
                          path + ": '" + tensor.name + "' has rank " +
                              std::to_string(tensor.shape.dims.size()) +
                              "; the C API holds at most " +
                              std::to_string(MPT_MAX_RANK));
  return nullptr;
}

const PublicTensor *findNamed(const std::vector<PublicTensor> &tensors,
                              const char *name) {
  for (const PublicTensor &tensor : tensors)
    if (tensor.name == name)
      return &tensor;
  return nullptr;
}

std::string namesOf(const std::vector<PublicTensor> &tensors) {
  std::string names;
  for (const PublicTensor &tensor : tensors)
    names += (names.empty() ? "'" : ", '") + tensor.name + "'";
  return names.empty() ? "none" : names;
}

const char *functionName(mpt_function_t function) {
  return function == MPT_FUNCTION_EVAL ? "eval step" : "training step";
}

/// Allocates one zeroed device buffer per shape; an empty one for a null
/// shape (a carried result, which the step writes into its argument).
mpt_status_t allocateAll(Backend *backend,
                         const std::vector<const TensorShape *> &shapes,
                         std::vector<DeviceBuffer> &buffers) {
  for (const TensorShape *shape : shapes) {
    if (!shape) {
      buffers.emplace_back();
      continue;
    }
    void *data = backend->allocate(shape->bytes());
    if (!data)
      return makeStatus(MPT_STATUS_OUT_OF_MEMORY,
                        "out of device memory allocating " + shape->describe());
    buffers.emplace_back(backend, data, shape->bytes());
  }
  return nullptr;
}

/// The initial host value of every parameter and state argument.
void initialize(const ArgInfo &arg, size_t index, uint64_t seed,
                HostBuffer &host) {
  int64_t count = arg.shape.numElements();
  auto store = [&](int64_t e, double value) {
    if (isFloatKind(arg.shape.kind))
      storeFloat(host.get(), arg.shape.kind, e, value);
    else
      storeInteger(host.get(), arg.shape.kind, e, int64_t(value));
  };
  switch (arg.init) {
  case InitKind::Zeros:
  case InitKind::Copy: // written from the master (writeWorkingCopies)
    return;
  case InitKind::Ones:
    for (int64_t e = 0; e < count; ++e)
      store(e, 1.0);
    return;
  case InitKind::Value:
    for (int64_t e = 0; e < count; ++e)
      store(e, arg.initValues[arg.initValues.size() == 1 ? 0 : e]);
    return;
  case InitKind::Uniform: {
    // Each tensor has its own stream, so adding a tensor leaves the others.
    Random random(seed * 0x100000001b3ull + index);
    for (int64_t e = 0; e < count; ++e)
      store(e, float((2.0 * random.uniform() - 1.0) * arg.bound));
    return;
  }
  }
}

/// Waits for the copies just queued, and the work before them, so that a
/// device failure is reported by the call that copied (before a checkpoint
/// is written, or values read), not by the session's next step.
mpt_status_t finishCopies(Backend &backend, const char *caller) {
  std::string error;
  if (backend.wait(backend.fence(), error))
    return nullptr;
  return makeStatus(MPT_STATUS_INTERNAL,
                    std::string(caller) + ": the device failed: " + error);
}

/// Rounds the master at train argument `master`, whose device buffer now
/// holds `values` (in its own type), into its persistent working copies, so
/// that the copies stay what the step that updates the master would write.
mpt_status_t writeWorkingCopies(mpt_session_t session, int64_t master,
                                const uint8_t *values, const char *caller) {
  const Signature &signature = session->program->signature();
  const ArgInfo &masterArg = signature.trainArgs[master];
  for (size_t i = 0; i < signature.trainArgs.size(); ++i) {
    const ArgInfo &copy = signature.trainArgs[i];
    if (copy.init != InitKind::Copy || copy.workingCopyOf != master)
      continue;
    HostBuffer rounded;
    if (!rounded.allocate(copy.shape.bytes()))
      return outOfHostMemory(caller, copy.shape);
    std::string error = convert(values, masterArg.shape.kind, rounded.get(),
                                copy.shape.kind, copy.shape.numElements());
    if (!error.empty() || masterArg.shape.dims != copy.shape.dims)
      return makeStatus(MPT_STATUS_INTERNAL, "working copy '" + copy.name +
                                                 "' of '" + masterArg.name +
                                                 "': " + error);
    session->backend->copyToDevice(session->args[i].get(), rounded.get(),
                                   rounded.bytes());
  }
  return nullptr;
}

std::vector<DeviceTensor> trainTensors(mpt_session_t session) {
  const Signature &signature = session->program->signature();
  std::vector<DeviceTensor> tensors;
  for (size_t i = 0; i < signature.trainArgs.size(); ++i)
    tensors.push_back({session->args[i].get(), &signature.trainArgs[i].shape});
  // A carried result is written into its argument's buffer.
  for (size_t r = 0; r < signature.trainResults.size(); ++r)
    if (signature.trainResults[r].next < 0)
      tensors.push_back(
          {session->results[r].get(), &signature.trainResults[r].shape});
  return tensors;
}

/// A state tensor by name with `count` elements, or an error saying which
/// does not match.
mpt_status_t findState(mpt_session_t session, const char *name,
                       const void *values, int64_t count, const char *caller,
                       const PublicTensor *&found) {
  if (!session)
    return nullArgument(caller, "session");
  if (!name)
    return nullArgument(caller, "name");
  if (!values)
    return nullArgument(caller, "values");
  found = findNamed(session->program->state, name);
  if (!found)
    return makeStatus(MPT_STATUS_NOT_FOUND,
                      std::string(caller) + ": no parameter or state named '" +
                          name + "'");
  if (count != found->shape.numElements())
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(caller) + ": '" + name + "' is " +
                          found->shape.describe() + " with " +
                          std::to_string(found->shape.numElements()) +
                          " elements, not " + std::to_string(count));
  return nullptr;
}

} // namespace

extern "C" {

mpt_status_code_t mpt_status_code(mpt_status_t status) {
  return status ? status->code : MPT_STATUS_OK;
}

const char *mpt_status_message(mpt_status_t status) {
  return status ? status->message.c_str() : "";
}

void mpt_status_free(mpt_status_t status) {
  if (status != &outOfMemoryStatus)
    delete status;
}

size_t mpt_dtype_size(mpt_dtype_t dtype) {
  std::optional<ElementKind> kind = toKind(dtype);
  return kind ? elementBytes(*kind) : 0;
}

const char *mpt_dtype_name(mpt_dtype_t dtype) {
  std::optional<ElementKind> kind = toKind(dtype);
  return kind ? elementName(*kind) : "";
}

int mpt_cpu_threads(void) { return mpt::runtime::cpuThreads(); }

const char *mpt_cpu_isa(void) {
  return mpt::runtime::maxCpuIsa() == mpt::runtime::CpuIsa::AVX2 ? "avx2"
                                                                 : "native";
}

void mpt_compile_options_init(mpt_compile_options_t *options) {
  if (!options)
    return;
  options->precision = MPT_PRECISION_FP32;
  options->device = MPT_DEVICE_CPU;
  options->loss_scale = MPT_LOSS_SCALE_AUTO;
  options->init_scale = mpt::loss_scale_defaults::kInitScale;
  options->growth_interval = mpt::loss_scale_defaults::kGrowthInterval;
  options->min_scale = mpt::loss_scale_defaults::kMinScale;
  options->max_scale = mpt::loss_scale_defaults::kMaxScale;
  options->dump_prefix = nullptr;
  options->cpu_kernels = 1;
  options->parallel_min_iterations = 65536;
  options->persistent_working_copies = -1;
}

/// The C API's compile options as the driver's, or the first invalid one.
static mpt_status_t toCompileOptions(const mpt_compile_options_t &options,
                                     CompileOptions &compile) {
  switch (options.precision) {
  case MPT_PRECISION_FP32:
    compile.computeType = mpt::ComputeType::F32;
    break;
  case MPT_PRECISION_F16:
    compile.computeType = mpt::ComputeType::F16;
    break;
  case MPT_PRECISION_BF16:
    compile.computeType = mpt::ComputeType::BF16;
    break;
  default:
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_program_compile: unknown precision " +
                          std::to_string(int(options.precision)));
  }
  switch (options.device) {
  case MPT_DEVICE_CPU:
    compile.device = Device::CPU;
    break;
  case MPT_DEVICE_CUDA:
    compile.device = Device::CUDA;
    break;
  default:
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_program_compile: unknown device " +
                          std::to_string(int(options.device)));
  }
  switch (options.loss_scale) {
  case MPT_LOSS_SCALE_AUTO:
    compile.lossScale = mpt::LossScaleMode::Auto;
    break;
  case MPT_LOSS_SCALE_DYNAMIC:
    compile.lossScale = mpt::LossScaleMode::Dynamic;
    break;
  case MPT_LOSS_SCALE_STATIC:
    compile.lossScale = mpt::LossScaleMode::Static;
    break;
  case MPT_LOSS_SCALE_NONE:
    compile.lossScale = mpt::LossScaleMode::None;
    break;
  default:
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_program_compile: unknown loss_scale " +
                          std::to_string(int(options.loss_scale)));
  }
  // mpt-loss-scaling checks the scaler's values, naming each.
  compile.initScale = options.init_scale;
  compile.growthInterval = options.growth_interval;
  compile.minScale = options.min_scale;
  compile.maxScale = options.max_scale;
  if (options.dump_prefix)
    compile.dumpPrefix = options.dump_prefix;
  compile.cpuKernels = options.cpu_kernels != 0;
  if (options.parallel_min_iterations < 0)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_program_compile: parallel_min_iterations must be "
                      "at least 0, not " +
                          std::to_string(options.parallel_min_iterations));
  compile.parallelMinIterations = options.parallel_min_iterations;
  switch (options.persistent_working_copies) {
  case -1:
    compile.persistentWorkingCopies = compile.device == Device::CUDA;
    break;
  case 0:
  case 1:
    compile.persistentWorkingCopies = options.persistent_working_copies;
    break;
  default:
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_program_compile: persistent_working_copies must "
                      "be -1, 0 or 1, not " +
                          std::to_string(options.persistent_working_copies));
  }
  return nullptr;
}

mpt_status_t mpt_program_compile(const char *mlirPath,
                                 const mpt_compile_options_t *options,
                                 mpt_program_t *out) {
  static const char *kCaller = "mpt_program_compile";
  if (!mlirPath)
    return nullArgument(kCaller, "mlir_path");
  if (!options)
    return nullArgument(kCaller, "options");
  if (!out)
    return nullArgument(kCaller, "program");
  *out = nullptr;
  return guarded(kCaller, [&]() -> mpt_status_t {
    CompileOptions compile;
    if (mpt_status_t status = toCompileOptions(*options, compile))
      return status;

    std::string error;
    if (compile.device == Device::CPU && !checkMaxCpuIsa(error))
      return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                        "mpt_program_compile: " + error);
    Program::Failure failure = Program::Failure::Invalid;
    auto data = std::make_shared<ProgramData>();
    data->program = Program::compile(mlirPath, compile, error, failure);
    if (!data->program) {
      mpt_status_code_t code = MPT_STATUS_COMPILE_ERROR;
      if (failure == Program::Failure::Unreadable)
        code = MPT_STATUS_NOT_FOUND;
      else if (failure == Program::Failure::DeviceUnavailable)
        code = MPT_STATUS_FAILED_PRECONDITION;
      return makeStatus(code, error);
    }
    if (mpt_status_t status = describe(*data, mlirPath))
      return status;
    *out = new mpt_program_s{std::move(data)};
    return nullptr;
  });
}

void mpt_program_free(mpt_program_t program) { delete program; }

int mpt_program_has_eval(mpt_program_t program) {
  return program && program->data->signature().hasEval();
}

int64_t mpt_program_num_inputs(mpt_program_t program, mpt_function_t function) {
  if (!program || !isFunction(function))
    return 0;
  return int64_t(program->data->inputs(function).size());
}

int64_t mpt_program_num_outputs(mpt_program_t program,
                                mpt_function_t function) {
  if (!program || !isFunction(function))
    return 0;
  return int64_t(program->data->outputs(function).size());
}

static mpt_status_t tensorInfo(mpt_program_t program, mpt_function_t function,
                               int64_t index, mpt_tensor_info_t *info,
                               bool input, const char *caller) {
  if (!program)
    return nullArgument(caller, "program");
  if (!info)
    return nullArgument(caller, "info");
  if (mpt_status_t status = checkFunction(*program->data, function, caller))
    return status;
  const std::vector<PublicTensor> &tensors =
      input ? program->data->inputs(function)
            : program->data->outputs(function);
  if (index < 0 || index >= int64_t(tensors.size()))
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(caller) + ": index " + std::to_string(index) +
                          " is outside the " + functionName(function) + "'s " +
                          std::to_string(tensors.size()) +
                          (input ? " inputs" : " outputs"));
  return fillInfo(tensors[index], info);
}

mpt_status_t mpt_program_input_info(mpt_program_t program,
                                    mpt_function_t function, int64_t index,
                                    mpt_tensor_info_t *info) {
  return tensorInfo(program, function, index, info, true,
                    "mpt_program_input_info");
}

mpt_status_t mpt_program_output_info(mpt_program_t program,
                                     mpt_function_t function, int64_t index,
                                     mpt_tensor_info_t *info) {
  return tensorInfo(program, function, index, info, false,
                    "mpt_program_output_info");
}

mpt_status_t mpt_session_create(mpt_program_t program, uint64_t seed,
                                mpt_session_t *out) {
  static const char *kCaller = "mpt_session_create";
  if (!program)
    return nullArgument(kCaller, "program");
  if (!out)
    return nullArgument(kCaller, "session");
  *out = nullptr;
  return guarded(kCaller, [&]() -> mpt_status_t {
    auto session = std::make_unique<mpt_session_s>();
    session->program = program->data;
    Backend *backend = program->data->program->backend.get();
    session->backend = backend;
    const Signature &signature = program->data->signature();

    std::vector<const TensorShape *> argShapes, resultShapes, evalInputShapes,
        evalResultShapes;
    for (const ArgInfo &arg : signature.trainArgs)
      argShapes.push_back(&arg.shape);
    for (const ResultInfo &result : signature.trainResults)
      resultShapes.push_back(result.next < 0 ? &result.shape : nullptr);
    for (const EvalArgInfo &arg : signature.evalArgs)
      evalInputShapes.push_back(&arg.shape);
    for (const NamedTensor &result : signature.evalResults)
      evalResultShapes.push_back(&result.shape);
    // Eval arguments that read state use the session's state buffers; the
    // extra buffers they get here stay unused and cost one shape each.
    for (auto [shapes, buffers] :
         {std::pair(&argShapes, &session->args),
          std::pair(&resultShapes, &session->results),
          std::pair(&evalInputShapes, &session->evalInputs),
          std::pair(&evalResultShapes, &session->evalResults)})
      if (mpt_status_t status = allocateAll(backend, *shapes, *buffers))
        return status;
    session->trainBound.assign(signature.trainArgs.size(), false);
    session->evalBound.assign(signature.evalArgs.size(), false);

    // State from its initializer; working copies from their master.
    for (size_t i = 0; i < signature.trainArgs.size(); ++i) {
      const ArgInfo &arg = signature.trainArgs[i];
      if (arg.role == Role::Data || arg.init == InitKind::Copy)
        continue;
      HostBuffer host;
      if (!host.allocate(arg.shape.bytes()))
        return outOfHostMemory(kCaller, arg.shape);
      initialize(arg, i, seed, host);
      backend->copyToDevice(session->args[i].get(), host.get(), host.bytes());
      if (mpt_status_t status =
              writeWorkingCopies(session.get(), i, host.get(), kCaller))
        return status;
    }
    if (mpt_status_t status = finishCopies(*backend, kCaller))
      return status;
    *out = session.release();
    return nullptr;
  });
}

void mpt_session_free(mpt_session_t session) { delete session; }

namespace {

/// The input `name` of `function`, or NOT_FOUND listing its inputs.
mpt_status_t findInput(const ProgramData &program, mpt_function_t function,
                       const char *name, const char *caller,
                       const PublicTensor *&input) {
  const std::vector<PublicTensor> &inputs = program.inputs(function);
  input = findNamed(inputs, name);
  if (input)
    return nullptr;
  return makeStatus(MPT_STATUS_NOT_FOUND,
                    std::string(caller) + ": the " + functionName(function) +
                        " has no input named '" + name + "'; its inputs are " +
                        namesOf(inputs));
}

InputStaging &stagingOf(mpt_session_s &session, mpt_function_t function,
                        const PublicTensor &input) {
  std::vector<InputStaging> &staging = function == MPT_FUNCTION_EVAL
                                           ? session.evalStaging
                                           : session.trainStaging;
  if (staging.size() <= size_t(input.index))
    staging.resize(input.index + 1);
  return staging[input.index];
}

/// Takes the slot the next batch of `input` goes through, once the device no
/// longer copies out of it; an error names `caller` and the input.
mpt_status_t takeStagingSlot(Backend &backend, InputStaging &staging,
                             const PublicTensor &input, const char *caller,
                             InputStaging::Slot *&slot) {
  slot = &staging.slots[staging.next];
  staging.next ^= 1;
  staging.lent = -1;
  std::string error;
  if (!backend.wait(slot->copied, error))
    return makeStatus(MPT_STATUS_INTERNAL,
                      std::string(caller) + ": input '" + input.name +
                          "': an earlier step or copy failed: " + error);
  size_t bytes = input.shape.bytes();
  if (slot->memory.bytes() != bytes || !slot->memory.get()) {
    slot->memory = StagingMemory(&backend, backend.allocateHost(bytes), bytes);
    if (!slot->memory.get())
      return outOfHostMemory(caller, input.shape);
  }
  return nullptr;
}

} // namespace

mpt_status_t mpt_session_bind_input(mpt_session_t session,
                                    mpt_function_t function, const char *name,
                                    mpt_dtype_t dtype, const void *data,
                                    size_t bytes) {
  static const char *kCaller = "mpt_session_bind_input";
  if (!session)
    return nullArgument(kCaller, "session");
  if (!name)
    return nullArgument(kCaller, "name");
  if (!data)
    return nullArgument(kCaller, "data");
  if (mpt_status_t status = checkFunction(*session->program, function, kCaller))
    return status;
  std::optional<ElementKind> kind = toKind(dtype);
  if (!kind)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(kCaller) + ": unknown dtype " +
                          std::to_string(int(dtype)));
  const PublicTensor *input = nullptr;
  if (mpt_status_t status =
          findInput(*session->program, function, name, kCaller, input))
    return status;
  int64_t count = input->shape.numElements();
  if (bytes != size_t(count) * elementBytes(*kind))
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(kCaller) + ": input '" + name + "' is " +
                          input->shape.describe() + ": " +
                          std::to_string(count) + " " + elementName(*kind) +
                          " elements are " +
                          std::to_string(count * elementBytes(*kind)) +
                          " bytes, got " + std::to_string(bytes));
  return guarded(kCaller, [&]() -> mpt_status_t {
    const auto *source = static_cast<const uint8_t *>(data);
    if (input->classes > 0) {
      if (isFloatKind(*kind))
        return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                          std::string(kCaller) + ": input '" + name +
                              "' holds class labels; bind integers, not " +
                              elementName(*kind));
      for (int64_t i = 0; i < count; ++i) {
        int64_t label = loadInteger(source, *kind, i);
        if (label < 0 || label >= input->classes)
          return makeStatus(
              MPT_STATUS_INVALID_ARGUMENT,
              std::string(kCaller) + ": input '" + name + "': label " +
                  std::to_string(label) + " at index " + std::to_string(i) +
                  " is outside [0, " + std::to_string(input->classes) +
                  "): the loss has " + std::to_string(input->classes) +
                  " classes");
      }
    }
    bool eval = function == MPT_FUNCTION_EVAL;
    DeviceBuffer &buffer =
        eval ? session->evalInputs[input->index] : session->args[input->index];
    size_t bytes = input->shape.bytes();
    // Same kind: a copy that cannot fail, straight into memory the host can
    // write. A conversion can fail midway, so it goes through staging and
    // leaves the bound input as it was.
    if (void *direct = session->backend->hostWritable(buffer.get());
        direct && *kind == input->shape.kind) {
      std::memcpy(direct, source, bytes);
    } else {
      InputStaging &inputStaging = stagingOf(*session, function, *input);
      InputStaging::Slot *slot = nullptr;
      std::string error;
      // The batch was written into the slot mpt_session_input_staging lent.
      if (inputStaging.lent >= 0 && *kind == input->shape.kind &&
          source == inputStaging.slots[inputStaging.lent].memory.get()) {
        slot = &inputStaging.slots[inputStaging.lent];
        inputStaging.lent = -1;
      } else {
        if (mpt_status_t status = takeStagingSlot(
                *session->backend, inputStaging, *input, kCaller, slot))
          return status;
        error =
            convert(source, *kind, static_cast<uint8_t *>(slot->memory.get()),
                    input->shape.kind, count);
        if (!error.empty())
          return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                            std::string(kCaller) + ": input '" + name +
                                "' is " + input->shape.describe() + ": " +
                                error);
      }
      session->backend->copyToDevice(buffer.get(), slot->memory.get(), bytes);
      slot->copied = session->backend->fence();
    }
    (eval ? session->evalBound : session->trainBound)[input->index] = true;
    return nullptr;
  });
}

mpt_status_t mpt_session_input_staging(mpt_session_t session,
                                       mpt_function_t function,
                                       const char *name, void **data,
                                       size_t *bytes) {
  static const char *kCaller = "mpt_session_input_staging";
  if (!session)
    return nullArgument(kCaller, "session");
  if (!name)
    return nullArgument(kCaller, "name");
  if (!data)
    return nullArgument(kCaller, "data");
  if (!bytes)
    return nullArgument(kCaller, "bytes");
  *data = nullptr;
  *bytes = 0;
  if (mpt_status_t status = checkFunction(*session->program, function, kCaller))
    return status;
  const PublicTensor *input = nullptr;
  if (mpt_status_t status =
          findInput(*session->program, function, name, kCaller, input))
    return status;
  return guarded(kCaller, [&]() -> mpt_status_t {
    InputStaging &inputStaging = stagingOf(*session, function, *input);
    int index = inputStaging.next;
    InputStaging::Slot *slot = nullptr;
    if (mpt_status_t status = takeStagingSlot(*session->backend, inputStaging,
                                              *input, kCaller, slot))
      return status;
    inputStaging.lent = index;
    *data = slot->memory.get();
    *bytes = slot->memory.bytes();
    return nullptr;
  });
}

namespace {

/// Runs or queues one training step and queues the copies of its metrics.
mpt_status_t queueStep(mpt_session_t session, const char *caller) {
  for (const PublicTensor &input : session->program->trainInputs)
    if (!session->trainBound[input.index])
      return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                        std::string(caller) + ": input '" + input.name +
                            "' of the training step is not bound");
  if (session->queuedSteps.size() >= kMaxStepsInFlight)
    return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                      std::string(caller) + ": " +
                          std::to_string(kMaxStepsInFlight) +
                          " queued steps have unread metrics; read them with "
                          "mpt_session_step_metrics first");
  return guarded(caller, [&]() -> mpt_status_t {
    const ProgramData &program = *session->program;
    const Signature &signature = program.signature();
    Backend &backend = *session->backend;
    QueuedStep queued;
    if (!session->spareMetrics.empty()) {
      queued.metrics = std::move(session->spareMetrics.back());
      session->spareMetrics.pop_back();
    } else if (queued.metrics = StagingMemory(
                   &backend, backend.allocateHost(StepMetricsLayout::bytes),
                   StepMetricsLayout::bytes);
               !queued.metrics.get()) {
      return makeStatus(MPT_STATUS_OUT_OF_MEMORY,
                        std::string(caller) +
                            ": out of host memory for the step's metrics");
    }
    std::string error;
    if (!backend.run(signature.trainFunction, trainTensors(session), error)) {
      session->spareMetrics.push_back(std::move(queued.metrics));
      return makeStatus(MPT_STATUS_INTERNAL,
                        "the training step failed: " + error);
    }
    session->trainRan = true;
    // The copies are queued before the next step can overwrite the results.
    auto copyOut = [&](int64_t result, size_t offset, size_t bytes) {
      if (result >= 0)
        backend.copyToHostAsync(static_cast<uint8_t *>(queued.metrics.get()) +
                                    offset,
                                session->results[result].get(), bytes);
    };
    copyOut(program.lossResult, StepMetricsLayout::loss, sizeof(float));
    copyOut(program.scaleResult, StepMetricsLayout::lossScale, sizeof(float));
    copyOut(program.skippedResult, StepMetricsLayout::skipped, 1);
    copyOut(program.gradZeroResult, StepMetricsLayout::gradZero,
            sizeof(int64_t));
    copyOut(program.gradNonFiniteResult, StepMetricsLayout::gradNonFinite,
            sizeof(int64_t));
    queued.done = backend.fence();
    session->queuedSteps.push_back(std::move(queued));
    return nullptr;
  });
}

/// Waits for the oldest queued step and takes its metrics.
mpt_status_t takeStepMetrics(mpt_session_t session, const char *caller,
                             mpt_step_metrics_t *metrics) {
  if (session->queuedSteps.empty())
    return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                      std::string(caller) +
                          ": no queued step has unread metrics");
  QueuedStep queued = std::move(session->queuedSteps.front());
  session->queuedSteps.pop_front();
  std::string error;
  bool ok = session->backend->wait(queued.done, error);
  const ProgramData &program = *session->program;
  const auto *block = static_cast<const uint8_t *>(queued.metrics.get());
  auto scalar = [&](int64_t result, size_t offset, auto fallback) {
    using T = decltype(fallback);
    if (result < 0)
      return fallback;
    T value;
    std::memcpy(&value, block + offset, sizeof(T));
    return value;
  };
  if (metrics) {
    metrics->loss =
        scalar(program.lossResult, StepMetricsLayout::loss, float(NAN));
    metrics->loss_scale =
        scalar(program.scaleResult, StepMetricsLayout::lossScale, 1.0f);
    metrics->skipped = scalar(program.skippedResult, StepMetricsLayout::skipped,
                              uint8_t(0)) != 0;
    metrics->grad_zero = scalar(program.gradZeroResult,
                                StepMetricsLayout::gradZero, int64_t(-1));
    metrics->grad_nonfinite =
        scalar(program.gradNonFiniteResult, StepMetricsLayout::gradNonFinite,
               int64_t(-1));
  }
  session->spareMetrics.push_back(std::move(queued.metrics));
  if (!ok)
    return makeStatus(MPT_STATUS_INTERNAL,
                      std::string(caller) +
                          ": the training step failed: " + error);
  return nullptr;
}

} // namespace

mpt_status_t mpt_session_step(mpt_session_t session,
                              mpt_step_metrics_t *metrics) {
  static const char *kCaller = "mpt_session_step";
  if (!session)
    return nullArgument(kCaller, "session");
  if (!session->queuedSteps.empty())
    return makeStatus(
        MPT_STATUS_FAILED_PRECONDITION,
        std::string(kCaller) + ": " +
            std::to_string(session->queuedSteps.size()) +
            " steps queued by mpt_session_step_async have unread metrics; "
            "read them with mpt_session_step_metrics first");
  if (mpt_status_t status = queueStep(session, kCaller))
    return status;
  return takeStepMetrics(session, kCaller, metrics);
}

mpt_status_t mpt_session_step_async(mpt_session_t session) {
  static const char *kCaller = "mpt_session_step_async";
  if (!session)
    return nullArgument(kCaller, "session");
  return queueStep(session, kCaller);
}

mpt_status_t mpt_session_step_metrics(mpt_session_t session,
                                      mpt_step_metrics_t *metrics) {
  static const char *kCaller = "mpt_session_step_metrics";
  if (!session)
    return nullArgument(kCaller, "session");
  if (!metrics)
    return nullArgument(kCaller, "metrics");
  return takeStepMetrics(session, kCaller, metrics);
}

int64_t mpt_session_steps_in_flight(mpt_session_t session) {
  return session ? int64_t(session->queuedSteps.size()) : 0;
}

mpt_status_t mpt_session_eval(mpt_session_t session) {
  static const char *kCaller = "mpt_session_eval";
  if (!session)
    return nullArgument(kCaller, "session");
  if (mpt_status_t status =
          checkFunction(*session->program, MPT_FUNCTION_EVAL, kCaller))
    return status;
  for (const PublicTensor &input : session->program->evalInputs)
    if (!session->evalBound[input.index])
      return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                        std::string(kCaller) + ": input '" + input.name +
                            "' of the eval step is not bound");
  return guarded(kCaller, [&]() -> mpt_status_t {
    const Signature &signature = session->program->signature();
    std::vector<DeviceTensor> tensors;
    for (size_t i = 0; i < signature.evalArgs.size(); ++i) {
      const EvalArgInfo &arg = signature.evalArgs[i];
      void *data = arg.stateOf >= 0 ? session->args[arg.stateOf].get()
                                    : session->evalInputs[i].get();
      tensors.push_back({data, &arg.shape});
    }
    for (size_t r = 0; r < signature.evalResults.size(); ++r)
      tensors.push_back(
          {session->evalResults[r].get(), &signature.evalResults[r].shape});
    std::string error;
    if (!session->backend->run(signature.evalFunction, tensors, error))
      return makeStatus(MPT_STATUS_INTERNAL, "the eval step failed: " + error);
    session->evalRan = true;
    return nullptr;
  });
}

mpt_status_t mpt_session_read_output(mpt_session_t session,
                                     mpt_function_t function, const char *name,
                                     mpt_dtype_t dtype, void *data,
                                     size_t bytes) {
  static const char *kCaller = "mpt_session_read_output";
  if (!session)
    return nullArgument(kCaller, "session");
  if (!name)
    return nullArgument(kCaller, "name");
  if (!data)
    return nullArgument(kCaller, "data");
  if (mpt_status_t status = checkFunction(*session->program, function, kCaller))
    return status;
  std::optional<ElementKind> kind = toKind(dtype);
  if (!kind)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(kCaller) + ": unknown dtype " +
                          std::to_string(int(dtype)));
  const std::vector<PublicTensor> &outputs =
      session->program->outputs(function);
  const PublicTensor *output = findNamed(outputs, name);
  if (!output)
    return makeStatus(MPT_STATUS_NOT_FOUND,
                      std::string(kCaller) + ": the " + functionName(function) +
                          " has no output named '" + name +
                          "'; its outputs are " + namesOf(outputs));
  bool eval = function == MPT_FUNCTION_EVAL;
  if (!(eval ? session->evalRan : session->trainRan))
    return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                      std::string(kCaller) + ": the " + functionName(function) +
                          " has not run yet");
  int64_t count = output->shape.numElements();
  if (bytes != size_t(count) * elementBytes(*kind))
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(kCaller) + ": output '" + name + "' is " +
                          output->shape.describe() + ": " +
                          std::to_string(count) + " " + elementName(*kind) +
                          " elements are " +
                          std::to_string(count * elementBytes(*kind)) +
                          " bytes, got " + std::to_string(bytes));
  return guarded(kCaller, [&]() -> mpt_status_t {
    const DeviceBuffer &buffer = eval ? session->evalResults[output->index]
                                      : session->results[output->index];
    HostBuffer host;
    if (!host.allocate(output->shape.bytes()))
      return outOfHostMemory(kCaller, output->shape);
    session->backend->copyToHost(host.get(), buffer.get(), host.bytes());
    if (mpt_status_t status = finishCopies(*session->backend, kCaller))
      return status;
    std::string error = convert(host.get(), output->shape.kind,
                                static_cast<uint8_t *>(data), *kind, count);
    if (!error.empty())
      return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                        std::string(kCaller) + ": output '" + name + "' is " +
                            output->shape.describe() + ": " + error);
    return nullptr;
  });
}

int64_t mpt_session_num_state(mpt_session_t session) {
  return session ? int64_t(session->program->state.size()) : 0;
}

mpt_status_t mpt_session_state_info(mpt_session_t session, int64_t index,
                                    mpt_tensor_info_t *info) {
  static const char *kCaller = "mpt_session_state_info";
  if (!session)
    return nullArgument(kCaller, "session");
  if (!info)
    return nullArgument(kCaller, "info");
  const std::vector<PublicTensor> &state = session->program->state;
  if (index < 0 || index >= int64_t(state.size()))
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      std::string(kCaller) + ": index " +
                          std::to_string(index) + " is outside the " +
                          std::to_string(state.size()) + " state tensors");
  return fillInfo(state[index], info);
}

mpt_status_t mpt_session_read_state(mpt_session_t session, const char *name,
                                    float *values, int64_t count) {
  static const char *kCaller = "mpt_session_read_state";
  const PublicTensor *state = nullptr;
  if (mpt_status_t status =
          findState(session, name, values, count, kCaller, state))
    return status;
  return guarded(kCaller, [&]() -> mpt_status_t {
    HostBuffer host;
    if (!host.allocate(state->shape.bytes()))
      return outOfHostMemory(kCaller, state->shape);
    session->backend->copyToHost(host.get(), session->args[state->index].get(),
                                 host.bytes());
    if (mpt_status_t status = finishCopies(*session->backend, kCaller))
      return status;
    for (int64_t e = 0; e < count; ++e)
      values[e] = float(loadValue(host.get(), state->shape.kind, e));
    return nullptr;
  });
}

mpt_status_t mpt_session_write_state(mpt_session_t session, const char *name,
                                     const float *values, int64_t count) {
  static const char *kCaller = "mpt_session_write_state";
  const PublicTensor *state = nullptr;
  if (mpt_status_t status =
          findState(session, name, values, count, kCaller, state))
    return status;
  return guarded(kCaller, [&]() -> mpt_status_t {
    ElementKind kind = state->shape.kind;
    HostBuffer host;
    if (!host.allocate(state->shape.bytes()))
      return outOfHostMemory(kCaller, state->shape);
    if (isFloatKind(kind)) {
      for (int64_t e = 0; e < count; ++e)
        storeFloat(host.get(), kind, e, values[e]);
    } else {
      auto [low, high] = integerRange(kind);
      for (int64_t e = 0; e < count; ++e) {
        double value = values[e];
        // double(high) + 1 is exact: 2^63, 2^31 or 2, the first value past.
        if (!std::isfinite(value) || value != std::trunc(value) ||
            value < double(low) || value >= double(high) + 1.0)
          return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                            std::string(kCaller) + ": '" + name + "' is " +
                                state->shape.describe() + "; value " +
                                std::to_string(values[e]) + " at index " +
                                std::to_string(e) + " is not an integer in [" +
                                std::to_string(low) + ", " +
                                std::to_string(high) + "]");
        storeInteger(host.get(), kind, e, int64_t(value));
      }
    }
    session->backend->copyToDevice(session->args[state->index].get(),
                                   host.get(), host.bytes());
    if (mpt_status_t status =
            writeWorkingCopies(session, state->index, host.get(), kCaller))
      return status;
    return finishCopies(*session->backend, kCaller);
  });
}

static const char *const kCheckpointFormat = mpt::contract::format::Checkpoint;

mpt_status_t mpt_session_save(mpt_session_t session, const char *path,
                              int64_t position) {
  static const char *kCaller = "mpt_session_save";
  if (!session)
    return nullArgument(kCaller, "session");
  if (!path)
    return nullArgument(kCaller, "path");
  return guarded(kCaller, [&]() -> mpt_status_t {
    std::vector<TensorRecord> tensors;
    for (const PublicTensor &state : session->program->state) {
      TensorRecord record;
      record.name = state.name;
      record.dtype = elementName(state.shape.kind);
      record.shape = state.shape.dims;
      record.data.resize(state.shape.bytes());
      session->backend->copyToHost(record.data.data(),
                                   session->args[state.index].get(),
                                   record.data.size());
      tensors.push_back(std::move(record));
    }
    // A failed copy must not become a checkpoint.
    if (mpt_status_t status = finishCopies(*session->backend, kCaller))
      return status;
    std::map<std::string, std::string> metadata = {
        {mpt::contract::key::Format, kCheckpointFormat},
        {mpt::contract::key::Position, std::to_string(position)}};
    std::string error;
    if (!writeSafetensors(path, tensors, metadata, error))
      return makeStatus(MPT_STATUS_IO_ERROR, error);
    return nullptr;
  });
}

mpt_status_t mpt_session_load(mpt_session_t session, const char *path,
                              int64_t *position) {
  static const char *kCaller = "mpt_session_load";
  if (!session)
    return nullArgument(kCaller, "session");
  if (!path)
    return nullArgument(kCaller, "path");
  return guarded(kCaller, [&]() -> mpt_status_t {
    std::vector<TensorRecord> tensors;
    std::map<std::string, std::string> metadata;
    std::string error;
    if (!readSafetensors(path, tensors, metadata, error))
      return makeStatus(MPT_STATUS_DATA_LOSS, error);
    auto format = metadata.find(mpt::contract::key::Format);
    auto savedPosition = metadata.find(mpt::contract::key::Position);
    if (format == metadata.end() || format->second != kCheckpointFormat ||
        savedPosition == metadata.end())
      return makeStatus(MPT_STATUS_DATA_LOSS,
                        std::string(path) +
                            ": not an mpt checkpoint (no \"format\": \"" +
                            kCheckpointFormat + "\" metadata)");
    // Check everything before changing anything.
    const std::string &positionText = savedPosition->second;
    char *end = nullptr;
    errno = 0;
    long long parsed = std::strtoll(positionText.c_str(), &end, 10);
    if (positionText.empty() || !end || *end != '\0' || errno == ERANGE ||
        parsed < 0)
      return makeStatus(MPT_STATUS_DATA_LOSS,
                        std::string(path) + ": bad \"position\" metadata '" +
                            positionText +
                            "' (expected a non-negative integer)");
    std::map<std::string, const TensorRecord *> byName;
    for (const TensorRecord &record : tensors)
      byName[record.name] = &record;
    const std::vector<PublicTensor> &state = session->program->state;
    for (const PublicTensor &tensor : state) {
      auto it = byName.find(tensor.name);
      if (it == byName.end())
        return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                          std::string(path) + ": no tensor '" + tensor.name +
                              "' (a checkpoint of another model or "
                              "precision?)");
      const TensorRecord &record = *it->second;
      if (record.dtype != elementName(tensor.shape.kind) ||
          record.shape != tensor.shape.dims)
        return makeStatus(
            MPT_STATUS_INVALID_ARGUMENT,
            std::string(path) + ": tensor '" + tensor.name + "' is " +
                TensorShape{
                    elementKindNamed(record.dtype).value_or(ElementKind::F32),
                    record.shape}
                    .describe() +
                ", the program's is " + tensor.shape.describe());
    }
    if (byName.size() != state.size())
      return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                        std::string(path) +
                            ": holds tensors the program does not have");
    for (const PublicTensor &tensor : state) {
      const TensorRecord &record = *byName[tensor.name];
      session->backend->copyToDevice(session->args[tensor.index].get(),
                                     record.data.data(), record.data.size());
      if (mpt_status_t status = writeWorkingCopies(session, tensor.index,
                                                   record.data.data(), kCaller))
        return status;
    }
    if (mpt_status_t status = finishCopies(*session->backend, kCaller))
      return status;
    if (position)
      *position = parsed;
    return nullptr;
  });
}

} // extern "C"
