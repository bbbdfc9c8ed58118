//===- LowerToCPU.cpp - the mpt-lower-to-cpu pipeline -----------*- C++ -*-===//

#include "mpt/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "mpt/Conversion/Passes.h"
#include "mpt/Transforms/Passes.h"

using namespace mlir;

void mpt::buildLowerToCPUPipeline(OpPassManager &pm,
                                  const LowerToCPUOptions &options) {
  WidenMatmulOperandsOptions widen;
  widen.f16 = options.cpuKernels;
  widen.bf16 = options.cpuKernels && options.widenBF16Matmuls;
  FuseElementwiseAroundCPUKernelsOptions fusion;
  fusion.recomputeCheapProducers = true;
  addLowerToFusedLinalg(pm, widen, fusion);
  addBufferizeToOutParams(pm);
  if (options.cpuKernels)
    pm.addPass(createConvertLinalgToCPUKernels());
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);

  pm.addNestedPass<func::FuncOp>(createStackScalarAccumulators());
  if (options.cpuKernels && options.parallelMinIterations > 0)
    pm.addPass(createOutlineParallelLinalg(
        OutlineParallelLinalgOptions{options.parallelMinIterations}));
  ConvertLinalgToVectorizableLoopsOptions vectorLoops;
  vectorLoops.vectorWidth = options.vectorWidth;
  vectorLoops.predicate = options.predicateVectorLoops;
  pm.addNestedPass<func::FuncOp>(
      createConvertLinalgToVectorizableLoops(vectorLoops));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // LLVM rounds f16/bf16 arithmetic after each op by itself; math functions
  // exist only for f32, so they compute in f32 and round once.
  pm.addNestedPass<func::FuncOp>(math::createMathExtendToSupportedTypes(
      math::MathExtendToSupportedTypesOptions{{}, "f32"}));
  if (options.approximateMath)
    pm.addNestedPass<func::FuncOp>(createMPTApproximateMath());
  // Exact, and before the compares of f16/bf16 values widen their operands.
  pm.addNestedPass<func::FuncOp>(createMPTFoldRoundedCompares());
  // Each op computed in f32 and rounded once gives the f16/bf16 result
  // exactly, as LLVM's own scalar promotion does.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  if (options.expandBF16Rounding)
    emulate.sourceTypeStrs.push_back("bf16");
  if (options.computeF16InF32)
    emulate.sourceTypeStrs.push_back("f16");
  if (!emulate.sourceTypeStrs.empty())
    pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  if (options.expandBF16Rounding)
    pm.addNestedPass<func::FuncOp>(createMPTExpandBF16Conversions());
  addHostLowerToLLVM(pm);
  if (options.expandBF16Rounding)
    pm.addNestedPass<LLVM::LLVMFuncOp>(createMPTStoreBF16AsI16());
}

void mpt::addLowerToFusedLinalg(
    OpPassManager &pm, const WidenMatmulOperandsOptions &widen,
    const FuseElementwiseAroundCPUKernelsOptions &fusion) {
  pm.addPass(createMPTExportSignature()); // reads the mpt ops: runs first
  pm.addNestedPass<func::FuncOp>(createMPTCarryStateInPlace());
  pm.addPass(createConvertMPTToLinalg());
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  if (widen.f16 || widen.bf16)
    pm.addNestedPass<func::FuncOp>(createWidenMatmulOperands(widen));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createFuseElementwiseAroundCPUKernels(fusion));
}

void mpt::addBufferizeToOutParams(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createMPTUnshareFills());
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
