//===- Differentiation.cpp - reverse-mode rules of the mpt ops --*- C++ -*-===//
//
// DifferentiableOpInterface for the mpt ops and, through external models, for
// the arith, math and tensor (slicing, concatenation) ops a training step may
// use on tensors. Every rule is a
// vector-Jacobian product: from the gradients of an op's results it builds the
// gradients of its operands, with the operands' types, emitting the existing
// `*_grad` ops so that the generated backward is the one a person would write.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/MPTInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

using namespace mlir;
using namespace mpt;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// `value` with the element type of `type` (a gradient computed in another
/// float type than its operand, e.g. an f32-accumulated product of f16).
static Value castElements(OpBuilder &builder, Location loc, Value value,
                          Type type) {
  auto from = cast<FloatType>(tensorType(value).getElementType());
  auto to = cast<FloatType>(cast<RankedTensorType>(type).getElementType());
  Type castType = tensorType(value).clone(to);
  if (from == to)
    return value;
  if (from.getWidth() > to.getWidth())
    return arith::TruncFOp::create(builder, loc, castType, value);
  return arith::ExtFOp::create(builder, loc, castType, value);
}

/// A tensor of `type` with every element `value`.
static Value splat(OpBuilder &builder, Location loc, Type type, double value) {
  auto tensor = cast<RankedTensorType>(type);
  return arith::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(
          tensor, builder.getFloatAttr(tensor.getElementType(), value)));
}

/// Sums `grad` (shaped like a broadcast result) over the dimensions in `dims`
/// back to `type`.
static Value sumOver(OpBuilder &builder, Location loc, Value grad,
                     ArrayRef<int64_t> dims, Type type) {
  if (dims.empty())
    return castElements(builder, loc, grad, type);
  Type sumType = tensorType(grad).clone(cast<ShapedType>(type).getShape());
  Value sum = ReduceSumOp::create(builder, loc, sumType, grad,
                                  builder.getDenseI64ArrayAttr(dims),
                                  /*keep_dims=*/nullptr);
  return castElements(builder, loc, sum, type);
}

//===----------------------------------------------------------------------===//
// Linear algebra, convolution, pooling, embedding
//===----------------------------------------------------------------------===//

/// For C = op(A)·op(B), each operand gradient is again one product of dC with
/// the other operand, transposed so that no explicit transpose is needed:
///   plain:  dA = dC·B^T,    dB = A^T·dC
///   A^T:    dA = B·dC^T,    dB = A·dC
///   B^T:    dA = dC·B,      dB = dC^T·A
///   both:   dA = B^T·dC^T,  dB = dC^T·A^T
LogicalResult
MatmulOp::buildOperandGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                                SmallVectorImpl<Value> &operandGrads) {
  Location loc = getLoc();
  Value lhs = getLhs(), rhs = getRhs();
  Value grad = castElements(builder, loc, resultGrads[0], lhs.getType());
  bool ta = getTransposeA(), tb = getTransposeB();
  auto product = [&](Value a, Value b, bool transposeA, bool transposeB,
                     Type type) -> Value {
    SmallVector<NamedAttribute> attrs;
    if (transposeA)
      attrs.push_back(
          builder.getNamedAttr(getTransposeAAttrName(), builder.getUnitAttr()));
    if (transposeB)
      attrs.push_back(
          builder.getNamedAttr(getTransposeBAttrName(), builder.getUnitAttr()));
    return MatmulOp::create(builder, loc, TypeRange{type}, ValueRange{a, b},
                            attrs)
        .getResult();
  };
  Type lhsType = lhs.getType(), rhsType = rhs.getType();
  Value lhsGrad, rhsGrad;
  if (!ta && !tb) {
    lhsGrad = product(grad, rhs, false, true, lhsType);
    rhsGrad = product(lhs, grad, true, false, rhsType);
  } else if (ta && !tb) {
    lhsGrad = product(rhs, grad, false, true, lhsType);
    rhsGrad = product(lhs, grad, false, false, rhsType);
  } else if (!ta && tb) {
    lhsGrad = product(grad, rhs, false, false, lhsType);
    rhsGrad = product(grad, lhs, true, false, rhsType);
  } else {
    lhsGrad = product(rhs, grad, true, true, lhsType);
    rhsGrad = product(grad, lhs, true, true, rhsType);
  }
  operandGrads.assign({lhsGrad, rhsGrad});
  return success();
}

LogicalResult
BiasAddOp::buildOperandGradients(OpBuilder &builder,
                                 ArrayRef<Value> resultGrads,
                                 SmallVectorImpl<Value> &operandGrads) {
  int64_t axis = getNormalizedAxis();
  SmallVector<int64_t> summed;
  for (int64_t d = 0, e = getType().getRank(); d < e; ++d)
    if (d != axis)
      summed.push_back(d);
  Value biasGrad =
      sumOver(builder, getLoc(), resultGrads[0], summed, getBias().getType());
  operandGrads.assign({resultGrads[0], biasGrad});
  return success();
}

/// The attributes of a convolution or pooling op, for its gradient ops.
static SmallVector<NamedAttribute> windowAttrs(Operation *op,
                                               ArrayRef<StringRef> names) {
  SmallVector<NamedAttribute> attrs;
  for (StringRef name : names)
    if (Attribute value = op->getAttr(name))
      attrs.emplace_back(StringAttr::get(op->getContext(), name), value);
  return attrs;
}

LogicalResult
Conv2DOp::buildOperandGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                                SmallVectorImpl<Value> &operandGrads) {
  Location loc = getLoc();
  Value input = getLhs(), filter = getRhs();
  Value grad = castElements(builder, loc, resultGrads[0], input.getType());
  SmallVector<NamedAttribute> attrs =
      windowAttrs(*this, {"strides", "padding", "dilations", "groups"});
  Value inputGrad =
      Conv2DInputGradOp::create(builder, loc, TypeRange{input.getType()},
                                ValueRange{grad, filter}, attrs);
  Value filterGrad =
      Conv2DFilterGradOp::create(builder, loc, TypeRange{filter.getType()},
                                 ValueRange{input, grad}, attrs);
  operandGrads.assign({inputGrad, filterGrad});
  return success();
}

LogicalResult
MaxPool2DOp::buildOperandGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  Value inputGrad = MaxPool2DGradOp::create(
      builder, getLoc(), TypeRange{getInput().getType()},
      ValueRange{resultGrads[0], getInput()},
      windowAttrs(*this, {"kernel", "strides", "padding"}));
  operandGrads.assign({inputGrad});
  return success();
}

LogicalResult
AvgPool2DOp::buildOperandGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  Value inputGrad = AvgPool2DGradOp::create(
      builder, getLoc(), TypeRange{getInput().getType()},
      ValueRange{resultGrads[0]},
      windowAttrs(*this,
                  {"kernel", "strides", "padding", "count_include_pad"}));
  operandGrads.assign({inputGrad});
  return success();
}

/// The ids are data and take no gradient; the table's is a scatter-add of the
/// result gradient, accumulated in f32.
LogicalResult
EmbeddingOp::buildOperandGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  Location loc = getLoc();
  RankedTensorType tableType = getTable().getType();
  Value tableGrad = EmbeddingGradOp::create(
      builder, loc, tableType.clone(builder.getF32Type()), resultGrads[0],
      getIds());
  operandGrads.assign(
      {castElements(builder, loc, tableGrad, tableType), Value()});
  return success();
}

//===----------------------------------------------------------------------===//
// Activations, softmax, loss
//===----------------------------------------------------------------------===//

LogicalResult
ReluOp::buildOperandGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {ReluGradOp::create(builder, getLoc(), resultGrads[0], getInput())});
  return success();
}

// Dropout is linear with a diagonal 0 or 1/(1-p) Jacobian: its gradient is
// the same dropout of the incoming gradient, whose identical counter, seed and
// stream regenerate the mask instead of keeping it alive until the backward.
LogicalResult
DropoutOp::buildOperandGradients(OpBuilder &builder,
                                 ArrayRef<Value> resultGrads,
                                 SmallVectorImpl<Value> &operandGrads) {
  if (!getCounter())
    return emitOpError("has no counter operand to regenerate its mask from");
  operandGrads.assign(
      {DropoutOp::create(builder, getLoc(), resultGrads[0], getCounter(),
                         getPAttr(), getSeedAttr(), getStreamAttr()),
       Value()});
  return success();
}

LogicalResult
GeluOp::buildOperandGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({GeluGradOp::create(builder, getLoc(), resultGrads[0],
                                          getInput(), getApproximateAttr())});
  return success();
}

LogicalResult
SigmoidOp::buildOperandGradients(OpBuilder &builder,
                                 ArrayRef<Value> resultGrads,
                                 SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {SigmoidGradOp::create(builder, getLoc(), resultGrads[0], getResult())});
  return success();
}

LogicalResult
TanhOp::buildOperandGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {TanhGradOp::create(builder, getLoc(), resultGrads[0], getResult())});
  return success();
}

LogicalResult
SiluOp::buildOperandGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {SiluGradOp::create(builder, getLoc(), resultGrads[0], getInput())});
  return success();
}

LogicalResult
SoftmaxOp::buildOperandGradients(OpBuilder &builder,
                                 ArrayRef<Value> resultGrads,
                                 SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {SoftmaxGradOp::create(builder, getLoc(), resultGrads[0], getResult())});
  return success();
}

LogicalResult SoftmaxCrossEntropyOp::buildOperandGradients(
    OpBuilder &builder, ArrayRef<Value> resultGrads,
    SmallVectorImpl<Value> &operandGrads) {
  Value logitsGrad = SoftmaxCrossEntropyGradOp::create(
      builder, getLoc(), getLogits().getType(), resultGrads[0], getLogits(),
      getLabels(), getLabelSmoothingAttr(), getIgnoreIndexAttr());
  operandGrads.assign({logitsGrad, Value()});
  return success();
}

/// The target's gradient is the input's negated: the loss depends on their
/// difference only.
LogicalResult
MseLossOp::buildOperandGradients(OpBuilder &builder,
                                 ArrayRef<Value> resultGrads,
                                 SmallVectorImpl<Value> &operandGrads) {
  Location loc = getLoc();
  Value inputGrad =
      MseLossGradOp::create(builder, loc, getInput().getType(), resultGrads[0],
                            getInput(), getTarget());
  operandGrads.assign(
      {inputGrad, arith::NegFOp::create(builder, loc, inputGrad)});
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization: the gradient flows through the normalized output only; the
// saved statistics and the running statistics carry none.
//===----------------------------------------------------------------------===//

bool BatchNormOp::isDifferentiableOperand(unsigned index) {
  return index == getInputMutable().getOperandNumber() ||
         index == getGammaMutable().getOperandNumber() ||
         index == getBetaMutable().getOperandNumber();
}

bool BatchNormOp::isDifferentiableResult(unsigned index) {
  return index == 0; // output
}

/// The gradients of a normalization's input, gamma and beta (of gamma's
/// type), from its output's gradient and the statistics it saved.
template <typename NormGradOp>
static SmallVector<Value>
buildNormGradients(OpBuilder &builder, Location loc, Value outputGrad,
                   Value input, Value gamma, Value mean, Value invstd) {
  auto grad = NormGradOp::create(builder, loc, input.getType(), gamma.getType(),
                                 gamma.getType(), outputGrad, input, gamma,
                                 mean, invstd);
  return {grad.getInputGrad(), grad.getGammaGrad(), grad.getBetaGrad()};
}

LogicalResult
BatchNormOp::buildOperandGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(buildNormGradients<BatchNormGradOp>(
      builder, getLoc(), resultGrads[0], getInput(), getGamma(), getBatchMean(),
      getBatchInvstd()));
  operandGrads.append({Value(), Value()}); // running mean and variance
  return success();
}

bool LayerNormOp::isDifferentiableOperand(unsigned index) {
  return index < 3; // input, gamma, beta
}

bool LayerNormOp::isDifferentiableResult(unsigned index) {
  return index == 0; // output
}

LogicalResult
LayerNormOp::buildOperandGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(buildNormGradients<LayerNormGradOp>(
      builder, getLoc(), resultGrads[0], getInput(), getGamma(), getMean(),
      getInvstd()));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape and reduction
//===----------------------------------------------------------------------===//

LogicalResult
ReshapeOp::buildOperandGradients(OpBuilder &builder,
                                 ArrayRef<Value> resultGrads,
                                 SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({ReshapeOp::create(
      builder, getLoc(), getInput().getType(), resultGrads[0])});
  return success();
}

LogicalResult
TransposeOp::buildOperandGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  ArrayRef<int64_t> permutation = getPermutation();
  SmallVector<int64_t> inverse(permutation.size());
  for (auto [resultDim, inputDim] : llvm::enumerate(permutation))
    inverse[inputDim] = resultDim;
  operandGrads.assign({TransposeOp::create(
      builder, getLoc(), getInput().getType(), resultGrads[0], inverse)});
  return success();
}

LogicalResult
ReduceSumOp::buildOperandGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  Location loc = getLoc();
  RankedTensorType inputType = getInput().getType();
  Value grad = castElements(builder, loc, resultGrads[0], inputType);
  ArrayRef<int64_t> dims = getDims();
  SmallVector<int64_t> keptShape;
  for (auto [index, size] : llvm::enumerate(inputType.getShape()))
    if (!llvm::is_contained(dims, static_cast<int64_t>(index)))
      keptShape.push_back(size);
  // With keep_dims the summed dims are there with size 1: drop them first.
  if (getKeepDims() && !dims.empty())
    grad = ReshapeOp::create(builder, loc, inputType.clone(keptShape), grad);
  operandGrads.assign(
      {BroadcastOp::create(builder, loc, inputType, grad, dims)});
  return success();
}

LogicalResult
BroadcastOp::buildOperandGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({sumOver(builder, getLoc(), resultGrads[0], getDims(),
                               getInput().getType())});
  return success();
}

//===----------------------------------------------------------------------===//
// arith and math, through external models
//===----------------------------------------------------------------------===//

namespace {
/// The rule of an upstream op, given as a function of the op and the gradient
/// of its single result.
template <typename OpTy>
using UpstreamRule = SmallVector<Value> (*)(OpBuilder &, OpTy, Value);

template <typename OpTy, UpstreamRule<OpTy> Rule>
struct UpstreamDifferentiable : public DifferentiableOpInterface::ExternalModel<
                                    UpstreamDifferentiable<OpTy, Rule>, OpTy> {
  LogicalResult
  buildOperandGradients(Operation *op, OpBuilder &builder,
                        ArrayRef<Value> resultGrads,
                        SmallVectorImpl<Value> &operandGrads) const {
    operandGrads.assign(Rule(builder, cast<OpTy>(op), resultGrads[0]));
    return success();
  }
};

template <typename OpTy>
Value mul(OpBuilder &builder, OpTy op, Value lhs, Value rhs) {
  return arith::MulFOp::create(builder, op.getLoc(), lhs, rhs);
}

SmallVector<Value> addRule(OpBuilder &, arith::AddFOp, Value grad) {
  return {grad, grad};
}

SmallVector<Value> subRule(OpBuilder &builder, arith::SubFOp op, Value grad) {
  return {grad, arith::NegFOp::create(builder, op.getLoc(), grad)};
}

SmallVector<Value> mulRule(OpBuilder &builder, arith::MulFOp op, Value grad) {
  return {mul(builder, op, grad, op.getRhs()),
          mul(builder, op, grad, op.getLhs())};
}

/// y = a / b: da = dy / b, db = -dy·a / b² = -da·y.
SmallVector<Value> divRule(OpBuilder &builder, arith::DivFOp op, Value grad) {
  Value lhsGrad =
      arith::DivFOp::create(builder, op.getLoc(), grad, op.getRhs());
  Value rhsGrad = arith::NegFOp::create(
      builder, op.getLoc(), mul(builder, op, lhsGrad, op.getResult()));
  return {lhsGrad, rhsGrad};
}

SmallVector<Value> negRule(OpBuilder &builder, arith::NegFOp op, Value grad) {
  return {arith::NegFOp::create(builder, op.getLoc(), grad)};
}

/// The gradient goes to the operand that won; ties go to the left one.
template <typename OpTy, arith::CmpFPredicate LhsWins>
SmallVector<Value> extremumRule(OpBuilder &builder, OpTy op, Value grad) {
  Location loc = op.getLoc();
  Value lhsWins =
      arith::CmpFOp::create(builder, loc, LhsWins, op.getLhs(), op.getRhs());
  Value zero = splat(builder, loc, grad.getType(), 0.0);
  return {arith::SelectOp::create(builder, loc, lhsWins, grad, zero),
          arith::SelectOp::create(builder, loc, lhsWins, zero, grad)};
}

SmallVector<Value> selectRule(OpBuilder &builder, arith::SelectOp op,
                              Value grad) {
  Location loc = op.getLoc();
  Value zero = splat(builder, loc, grad.getType(), 0.0);
  return {Value(),
          arith::SelectOp::create(builder, loc, op.getCondition(), grad, zero),
          arith::SelectOp::create(builder, loc, op.getCondition(), zero, grad)};
}

SmallVector<Value> truncRule(OpBuilder &builder, arith::TruncFOp op,
                             Value grad) {
  return {castElements(builder, op.getLoc(), grad, op.getIn().getType())};
}

SmallVector<Value> extRule(OpBuilder &builder, arith::ExtFOp op, Value grad) {
  return {castElements(builder, op.getLoc(), grad, op.getIn().getType())};
}

SmallVector<Value> expRule(OpBuilder &builder, math::ExpOp op, Value grad) {
  return {mul(builder, op, grad, op.getResult())};
}

SmallVector<Value> logRule(OpBuilder &builder, math::LogOp op, Value grad) {
  return {arith::DivFOp::create(builder, op.getLoc(), grad, op.getOperand())};
}

/// y = sqrt(x): dx = dy · 0.5 / y.
SmallVector<Value> sqrtRule(OpBuilder &builder, math::SqrtOp op, Value grad) {
  Value half = splat(builder, op.getLoc(), grad.getType(), 0.5);
  Value slope =
      arith::DivFOp::create(builder, op.getLoc(), half, op.getResult());
  return {mul(builder, op, grad, slope)};
}

/// y = x^(-1/2): dx = dy · (-0.5) · y³.
SmallVector<Value> rsqrtRule(OpBuilder &builder, math::RsqrtOp op, Value grad) {
  Value y = op.getResult();
  Value minusHalf = splat(builder, op.getLoc(), grad.getType(), -0.5);
  Value cube = mul(builder, op, mul(builder, op, y, y), y);
  return {mul(builder, op, grad, mul(builder, op, minusHalf, cube))};
}

/// y = tanh(x): dx = dy · (1 - y²).
SmallVector<Value> tanhRule(OpBuilder &builder, math::TanhOp op, Value grad) {
  Value y = op.getResult();
  Value one = splat(builder, op.getLoc(), grad.getType(), 1.0);
  Value slope =
      arith::SubFOp::create(builder, op.getLoc(), one, mul(builder, op, y, y));
  return {mul(builder, op, grad, slope)};
}

template <typename OpTy, UpstreamRule<OpTy> Rule>
void attach(MLIRContext *context) {
  OpTy::template attachInterface<UpstreamDifferentiable<OpTy, Rule>>(*context);
}
} // namespace

//===----------------------------------------------------------------------===//
// tensor slicing and concatenation, through external models
//===----------------------------------------------------------------------===//

namespace {
/// A slice's gradient is zeros with the slice's gradient inserted at the same
/// offsets, sizes and strides (rank-reducing slices insert their reduced
/// gradient the same way). Several slices of one tensor each give such a
/// tensor, which mpt-autodiff sums like any value used more than once.
struct ExtractSliceDifferentiable
    : public DifferentiableOpInterface::ExternalModel<
          ExtractSliceDifferentiable, tensor::ExtractSliceOp> {
  LogicalResult
  buildOperandGradients(Operation *op, OpBuilder &builder,
                        ArrayRef<Value> resultGrads,
                        SmallVectorImpl<Value> &operandGrads) const {
    auto slice = cast<tensor::ExtractSliceOp>(op);
    RankedTensorType sourceType = slice.getSourceType();
    if (!sourceType.hasStaticShape())
      return slice.emitOpError("slices a tensor of dynamic shape ")
             << sourceType << ": its gradient needs a static shape";
    Location loc = slice.getLoc();
    Value inserted = tensor::InsertSliceOp::create(
        builder, loc, resultGrads[0], splat(builder, loc, sourceType, 0.0),
        slice.getMixedOffsets(), slice.getMixedSizes(),
        slice.getMixedStrides());
    // Dynamic offsets, sizes and strides are indices: no gradient.
    operandGrads.assign(op->getNumOperands(), Value());
    operandGrads[0] = inserted;
    return success();
  }
};

/// Each operand's gradient is its slice of the result's gradient.
struct ConcatDifferentiable
    : public DifferentiableOpInterface::ExternalModel<ConcatDifferentiable,
                                                      tensor::ConcatOp> {
  LogicalResult
  buildOperandGradients(Operation *op, OpBuilder &builder,
                        ArrayRef<Value> resultGrads,
                        SmallVectorImpl<Value> &operandGrads) const {
    auto concat = cast<tensor::ConcatOp>(op);
    if (!concat.getResultType().hasStaticShape())
      return concat.emitOpError("concatenates tensors of dynamic shape into ")
             << concat.getResultType() << ": its gradient needs static shapes";
    Location loc = concat.getLoc();
    int64_t dim = concat.getDim();
    int64_t rank = concat.getRank();
    SmallVector<OpFoldResult> offsets(rank, builder.getIndexAttr(0)),
        strides(rank, builder.getIndexAttr(1));
    int64_t offset = 0;
    operandGrads.clear();
    for (Value input : concat.getInputs()) {
      auto inputType = cast<RankedTensorType>(input.getType());
      offsets[dim] = builder.getIndexAttr(offset);
      operandGrads.push_back(tensor::ExtractSliceOp::create(
          builder, loc, inputType, resultGrads[0], offsets,
          getAsIndexOpFoldResult(builder.getContext(), inputType.getShape()),
          strides));
      offset += inputType.getDimSize(dim);
    }
    return success();
  }
};
} // namespace

void mpt::registerDifferentiableExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    attach<arith::AddFOp, addRule>(context);
    attach<arith::SubFOp, subRule>(context);
    attach<arith::MulFOp, mulRule>(context);
    attach<arith::DivFOp, divRule>(context);
    attach<arith::NegFOp, negRule>(context);
    attach<arith::MaximumFOp,
           extremumRule<arith::MaximumFOp, arith::CmpFPredicate::OGE>>(context);
    attach<arith::MinimumFOp,
           extremumRule<arith::MinimumFOp, arith::CmpFPredicate::OLE>>(context);
    attach<arith::SelectOp, selectRule>(context);
    attach<arith::TruncFOp, truncRule>(context);
    attach<arith::ExtFOp, extRule>(context);
  });
  registry.addExtension(+[](MLIRContext *context, math::MathDialect *) {
    attach<math::ExpOp, expRule>(context);
    attach<math::LogOp, logRule>(context);
    attach<math::SqrtOp, sqrtRule>(context);
    attach<math::RsqrtOp, rsqrtRule>(context);
    attach<math::TanhOp, tanhRule>(context);
  });
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    tensor::ExtractSliceOp::attachInterface<ExtractSliceDifferentiable>(
        *context);
    tensor::ConcatOp::attachInterface<ConcatDifferentiable>(*context);
  });
}
