//===- LowerToCPU.cpp - the mpt-lower-to-cpu pipeline -----------*- C++ -*-===//

#include "mpt/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "mpt/Codegen/CPU/Passes.h"
#include "mpt/Codegen/Common/Passes.h"
#include "mpt/Conversion/Passes.h"
#include "mpt/Transforms/Passes.h"

using namespace mlir;

void mpt::buildLowerToCPUPipeline(OpPassManager &pm,
                                  const LowerToCPUOptions &options) {
  MPTFuseElementwiseOptions fusion;
  fusion.recomputeCheapProducers = true;
  fusion.keepProductRounding = options.cpuKernels;
  // The runtime counts the step's buffers by what they hold.
  if (options.tagAllocations)
    pm.addNestedPass<func::FuncOp>(createMPTMarkBufferContents());
  addLowerToFusedLinalg(pm, fusion);
  addBufferizeToOutParams(pm);
  if (options.cpuKernels)
    pm.addPass(createMPTConvertLinalgToCPUKernels());
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  pm.addNestedPass<func::FuncOp>(createMPTFreeAfterLastUse());

  pm.addNestedPass<func::FuncOp>(createMPTStackScalarAccumulators());
  if (options.cpuKernels && options.parallelMinIterations > 0)
    pm.addPass(createMPTOutlineParallelLinalg(
        MPTOutlineParallelLinalgOptions{options.parallelMinIterations}));
  MPTConvertLinalgToVectorizableLoopsOptions vectorLoops;
  vectorLoops.vectorWidth = options.vectorWidth;
  vectorLoops.predicate = options.predicateVectorLoops;
  pm.addNestedPass<func::FuncOp>(
      createMPTConvertLinalgToVectorizableLoops(vectorLoops));
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
  if (options.tagAllocations)
    pm.addPass(createMPTTagStepAllocations());
  if (options.expandBF16Rounding)
    pm.addNestedPass<LLVM::LLVMFuncOp>(createMPTStoreBF16AsI16());
}
