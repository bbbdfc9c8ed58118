//===- MixedPrecision.cpp - the mpt-mixed-precision pipeline ----*- C++ -*-===//

#include "mpt/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "mpt/Transforms/Passes.h"

using namespace mlir;

mpt::MPTAutocastOptions mpt::MixedPrecisionOptions::autocastOptions() const {
  MPTAutocastOptions autocast;
  autocast.computeType = computeType;
  autocast.fp32Ops.assign(fp32Ops.begin(), fp32Ops.end());
  autocast.lowerOps.assign(lowerOps.begin(), lowerOps.end());
  return autocast;
}

mpt::MPTLossScalingOptions
mpt::MixedPrecisionOptions::lossScalingOptions() const {
  MPTLossScalingOptions scaling;
  scaling.mode = lossScale;
  scaling.computeType = computeType;
  scaling.initScale = initScale;
  scaling.growthFactor = growthFactor;
  scaling.backoffFactor = backoffFactor;
  scaling.growthInterval = growthInterval;
  scaling.minScale = minScale;
  scaling.maxScale = maxScale;
  return scaling;
}

mpt::MPTDataParallelOptions
mpt::MixedPrecisionOptions::dataParallelOptions() const {
  MPTDataParallelOptions dataParallel;
  dataParallel.worldSize = dataParallelWorldSize;
  dataParallel.bucketBytes = bucketBytes;
  dataParallel.reduceType = reduceType;
  return dataParallel;
}

void mpt::buildMixedPrecisionPipeline(OpPassManager &pm,
                                      const MixedPrecisionOptions &options) {
  // Forward-only steps get their backward first; hand-written ones pass as is.
  pm.addNestedPass<func::FuncOp>(createMPTAutodiff());
  if (!options.report.empty())
    pm.addPass(createMPTPrecisionReport(
        MPTPrecisionReportOptions{options.report, "fp32"}));

  pm.addNestedPass<func::FuncOp>(createMPTAutocast(options.autocastOptions()));
  pm.addPass(createMPTMasterWeights(
      MPTMasterWeightsOptions{options.persistentWorkingCopy}));
  pm.addPass(createMPTNormStatsFP32());
  // The gradients have their final types; loss scaling must see the sums.
  if (options.dataParallelWorldSize != 0)
    pm.addNestedPass<func::FuncOp>(
        createMPTDataParallel(options.dataParallelOptions()));
  pm.addNestedPass<func::FuncOp>(
      createMPTLossScaling(options.lossScalingOptions()));
  pm.addNestedPass<func::FuncOp>(createMPTCastCleanup());
  // Last: everything the passes above add after the gradients runs once per
  // step, after the micro-batch loop.
  pm.addNestedPass<func::FuncOp>(createMPTAccumulateGradients(
      MPTAccumulateGradientsOptions{options.microBatches}));
  pm.addNestedPass<func::FuncOp>(createMPTCheckMixedPrecision());

  if (!options.report.empty())
    pm.addPass(createMPTPrecisionReport(
        MPTPrecisionReportOptions{options.report, "mixed"}));
  // After the report, which counts the step's values once, and on the final
  // step, so that the copies round as the forward does.
  if (options.recompute != RecomputePolicy::None)
    pm.addNestedPass<func::FuncOp>(
        createMPTRecompute(MPTRecomputeOptions{options.recompute}));
}
