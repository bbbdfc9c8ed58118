//===- CheckMixedPrecision.cpp - mpt-check-mixed-precision ------*- C++ -*-===//
//
// Catches, at compile time, the mistakes that otherwise show up as a model
// that silently trains worse: clipping scaled gradients, low-precision
// optimizer state or running statistics, and updates without an f32 master.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseSet.h"

#include "Utils.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt {
#define GEN_PASS_DEF_MPTCHECKMIXEDPRECISION
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct CheckMixedPrecision
    : public mpt::impl::MPTCheckMixedPrecisionBase<CheckMixedPrecision> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

static bool isLowPrecision(Value value) {
  Type element = getElementType(value);
  return isa<FloatType>(element) && !element.isF32() && !element.isF64();
}

/// Values still multiplied by the loss scale: everything computed from a
/// scaled seed, up to mpt.unscale or a reader that is reported.
static llvm::DenseSet<Value> findScaledValues(func::FuncOp function) {
  llvm::DenseSet<Value> scaled;
  function.walk([&](Operation *op) {
    if (auto seed = dyn_cast<LossGradOp>(op)) {
      if (seed.getScale())
        scaled.insert(seed.getSeed());
      return;
    }
    // Readers of scaled gradients are reported themselves; what they produce
    // is not reported again.
    if (isa<UnscaleOp, AllFiniteOp, GradientStatsOp, OptimizerOpInterface,
            ClipGradNormOp>(op))
      return;
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return scaled.contains(v); }))
      scaled.insert(op->getResults().begin(), op->getResults().end());
  });
  return scaled;
}

void CheckMixedPrecision::runOnOperation() {
  func::FuncOp function = getOperation();
  if (function.isExternal())
    return;
  bool failedCheck = false;
  llvm::DenseSet<Value> scaled = findScaledValues(function);
  bool lowPrecisionGraph = false, usesBF16 = false;
  function.walk([&](Operation *op) {
    for (Value result : op->getResults()) {
      lowPrecisionGraph |=
          isFloatTensor(result.getType()) && isLowPrecision(result);
      usesBF16 |= getElementTypeOrSelf(result.getType()).isBF16();
    }
  });

  function.walk([&](Operation *op) {
    if (auto clip = dyn_cast<ClipGradNormOp>(op)) {
      for (auto [index, grad] : llvm::enumerate(clip.getGrads()))
        if (scaled.contains(grad)) {
          clip.emitError("clips gradient #")
              << index
              << " while it is still multiplied by the loss scale: the norm "
                 "and max_norm are off by the scale; unscale the gradient "
                 "first (mpt.unscale)";
          failedCheck = true;
        }
    }
    if (auto optimizer = dyn_cast<OptimizerOpInterface>(op)) {
      if (scaled.contains(optimizer.getGrad())) {
        optimizer.emitError("updates from a gradient that is still multiplied "
                            "by the loss scale; unscale it first "
                            "(mpt.unscale)");
        failedCheck = true;
      }
      if (isLowPrecision(optimizer.getParam()) ||
          isLowPrecision(stripFloatCasts(optimizer.getParam()))) {
        optimizer.emitError("updates a parameter of type ")
            << stripFloatCasts(optimizer.getParam()).getType()
            << " without an f32 master: small updates round away; keep the "
               "parameter in f32 (mpt-master-weights)";
        failedCheck = true;
      }
      for (auto [index, state] :
           llvm::enumerate(optimizer.getOptimizerState())) {
        if (!isa<FloatType>(getElementType(state)) ||
            (!isLowPrecision(state) && !isLowPrecision(stripFloatCasts(state))))
          continue;
        optimizer.emitError("keeps optimizer state #")
            << index << " in " << getElementType(stripFloatCasts(state))
            << "; optimizer state must be f32";
        failedCheck = true;
      }
    }
    if (auto batchNorm = dyn_cast<BatchNormOp>(op)) {
      for (Value stat : {batchNorm.getRunningMean(), batchNorm.getRunningVar()})
        if (isLowPrecision(stat) || isLowPrecision(stripFloatCasts(stat))) {
          batchNorm.emitError("keeps running statistics in ")
              << getElementType(stripFloatCasts(stat))
              << "; they must be f32 (mpt-norm-stats-fp32)";
          failedCheck = true;
          break;
        }
    }
    if (auto policy = dyn_cast<PrecisionPolicyOpInterface>(op);
        policy && policy.getDefaultPrecisionClass() == PrecisionClass::Lower &&
        lowPrecisionGraph && !isLowPrecision(op->getOperand(0))) {
      if (policy.getPrecisionClass() == PrecisionClass::FP32)
        op->emitRemark("pinned to f32: runs without low-precision tensor "
                       "cores");
      else if (op->hasAttr(MPTDialect::kPrecisionAttrName))
        op->emitRemark("pinned to ")
            << stringifyPrecisionClass(policy.getPrecisionClass())
            << ", which keeps it in f32 here: it runs without low-precision "
               "tensor cores";
      else
        op->emitWarning("runs in f32 in a low-precision graph although "
                        "nothing pins it there");
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op))
      for (auto [index, value] : llvm::enumerate(ret.getOperands()))
        if (scaled.contains(value)) {
          ret.emitError("returns result #")
              << index
              << " while it is still multiplied by the loss scale; unscale "
                 "it first (mpt.unscale)";
          failedCheck = true;
        }
    if (auto seed = dyn_cast<LossGradOp>(op);
        seed && seed.getScale() && usesBF16)
      seed.emitWarning("loss scaling a bf16 graph: bf16 has the exponent range "
                       "of f32 and rarely needs a loss scale");
  });
  if (failedCheck)
    signalPassFailure();
}
