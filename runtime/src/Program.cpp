//===- Program.cpp - a compiled mpt training step ---------------*- C++ -*-===//

#include "Program.h"

#include "CpuIsa.h"
#include "GemmBF16.h"
#include "cpu/CpuBackend.h"
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
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Pipelines/Pipelines.h"

using namespace mlir;

namespace mpt::runtime {

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

} // namespace

std::unique_ptr<Program> Program::compile(const std::string &path,
                                          const CompileOptions &options,
                                          std::string &error,
                                          Failure &failure) {
#ifndef MPT_ENABLE_CUDA
  if (options.device == Device::CUDA) {
    failure = Failure::DeviceUnavailable;
    error = path + ": cannot compile for the CUDA device: this mpt was built "
                   "without CUDA (configure with -DMPT_ENABLE_CUDA=ON and a "
                   "CUDA toolkit)";
    return nullptr;
  }
#endif
  failure = Failure::Unreadable;
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file) {
    error = path + ": cannot read: " + file.getError().message();
    return nullptr;
  }
  failure = Failure::Invalid;
  if (nestsTooDeepToParse((*file)->getBuffer())) {
    error = path + ": brackets nest deeper than " +
            std::to_string(kMaxSourceNesting) +
            " levels; MLIR's parser cannot read such input";
    return nullptr;
  }

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
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  // The CUDA lowering serializes GPU modules to PTX in-process, and the JIT
  // translates the embedded binary and its launches.
  if (options.device == Device::CUDA) {
    registerAllToLLVMIRTranslations(registry);
    NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  }
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();

  bool hasTrainStep = false;
  Builder builder(&context);
  for (auto function : module->getOps<func::FuncOp>()) {
    if (!function->hasAttr(MPTDialect::kTrainStepAttrName) &&
        !function->hasAttr(MPTDialect::kEvalStepAttrName))
      continue;
    hasTrainStep |= function->hasAttr(MPTDialect::kTrainStepAttrName);
    nameArgumentsFromSource(function, asmState);
    // The runtime calls the entry points through their C wrappers.
    function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      builder.getUnitAttr());
  }
  if (!hasTrainStep) {
    error = path + ": no function is marked 'mpt.train_step'";
    return nullptr;
  }

  // The mixed-precision rewrite (a no-op for f32).
  PassManager pm(&context);
  MixedPrecisionOptions mixed;
  mixed.computeType = options.computeType;
  mixed.lossScale = options.lossScale;
  mixed.initScale = options.initScale;
  mixed.growthInterval = options.growthInterval;
  mixed.minScale = options.minScale;
  mixed.maxScale = options.maxScale;
  mixed.persistentWorkingCopy = options.persistentWorkingCopies;
  buildMixedPrecisionPipeline(pm, mixed);
  if (failed(pm.run(*module)))
    return fail(path + ": the mixed-precision rewrite failed:\n");
  auto dump = [&](const char *suffix) {
    if (options.dumpPrefix.empty())
      return true;
    auto output = openOutputFile(options.dumpPrefix + suffix, &error);
    if (!output)
      return false;
    module->print(output->os());
    output->keep();
    return true;
  };
  if (!dump(".mixed.mlir"))
    return nullptr;

  // Lowering records the signature (mpt-export-signature) for the backend.
  PassManager lowering(&context);
  bool cuda = options.device == Device::CUDA;
  if (cuda) {
    buildLowerToCUDAPipeline(lowering, LowerToCUDAOptions());
  } else {
    LowerToCPUOptions cpu;
    cpu.cpuKernels = options.cpuKernels;
    cpu.parallelMinIterations = options.parallelMinIterations;
#if defined(__x86_64__)
    // Masked 16-bit loads and stores need AVX512BW; without AVX-512, LLVM
    // emulates them lane by lane, and 8 f32 lanes fill a register.
    bool avx512 = maxCpuIsa() == CpuIsa::Native &&
                  __builtin_cpu_supports("avx512f") &&
                  __builtin_cpu_supports("avx512bw");
    cpu.vectorWidth = avx512 ? 16 : 8;
    // AMD's cores run the masked stores of a predicated 14-wide row slowly:
    // on a Zen 5, one thread, the CNN's FP32 step took 4.8 ms predicated
    // and 3.7 ms in loops of 8, 4 and 2 lanes (f16 5.7 and 4.3 ms). Intel's
    // keep predication, measured there (Sapphire Rapids) before the loops of
    // halving widths existed.
    cpu.predicateVectorLoops = avx512 && __builtin_cpu_is("intel");
    // Without VCVTNEPS2BF16, LLVM rounds each bf16 result in a library call.
    cpu.expandBF16Rounding = !hasDotBF16();
#else
    cpu.expandBF16Rounding = true;
#endif
    cpu.computeF16InF32 = !hasF16Arithmetic();
    // bf16 matmuls stay bf16 where the runtime multiplies bf16 faster than
    // sgemm multiplies them widened (GemmBF16.h).
    cpu.widenBF16Matmuls = preferredGemmBF16() == nullptr;
    buildLowerToCPUPipeline(lowering, cpu);
  }
  if (failed(lowering.run(*module)))
    return fail(path + (cuda ? ": lowering to CUDA failed:\n"
                             : ": lowering to the CPU failed:\n"));
  if (!dump(".llvm.mlir"))
    return nullptr;

  auto program = std::make_unique<Program>();
  std::string signatureJson;
  if (cuda) {
#ifdef MPT_ENABLE_CUDA // without it, compile() returned at its start
    bool deviceUnavailable = false;
    program->backend =
        createCudaBackend(*module, signatureJson, error, deviceUnavailable);
    if (deviceUnavailable)
      failure = Failure::DeviceUnavailable;
#endif
  } else {
    program->backend = createCpuBackend(*module, signatureJson, error);
  }
  if (!program->backend) {
    error = path + ": " + error;
    return nullptr;
  }
  if (!parseSignature(signatureJson, program->signature, error)) {
    error = path + ": " + error;
    return nullptr;
  }
  return program;
}

} // namespace mpt::runtime
