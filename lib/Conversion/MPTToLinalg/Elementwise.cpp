//===- Elementwise.cpp - activations, shapes and reduce_sum ---------------===//
//
// Each op rounds its result to its element type once. Activations other than
// relu (gelu, sigmoid, tanh, silu and their gradients) compute in f32 and
// round at the end, as PyTorch's f16/bf16 kernels do (opmath); relu and
// bias_add are that op in the element type. Shape ops only move data.
// reduce_sum accumulates in f32.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

using namespace mlir;
using namespace mpt;
using namespace mpt::detail;

namespace {

/// Replaces `op` by an elementwise linalg.generic over its result shape whose
/// body computes `body` from the scalars of `operands` (all of that shape).
LogicalResult replaceWithElementwise(ConversionPatternRewriter &rewriter,
                                     Operation *op, ValueRange operands,
                                     GenericBodyFn body) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  rewriter.replaceOp(op, buildElementwise(rewriter, op->getLoc(),
                                          resultType.getShape(), operands, {},
                                          resultType.getElementType(), body));
  return success();
}

struct BiasAddLowering : OpConversionPattern<BiasAddOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BiasAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    rewriter.replaceOp(
        op, buildGeneric(
                rewriter, op.getLoc(),
                ValueRange{adaptor.getInput(), adaptor.getBias()},
                createEmpty(rewriter, op.getLoc(), type.getShape(),
                            type.getElementType()),
                {identity,
                 projectionMap(getContext(), rank, {op.getNormalizedAxis()}),
                 identity},
                iteratorTypes(rank),
                [](OpBuilder &b, Location l,
                   ValueRange args) -> SmallVector<Value> {
                  return {arith::AddFOp::create(b, l, args[0], args[1])};
                }));
    return success();
  }
};

/// max(x, 0) as x if x > 0 or x is NaN, else +0: arith.maximumf(x, 0)'s
/// values (a NaN stays, as PyTorch's relu keeps it, so that the overflow
/// check still sees it; -0 gives +0) in a compare and a select, where x86
/// lowers arith.maximumf with fixups for NaNs and signed zeros.
struct ReluLowering : OpConversionPattern<ReluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return replaceWithElementwise(
        rewriter, op, adaptor.getInput(),
        [](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value zero = floatConstant(b, l, args[0].getType(), 0.0);
          Value keep = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UGT,
                                             args[0], zero);
          return {arith::SelectOp::create(b, l, keep, args[0], zero)};
        });
  }
};

/// grad where input > 0, else 0. The unordered comparison passes the gradient
/// where the input is NaN, as PyTorch's threshold_backward does.
struct ReluGradLowering : OpConversionPattern<ReluGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReluGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return replaceWithElementwise(
        rewriter, op, ValueRange{adaptor.getGrad(), adaptor.getInput()},
        [](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value zero = floatConstant(b, l, args[0].getType(), 0.0);
          Value active = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UGT,
                                               args[1], zero);
          return {arith::SelectOp::create(b, l, active, args[0], zero)};
        });
  }
};

// The constants of PyTorch's gelu kernels.
constexpr double kSqrtHalf = 0.70710678118654752440; // M_SQRT1_2
constexpr double kTanhBeta = 0.79788456080286535588; // sqrt(2/pi)
constexpr double kTanhKappa = 0.044715;
constexpr double kNormalDensity = 0.39894228040143267794; // 1/sqrt(2*pi)

/// Exact: x * 0.5 * (1 + erf(x / sqrt(2))). Tanh approximation:
/// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
struct GeluLowering : OpConversionPattern<GeluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GeluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool approximate = op.getApproximate();
    return replaceWithElementwise(
        rewriter, op, adaptor.getInput(),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Type type = args[0].getType();
          FloatMath m{b, l, b.getF32Type()};
          Value x = m.cast(args[0]), half = m.constant(0.5),
                one = m.constant(1.0);
          // Ops are built one statement at a time so that their order does
          // not depend on the compiler's argument evaluation order.
          if (!approximate) {
            Value scaled = m.mul(x, m.constant(kSqrtHalf));
            Value erf = math::ErfOp::create(b, l, scaled);
            Value onePlusErf = m.add(one, erf);
            Value halfX = m.mul(x, half);
            return {castScalar(b, l, m.mul(halfX, onePlusErf), type)};
          }
          Value square = m.mul(x, x);
          Value cube = m.mul(square, x);
          Value kappaCube = m.mul(m.constant(kTanhKappa), cube);
          Value inner = m.mul(m.constant(kTanhBeta), m.add(x, kappaCube));
          Value tanh = math::TanhOp::create(b, l, inner);
          Value onePlusTanh = m.add(one, tanh);
          Value halfX = m.mul(half, x);
          return {castScalar(b, l, m.mul(halfX, onePlusTanh), type)};
        });
  }
};

/// The derivative of gelu times grad, as in PyTorch's GeluBackward kernels:
/// exact: grad * (cdf + x * pdf) with cdf = 0.5 * (1 + erf(x / sqrt(2))) and
/// pdf = exp(-x^2 / 2) / sqrt(2*pi); tanh: grad * (0.5 * (1 + t) +
/// 0.5 * x * (1 - t^2) * sqrt(2/pi) * (1 + 3 * 0.044715 * x^2)).
struct GeluGradLowering : OpConversionPattern<GeluGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GeluGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool approximate = op.getApproximate();
    return replaceWithElementwise(
        rewriter, op, ValueRange{adaptor.getGrad(), adaptor.getInput()},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Type type = args[0].getType();
          FloatMath m{b, l, b.getF32Type()};
          Value grad = m.cast(args[0]), x = m.cast(args[1]);
          Value half = m.constant(0.5), one = m.constant(1.0);
          Value square = m.mul(x, x);
          if (!approximate) {
            Value scaled = m.mul(x, m.constant(kSqrtHalf));
            Value erf = math::ErfOp::create(b, l, scaled);
            Value cdf = m.mul(half, m.add(one, erf));
            Value exponent = m.mul(square, m.constant(-0.5));
            Value density = math::ExpOp::create(b, l, exponent);
            Value pdf = m.mul(m.constant(kNormalDensity), density);
            Value slope = m.add(cdf, m.mul(x, pdf));
            return {castScalar(b, l, m.mul(grad, slope), type)};
          }
          Value cube = m.mul(square, x);
          Value kappaCube = m.mul(m.constant(kTanhKappa), cube);
          Value inner = m.mul(m.constant(kTanhBeta), m.add(x, kappaCube));
          Value tanh = math::TanhOp::create(b, l, inner);
          Value left = m.mul(half, x);
          Value right = m.add(one, tanh);
          Value leftDerivative = m.mul(half, right);
          Value tanhSquare = m.mul(tanh, tanh);
          Value rightDerivative = m.sub(one, tanhSquare);
          Value kappaSquare = m.mul(m.constant(3.0 * kTanhKappa), square);
          Value innerDerivative =
              m.mul(m.constant(kTanhBeta), m.add(one, kappaSquare));
          Value product = m.mul(left, rightDerivative);
          Value derivative =
              m.add(leftDerivative, m.mul(product, innerDerivative));
          return {castScalar(b, l, m.mul(grad, derivative), type)};
        });
  }
};

/// An activation or its gradient whose formula reads every operand in f32 and
/// whose result is rounded once to the element type, as PyTorch's f16/bf16
/// kernels compute (opmath).
template <typename OpTy> struct F32FormulaLowering : OpConversionPattern<OpTy> {
  using Formula = Value (*)(const FloatMath &, ValueRange);

  F32FormulaLowering(MLIRContext *context, Formula formula)
      : OpConversionPattern<OpTy>(context), formula(formula) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return replaceWithElementwise(
        rewriter, op, adaptor.getOperands(),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          SmallVector<Value> operands = llvm::map_to_vector(
              args.drop_back(), [&](Value arg) { return m.cast(arg); });
          return {castScalar(b, l, formula(m, operands), args[0].getType())};
        });
  }

  Formula formula;
};

// The formulas of PyTorch's kernels, on the f32 operands in the op's order;
// the gradients of sigmoid and tanh read the forward output y. Ops are built
// one statement at a time so that their order does not depend on the
// compiler's argument evaluation order.

/// 1 / (1 + exp(-x)).
Value sigmoid(const FloatMath &m, Value x) {
  Value one = m.constant(1.0);
  Value negated = arith::NegFOp::create(m.b, m.loc, x);
  Value onePlusExp = m.add(one, m.exp(negated));
  return m.div(one, onePlusExp);
}
Value sigmoidFormula(const FloatMath &m, ValueRange operands) {
  return sigmoid(m, operands[0]);
}
/// grad * (1 - y) * y.
Value sigmoidGradFormula(const FloatMath &m, ValueRange operands) {
  Value grad = operands[0], y = operands[1];
  Value complement = m.sub(m.constant(1.0), y);
  return m.mul(m.mul(grad, complement), y);
}
Value tanhFormula(const FloatMath &m, ValueRange operands) {
  return math::TanhOp::create(m.b, m.loc, operands[0]);
}
/// grad * (1 - y^2).
Value tanhGradFormula(const FloatMath &m, ValueRange operands) {
  Value grad = operands[0], y = operands[1];
  Value one = m.constant(1.0);
  Value complement = m.sub(one, m.mul(y, y));
  return m.mul(grad, complement);
}
/// x / (1 + exp(-x)).
Value siluFormula(const FloatMath &m, ValueRange operands) {
  Value x = operands[0];
  Value one = m.constant(1.0);
  Value negated = arith::NegFOp::create(m.b, m.loc, x);
  Value onePlusExp = m.add(one, m.exp(negated));
  return m.div(x, onePlusExp);
}
/// grad * s * (1 + x * (1 - s)) with s = sigmoid(x).
Value siluGradFormula(const FloatMath &m, ValueRange operands) {
  Value grad = operands[0], x = operands[1];
  Value s = sigmoid(m, x);
  Value one = m.constant(1.0);
  Value complement = m.sub(one, s);
  Value slope = m.add(one, m.mul(x, complement));
  return m.mul(m.mul(grad, s), slope);
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// One tensor.collapse_shape or tensor.expand_shape when the shapes group
/// into each other, else a collapse to 1-d followed by an expansion.
struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType inputType = tensorType(input), resultType = op.getType();
    if (inputType == resultType) {
      rewriter.replaceOp(op, input);
      return success();
    }
    if (inputType.getRank() >= resultType.getRank()) {
      if (std::optional<SmallVector<ReassociationIndices>> groups =
              getReassociationIndicesForReshape(inputType, resultType)) {
        rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, resultType,
                                                             input, *groups);
        return success();
      }
    } else if (std::optional<SmallVector<ReassociationIndices>> groups =
                   getReassociationIndicesForReshape(resultType, inputType)) {
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, resultType, input,
                                                         *groups);
      return success();
    }
    auto flatGroup = [](RankedTensorType type) {
      ReassociationIndices group;
      for (int64_t dim = 0; dim < type.getRank(); ++dim)
        group.push_back(dim);
      return SmallVector<ReassociationIndices>{group};
    };
    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc, inputType.clone({inputType.getNumElements()}), input,
        flatGroup(inputType));
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, resultType, flat,
                                                       flatGroup(resultType));
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Value init = createEmpty(rewriter, op.getLoc(), type.getShape(),
                             type.getElementType());
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, op.getLoc(),
                                                       adaptor.getInput(), init,
                                                       op.getPermutation())
                               .getResult());
    return success();
  }
};

/// Sums in f32, rounds once to the result type, then re-inserts the reduced
/// dimensions as size 1 for keep_dims.
struct ReduceSumLowering : OpConversionPattern<ReduceSumOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReduceSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Value sum = sumToF32(rewriter, loc, adaptor.getInput(), op.getDims());
    sum = convertElements(rewriter, loc, sum, resultType.getElementType());
    if (op.getKeepDims() && !op.getDims().empty()) {
      std::optional<SmallVector<ReassociationIndices>> groups =
          getReassociationIndicesForReshape(resultType, tensorType(sum));
      if (!groups)
        return rewriter.notifyMatchFailure(op, "cannot re-insert unit dims");
      sum = tensor::ExpandShapeOp::create(rewriter, loc, resultType, sum,
                                          *groups);
    }
    rewriter.replaceOp(op, sum);
    return success();
  }
};

/// linalg.broadcast: its `dimensions` are the added result dims, as in mpt.
struct BroadcastLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    Value init = createEmpty(rewriter, op.getLoc(), resultType.getShape(),
                             resultType.getElementType());
    auto broadcast = linalg::BroadcastOp::create(
        rewriter, op.getLoc(), adaptor.getInput(), init, op.getDims());
    rewriter.replaceOp(op, broadcast.getResults());
    return success();
  }
};

} // namespace

void mpt::detail::populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<BiasAddLowering, ReluLowering, ReluGradLowering, GeluLowering,
               GeluGradLowering, ReshapeLowering, TransposeLowering,
               ReduceSumLowering>(patterns.getContext());
  patterns.add<BroadcastLowering>(patterns.getContext());
  MLIRContext *context = patterns.getContext();
  patterns.add<F32FormulaLowering<SigmoidOp>>(context, sigmoidFormula);
  patterns.add<F32FormulaLowering<SigmoidGradOp>>(context, sigmoidGradFormula);
  patterns.add<F32FormulaLowering<TanhOp>>(context, tanhFormula);
  patterns.add<F32FormulaLowering<TanhGradOp>>(context, tanhGradFormula);
  patterns.add<F32FormulaLowering<SiluOp>>(context, siluFormula);
  patterns.add<F32FormulaLowering<SiluGradOp>>(context, siluGradFormula);
}
