//===- Optimizers.cpp - optimizers, gradient clipping and loss scaling ----===//
//
// Optimizer updates and loss-scaling arithmetic run in f32 (a state tensor
// declared narrower is extended on read and rounded on write). Scalar state
// (step counts, the loss scale) stays in 0-d tensors updated by 0-d
// linalg.generic ops, so that no value has to leave the device.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/Support/MathExtras.h"

#include "mpt/Dialect/MPT/IR/LRSchedule.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

using namespace mlir;
using namespace mpt;
using namespace mpt::detail;

namespace {

/// The map from the loops over a tensor of `rank` to a 0-d tensor.
AffineMap scalarMap(MLIRContext *context, int64_t rank) {
  return AffineMap::get(rank, 0, {}, context);
}

/// Folds every element of `input` into the 0-d `accumulators` with `body`
/// (block arguments: the element, then the accumulators): one linalg.generic
/// that reduces every dimension.
SmallVector<Value> reduceToScalars(OpBuilder &b, Location loc, Value input,
                                   ValueRange accumulators,
                                   GenericBodyFn body) {
  int64_t rank = tensorType(input).getRank();
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  maps.append(accumulators.size(), scalarMap(b.getContext(), rank));
  return buildGeneric(
      b, loc, input, accumulators, maps,
      iteratorTypes(rank, llvm::to_vector(llvm::seq<int64_t>(0, rank))), body);
}

/// The types of `values`' elements.
SmallVector<Type> elementTypes(ValueRange values) {
  return llvm::map_to_vector(values, [](Value v) { return elementType(v); });
}

// RMSprop, Adagrad and Adadelta are written in the tensor ops of torch.optim's
// single-tensor code, each rounded as PyTorch's CPU kernels round it (an add
// with alpha and an addcmul are one fused multiply-add there), so that mpt
// and PyTorch agree to the last bit on the same gradients.

/// self + alpha * other, rounded once: torch.add(self, other, alpha=alpha).
Value addScaled(const FloatMath &m, Value self, Value alpha, Value other) {
  return math::FmaOp::create(m.b, m.loc, alpha, other, self);
}

/// self + value * t1 * t2, the last product and the sum rounded once:
/// torch.addcmul(self, t1, t2, value=value).
Value addcmul(const FloatMath &m, Value self, float value, Value t1, Value t2) {
  Value scaled = m.mul(m.constant(value), t1);
  return math::FmaOp::create(m.b, m.loc, scaled, t2, self);
}

/// self + value * t1 / t2: torch.addcdiv(self, t1, t2, value=value).
Value addcdiv(const FloatMath &m, Value self, Value value, Value t1, Value t2) {
  Value scaled = m.mul(value, t1);
  return m.add(self, m.div(scaled, t2));
}

/// g + weight_decay * param, or g alone for a zero weight decay, as PyTorch
/// does (which also keeps 0 * inf from turning into NaN). `fused` rounds it
/// once, as torch.optim's grad.add(param, alpha=weight_decay) on the CPU;
/// SGD and Adam round the product first.
Value addWeightDecay(const FloatMath &m, Value g, Value param,
                     float weightDecay, bool fused = false) {
  if (weightDecay == 0.0f)
    return g;
  if (fused)
    return addScaled(m, g, m.constant(weightDecay), param);
  return m.add(g, m.mul(m.constant(weightDecay), param));
}

/// step + 1, in a 0-d tensor.
Value buildNextStep(OpBuilder &builder, Location loc, Value step) {
  return buildElementwise(
      builder, loc, {}, step, {}, elementType(step),
      [](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
        return {arith::AddIOp::create(b, l, args[0],
                                      intConstant(b, l, args[0].getType(), 1))};
      })[0];
}

/// The maps of an update over a tensor of `rank` that reads `tensors` tensors
/// of its shape, then `scalars` 0-d tensors.
SmallVector<AffineMap> updateMaps(MLIRContext *context, int64_t rank,
                                  unsigned tensors, unsigned scalars) {
  SmallVector<AffineMap> maps(tensors,
                              AffineMap::getMultiDimIdentityMap(rank, context));
  maps.append(scalars, scalarMap(context, rank));
  return maps;
}

/// -lr in an update's body: the scheduled rate, read as the first of
/// `scalars` (the body's arguments from the scheduled rate's on), negated, or
/// the constant `lr`.
Value negatedRate(const FloatMath &m, APFloat lr, Value scheduledLr,
                  ValueRange scalars) {
  if (!scheduledLr)
    return m.constant(-lr.convertToFloat());
  return arith::NegFOp::create(m.b, m.loc, scalars.front());
}

//===----------------------------------------------------------------------===//
// SGD
//===----------------------------------------------------------------------===//

/// PyTorch's SGD step, in f32:
///   g = grad + weight_decay * param
///   buf' = momentum * buf + (1 - dampening) * g
///   d = nesterov ? g + momentum * buf' : buf'   (d = g without momentum)
///   param' = param - lr * d
/// The factor 1 - dampening is left out when it is 1.
struct SGDLowering : OpConversionPattern<SGDOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SGDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    float momentum = op.getMomentum().convertToFloat();
    float gradWeight = 1.0f - op.getDampening().convertToFloat();
    float weightDecay = op.getWeightDecay().convertToFloat();
    bool nesterov = op.getNesterov();
    SmallVector<Value> operands = {adaptor.getParam(), adaptor.getGrad()};
    bool hasMomentum = static_cast<bool>(adaptor.getMomentumBuffer());
    if (hasMomentum)
      operands.push_back(adaptor.getMomentumBuffer());
    unsigned numTensors = operands.size();
    RankedTensorType type = tensorType(op.getParam());
    Value scheduledLr = adaptor.getScheduledLr();
    if (scheduledLr)
      operands.push_back(scheduledLr);

    rewriter.replaceOp(
        op,
        buildElementwise(
            rewriter, op.getLoc(), type.getShape(), operands,
            updateMaps(getContext(), type.getRank(), numTensors,
                       scheduledLr ? 1 : 0),
            elementTypes(op->getResults()),
            [&](OpBuilder &b, Location l,
                ValueRange args) -> SmallVector<Value> {
              FloatMath m{b, l, b.getF32Type()};
              Value lr = scheduledLr ? args[numTensors]
                                     : m.constant(op.getLr().convertToFloat());
              Value param = m.cast(args[0]);
              Value g = addWeightDecay(m, m.cast(args[1]), param, weightDecay);
              Value direction = g, buffer;
              if (hasMomentum) {
                Value dampened =
                    gradWeight == 1.0f ? g : m.mul(m.constant(gradWeight), g);
                Value previous = m.cast(args[2]);
                buffer = m.add(m.mul(m.constant(momentum), previous), dampened);
                direction = nesterov
                                ? m.add(g, m.mul(m.constant(momentum), buffer))
                                : buffer;
              }
              Value next = m.sub(param, m.mul(lr, direction));
              // The output block arguments carry the result element types.
              ValueRange outs = args.drop_front(operands.size());
              SmallVector<Value> results = {
                  castScalar(b, l, next, outs[0].getType())};
              if (hasMomentum)
                results.push_back(castScalar(b, l, buffer, outs[1].getType()));
              return results;
            }));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Adam / AdamW
//===----------------------------------------------------------------------===//

/// t = step + 1; bc1 = 1 - beta1^t and bc2 = 1 - beta2^t in 0-d tensors
/// computed once; then, elementwise,
///   m' = beta1 * m + (1 - beta1) * g, v' = beta2 * v + (1 - beta2) * g^2,
///   param' = param - lr * (m' / bc1) / (sqrt(v' / bc2) + epsilon)
/// where Adam adds weight_decay * param to g and AdamW instead first scales
/// param by 1 - lr * weight_decay.
template <typename AdamLikeOp, bool decoupledWeightDecay>
struct AdamLowering : OpConversionPattern<AdamLikeOp> {
  using OpConversionPattern<AdamLikeOp>::OpConversionPattern;
  using OpAdaptor = typename AdamLikeOp::Adaptor;

  LogicalResult
  matchAndRewrite(AdamLikeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    float beta1 = op.getBeta1().convertToFloat();
    float beta2 = op.getBeta2().convertToFloat();
    float epsilon = op.getEpsilon().convertToFloat();
    float weightDecay = op.getWeightDecay().convertToFloat();

    Value nextStep = buildNextStep(rewriter, loc, adaptor.getStep());
    SmallVector<Value> corrections = buildElementwise(
        rewriter, loc, {}, nextStep, {}, TypeRange{f32, f32},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value t = arith::SIToFPOp::create(b, l, b.getF32Type(), args[0]);
          auto correction = [&](float beta) {
            Value power = math::PowFOp::create(b, l, m.constant(beta), t);
            return m.sub(m.constant(1.0), power);
          };
          return {correction(beta1), correction(beta2)};
        });

    Value param = adaptor.getParam();
    RankedTensorType type = tensorType(param);
    SmallVector<Value> inputs = {param,
                                 adaptor.getGrad(),
                                 adaptor.getExpAvg(),
                                 adaptor.getExpAvgSq(),
                                 corrections[0],
                                 corrections[1]};
    Value scheduledLr = adaptor.getScheduledLr();
    if (scheduledLr)
      inputs.push_back(scheduledLr);
    SmallVector<Value> updated = buildElementwise(
        rewriter, loc, type.getShape(), inputs,
        updateMaps(rewriter.getContext(), type.getRank(), 4, inputs.size() - 4),
        TypeRange{type.getElementType(), type.getElementType(),
                  type.getElementType()},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          float constantLr = op.getLr().convertToFloat();
          Value lr = scheduledLr ? args[6] : m.constant(constantLr);
          Value p = m.cast(args[0]), g = m.cast(args[1]);
          if (!decoupledWeightDecay) {
            g = addWeightDecay(m, g, p, weightDecay);
          } else if (weightDecay != 0.0f) {
            // 1 - lr * weight_decay in f32 either way, folded for a
            // constant rate.
            Value keep = scheduledLr
                             ? m.sub(m.constant(1.0f),
                                     m.mul(lr, m.constant(weightDecay)))
                             : m.constant(1.0f - constantLr * weightDecay);
            p = m.mul(p, keep);
          }
          // One op per statement: their order must not depend on the
          // compiler's argument evaluation order.
          Value oldExpAvg = m.cast(args[2]), oldExpAvgSq = m.cast(args[3]);
          Value keptAvg = m.mul(m.constant(beta1), oldExpAvg);
          Value newAvg = m.mul(m.constant(1.0f - beta1), g);
          Value expAvg = m.add(keptAvg, newAvg);
          Value keptSq = m.mul(m.constant(beta2), oldExpAvgSq);
          Value square = m.mul(g, g);
          Value newSq = m.mul(m.constant(1.0f - beta2), square);
          Value expAvgSq = m.add(keptSq, newSq);
          Value corrected = m.div(expAvg, args[4]);
          Value stepSize = m.mul(lr, corrected);
          Value root = m.sqrt(m.div(expAvgSq, args[5]));
          Value denominator = m.add(root, m.constant(epsilon));
          Value next = m.sub(p, m.div(stepSize, denominator));
          return {castScalar(b, l, next, type.getElementType()),
                  castScalar(b, l, expAvg, type.getElementType()),
                  castScalar(b, l, expAvgSq, type.getElementType())};
        });
    updated.push_back(nextStep);
    rewriter.replaceOp(op, updated);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Learning-rate schedules
//===----------------------------------------------------------------------===//

/// The rate of `schedule` for `base` after `step` (an integer) applied updates,
/// in f64 as PyTorch's schedulers compute it in Python floats, each formula
/// in the order of operations of their closed forms.
Value buildScheduledLr(const FloatMath &m, const LRSchedule &schedule,
                       double base, Value step) {
  OpBuilder &b = m.b;
  Location l = m.loc;
  Type countType = step.getType();
  auto toFloat = [&](Value integer) {
    return arith::SIToFPOp::create(b, l, m.type, integer).getResult();
  };
  auto atMost = [&](Value integer, int64_t bound) {
    return arith::MinSIOp::create(b, l, integer,
                                  intConstant(b, l, countType, bound))
        .getResult();
  };
  switch (schedule.kind) {
  case LRSchedule::Kind::Constant:
    return m.constant(base);
  case LRSchedule::Kind::Step: {
    Value decays = arith::DivSIOp::create(
        b, l, step, intConstant(b, l, countType, schedule.stepSize));
    Value factor =
        math::PowFOp::create(b, l, m.constant(schedule.gamma), toFloat(decays));
    return m.mul(m.constant(base), factor);
  }
  case LRSchedule::Kind::WarmupCosine: {
    double minLr = schedule.minLr;
    double period = schedule.totalSteps - schedule.warmupSteps;
    Value sinceWarmup = toFloat(arith::SubIOp::create(
        b, l, atMost(step, schedule.totalSteps),
        intConstant(b, l, countType, schedule.warmupSteps)));
    Value angle = m.div(m.mul(m.constant(llvm::numbers::pi), sinceWarmup),
                        m.constant(period));
    Value half =
        m.mul(m.constant(0.5),
              m.add(m.constant(1.0), math::CosOp::create(b, l, angle)));
    Value cosine =
        m.add(m.constant(minLr), m.mul(m.constant(base - minLr), half));
    if (schedule.warmupSteps == 0)
      return cosine;
    double start = schedule.startFactor;
    Value ramp = m.div(m.mul(m.constant(1.0 - start), toFloat(step)),
                       m.constant(static_cast<double>(schedule.warmupSteps)));
    Value factor = m.add(m.constant(start), ramp);
    Value warming = arith::CmpIOp::create(
        b, l, arith::CmpIPredicate::slt, step,
        intConstant(b, l, countType, schedule.warmupSteps));
    return arith::SelectOp::create(b, l, warming,
                                   m.mul(m.constant(base), factor), cosine);
  }
  case LRSchedule::Kind::Table: {
    // A select per entry: tables are short, and a lookup in a constant
    // buffer would need one on the device.
    int64_t last = schedule.values.size() - 1;
    Value index = atMost(step, last);
    Value lr = m.constant(schedule.values.back());
    for (int64_t i = 0; i < last; ++i) {
      Value here = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, index,
                                         intConstant(b, l, countType, i));
      lr = arith::SelectOp::create(b, l, here, m.constant(schedule.values[i]),
                                   lr);
    }
    return lr;
  }
  }
  llvm_unreachable("every schedule kind is handled");
}

/// The scheduled rate rounded once to f32, and step + 1, in one 0-d generic.
struct LRScheduleLowering : OpConversionPattern<LRScheduleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LRScheduleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<LRSchedule> schedule =
        LRSchedule::parse(op.getSchedule(), [&] { return op.emitOpError(); });
    if (failed(schedule))
      return failure();
    double base = op.getBaseLr().convertToDouble();
    Value step = adaptor.getStep();
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, op.getLoc(), {}, step, {},
                TypeRange{rewriter.getF32Type(), elementType(step)},
                [&](OpBuilder &b, Location l,
                    ValueRange args) -> SmallVector<Value> {
                  FloatMath m{b, l, b.getF64Type()};
                  Value lr = buildScheduledLr(m, *schedule, base, args[0]);
                  Value next = arith::AddIOp::create(
                      b, l, args[0], intConstant(b, l, args[0].getType(), 1));
                  return {castScalar(b, l, lr, b.getF32Type()), next};
                }));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// RMSprop
//===----------------------------------------------------------------------===//

/// PyTorch's RMSprop step, in f32, one generic over the parameter and its
/// state (see mpt.rmsprop): v' = alpha * v + (1 - alpha) * g^2, with
/// centering a' = alpha * a + (1 - alpha) * g and d = sqrt(v' - a'^2) + eps
/// (else sqrt(v') + eps), then param' = param - lr * g / d, or with momentum
/// buf' = momentum * buf + g / d and param' = param - lr * buf'.
struct RMSpropLowering : OpConversionPattern<RMSpropOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RMSpropOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    float alpha = op.getAlpha().convertToFloat();
    float epsilon = op.getEpsilon().convertToFloat();
    float weightDecay = op.getWeightDecay().convertToFloat();
    float momentum = op.getMomentum().convertToFloat();
    Value buffer = adaptor.getMomentumBuffer();
    Value gradAvg = adaptor.getGradAvg();
    SmallVector<Value> operands = {adaptor.getParam(), adaptor.getGrad(),
                                   adaptor.getSquareAvg()};
    if (buffer)
      operands.push_back(buffer);
    if (gradAvg)
      operands.push_back(gradAvg);
    unsigned numTensors = operands.size();
    RankedTensorType type = tensorType(op.getParam());
    Value scheduledLr = adaptor.getScheduledLr();
    if (scheduledLr)
      operands.push_back(scheduledLr);

    rewriter.replaceOp(
        op,
        buildElementwise(
            rewriter, op.getLoc(), type.getShape(), operands,
            updateMaps(getContext(), type.getRank(), numTensors,
                       scheduledLr ? 1 : 0),
            elementTypes(op->getResults()),
            [&](OpBuilder &b, Location l,
                ValueRange args) -> SmallVector<Value> {
              FloatMath m{b, l, b.getF32Type()};
              Value negatedLr = negatedRate(m, op.getLr(), scheduledLr,
                                            args.drop_front(numTensors));
              // The output block arguments carry the result element types.
              ValueRange outs = args.drop_front(operands.size());
              ValueRange state = args.take_front(numTensors);
              Value param = m.cast(state[0]);
              Value g = addWeightDecay(m, m.cast(state[1]), param, weightDecay,
                                       /*fused=*/true);
              Value keptSquares = m.mul(m.constant(alpha), m.cast(state[2]));
              Value squareAvg = addcmul(m, keptSquares, 1.0f - alpha, g, g);
              Value variance = squareAvg, average;
              if (gradAvg) {
                Value kept = m.mul(m.constant(alpha), m.cast(state.back()));
                average = addScaled(m, kept, m.constant(1.0f - alpha), g);
                variance = addcmul(m, squareAvg, -1.0f, average, average);
              }
              Value denominator = m.add(m.sqrt(variance), m.constant(epsilon));
              Value next, nextBuffer;
              if (buffer) {
                Value kept = m.mul(m.constant(momentum), m.cast(state[3]));
                nextBuffer = addcdiv(m, kept, m.constant(1.0f), g, denominator);
                next = addScaled(m, param, negatedLr, nextBuffer);
              } else {
                next = addcdiv(m, param, negatedLr, g, denominator);
              }
              SmallVector<Value> results;
              for (Value value : {next, squareAvg, nextBuffer, average})
                if (value)
                  results.push_back(
                      castScalar(b, l, value, outs[results.size()].getType()));
              return results;
            }));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Adagrad
//===----------------------------------------------------------------------===//

/// PyTorch's Adagrad step: the learning rate of the update numbered
/// step + 1, clr = lr / (1 + step * lr_decay), negated in a 0-d tensor; then,
/// elementwise, sum' = sum + g^2 and
/// param' = param - clr * g / (sqrt(sum') + epsilon).
struct AdagradLowering : OpConversionPattern<AdagradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AdagradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    float lrDecay = op.getLrDecay().convertToFloat();
    float weightDecay = op.getWeightDecay().convertToFloat();
    float epsilon = op.getEpsilon().convertToFloat();

    // In f64 and rounded once, as PyTorch computes it in Python floats.
    Value step = adaptor.getStep();
    SmallVector<Value> scalars = {step};
    if (Value scheduledLr = adaptor.getScheduledLr())
      scalars.push_back(scheduledLr);
    Value negatedStepLr = buildElementwise(
        rewriter, loc, {}, scalars, {}, rewriter.getF32Type(),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF64Type()};
          Value done = arith::SIToFPOp::create(b, l, b.getF64Type(), args[0]);
          Value decay =
              m.add(m.constant(1.0), m.mul(done, m.constant(lrDecay)));
          Value lr = scalars.size() == 2
                         ? m.cast(args[1])
                         : m.constant(op.getLr().convertToFloat());
          Value stepLr = m.div(lr, decay);
          return {castScalar(b, l, arith::NegFOp::create(b, l, stepLr),
                             b.getF32Type())};
        })[0];

    Value param = adaptor.getParam();
    RankedTensorType type = tensorType(param);
    SmallVector<Value> updated = buildElementwise(
        rewriter, loc, type.getShape(),
        ValueRange{param, adaptor.getGrad(), adaptor.getSum(), negatedStepLr},
        updateMaps(rewriter.getContext(), type.getRank(), 3, 1),
        TypeRange{type.getElementType(), type.getElementType()},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value p = m.cast(args[0]);
          Value g = addWeightDecay(m, m.cast(args[1]), p, weightDecay,
                                   /*fused=*/true);
          Value sum = addcmul(m, m.cast(args[2]), 1.0f, g, g);
          Value std = m.add(m.sqrt(sum), m.constant(epsilon));
          Value next = addcdiv(m, p, args[3], g, std);
          return {castScalar(b, l, next, type.getElementType()),
                  castScalar(b, l, sum, type.getElementType())};
        });
    updated.push_back(buildNextStep(rewriter, loc, step));
    rewriter.replaceOp(op, updated);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Adadelta
//===----------------------------------------------------------------------===//

/// PyTorch's Adadelta step, in f32: v' = rho * v + (1 - rho) * g^2,
/// delta = sqrt(u + eps) / sqrt(v' + eps) * g,
/// u' = rho * u + (1 - rho) * delta^2, param' = param - lr * delta.
struct AdadeltaLowering : OpConversionPattern<AdadeltaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AdadeltaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    float rho = op.getRho().convertToFloat();
    float epsilon = op.getEpsilon().convertToFloat();
    float weightDecay = op.getWeightDecay().convertToFloat();
    Type type = elementType(op.getParam());
    SmallVector<Value> operands = {adaptor.getParam(), adaptor.getGrad(),
                                   adaptor.getSquareAvg(),
                                   adaptor.getAccDelta()};
    Value scheduledLr = adaptor.getScheduledLr();
    if (scheduledLr)
      operands.push_back(scheduledLr);
    int64_t rank = tensorType(op.getParam()).getRank();
    rewriter.replaceOp(
        op,
        buildElementwise(
            rewriter, op.getLoc(), tensorType(op.getParam()).getShape(),
            operands, updateMaps(getContext(), rank, 4, scheduledLr ? 1 : 0),
            TypeRange{type, type, type},
            [&](OpBuilder &b, Location l,
                ValueRange args) -> SmallVector<Value> {
              FloatMath m{b, l, b.getF32Type()};
              Value negatedLr =
                  negatedRate(m, op.getLr(), scheduledLr, args.drop_front(4));
              Value p = m.cast(args[0]);
              Value g = addWeightDecay(m, m.cast(args[1]), p, weightDecay,
                                       /*fused=*/true);
              Value keptSquares = m.mul(m.constant(rho), m.cast(args[2]));
              Value squareAvg = addcmul(m, keptSquares, 1.0f - rho, g, g);
              Value accDelta = m.cast(args[3]);
              Value std = m.sqrt(m.add(squareAvg, m.constant(epsilon)));
              Value rms = m.sqrt(m.add(accDelta, m.constant(epsilon)));
              Value delta = m.mul(m.div(rms, std), g);
              Value keptDeltas = m.mul(m.constant(rho), accDelta);
              Value nextAccDelta =
                  addcmul(m, keptDeltas, 1.0f - rho, delta, delta);
              Value next = addScaled(m, p, negatedLr, delta);
              return {castScalar(b, l, next, type),
                      castScalar(b, l, squareAvg, type),
                      castScalar(b, l, nextAccDelta, type)};
            }));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Gradient clipping
//===----------------------------------------------------------------------===//

/// norm = sqrt(sum of squares of every gradient), accumulated in f32 into
/// one 0-d tensor; every gradient is scaled in f32 by
/// min(1, max_norm / (norm + 1e-6)) (a NaN norm propagates) and rounded to its
/// type.
struct ClipGradNormLowering : OpConversionPattern<ClipGradNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ClipGradNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value sumSquares = createFilled(rewriter, loc, {}, f32, 0.0);
    for (Value grad : adaptor.getGrads())
      sumSquares = reduceToScalars(
          rewriter, loc, grad, sumSquares,
          [](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
            FloatMath m{b, l, b.getF32Type()};
            Value g = m.cast(args[0]);
            return {m.add(args[1], m.mul(g, g))};
          })[0];
    float maxNorm = op.getMaxNorm().convertToFloat();
    SmallVector<Value> normAndScale = buildElementwise(
        rewriter, loc, {}, sumSquares, {}, TypeRange{f32, f32},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value norm = m.sqrt(args[0]);
          Value guarded = m.add(norm, m.constant(1e-6));
          Value scale = m.div(m.constant(maxNorm), guarded);
          return {norm,
                  arith::MinimumFOp::create(b, l, scale, m.constant(1.0))};
        });

    SmallVector<Value> results;
    for (Value grad : adaptor.getGrads()) {
      RankedTensorType type = tensorType(grad);
      results.push_back(buildElementwise(
          rewriter, loc, type.getShape(), ValueRange{grad, normAndScale[1]},
          {rewriter.getMultiDimIdentityMap(type.getRank()),
           scalarMap(getContext(), type.getRank())},
          type.getElementType(),
          [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
            FloatMath m{b, l, b.getF32Type()};
            return {castScalar(b, l, m.mul(m.cast(args[0]), args[1]),
                               type.getElementType())};
          })[0]);
    }
    results.push_back(normAndScale[0]);
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

/// f32(grad) * (1 / scale), with the reciprocal computed once.
struct UnscaleLowering : OpConversionPattern<UnscaleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(UnscaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value inverse = buildElementwise(
        rewriter, loc, {}, adaptor.getScale(), {}, f32,
        [](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          return {m.div(m.constant(1.0), args[0])};
        })[0];
    RankedTensorType type = op.getType();
    rewriter.replaceOp(
        op, buildElementwise(rewriter, loc, type.getShape(),
                             ValueRange{adaptor.getGrad(), inverse},
                             {rewriter.getMultiDimIdentityMap(type.getRank()),
                              scalarMap(getContext(), type.getRank())},
                             f32,
                             [](OpBuilder &b, Location l,
                                ValueRange args) -> SmallVector<Value> {
                               FloatMath m{b, l, b.getF32Type()};
                               return {m.mul(m.cast(args[0]), args[1])};
                             }));
    return success();
  }
};

/// Two i64 counters accumulated over every input: zeros and non-finites
/// (|x| == inf, unordered so that nan counts too).
SmallVector<Value> buildGradientCounts(OpBuilder &b, Location loc,
                                       ValueRange inputs) {
  Type i64 = b.getI64Type();
  SmallVector<Value> counts(
      2, createFilled(b, loc, {}, intConstant(b, loc, i64, 0)));
  for (Value input : inputs)
    counts = reduceToScalars(
        b, loc, input, counts,
        [](OpBuilder &nb, Location l, ValueRange args) -> SmallVector<Value> {
          Type elementType = args[0].getType();
          Value zero = floatConstant(nb, l, elementType, 0.0);
          Value infinity = floatConstant(
              nb, l, elementType, std::numeric_limits<double>::infinity());
          Value isZero = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                               args[0], zero);
          Value isNonFinite = arith::CmpFOp::create(
              nb, l, arith::CmpFPredicate::UEQ,
              math::AbsFOp::create(nb, l, args[0]), infinity);
          Type i64 = nb.getI64Type();
          return {
              arith::AddIOp::create(nb, l, args[1],
                                    arith::ExtUIOp::create(nb, l, i64, isZero)),
              arith::AddIOp::create(
                  nb, l, args[2],
                  arith::ExtUIOp::create(nb, l, i64, isNonFinite))};
        });
  return counts;
}

/// The loss-scaling pass checks and counts the same gradients. Every element
/// is finite exactly when none counts as non-finite, so the pair reads the
/// gradients twice (the two counts) instead of three times: lowered
/// together, at the earlier op, by whichever is converted first.
template <typename Sibling> Sibling findSameInputsSibling(Operation *op) {
  for (Operation &other : *op->getBlock())
    if (auto sibling = dyn_cast<Sibling>(other);
        sibling && sibling->getOperands() == op->getOperands())
      return sibling;
  return nullptr;
}

void lowerCheckWithCounts(ConversionPatternRewriter &rewriter,
                          AllFiniteOp check, GradientStatsOp stats,
                          ValueRange inputs) {
  Operation *first = check->isBeforeInBlock(stats) ? check.getOperation()
                                                   : stats.getOperation();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(first);
  Location loc = stats.getLoc();
  SmallVector<Value> counts = buildGradientCounts(rewriter, loc, inputs);
  Value finite = buildElementwise(
      rewriter, loc, {}, counts[1], {}, rewriter.getI1Type(),
      [](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
        return {arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, args[0],
                                      intConstant(b, l, b.getI64Type(), 0))};
      })[0];
  rewriter.replaceOp(check, finite);
  rewriter.replaceOp(stats, counts);
}

/// An i1 and-reduction of |x| != inf (ordered, so false for NaN) over every
/// element of every input, into one 0-d tensor.
struct AllFiniteLowering : OpConversionPattern<AllFiniteOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AllFiniteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (auto stats = findSameInputsSibling<GradientStatsOp>(op)) {
      lowerCheckWithCounts(rewriter, op, stats, adaptor.getInputs());
      return success();
    }
    Location loc = op.getLoc();
    Value finite = createFilled(
        rewriter, loc, {}, intConstant(rewriter, loc, rewriter.getI1Type(), 1));
    for (Value input : adaptor.getInputs())
      finite = reduceToScalars(
          rewriter, loc, input, finite,
          [](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
            Value magnitude = math::AbsFOp::create(b, l, args[0]);
            Value infinity =
                floatConstant(b, l, args[0].getType(),
                              std::numeric_limits<double>::infinity());
            Value isFinite = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::ONE, magnitude, infinity);
            return {arith::AndIOp::create(b, l, args[1], isFinite)};
          })[0];
    rewriter.replaceOp(op, finite);
    return success();
  }
};

struct GradientStatsLowering : OpConversionPattern<GradientStatsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GradientStatsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (auto check = findSameInputsSibling<AllFiniteOp>(op)) {
      lowerCheckWithCounts(rewriter, check, op, adaptor.getInputs());
      return success();
    }
    rewriter.replaceOp(
        op, buildGradientCounts(rewriter, op.getLoc(), adaptor.getInputs()));
    return success();
  }
};

/// GradScaler's rule on 0-d tensors: on overflow, scale * backoff and a
/// reset tracker; otherwise the tracker counts up and, once it reaches the
/// interval, the scale grows and the tracker resets. The result is clamped
/// to [min_scale, max_scale]. `>=` (rather than PyTorch's `==`) keeps a
/// tracker restored above the interval from never growing again.
struct UpdateLossScaleLowering : OpConversionPattern<UpdateLossScaleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(UpdateLossScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    float growth = op.getGrowthFactor().convertToFloat();
    float backoff = op.getBackoffFactor().convertToFloat();
    float minScale = op.getMinScale().convertToFloat();
    float maxScale = op.getMaxScale().convertToFloat();
    auto interval = static_cast<int64_t>(op.getGrowthInterval());
    Value tracker = adaptor.getGrowthTracker();
    rewriter.replaceOp(
        op,
        buildElementwise(
            rewriter, op.getLoc(), {},
            ValueRange{adaptor.getScale(), tracker, adaptor.getFinite()}, {},
            TypeRange{rewriter.getF32Type(), elementType(tracker)},
            [&](OpBuilder &b, Location l,
                ValueRange args) -> SmallVector<Value> {
              FloatMath m{b, l, b.getF32Type()};
              Value scale = args[0], count = args[1], finite = args[2];
              Type countType = count.getType();
              Value zero = intConstant(b, l, countType, 0);
              Value counted = arith::AddIOp::create(
                  b, l, count, intConstant(b, l, countType, 1));
              Value grow = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::sge, counted,
                  intConstant(b, l, countType, interval));
              Value cleanScale = arith::SelectOp::create(
                  b, l, grow, m.mul(scale, m.constant(growth)), scale);
              Value cleanCount =
                  arith::SelectOp::create(b, l, grow, zero, counted);
              Value newScale = arith::SelectOp::create(
                  b, l, finite, cleanScale, m.mul(scale, m.constant(backoff)));
              Value newCount =
                  arith::SelectOp::create(b, l, finite, cleanCount, zero);
              Value atLeastMin = arith::MaximumFOp::create(
                  b, l, newScale, m.constant(minScale));
              Value clamped = arith::MinimumFOp::create(b, l, atLeastMin,
                                                        m.constant(maxScale));
              return {clamped, newCount};
            }));
    return success();
  }
};

} // namespace

void mpt::detail::populateOptimizerPatterns(RewritePatternSet &patterns) {
  patterns.add<SGDLowering, AdamLowering<AdamOp, /*decoupled=*/false>,
               AdamLowering<AdamWOp, /*decoupled=*/true>, LRScheduleLowering,
               RMSpropLowering, AdagradLowering, AdadeltaLowering,
               ClipGradNormLowering, UnscaleLowering, AllFiniteLowering,
               GradientStatsLowering, UpdateLossScaleLowering>(
      patterns.getContext());
}
