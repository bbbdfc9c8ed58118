//===- Program.cpp - a compiled mpt training step ---------------*- C++ -*-===//

#include "Program.h"

#include "CpuKernels.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Pipelines/Pipelines.h"

#include <numeric>

using namespace mlir;

namespace mpt::runtime {

size_t elementBytes(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
  case ElementKind::I32:
    return 4;
  case ElementKind::F16:
  case ElementKind::BF16:
    return 2;
  case ElementKind::I64:
    return 8;
  case ElementKind::I1:
    return 1;
  }
  return 0;
}

const char *elementName(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return "F32";
  case ElementKind::F16:
    return "F16";
  case ElementKind::BF16:
    return "BF16";
  case ElementKind::I64:
    return "I64";
  case ElementKind::I32:
    return "I32";
  case ElementKind::I1:
    return "BOOL";
  }
  return "";
}

int64_t TensorShape::numElements() const {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

struct Program::Engine {
  std::unique_ptr<ExecutionEngine> jit;
};

Program::Program() = default;
Program::~Program() = default;

namespace {

/// Collects diagnostics as "file:line:col: error: message" text.
class DiagnosticCollector {
public:
  DiagnosticCollector(MLIRContext &context, llvm::SourceMgr &sourceMgr)
      : stream(text), handler(sourceMgr, &context, stream) {}
  std::string take() {
    stream.flush();
    return std::move(text);
  }

private:
  std::string text;
  llvm::raw_string_ostream stream;
  SourceMgrDiagnosticHandler handler;
};

std::optional<ElementKind> toElementKind(Type type) {
  if (type.isF32())
    return ElementKind::F32;
  if (type.isF16())
    return ElementKind::F16;
  if (type.isBF16())
    return ElementKind::BF16;
  if (type.isSignlessInteger(64))
    return ElementKind::I64;
  if (type.isSignlessInteger(32))
    return ElementKind::I32;
  if (type.isSignlessInteger(1))
    return ElementKind::I1;
  return std::nullopt;
}

FailureOr<TensorShape> toShape(Operation *where, Type type, StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<ElementKind> kind =
      tensor ? toElementKind(tensor.getElementType()) : std::nullopt;
  if (!tensor || !tensor.hasStaticShape() || !kind)
    return where->emitError("the runtime supports statically shaped tensors of "
                            "f32, f16, bf16, i64, i32 or i1; ")
           << what << " has type " << type;
  return TensorShape{*kind, std::vector<int64_t>(tensor.getShape().begin(),
                                                 tensor.getShape().end())};
}

/// Readers of `value`, looking through the casts mixed precision inserts.
SmallVector<OpOperand *> usesThroughCasts(Value value) {
  SmallVector<OpOperand *> uses;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    for (OpOperand &use : current.getUses()) {
      if (isa<arith::ExtFOp, arith::TruncFOp>(use.getOwner()))
        worklist.push_back(use.getOwner()->getResult(0));
      else
        uses.push_back(&use);
    }
  }
  return uses;
}

/// The ops computed from the loss seed: the backward pass and the update.
llvm::DenseSet<Operation *> backwardOps(func::FuncOp function) {
  llvm::DenseSet<Operation *> ops;
  SmallVector<Value> worklist;
  function.walk([&](LossGradOp seed) { worklist.push_back(seed.getSeed()); });
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      // An op nested in a region (scf.if) makes its enclosing op backward too.
      for (Operation *op = user; op && op != function; op = op->getParentOp())
        if (ops.insert(op).second)
          llvm::append_range(worklist, op->getResults());
    }
  }
  return ops;
}

/// PyTorch's fan_in of the weight of a forward matmul or convolution: the
/// number of inputs each output sums over (nn.Linear: in_features;
/// nn.Conv2d: C_in*kh*kw).
std::optional<int64_t> forwardFanIn(Operation *op) {
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
    return lhs.getDimSize(lhs.getRank() - (matmul.getTransposeA() ? 2 : 1));
  }
  if (auto conv = dyn_cast<Conv2DOp>(op)) {
    auto filter = cast<RankedTensorType>(conv.getRhs().getType());
    return filter.getDimSize(1) * filter.getDimSize(2) * filter.getDimSize(3);
  }
  return std::nullopt;
}

/// The fan-in of a weight from its forward use, never from the backward
/// (where dX = dY*W^T reads it transposed). A weight no forward matmul or
/// convolution reads gets PyTorch's rule for an (out, in, ...) tensor.
int64_t weightFanIn(ArrayRef<Value> weight,
                    const llvm::DenseSet<Operation *> &backward) {
  for (Value value : weight)
    for (OpOperand *use : usesThroughCasts(value))
      if (!backward.contains(use->getOwner()))
        if (std::optional<int64_t> fanIn = forwardFanIn(use->getOwner()))
          return *fanIn;
  auto type = cast<RankedTensorType>(weight.front().getType());
  int64_t fanIn = 1;
  for (int64_t d = 1; d < type.getRank(); ++d)
    fanIn *= type.getDimSize(d);
  return fanIn;
}

/// PyTorch's initializers by role: Kaiming-uniform weights (bound
/// 1/sqrt(fan_in)), biases uniform in the bound of their layer's weight,
/// normalization scales one and shifts zero. `values` is the parameter and its
/// low-precision working copies, which the compute reads instead.
void chooseParamInit(ArgInfo &info, ArrayRef<Value> values,
                     const llvm::DenseSet<Operation *> &backward) {
  auto type = cast<RankedTensorType>(values.front().getType());
  if (type.getRank() >= 2) {
    info.init = InitKind::KaimingUniform;
    info.fanIn = weightFanIn(values, backward);
    return;
  }
  for (Value value : values) {
    for (OpOperand *use : usesThroughCasts(value)) {
      Operation *user = use->getOwner();
      unsigned index = use->getOperandNumber();
      if (isa<BatchNormOp, BatchNormInferenceOp, LayerNormOp>(user) &&
          (index == 1 || index == 2)) {
        info.init = index == 1 ? InitKind::Ones : InitKind::Zeros;
        return;
      }
      auto biasAdd = dyn_cast<BiasAddOp>(user);
      if (!biasAdd || index != 1 || backward.contains(biasAdd))
        continue;
      Operation *layer = stripFloatCasts(biasAdd.getInput()).getDefiningOp();
      if (std::optional<int64_t> fanIn =
              layer ? forwardFanIn(layer) : std::nullopt) {
        info.init = InitKind::KaimingUniform;
        info.fanIn = *fanIn;
        return;
      }
    }
  }
  info.init = InitKind::Zeros;
}

/// State without an mpt.init starts at zero, except batch-norm running
/// variances, which start at one as in PyTorch.
InitKind stateInit(Value state) {
  for (OpOperand *use : usesThroughCasts(state))
    if (isa<BatchNormOp>(use->getOwner()) &&
        use->getOperandNumber() == BatchNormOp::odsIndex_running_var)
      return InitKind::Ones;
  return InitKind::Zeros;
}

std::vector<uint8_t> elementsBytes(DenseElementsAttr attr) {
  ArrayRef<char> raw = attr.getRawData();
  size_t elementSize = (attr.getElementType().getIntOrFloatBitWidth() + 7) / 8;
  std::vector<uint8_t> bytes;
  int64_t count = attr.getNumElements();
  for (int64_t i = 0; i < count; ++i) {
    size_t offset = attr.isSplat() ? 0 : i * elementSize;
    bytes.insert(bytes.end(), raw.begin() + offset,
                 raw.begin() + offset + elementSize);
  }
  return bytes;
}

/// The source names of `function`'s arguments, where the parser saw them.
std::vector<std::string> sourceArgumentNames(func::FuncOp function,
                                             const AsmParserState &asmState) {
  std::vector<std::string> names;
  const AsmParserState::BlockDefinition *definition =
      asmState.getBlockDef(&function.getBody().front());
  if (!definition)
    return names;
  for (const AsmParserState::SMDefinition &argument : definition->arguments) {
    llvm::SMRange range = argument.loc;
    StringRef text(range.Start.getPointer(),
                   range.End.getPointer() - range.Start.getPointer());
    names.push_back(text.ltrim('%').str());
  }
  return names;
}

} // namespace

std::unique_ptr<Program> Program::compile(const std::string &path,
                                          const CompileOptions &options,
                                          std::string &error,
                                          bool &isCompileError) {
  isCompileError = false;
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file) {
    error = path + ": cannot read: " + file.getError().message();
    return nullptr;
  }
  isCompileError = true;

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<MPTDialect>();
  registerPrecisionPolicyExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  DiagnosticCollector diagnostics(context, sourceMgr);
  auto fail = [&](std::string prefix = {}) {
    error = prefix + diagnostics.take();
    while (!error.empty() && error.back() == '\n')
      error.pop_back();
    return nullptr;
  };

  Block block;
  AsmParserState asmState;
  ParserConfig config(&context);
  if (failed(parseAsmSourceFile(sourceMgr, &block, config, &asmState)))
    return fail();
  OwningOpRef<ModuleOp> module;
  if (llvm::hasSingleElement(block) && isa<ModuleOp>(block.front())) {
    module = cast<ModuleOp>(block.front());
    module.get()->remove();
  } else {
    module = ModuleOp::create(UnknownLoc::get(&context));
    module->getBody()->getOperations().splice(module->getBody()->begin(),
                                              block.getOperations());
  }
  if (failed(verify(*module)))
    return fail();

  func::FuncOp train, eval;
  for (auto function : module->getOps<func::FuncOp>()) {
    if (function->hasAttr(MPTDialect::kTrainStepAttrName)) {
      if (train) {
        function.emitError("a second function marked 'mpt.train_step'; the "
                           "runtime runs one training step per module");
        return fail();
      }
      train = function;
    }
    if (function->hasAttr(MPTDialect::kEvalStepAttrName))
      eval = function;
  }
  if (!train) {
    error = path + ": no function is marked 'mpt.train_step'";
    return nullptr;
  }
  std::vector<std::string> names = sourceArgumentNames(train, asmState);

  // The mixed-precision rewrite (a no-op for f32).
  PassManager pm(&context);
  MixedPrecisionOptions mixed;
  mixed.computeType = options.computeType;
  mixed.lossScale = options.lossScale;
  mixed.initScale = options.initScale;
  mixed.growthInterval = options.growthInterval;
  buildMixedPrecisionPipeline(pm, mixed);
  if (failed(pm.run(*module)))
    return fail(path + ": the mixed-precision rewrite failed:\n");
  if (!options.dumpPrefix.empty()) {
    std::string dumpError;
    auto dump = openOutputFile(options.dumpPrefix + ".mixed.mlir", &dumpError);
    if (!dump) {
      error = dumpError;
      return nullptr;
    }
    module->print(dump->os());
    dump->keep();
  }

  std::unique_ptr<Program> program(new Program());
  program->trainName = train.getSymName().str();
  if (eval)
    program->evalName = eval.getSymName().str();
  // Arguments: roles, shapes, initializers, names.
  llvm::DenseSet<Operation *> backward = backwardOps(train);
  for (BlockArgument arg : train.getArguments()) {
    unsigned index = arg.getArgNumber();
    ArgInfo info;
    FailureOr<TensorShape> shape =
        toShape(train, arg.getType(), "argument #" + std::to_string(index));
    if (failed(shape))
      return fail();
    info.shape = *shape;
    if (train.getArgAttr(index, MPTDialect::kParamAttrName))
      info.role = Role::Param;
    else if (train.getArgAttr(index, MPTDialect::kStateAttrName))
      info.role = Role::State;
    if (auto init = train.getArgAttrOfType<DenseElementsAttr>(
            index, MPTDialect::kInitAttrName)) {
      info.init = InitKind::Value;
      info.initValue = elementsBytes(init);
    } else if (info.role == Role::Param) {
      SmallVector<Value> values{arg};
      for (BlockArgument other : train.getArguments())
        if (auto copyOf = train.getArgAttrOfType<IntegerAttr>(
                other.getArgNumber(), MPTDialect::kWorkingCopyOfAttrName);
            copyOf && copyOf.getInt() == index)
          values.push_back(other);
      chooseParamInit(info, values, backward);
    } else if (info.role == Role::State) {
      info.init = stateInit(arg);
    }
    if (auto copyOf = train.getArgAttrOfType<IntegerAttr>(
            index, MPTDialect::kWorkingCopyOfAttrName))
      info.workingCopyOf = copyOf.getInt();
    if (index < names.size())
      info.name = names[index];
    program->trainArgs.push_back(info);
  }
  // Results, and names for the state the rewrite added.
  func::ReturnOp ret =
      cast<func::ReturnOp>(train.getBody().back().getTerminator());
  for (unsigned r = 0, e = train.getNumResults(); r < e; ++r) {
    ResultInfo info;
    FailureOr<TensorShape> shape = toShape(train, train.getResultTypes()[r],
                                           "result #" + std::to_string(r));
    if (failed(shape))
      return fail();
    info.shape = *shape;
    if (auto next = train.getResultAttrOfType<IntegerAttr>(
            r, MPTDialect::kNextAttrName))
      info.next = next.getInt();
    if (auto metric = train.getResultAttrOfType<StringAttr>(
            r, MPTDialect::kMetricAttrName))
      info.metric = metric.str();
    if (info.metric == "loss_scale")
      if (auto arg = dyn_cast<BlockArgument>(ret.getOperand(r)))
        program->trainArgs[arg.getArgNumber()].name = "loss_scale";
    program->trainResults.push_back(info);
  }
  for (auto [index, info] : llvm::enumerate(program->trainArgs)) {
    if (!info.name.empty())
      continue;
    if (info.workingCopyOf >= 0)
      info.name = program->trainArgs[info.workingCopyOf].name + ".working_copy";
    else if (info.shape.kind == ElementKind::I64 &&
             info.init == InitKind::Value)
      info.name = "loss_scale_growth_tracker";
    else
      info.name = "arg" + std::to_string(index);
  }

  if (eval) {
    for (BlockArgument arg : eval.getArguments()) {
      EvalArgInfo info;
      FailureOr<TensorShape> shape =
          toShape(eval, arg.getType(),
                  "eval argument #" + std::to_string(arg.getArgNumber()));
      if (failed(shape))
        return fail();
      info.shape = *shape;
      if (auto stateOf = eval.getArgAttrOfType<IntegerAttr>(
              arg.getArgNumber(), MPTDialect::kStateOfAttrName))
        info.stateOf = stateOf.getInt();
      else
        info.isData = true;
      program->evalArgs.push_back(info);
    }
    if (eval.getNumResults() != 1) {
      eval.emitError("the eval step must return one tensor (the logits)");
      return fail();
    }
    FailureOr<TensorShape> shape =
        toShape(eval, eval.getResultTypes()[0], "the eval result");
    if (failed(shape))
      return fail();
    program->evalResultShape = *shape;
  }

  // Lower, with C wrappers for the two entry points.
  Builder builder(&context);
  for (func::FuncOp function : {train, eval})
    if (function)
      function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                        builder.getUnitAttr());
  PassManager lowering(&context);
  LowerToCPUOptions cpu;
  cpu.cpuKernels = options.cpuKernels;
  buildLowerToCPUPipeline(lowering, cpu);
  if (failed(lowering.run(*module)))
    return fail(path + ": lowering to the CPU failed:\n");
  if (!options.dumpPrefix.empty()) {
    std::string dumpError;
    auto dump = openOutputFile(options.dumpPrefix + ".llvm.mlir", &dumpError);
    if (dump) {
      module->print(dump->os());
      dump->keep();
    }
  }

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutionEngineOptions engineOptions;
  auto transformer = makeOptimizingTransformer(3, 0, nullptr);
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  engineOptions.enableGDBNotificationListener = false;
  engineOptions.enablePerfNotificationListener = false;
  auto jit = ExecutionEngine::create(*module, engineOptions);
  if (!jit) {
    error =
        path + ": JIT compilation failed: " + llvm::toString(jit.takeError());
    return nullptr;
  }
  (*jit)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (const CpuKernel &kernel : cpuKernels())
      symbols[interner(kernel.name)] = {
          llvm::orc::ExecutorAddr::fromPtr(kernel.address),
          llvm::JITSymbolFlags::Exported};
    // Copies between non-contiguous memrefs lower to this runner utility.
    symbols[interner("memrefCopy")] = {
        llvm::orc::ExecutorAddr::fromPtr(&memrefCopy),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  (*jit)->initialize();
  program->engine = std::make_unique<Engine>();
  program->engine->jit = std::move(*jit);

  for (const ArgInfo &arg : program->trainArgs)
    program->trainShapes.push_back(arg.shape);
  for (const ResultInfo &result : program->trainResults)
    program->trainShapes.push_back(result.shape);
  for (const EvalArgInfo &arg : program->evalArgs)
    program->evalShapes.push_back(arg.shape);
  if (eval)
    program->evalShapes.push_back(program->evalResultShape);
  return program;
}

bool Program::run(const char *function, const std::vector<TensorShape> &shapes,
                  std::vector<void *> &buffers, std::string &error) const {
  // One memref descriptor per buffer: {allocated, aligned, offset, sizes,
  // strides}, row-major.
  std::vector<std::vector<int64_t>> descriptors(shapes.size());
  std::vector<void *> descriptorPointers(shapes.size());
  std::vector<void *> packed(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::vector<int64_t> &dims = shapes[i].dims;
    std::vector<int64_t> &descriptor = descriptors[i];
    descriptor.resize(3 + 2 * dims.size());
    auto pointer = reinterpret_cast<int64_t>(buffers[i]);
    descriptor[0] = pointer;
    descriptor[1] = pointer;
    descriptor[2] = 0;
    int64_t stride = 1;
    for (size_t d = dims.size(); d-- > 0;) {
      descriptor[3 + d] = dims[d];
      descriptor[3 + dims.size() + d] = stride;
      stride *= dims[d];
    }
    descriptorPointers[i] = descriptor.data();
    packed[i] = &descriptorPointers[i];
  }
  llvm::Error result = engine->jit->invokePacked(
      std::string("_mlir_ciface_") + function, packed);
  if (result) {
    error = llvm::toString(std::move(result));
    return false;
  }
  return true;
}

bool Program::runTrain(std::vector<void *> &buffers, std::string &error) const {
  return run(trainName.c_str(), trainShapes, buffers, error);
}

bool Program::runEval(std::vector<void *> &buffers, std::string &error) const {
  return run(evalName.c_str(), evalShapes, buffers, error);
}

} // namespace mpt::runtime
