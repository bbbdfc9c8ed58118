//===- MixedPrecision.cpp - the mpt-mixed-precision pipeline ----*- C++ -*-===//

#include "mpt/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "mpt/Transforms/Passes.h"

using namespace mlir;

void mpt::buildMixedPrecisionPipeline(OpPassManager &pm,
                                      const MixedPrecisionOptions &options) {
  if (!options.report.empty())
    pm.addPass(createMPTPrecisionReport(
        MPTPrecisionReportOptions{options.report, "fp32"}));

  MPTAutocastOptions autocast;
  autocast.computeType = options.computeType;
  autocast.fp32Ops.assign(options.fp32Ops.begin(), options.fp32Ops.end());
  autocast.lowerOps.assign(options.lowerOps.begin(), options.lowerOps.end());
  pm.addNestedPass<func::FuncOp>(createMPTAutocast(autocast));
  pm.addPass(createMPTMasterWeights(
      MPTMasterWeightsOptions{options.persistentWorkingCopy}));
  pm.addPass(createMPTNormStatsFP32());

  MPTLossScalingOptions scaling;
  // Without autocast there is nothing low-precision to protect.
  scaling.mode = options.computeType == "f32" && options.lossScale == "auto"
                     ? std::string("none")
                     : std::string(options.lossScale);
  scaling.initScale = options.initScale;
  scaling.growthFactor = options.growthFactor;
  scaling.backoffFactor = options.backoffFactor;
  scaling.growthInterval = options.growthInterval;
  scaling.minScale = options.minScale;
  scaling.maxScale = options.maxScale;
  pm.addNestedPass<func::FuncOp>(createMPTLossScaling(scaling));
  pm.addNestedPass<func::FuncOp>(createMPTCastCleanup());
  pm.addNestedPass<func::FuncOp>(createMPTCheckMixedPrecision());

  if (!options.report.empty())
    pm.addPass(createMPTPrecisionReport(
        MPTPrecisionReportOptions{options.report, "mixed"}));
}
