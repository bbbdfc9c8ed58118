//===- ProgramApi.cpp - the C API's programs --------------------*- C++ -*-===//
//
// Compiling a module for a device, and the public views of its functions'
// inputs and outputs.
//
//===----------------------------------------------------------------------===//

#include "ParallelFor.h"
#include "api/Handles.h"
#include "cpu/CpuIsa.h"
#include "mpt/Contract/Contract.h"
#include "mpt/comm.h"

#include <string>

using namespace mpt::runtime;
using namespace mpt::runtime::api;

namespace mpt::runtime::api {

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

const char *functionName(mpt_function_t function) {
  return function == MPT_FUNCTION_EVAL ? "eval step" : "training step";
}

} // namespace mpt::runtime::api

namespace {

/// What each of the training step's session buffers holds; the f32
/// parameters of a `mixed` step are its masters.
mpt_memory_bytes_t sessionMemory(const Signature &signature, bool mixed) {
  mpt_memory_bytes_t memory{};
  for (const ArgInfo &arg : signature.trainArgs) {
    int64_t bytes = arg.shape.bytes();
    if (arg.role == Role::Data)
      memory.data += bytes;
    else if (arg.role == Role::Param)
      (mixed && arg.shape.kind == ElementKind::F32 ? memory.masters
                                                   : memory.parameters) +=
          bytes;
    else if (arg.workingCopyOf >= 0)
      memory.working_copies += bytes;
    else if (arg.optimizerStateOf >= 0)
      memory.optimizer_state += bytes;
    else
      memory.other_state += bytes;
  }
  for (const ResultInfo &result : signature.trainResults)
    if (result.next < 0)
      memory.data += result.shape.bytes();
  memory.total = memory.parameters + memory.masters + memory.working_copies +
                 memory.optimizer_state + memory.other_state + memory.data;
  return memory;
}

/// Builds the public views of a freshly compiled program.
mpt_status_t describe(ProgramData &data, const std::string &path, bool mixed) {
  const Signature &signature = data.signature();
  data.sessionMemory = sessionMemory(signature, mixed);
  for (size_t i = 0; i < signature.trainArgs.size(); ++i) {
    const ArgInfo &arg = signature.trainArgs[i];
    PublicTensor tensor{arg.name,
                        arg.shape,
                        arg.classes,
                        int64_t(i),
                        arg.role == Role::Param,
                        arg.tableRows,
                        arg.ignoredLabel};
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
    // Whether mpt_step_metrics_t holds this metric.
    bool held = false;
    auto expect = [&](const char *name, ElementKind kind, int64_t &slot) {
      if (result.metric == name && scalar && result.shape.kind == kind) {
        slot = int64_t(r);
        held = true;
      }
    };
    namespace metric = mpt::contract::metric;
    expect(metric::Loss, ElementKind::F32, data.lossResult);
    expect(metric::LossScale, ElementKind::F32, data.scaleResult);
    expect(metric::Skipped, ElementKind::I1, data.skippedResult);
    expect(metric::GradZero, ElementKind::I64, data.gradZeroResult);
    expect(metric::GradNonfinite, ElementKind::I64, data.gradNonFiniteResult);
    if (scalar && !held)
      data.extraMetrics.push_back(data.trainOutputs.back());
  }
  for (size_t i = 0; i < signature.evalArgs.size(); ++i) {
    const EvalArgInfo &arg = signature.evalArgs[i];
    if (arg.stateOf < 0)
      data.evalInputs.push_back(
          {arg.name, arg.shape, 0, int64_t(i), false, arg.tableRows});
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

/// INVALID_ARGUMENT naming the option `name` if its `value` is below `min`.
mpt_status_t checkAtLeast(const char *name, int64_t value, int64_t min) {
  if (value >= min)
    return nullptr;
  return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                    std::string("mpt_program_compile: ") + name +
                        " must be at least " + std::to_string(min) + ", not " +
                        std::to_string(value));
}

/// The communicator's world size, reduce type and buckets.
mpt_status_t translateDataParallelOptions(const mpt_compile_options_t &options,
                                          CompileOptions &compile) {
  // A communicator of one rank still compiles the collectives: the cost of
  // the path (NCCL on a GPU) is then measurable against none.
  compile.dataParallelWorldSize = mpt_comm_size(options.comm);
  switch (options.grad_reduce) {
  case MPT_GRAD_REDUCE_AUTO:
    compile.gradientReduceType = mpt::GradientReduceType::Auto;
    break;
  case MPT_GRAD_REDUCE_COMPUTE:
    compile.gradientReduceType = mpt::GradientReduceType::Compute;
    break;
  case MPT_GRAD_REDUCE_F32:
    compile.gradientReduceType = mpt::GradientReduceType::F32;
    break;
  default:
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_program_compile: unknown grad_reduce " +
                          std::to_string(int(options.grad_reduce)));
  }
  if (mpt_status_t status =
          checkAtLeast("bucket_bytes", options.bucket_bytes, 0))
    return status;
  compile.bucketBytes = options.bucket_bytes ? options.bucket_bytes
                                             : mpt::kDefaultGradientBucketBytes;
  return nullptr;
}

/// The precision, device and loss-scaling mode from the C API's enums.
mpt_status_t translateModes(const mpt_compile_options_t &options,
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
  return nullptr;
}

/// The compiler driver's options from the C API's, checked.
mpt_status_t translateOptions(const mpt_compile_options_t &options,
                              CompileOptions &compile) {
  if (mpt_status_t status = translateModes(options, compile))
    return status;
  // mpt-loss-scaling checks the scaler's values, naming each.
  compile.initScale = options.init_scale;
  compile.growthInterval = options.growth_interval;
  compile.minScale = options.min_scale;
  compile.maxScale = options.max_scale;
  if (options.dump_prefix)
    compile.dumpPrefix = options.dump_prefix;
  if (options.precision_report)
    compile.precisionReport = options.precision_report;
  compile.cpuKernels = options.cpu_kernels != 0;
  compile.cudaGraphs = options.cuda_graphs != 0 && !options.comm;
  if (mpt_status_t status = checkAtLeast("parallel_min_iterations",
                                         options.parallel_min_iterations, 0))
    return status;
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
  if (mpt_status_t status =
          checkAtLeast("micro_batches", options.micro_batches, 1))
    return status;
  compile.microBatches = options.micro_batches;
  switch (options.recompute) {
  case MPT_RECOMPUTE_NONE:
    compile.recompute = mpt::RecomputePolicy::None;
    break;
  case MPT_RECOMPUTE_SQRT:
    compile.recompute = mpt::RecomputePolicy::Sqrt;
    break;
  case MPT_RECOMPUTE_MARKED:
    compile.recompute = mpt::RecomputePolicy::Marked;
    break;
  default:
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "mpt_program_compile: unknown recompute " +
                          std::to_string(int(options.recompute)));
  }
  return translateDataParallelOptions(options, compile);
}

/// The status for a program that did not compile.
mpt_status_t compileFailure(Program::Failure failure, std::string error) {
  mpt_status_code_t code = MPT_STATUS_COMPILE_ERROR;
  if (failure == Program::Failure::Unreadable)
    code = MPT_STATUS_NOT_FOUND;
  else if (failure == Program::Failure::DeviceUnavailable)
    code = MPT_STATUS_FAILED_PRECONDITION;
  else if (failure == Program::Failure::Unwritable)
    code = MPT_STATUS_IO_ERROR;
  return makeStatus(code, std::move(error));
}

} // namespace

extern "C" {

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
  options->comm = nullptr;
  options->grad_reduce = MPT_GRAD_REDUCE_AUTO;
  options->bucket_bytes = 0;
  options->micro_batches = 1;
  options->precision_report = nullptr;
  options->recompute = MPT_RECOMPUTE_NONE;
  options->cuda_graphs = 1;
}

mpt_status_t mpt_program_compile(const char *mlir_path,
                                 const mpt_compile_options_t *options,
                                 mpt_program_t *program) {
  static const char *kCaller = "mpt_program_compile";
  MPT_RETURN_IF_ERROR(checkNotNull(
      kCaller,
      {{"mlir_path", mlir_path}, {"options", options}, {"program", program}}));
  *program = nullptr;
  return guarded(kCaller, [&]() -> mpt_status_t {
    CompileOptions compile;
    MPT_RETURN_IF_ERROR(translateOptions(*options, compile));
    std::string error;
    if (compile.device == Device::CPU && !checkMaxCpuIsa(error))
      return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                        "mpt_program_compile: " + error);
    Program::Failure failure = Program::Failure::Invalid;
    auto data = std::make_shared<ProgramData>();
    data->program = Program::compile(mlir_path, compile, error, failure);
    if (!data->program)
      return compileFailure(failure, std::move(error));
    MPT_RETURN_IF_ERROR(describe(*data, mlir_path,
                                 compile.computeType != mpt::ComputeType::F32));
    if (compile.dataParallelWorldSize) {
      // A rank that compiled another step or other options would sum
      // gradients of other shapes, or none.
      const std::string &signature = data->program->signatureJson;
      MPT_RETURN_IF_ERROR(mpt_comm_check_same(options->comm, signature.data(),
                                              signature.size(),
                                              "the compiled step's signature"));
      data->comm = options->comm;
      data->device = options->device;
    }
    *program = new mpt_program_s{std::move(data)};
    return nullptr;
  });
}

void mpt_program_free(mpt_program_t program) { delete program; }

const char *mpt_program_warnings(mpt_program_t program) {
  return program ? program->data->program->warnings.c_str() : "";
}

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
  MPT_RETURN_IF_ERROR(
      checkNotNull(caller, {{"program", program}, {"info", info}}));
  MPT_RETURN_IF_ERROR(checkFunction(*program->data, function, caller));
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

} // extern "C"
