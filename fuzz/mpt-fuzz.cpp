//===- mpt-fuzz.cpp - libFuzzer target over the mpt pipelines ---*- C++ -*-===//
//
// Feeds arbitrary bytes through what `mpt-run` does before JIT compilation:
// parse, verify, `mpt-mixed-precision` (f16, dynamic loss scaling and
// activation recomputation: the longest path) and `mpt-lower-to-cpu` with the
// runtime's kernels. Any input may be rejected with a diagnostic; none may
// crash, hang or trip a sanitizer.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include "mpt/Dialect/MPT/IR/MPTDialect.h"
#include "mpt/Pipelines/Pipelines.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir;

/// Quiet, single-threaded (reproducible, no pool to spin up per input).
static MLIRContext *makeContext(const DialectRegistry &registry) {
  auto *context = new MLIRContext(registry);
  context->loadAllAvailableDialects();
  context->disableMultithreading();
  // Rejected inputs are expected; their diagnostics are noise here.
  context->getDiagEngine().registerHandler([](Diagnostic &) {});
  return context;
}

/// What mpt-run parses with: only the dialects of a training step.
static MLIRContext &parseContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    mpt::registerTrainingStepDialects(registry);
    return makeContext(registry);
  }();
  return *context;
}

/// What mpt-run adds after parsing, for the passes. mpt-run adds it to its
/// parsing context, which lives for one file; the harness keeps one of each
/// kind for speed and parses an accepted input again here.
static MLIRContext &loweringContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    mpt::registerTrainingStepDialects(registry);
    registerAllDialects(registry);
    registerAllExtensions(registry);
    return makeContext(registry);
  }();
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A copy for the terminating NUL the lexer reads at the end, as every
  // file the tools read has one (llvm::MemoryBuffer guarantees it).
  std::string source(reinterpret_cast<const char *>(data), size);
  // mpt-run refuses such input before parsing, as the harness does here:
  // upstream's parser would overflow its stack (test/Fuzz/deep-nesting.test).
  if (mpt::nestsTooDeepToParse(source))
    return 0;
  if (!parseSourceString<ModuleOp>(source, ParserConfig(&parseContext())))
    return 0;
  MLIRContext &context = loweringContext();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, ParserConfig(&context));
  if (!module || failed(verify(*module)))
    return 0;

  PassManager mixed(&context);
  mpt::MixedPrecisionOptions mixedOptions;
  mixedOptions.recompute = mpt::RecomputePolicy::Sqrt;
  mpt::buildMixedPrecisionPipeline(mixed, mixedOptions);
  if (failed(mixed.run(*module)))
    return 0;

  // The C wrappers the runtime asks for on the steps it calls.
  for (auto function : module->getOps<func::FuncOp>())
    if (function->hasAttr(mpt::MPTDialect::kTrainStepAttrName) ||
        function->hasAttr(mpt::MPTDialect::kEvalStepAttrName))
      function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                        UnitAttr::get(&context));
  PassManager lowering(&context);
  mpt::LowerToCPUOptions cpu;
  cpu.cpuKernels = true;
  mpt::buildLowerToCPUPipeline(lowering, cpu);
  (void)lowering.run(*module);
  return 0;
}
