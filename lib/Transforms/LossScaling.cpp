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
#include "llvm/Support/Format.h"

#include <cmath>
#include <limits>

#include "Utils.h"
#include "mpt/Contract/Contract.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt {
#define GEN_PASS_DEF_MPTLOSSSCALING
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct LossScaling : public mpt::impl::MPTLossScalingBase<LossScaling> {
  using Base::Base;
  LogicalResult initialize(MLIRContext *context) override;
  void runOnOperation() override;

private:
  LossScaleMode resolveMode(func::FuncOp function);
  LogicalResult unscaleGradients(func::FuncOp function, LossGradOp seed,
                                 Value scale, SmallVector<Value> &unscaled);
  void finishStep(func::FuncOp function, ArrayRef<Value> unscaled,
                  BlockArgument scale, BlockArgument growthTracker,
                  unsigned numResultsBefore);
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

/// The one place `auto` is resolved; the result is never Auto.
LossScaleMode LossScaling::resolveMode(func::FuncOp function) {
  Builder builder(&getContext());
  switch (mode) {
  case LossScaleMode::Auto:
    // Without autocast there is nothing low-precision to protect.
    return computeType != ComputeType::F32 &&
                   computesIn(function, builder.getF16Type())
               ? LossScaleMode::Dynamic
               : LossScaleMode::None;
  case LossScaleMode::None:
    return LossScaleMode::None;
  case LossScaleMode::Static:
  case LossScaleMode::Dynamic:
    break;
  }
  if (computesIn(function, builder.getBF16Type()))
    function.emitWarning("loss scaling a bf16 graph: bf16 has the exponent "
                         "range of f32, so its gradients rarely underflow and "
                         "the scale is usually unnecessary");
  return mode;
}

/// `value` as the command line would write it.
static std::string formatOption(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

LogicalResult LossScaling::initialize(MLIRContext *context) {
  auto fail = [&](StringRef what) {
    return emitError(UnknownLoc::get(context), "mpt-loss-scaling: ") << what;
  };
  // The step holds the scale in f32.
  constexpr double kMaxF32 = std::numeric_limits<float>::max();
  double init = initScale, min = minScale, max = maxScale;
  if (!(init > 0.0) || !std::isfinite(init))
    return fail("init-scale must be positive and finite, got ") << init;
  if (!(growthFactor >= 1.0) || !std::isfinite(growthFactor))
    return fail("growth-factor must be at least 1, got ")
           << double(growthFactor);
  if (!(backoffFactor > 0.0 && backoffFactor <= 1.0))
    return fail("backoff-factor must be in (0, 1], got ")
           << double(backoffFactor);
  if (growthInterval < 1)
    return fail("growth-interval must be at least 1, got ")
           << int64_t(growthInterval);
  if (!(min > 0.0) || !std::isfinite(min))
    return fail("min-scale must be positive and finite, got ")
           << formatOption(min);
  if (!(max > 0.0) || !std::isfinite(max))
    return fail("max-scale must be positive and finite, got ")
           << formatOption(max);
  if (min > max)
    return fail("min-scale ")
           << formatOption(min) << " is above max-scale " << formatOption(max);
  if (max > kMaxF32)
    return fail("max-scale must be at most the largest f32, ")
           << formatOption(kMaxF32) << ", got " << formatOption(max);
  // A static scale has no bounds, but it is an f32 too.
  if (mode == LossScaleMode::Static) {
    if (init > kMaxF32)
      return fail("init-scale must be at most the largest f32, ")
             << formatOption(kMaxF32) << ", got " << formatOption(init);
  } else if (!(init >= min && init <= max)) {
    return fail("init-scale ")
           << formatOption(init) << " is outside [min-scale, max-scale] = ["
           << formatOption(min) << ", " << formatOption(max) << "]";
  }
  return success();
}

/// Unscales where the scaled backward slice ends, so that no reader outside
/// it (optimizers, clipping, weight decay or accumulation written by hand)
/// ever sees the scale.
LogicalResult LossScaling::unscaleGradients(func::FuncOp function,
                                            LossGradOp seed, Value scale,
                                            SmallVector<Value> &unscaled) {
  OpBuilder builder(&getContext());
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
  if (unscaled.empty())
    return function.emitError(
        "mpt-loss-scaling: no gradient leaves the backward pass (nothing "
        "outside it reads a value computed from mpt.loss_grad), so there is "
        "nothing to unscale");
  return success();
}

/// The finite flag `finite`, false on every rank as soon as it is false on
/// one. The check reads gradients summed across the ranks, but MPI does not
/// promise every rank the same bits of a sum; a max of the flag does, so the
/// ranks skip or apply the step together, and their scales never diverge.
static Value agreeAcrossRanks(OpBuilder &builder, Location loc, Value finite) {
  auto f32Scalar = RankedTensorType::get({}, builder.getF32Type());
  auto constant = [&](float value) {
    return arith::ConstantOp::create(builder, loc,
                                     DenseElementsAttr::get(f32Scalar, value));
  };
  Value zero = constant(0.0f);
  Value nonfinite =
      arith::SelectOp::create(builder, loc, finite, zero, constant(1.0f));
  Value anyNonfinite =
      AllReduceOp::create(builder, loc, nonfinite, ReduceKind::Max)
          .getResult(0);
  return arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OEQ,
                               anyNonfinite, zero);
}

/// One check over every gradient decides the whole step: it predicates each
/// state update, updates the scale (dynamic mode, where `growthTracker` is
/// set) and adds the metrics.
void LossScaling::finishStep(func::FuncOp function, ArrayRef<Value> unscaled,
                             BlockArgument scale, BlockArgument growthTracker,
                             unsigned numResultsBefore) {
  OpBuilder builder(&getContext());
  Location loc = function.getLoc();
  auto nextAttr = [&](BlockArgument arg) {
    return builder.getNamedAttr(MPTDialect::kNextAttrName,
                                builder.getI64IntegerAttr(arg.getArgNumber()));
  };
  auto metricAttr = [&](StringRef name) {
    return builder.getNamedAttr(MPTDialect::kMetricAttrName,
                                builder.getStringAttr(name));
  };

  func::ReturnOp ret = getReturn(function);
  builder.setInsertionPoint(ret);
  Value finite = AllFiniteOp::create(builder, loc, unscaled);
  if (function.walk([](AllReduceOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    finite = agreeAcrossRanks(builder, loc, finite);
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

  if (growthTracker) {
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
  namespace metric = contract::metric;
  appendResult(function, scale, {metricAttr(metric::LossScale)});
  appendResult(function, skipped, {metricAttr(metric::Skipped)});
  appendResult(function, stats.getZeros(), {metricAttr(metric::GradZero)});
  appendResult(function, stats.getNonfinite(),
               {metricAttr(metric::GradNonfinite)});
}

void LossScaling::runOnOperation() {
  func::FuncOp function = getOperation();
  if (!isTrainStep(function))
    return;
  LossScaleMode scaling = resolveMode(function);
  if (scaling == LossScaleMode::None)
    return;

  FailureOr<LossGradOp> found = findBackwardSeed(function, getArgument());
  if (failed(found))
    return signalPassFailure();
  LossGradOp seed = *found;
  if (seed.getScale())
    return; // Already scaled.

  Builder builder(&getContext());
  auto f32Scalar = RankedTensorType::get({}, builder.getF32Type());
  auto i64Scalar = RankedTensorType::get({}, builder.getI64Type());
  auto stateAttr =
      builder.getNamedAttr(MPTDialect::kStateAttrName, builder.getUnitAttr());
  auto initAttr = [&](Attribute value) {
    return builder.getNamedAttr(MPTDialect::kInitAttrName, value);
  };

  unsigned numResultsBefore = function.getNumResults();
  BlockArgument scale = appendArgument(
      function, f32Scalar,
      {stateAttr, initAttr(DenseElementsAttr::get(
                      f32Scalar, builder.getF32FloatAttr(
                                     static_cast<float>(initScale))))});
  BlockArgument growthTracker;
  if (scaling == LossScaleMode::Dynamic)
    growthTracker = appendArgument(
        function, i64Scalar,
        {stateAttr, initAttr(DenseElementsAttr::get(
                        i64Scalar, builder.getI64IntegerAttr(0)))});
  seed.getScaleMutable().assign(scale);

  SmallVector<Value> unscaled;
  if (failed(unscaleGradients(function, seed, scale, unscaled)))
    return signalPassFailure();
  finishStep(function, unscaled, scale, growthTracker, numResultsBefore);
  eraseDeadCasts(function);
}
