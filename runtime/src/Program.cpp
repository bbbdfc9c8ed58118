//===- Program.cpp - a compiled mpt training step ---------------*- C++ -*-===//

#include "Program.h"

#include "cpu/CpuBackend.h"
#include "cpu/HostTuning.h"
#ifdef MPT_ENABLE_CUDA
#include "cuda/CudaBackend.h"
#endif

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Pipelines/Pipelines.h"

using namespace mlir;

namespace mpt::runtime {

namespace {

/// Collects errors and warnings as "file:line:col: error: message" text.
/// Remarks (an op pinned to f32) say how the step was compiled, which a run
/// need not be told.
class DiagnosticCollector {
public:
  DiagnosticCollector(MLIRContext &context, llvm::SourceMgr &sourceMgr)
      : stream(text), handler(sourceMgr, &context, stream) {
    // Registered after the printer, so it sees each diagnostic first.
    context.getDiagEngine().registerHandler([](Diagnostic &diagnostic) {
      return success(diagnostic.getSeverity() == DiagnosticSeverity::Remark);
    });
  }
  std::string take() {
    stream.flush();
    return std::move(text);
  }

private:
  std::string text;
  llvm::raw_string_ostream stream;
  SourceMgrDiagnosticHandler handler;
};

/// The parser front end's one contribution to the signature: the names the
/// source gave the arguments of the marked functions, attached as NameLocs,
/// which mpt-export-signature reads.
void nameArgumentsFromSource(func::FuncOp function,
                             const AsmParserState &asmState) {
  const AsmParserState::BlockDefinition *definition =
      asmState.getBlockDef(&function.getBody().front());
  if (!definition)
    return;
  for (auto [argument, source] :
       llvm::zip(function.getArguments(), definition->arguments)) {
    llvm::SMRange range = source.loc;
    StringRef text(range.Start.getPointer(),
                   range.End.getPointer() - range.Start.getPointer());
    argument.setLoc(
        NameLoc::get(StringAttr::get(function.getContext(), text.ltrim('%')),
                     argument.getLoc()));
  }
}

/// The source of `path`, or null with `error` and `failure` set: for the CUDA
/// device in a build without CUDA, a file that cannot be read, or one nested
/// too deeply for MLIR's parser.
std::unique_ptr<llvm::MemoryBuffer> readSource(const std::string &path,
                                               Device device,
                                               std::string &error,
                                               Program::Failure &failure) {
#ifndef MPT_ENABLE_CUDA
  if (device == Device::CUDA) {
    failure = Program::Failure::DeviceUnavailable;
    error = path + ": cannot compile for the CUDA device: this mpt was built "
                   "without CUDA (configure with -DMPT_ENABLE_CUDA=ON and a "
                   "CUDA toolkit)";
    return nullptr;
  }
#endif
  failure = Program::Failure::Unreadable;
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file) {
    error = path + ": cannot read: " + file.getError().message();
    return nullptr;
  }
  failure = Program::Failure::Invalid;
  if (nestsTooDeepToParse((*file)->getBuffer())) {
    error = path + ": brackets nest deeper than " +
            std::to_string(kMaxSourceNesting) +
            " levels; MLIR's parser cannot read such input";
    return nullptr;
  }
  return std::move(*file);
}

/// Parses the module in `sourceMgr` (a bare list of operations is wrapped
/// in one) and verifies it; null after a diagnostic.
OwningOpRef<ModuleOp> parseModule(llvm::SourceMgr &sourceMgr,
                                  MLIRContext &context,
                                  AsmParserState &asmState) {
  Block block;
  ParserConfig config(&context);
  if (failed(parseAsmSourceFile(sourceMgr, &block, config, &asmState)))
    return nullptr;
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
    return nullptr;
  return module;
}

/// Loads the dialects and translations the lowering for `device` needs.
void loadLoweringDialects(MLIRContext &context, Device device) {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  // The CUDA lowering serializes GPU modules to PTX in-process, and the JIT
  // translates the embedded binary and its launches.
  if (device == Device::CUDA) {
    registerAllToLLVMIRTranslations(registry);
    NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  }
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

/// Names the arguments of the marked functions and gives them C wrappers;
/// false if no function is marked mpt.train_step.
bool prepareEntryPoints(ModuleOp module, const AsmParserState &asmState) {
  bool hasTrainStep = false;
  Builder builder(module.getContext());
  for (auto function : module.getOps<func::FuncOp>()) {
    if (!function->hasAttr(MPTDialect::kTrainStepAttrName) &&
        !function->hasAttr(MPTDialect::kEvalStepAttrName))
      continue;
    hasTrainStep |= function->hasAttr(MPTDialect::kTrainStepAttrName);
    nameArgumentsFromSource(function, asmState);
    // The runtime calls the entry points through their C wrappers.
    function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      builder.getUnitAttr());
  }
  return hasTrainStep;
}

/// The mixed-precision rewrite (for f32, only autodiff and accumulation).
void buildMixedPrecision(PassManager &pm, const CompileOptions &options) {
  MixedPrecisionOptions mixed;
  mixed.computeType = options.computeType;
  mixed.lossScale = options.lossScale;
  mixed.initScale = options.initScale;
  mixed.growthInterval = options.growthInterval;
  mixed.minScale = options.minScale;
  mixed.maxScale = options.maxScale;
  mixed.persistentWorkingCopy = options.persistentWorkingCopies;
  mixed.dataParallelWorldSize = options.dataParallelWorldSize;
  mixed.reduceType = options.gradientReduceType;
  mixed.bucketBytes = options.bucketBytes;
  mixed.microBatches = options.microBatches;
  mixed.recompute = options.recompute;
  mixed.report = options.precisionReport;
  buildMixedPrecisionPipeline(pm, mixed);
}

/// The device's lowering, which records the signature
/// (mpt-export-signature) for the backend.
void buildLowering(PassManager &pm, const CompileOptions &options) {
  if (options.device == Device::CUDA) {
    buildLowerToCUDAPipeline(pm, LowerToCUDAOptions());
    return;
  }
  LowerToCPUOptions cpu;
  cpu.cpuKernels = options.cpuKernels;
  cpu.parallelMinIterations = options.parallelMinIterations;
  cpu.tagAllocations = true; // the step allocator counts them by kind
  tuneForHost(cpu);
  buildLowerToCPUPipeline(pm, cpu);
}

/// Writes `module` to the dump prefix + `suffix`, if there is a prefix,
/// creating the prefix's directory; false with `error` naming the file that
/// cannot be written (which is then removed).
bool dump(ModuleOp module, const CompileOptions &options, const char *suffix,
          std::string &error) {
  if (options.dumpPrefix.empty())
    return true;
  std::string path = options.dumpPrefix + suffix;
  llvm::StringRef directory = llvm::sys::path::parent_path(path);
  if (!directory.empty())
    if (std::error_code failed = llvm::sys::fs::create_directories(directory)) {
      error = "cannot create directory '" + directory.str() +
              "': " + failed.message();
      return false;
    }
  std::error_code failed;
  llvm::ToolOutputFile output(path, failed, llvm::sys::fs::OF_Text);
  if (!failed) {
    // The arguments keep their source names (%w1, not %arg0), which the
    // signature and checkpoints use too.
    module->print(output.os(), OpPrintingFlags().printNameLocAsPrefix());
    output.os().close();
    failed = output.os().error();
    output.os().clear_error();
  }
  if (failed) {
    error = "cannot write '" + path + "': " + failed.message();
    return false;
  }
  output.keep();
  return true;
}

/// The device's backend for the lowered `module`, and its signature.
std::unique_ptr<Backend> createBackend(ModuleOp module,
                                       const CompileOptions &options,
                                       std::string &signatureJson,
                                       std::string &error,
                                       Program::Failure &failure) {
  if (options.device == Device::CPU)
    return createCpuBackend(module, signatureJson, error);
  std::unique_ptr<Backend> backend;
#ifdef MPT_ENABLE_CUDA // without it, compile() returned at its start
  bool deviceUnavailable = false;
  backend = createCudaBackend(module, signatureJson, error, deviceUnavailable,
                              options.cudaGraphs);
  if (deviceUnavailable)
    failure = Program::Failure::DeviceUnavailable;
#else
  (void)failure;
#endif
  return backend;
}

} // namespace

std::unique_ptr<Program> Program::compile(const std::string &path,
                                          const CompileOptions &options,
                                          std::string &error,
                                          Failure &failure) {
  std::unique_ptr<llvm::MemoryBuffer> file =
      readSource(path, options.device, error, failure);
  if (!file)
    return nullptr;

  // Parsed with only the dialects a training step may contain; the others
  // the lowering needs come after parsing.
  DialectRegistry parseable;
  registerTrainingStepDialects(parseable);
  MLIRContext context(parseable);
  // Diagnostics say what is wrong where; dumping the whole function in
  // generic form buries that.
  context.printOpOnDiagnostic(false);
  context.printStackTraceOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  DiagnosticCollector diagnostics(context, sourceMgr);
  auto fail = [&](std::string prefix = {}) {
    error = prefix + diagnostics.take();
    while (!error.empty() && error.back() == '\n')
      error.pop_back();
    return nullptr;
  };

  AsmParserState asmState;
  OwningOpRef<ModuleOp> module = parseModule(sourceMgr, context, asmState);
  if (!module)
    return fail();
  loadLoweringDialects(context, options.device);
  if (!prepareEntryPoints(*module, asmState)) {
    error = path + ": no function is marked 'mpt.train_step'";
    return nullptr;
  }

  PassManager pm(&context);
  buildMixedPrecision(pm, options);
  if (failed(pm.run(*module)))
    return fail(path + ": the mixed-precision rewrite failed:\n");
  if (!dump(*module, options, ".mixed.mlir", error)) {
    failure = Failure::Unwritable;
    return nullptr;
  }

  PassManager lowering(&context);
  buildLowering(lowering, options);
  bool cuda = options.device == Device::CUDA;
  if (failed(lowering.run(*module)))
    return fail(path + (cuda ? ": lowering to CUDA failed:\n"
                             : ": lowering to the CPU failed:\n"));
  if (!dump(*module, options, ".llvm.mlir", error)) {
    failure = Failure::Unwritable;
    return nullptr;
  }

  auto program = std::make_unique<Program>();
  program->backend =
      createBackend(*module, options, program->signatureJson, error, failure);
  if (!program->backend) {
    error = path + ": " + error;
    return nullptr;
  }
  if (!parseSignature(program->signatureJson, program->signature, error)) {
    error = path + ": " + error;
    return nullptr;
  }
  program->warnings = diagnostics.take();
  return program;
}

} // namespace mpt::runtime
