//===- UpdateOps.cpp - optimizer and loss-scaling ops -----------*- C++ -*-===//
//
// Verifiers and type inference of the ops of the update: optimizers, gradient
// clipping and loss scaling.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include "mpt/Dialect/MPT/IR/LRSchedule.h"

#include "OpVerifiers.h"

using namespace mlir;
using namespace mpt;
using namespace mpt::detail;

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

LogicalResult
SGDOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                        ValueRange operands, DictionaryAttr attributes,
                        OpaqueProperties properties, RegionRange regions,
                        SmallVectorImpl<Type> &inferredReturnTypes) {
  if (operands.empty())
    return failure();
  // The updated parameter, and the updated momentum buffer when there is one.
  Adaptor adaptor(operands, attributes, properties, regions);
  inferredReturnTypes.assign(adaptor.getMomentumBuffer() ? 2 : 1,
                             operands.front().getType());
  return success();
}

LogicalResult SGDOp::verify() {
  float momentum = getMomentum().convertToFloat();
  if (failed(verifyNonNegative(*this, "lr", getLr().convertToFloat())) ||
      failed(verifyNonNegative(*this, "momentum", momentum)) ||
      failed(verifyInRange(*this, "dampening", getDampening().convertToFloat(),
                           0.0f, 1.0f,
                           /*highInclusive=*/true)) ||
      failed(verifyNonNegative(*this, "weight_decay",
                               getWeightDecay().convertToFloat())))
    return failure();
  if (momentum != 0.0f && !getMomentumBuffer())
    return emitOpError("expected a momentum buffer operand since momentum is ")
           << momentum;
  if (momentum == 0.0f && getMomentumBuffer())
    return emitOpError(
        "unexpected momentum buffer operand since momentum is 0");
  if (getNesterov() && (momentum == 0.0f || !getDampening().isZero()))
    return emitOpError(
        "nesterov requires a non-zero momentum and zero dampening");
  return success();
}

SmallVector<StringRef> SGDOp::getOptimizerStateNames() {
  if (getMomentumBuffer())
    return {"momentum_buffer"};
  return {};
}

template <typename AdamLikeOp> static LogicalResult verifyAdam(AdamLikeOp op) {
  Operation *operation = op.getOperation();
  if (failed(verifyNonNegative(operation, "lr", op.getLr().convertToFloat())) ||
      failed(verifyInRange(operation, "beta1", op.getBeta1().convertToFloat(),
                           0.0f, 1.0f,
                           /*highInclusive=*/false)) ||
      failed(verifyInRange(operation, "beta2", op.getBeta2().convertToFloat(),
                           0.0f, 1.0f,
                           /*highInclusive=*/false)) ||
      failed(verifyNonNegative(operation, "epsilon",
                               op.getEpsilon().convertToFloat())) ||
      failed(verifyNonNegative(operation, "weight_decay",
                               op.getWeightDecay().convertToFloat())))
    return failure();
  return success();
}

LogicalResult AdamOp::verify() { return verifyAdam(*this); }
LogicalResult AdamWOp::verify() { return verifyAdam(*this); }

// torch.optim.Adam's state_dict keys.
SmallVector<StringRef> AdamOp::getOptimizerStateNames() {
  return {"exp_avg", "exp_avg_sq", "step"};
}
SmallVector<StringRef> AdamWOp::getOptimizerStateNames() {
  return {"exp_avg", "exp_avg_sq", "step"};
}

LogicalResult
RMSpropOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                            ValueRange operands, DictionaryAttr attributes,
                            OpaqueProperties properties, RegionRange regions,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  if (operands.empty())
    return failure();
  // The updated parameter and state: every operand but the gradient and the
  // scheduled learning rate.
  Adaptor adaptor(operands, attributes, properties, regions);
  inferredReturnTypes.assign(operands.size() - 1 -
                                 static_cast<bool>(adaptor.getScheduledLr()),
                             operands.front().getType());
  return success();
}

LogicalResult RMSpropOp::verify() {
  float momentum = getMomentum().convertToFloat();
  if (failed(verifyNonNegative(*this, "lr", getLr().convertToFloat())) ||
      failed(verifyInRange(*this, "alpha", getAlpha().convertToFloat(), 0.0f,
                           1.0f, /*highInclusive=*/true)) ||
      failed(
          verifyNonNegative(*this, "epsilon", getEpsilon().convertToFloat())) ||
      failed(verifyNonNegative(*this, "weight_decay",
                               getWeightDecay().convertToFloat())) ||
      failed(verifyNonNegative(*this, "momentum", momentum)))
    return failure();
  if ((momentum != 0.0f) != static_cast<bool>(getMomentumBuffer()))
    return emitOpError("expected a momentum buffer operand exactly when "
                       "momentum is non-zero; momentum is ")
           << momentum;
  if (getCentered() != static_cast<bool>(getGradAvg()))
    return emitOpError("expected a grad_avg operand exactly when centered is "
                       "set; centered is ")
           << (getCentered() ? "set" : "not set");
  return success();
}

// torch.optim.RMSprop's state_dict keys.
SmallVector<StringRef> RMSpropOp::getOptimizerStateNames() {
  SmallVector<StringRef> names = {"square_avg"};
  if (getMomentumBuffer())
    names.push_back("momentum_buffer");
  if (getGradAvg())
    names.push_back("grad_avg");
  return names;
}

LogicalResult AdagradOp::verify() {
  if (failed(verifyNonNegative(*this, "lr", getLr().convertToFloat())) ||
      failed(verifyNonNegative(*this, "lr_decay",
                               getLrDecay().convertToFloat())) ||
      failed(verifyNonNegative(*this, "weight_decay",
                               getWeightDecay().convertToFloat())) ||
      failed(
          verifyNonNegative(*this, "epsilon", getEpsilon().convertToFloat())))
    return failure();
  return success();
}

// torch.optim.Adagrad's state_dict keys.
SmallVector<StringRef> AdagradOp::getOptimizerStateNames() {
  return {"sum", "step"};
}

LogicalResult AdadeltaOp::verify() {
  if (failed(verifyNonNegative(*this, "lr", getLr().convertToFloat())) ||
      failed(verifyInRange(*this, "rho", getRho().convertToFloat(), 0.0f, 1.0f,
                           /*highInclusive=*/true)) ||
      failed(
          verifyNonNegative(*this, "epsilon", getEpsilon().convertToFloat())) ||
      failed(verifyNonNegative(*this, "weight_decay",
                               getWeightDecay().convertToFloat())))
    return failure();
  return success();
}

// torch.optim.Adadelta's state_dict keys (its step count is not used by the
// update, so it is not kept).
SmallVector<StringRef> AdadeltaOp::getOptimizerStateNames() {
  return {"square_avg", "acc_delta"};
}

LogicalResult LRScheduleOp::verify() {
  if (failed(
          verifyNonNegative(*this, "base_lr", getBaseLr().convertToDouble())))
    return failure();
  return LRSchedule::parse(getSchedule(), [&] { return emitOpError(); });
}

LogicalResult
ClipGradNormOp::inferReturnTypes(MLIRContext *context, std::optional<Location>,
                                 ValueRange operands, DictionaryAttr,
                                 OpaqueProperties, RegionRange,
                                 SmallVectorImpl<Type> &inferredReturnTypes) {
  llvm::append_range(inferredReturnTypes, operands.getTypes());
  inferredReturnTypes.push_back(
      RankedTensorType::get({}, Float32Type::get(context)));
  return success();
}

LogicalResult ClipGradNormOp::verify() {
  if (getGrads().empty())
    return emitOpError("expected at least one gradient");
  return verifyPositive(*this, "max_norm", getMaxNorm().convertToFloat());
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

// The loss-scaling ops read gradients of whatever precision they were produced
// in; casting them first would defeat the check and the f32 unscale.
#define MPT_NO_PRECISION_OPERANDS(OP)                                          \
  bool OP::isPrecisionOperand(unsigned) { return false; }                      \
  bool OP::isPrecisionResult(unsigned) { return false; }
MPT_NO_PRECISION_OPERANDS(UnscaleOp)
MPT_NO_PRECISION_OPERANDS(AllFiniteOp)
MPT_NO_PRECISION_OPERANDS(GradientStatsOp)
#undef MPT_NO_PRECISION_OPERANDS

LogicalResult UnscaleOp::verify() {
  RankedTensorType resultType = tensorType(getResult());
  if (!resultType.getElementType().isF32())
    return emitOpError("expected an f32 result, got ")
           << resultType.getElementType();
  return verifyShape(*this, "result", getResult(),
                     tensorType(getGrad()).getShape());
}

LogicalResult AllFiniteOp::verify() {
  if (getInputs().empty())
    return emitOpError("expected at least one input");
  return success();
}

LogicalResult GradientStatsOp::verify() {
  if (getInputs().empty())
    return emitOpError("expected at least one input");
  return success();
}

static LogicalResult verifyBackoff(Operation *op, float backoff) {
  if (backoff > 0.0f && backoff <= 1.0f)
    return success();
  return op->emitOpError("expected backoff_factor in (0, 1], got ") << backoff;
}

LogicalResult UpdateLossScaleOp::verify() {
  float minScale = getMinScale().convertToFloat();
  float maxScale = getMaxScale().convertToFloat();
  if (failed(verifyInRange(*this, "growth_factor",
                           getGrowthFactor().convertToFloat(), 1.0f,
                           std::numeric_limits<float>::max(),
                           /*highInclusive=*/true)) ||
      failed(verifyBackoff(*this, getBackoffFactor().convertToFloat())) ||
      failed(verifyPositive(*this, "min_scale", minScale)) ||
      failed(verifyPositive(*this, "max_scale", maxScale)))
    return failure();
  auto interval = static_cast<int64_t>(getGrowthInterval());
  if (interval < 1)
    return emitOpError("expected growth_interval to be at least 1, got ")
           << interval;
  if (minScale > maxScale)
    return emitOpError("expected min_scale (")
           << minScale << ") to be at most max_scale (" << maxScale << ")";
  return success();
}
