//===- Pipelines.cpp - stages both lowerings share, registration ----------===//

#include "mpt/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "mpt/Codegen/Common/Passes.h"
#include "mpt/Conversion/Passes.h"
#include "mpt/Transforms/Passes.h"

using namespace mlir;

void mpt::addLowerToFusedLinalg(OpPassManager &pm,
                                const MPTFuseElementwiseOptions &fusion) {
  pm.addPass(createMPTExportSignature()); // reads the mpt ops: runs first
  pm.addNestedPass<func::FuncOp>(createMPTCarryStateInPlace());
  pm.addPass(createMPTConvertToLinalg());
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createMPTFuseElementwise(fusion));
}

void mpt::addBufferizeToOutParams(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createMPTUnshareFills());
  pm.addNestedPass<func::FuncOp>(createMPTWriteLoopCarriedInPlace());
  pm.addNestedPass<func::FuncOp>(createMPTDistinctResults());
  // Updates are computed in the buffers of the state they replace
  // (mpt-carry-state-in-place), and carried results then leave the signature.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createMPTDropCarriedResults());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
}

void mpt::addHostLowerToLLVM(OpPassManager &pm) {
  // Math ops with an LLVM intrinsic (fma, sqrt, fabs, floor...) become one,
  // which LLVM vectorizes and lowers to instructions; only the others (erf,
  // log...) become libm calls, which keep their loops scalar.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // aligned_alloc, not malloc plus pointer arithmetic through integers: LLVM
  // then sees each buffer as its own allocation and proves loops over
  // distinct buffers free of aliasing. With run-time alias checks instead,
  // its cost model left short loops scalar (the max-pool gradient's 14- and
  // 7-wide rows).
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mpt::registerPipelines() {
  PassPipelineRegistration<MixedPrecisionOptions>(
      "mpt-mixed-precision",
      "Rewrites an FP32 training step into a mixed-precision one",
      buildMixedPrecisionPipeline);
  PassPipelineRegistration<LowerToCPUOptions>(
      "mpt-lower-to-cpu",
      "Lowers mpt on tensors to the LLVM dialect for the CPU",
      buildLowerToCPUPipeline);
  PassPipelineRegistration<LowerToCUDAOptions>(
      "mpt-lower-to-cuda",
      "Lowers mpt on tensors to CUDA kernels in one fatbin, cuBLASLt calls "
      "and host code in the LLVM dialect",
      buildLowerToCUDAPipeline);
}
