//===- LossScaling.cpp - mpt-loss-scaling -----------------------*- C++ -*-===//
//
// Seeds the backward pass with the loss scale, unscales every gradient where
// it leaves the scaled backward slice, checks them all for inf/nan in one op,
// and predicates every state update on that check. The decision never leaves
// the compiled step.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include "Utils.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt {
#define GEN_PASS_DEF_MPTLOSSSCALING
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
enum class ScalingMode { None, Static, Dynamic };

struct LossScaling : public mpt::impl::MPTLossScalingBase<LossScaling> {
  using Base::Base;
  void runOnOperation() override;

private:
  FailureOr<ScalingMode> resolveMode(func::FuncOp function);
  LogicalResult verifyOptions(func::FuncOp function);
};
} // namespace

/// Whether any value in `function` has element type `type`.
static bool computesIn(func::FuncOp function, Type type) {
  if (llvm::any_of(function.getArgumentTypes(), [&](Type argType) {
        return getElementTypeOrSelf(argType) == type;
      }))
    return true;
  WalkResult found = function.walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (getElementTypeOrSelf(result.getType()) == type)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

FailureOr<ScalingMode> LossScaling::resolveMode(func::FuncOp function) {
  Builder builder(&getContext());
  bool usesBF16 = computesIn(function, builder.getBF16Type());
  if (mode == "auto")
    return computesIn(function, builder.getF16Type()) ? ScalingMode::Dynamic
                                                      : ScalingMode::None;
  if (mode == "none")
    return ScalingMode::None;
  if (mode != "static" && mode != "dynamic") {
    function.emitError("mpt-loss-scaling: unknown mode '")
        << mode << "'; expected auto, dynamic, static or none";
    return failure();
  }
  if (usesBF16)
    function.emitWarning("loss scaling a bf16 graph: bf16 has the exponent "
                         "range of f32, so its gradients rarely underflow and "
                         "the scale is usually unnecessary");
  return mode == "static" ? ScalingMode::Static : ScalingMode::Dynamic;
}

LogicalResult LossScaling::verifyOptions(func::FuncOp function) {
  auto fail = [&](StringRef what, double value) {
    return function.emitError("mpt-loss-scaling: ")
           << what << ", got " << value;
  };
  if (!(initScale > 0.0) || !std::isfinite(initScale))
    return fail("init-scale must be positive and finite", initScale);
  if (!(growthFactor >= 1.0) || !std::isfinite(growthFactor))
    return fail("growth-factor must be at least 1", growthFactor);
  if (!(backoffFactor > 0.0 && backoffFactor <= 1.0))
    return fail("backoff-factor must be in (0, 1]", backoffFactor);
  if (growthInterval < 1)
    return fail("growth-interval must be at least 1", growthInterval);
  if (!(minScale > 0.0) || !(maxScale >= minScale) || !std::isfinite(maxScale))
    return fail("min-scale and max-scale must satisfy 0 < min-scale <= "
                "max-scale < inf; max-scale",
                maxScale);
  return success();
}

void LossScaling::runOnOperation() {
  func::FuncOp function = getOperation();
  if (!isTrainStep(function))
    return;
  FailureOr<ScalingMode> scaling = resolveMode(function);
  if (failed(scaling) || failed(verifyOptions(function)))
    return signalPassFailure();
  if (*scaling == ScalingMode::None)
    return;

  SmallVector<LossGradOp> seeds;
  function.walk([&](LossGradOp seed) { seeds.push_back(seed); });
  if (seeds.size() != 1) {
    function.emitError("mpt-loss-scaling: expected exactly one mpt.loss_grad "
                       "(the backward seed) in a training step, found ")
        << seeds.size();
    return signalPassFailure();
  }
  LossGradOp seed = seeds.front();
  if (seed.getScale())
    return; // Already scaled.

  MLIRContext *context = &getContext();
  OpBuilder builder(context);
  Location loc = function.getLoc();
  auto f32Scalar = RankedTensorType::get({}, builder.getF32Type());
  auto i64Scalar = RankedTensorType::get({}, builder.getI64Type());
  auto stateAttr =
      builder.getNamedAttr(MPTDialect::kStateAttrName, builder.getUnitAttr());
  auto initAttr = [&](Attribute value) {
    return builder.getNamedAttr(MPTDialect::kInitAttrName, value);
  };
  auto nextAttr = [&](BlockArgument arg) {
    return builder.getNamedAttr(MPTDialect::kNextAttrName,
                                builder.getI64IntegerAttr(arg.getArgNumber()));
  };
  auto metricAttr = [&](StringRef name) {
    return builder.getNamedAttr(MPTDialect::kMetricAttrName,
                                builder.getStringAttr(name));
  };

  unsigned numResultsBefore = function.getNumResults();
  BlockArgument scale = appendArgument(
      function, f32Scalar,
      {stateAttr, initAttr(DenseElementsAttr::get(
                      f32Scalar, builder.getF32FloatAttr(
                                     static_cast<float>(initScale))))});
  BlockArgument growthTracker;
  if (*scaling == ScalingMode::Dynamic)
    growthTracker = appendArgument(
        function, i64Scalar,
        {stateAttr, initAttr(DenseElementsAttr::get(
                        i64Scalar, builder.getI64IntegerAttr(0)))});
  seed.getScaleMutable().assign(scale);

  // Unscale where the scaled backward slice ends, so that no reader outside
  // it (optimizers, clipping, weight decay or accumulation written by hand)
  // ever sees the scale.
  SmallVector<Value> unscaled;
  for (auto &[gradient, uses] : findScaleBoundary(seed)) {
    // Unscaling widens to f32 by itself: an f32 gradient widened from f16 is
    // unscaled from the f16 value.
    Value source = gradient;
    if (auto widen = gradient.getDefiningOp<arith::ExtFOp>();
        widen && getElementType(gradient).isF32())
      source = widen.getIn();
    builder.setInsertionPointAfterValue(source);
    auto unscale = UnscaleOp::create(
        builder, gradient.getLoc(),
        withElementType(gradient.getType(), builder.getF32Type()), source,
        scale);
    unscaled.push_back(unscale);
    // A reader that wants the gradient in its own precision.
    Value converted = createFloatCast(builder, gradient.getLoc(), unscale,
                                      getElementType(gradient));
    for (OpOperand *use : uses)
      use->set(converted);
  }
  if (unscaled.empty()) {
    function.emitError("mpt-loss-scaling: no gradient leaves the backward "
                       "pass (nothing outside it reads a value computed from "
                       "mpt.loss_grad), so there is nothing to unscale");
    return signalPassFailure();
  }

  // One check over every gradient decides the whole step.
  func::ReturnOp ret = getReturn(function);
  builder.setInsertionPoint(ret);
  Value finite = AllFiniteOp::create(builder, loc, unscaled);
  // What the scale is fighting: underflowed and overflowed gradient elements.
  // Unscaling keeps zeros zero and inf/nan non-finite, so counting the
  // unscaled values (read here anyway) keeps no raw gradient alive longer.
  auto stats = GradientStatsOp::create(builder, loc, unscaled);
  Value finiteFlag = tensor::ExtractOp::create(builder, loc, finite);
  for (unsigned r = 0; r < numResultsBefore; ++r) {
    auto next =
        function.getResultAttrOfType<IntegerAttr>(r, MPTDialect::kNextAttrName);
    if (!next)
      continue;
    Value previous = function.getArgument(next.getInt());
    Value updated = ret.getOperand(r);
    if (updated == previous)
      continue;
    ret.setOperand(r, arith::SelectOp::create(builder, loc, finiteFlag, updated,
                                              previous));
  }

  if (*scaling == ScalingMode::Dynamic) {
    auto update = UpdateLossScaleOp::create(
        builder, loc, scale, growthTracker, finite,
        builder.getF32FloatAttr(growthFactor),
        builder.getF32FloatAttr(backoffFactor),
        builder.getI64IntegerAttr(growthInterval),
        builder.getF32FloatAttr(minScale), builder.getF32FloatAttr(maxScale));
    appendResult(function, update.getUpdatedScale(), {nextAttr(scale)});
    appendResult(function, update.getUpdatedGrowthTracker(),
                 {nextAttr(growthTracker)});
  } else {
    appendResult(function, scale, {nextAttr(scale)});
  }
  auto i1Scalar = RankedTensorType::get({}, builder.getI1Type());
  Value allTrue = arith::ConstantOp::create(
      builder, loc, DenseElementsAttr::get(i1Scalar, true));
  Value skipped = arith::XOrIOp::create(builder, loc, finite, allTrue);
  appendResult(function, scale, {metricAttr("loss_scale")});
  appendResult(function, skipped, {metricAttr("skipped")});
  appendResult(function, stats.getZeros(), {metricAttr("grad_zero")});
  appendResult(function, stats.getNonfinite(), {metricAttr("grad_nonfinite")});
  eraseDeadCasts(function);
}
