//===- mpt-fuzz.cpp - libFuzzer target over the mpt pipelines ---*- C++ -*-===//
//
// Feeds arbitrary bytes through what `mpt-run` does before JIT compilation:
// parse, verify, `mpt-mixed-precision` (f16, dynamic loss scaling: the
// longest path) and `mpt-lower-to-cpu` with the runtime's kernels. Any input
// may be rejected with a diagnostic; none may crash, hang or trip a sanitizer.
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

static MLIRContext &fuzzContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registry.insert<mpt::MPTDialect>();
    mpt::registerPrecisionPolicyExternalModels(registry);
    auto *context = new MLIRContext(registry);
    context->loadAllAvailableDialects();
    // One thread: reproducible runs, and no pool to spin up per input.
    context->disableMultithreading();
    // Rejected inputs are expected; their diagnostics are noise here.
    context->getDiagEngine().registerHandler([](Diagnostic &) {});
    return context;
  }();
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = fuzzContext();
  // A copy for the terminating NUL the lexer reads at the end, as every
  // file the tools read has one (llvm::MemoryBuffer guarantees it).
  std::string source(reinterpret_cast<const char *>(data), size);
  // mpt-run refuses such input before parsing, as the harness does here:
  // upstream's parser would overflow its stack (test/Fuzz/deep-nesting.test).
  if (mpt::nestsTooDeepToParse(source))
    return 0;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, ParserConfig(&context));
  if (!module || failed(verify(*module)))
    return 0;

  PassManager mixed(&context);
  mpt::buildMixedPrecisionPipeline(mixed, mpt::MixedPrecisionOptions());
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
