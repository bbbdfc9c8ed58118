//===- Loss.cpp - softmax, the losses and the backward seed ---------------===//
//
// Softmax-based ops run in f32 whatever their input type (fp32 class): the
// row maximum, the sum of exponentials and the loss accumulate in f32, and
// exponentials are taken of x - max so that they never overflow. The mean
// squared error sums its squares in f32 too.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

using namespace mlir;
using namespace mpt;
using namespace mpt::detail;

namespace {

/// Maps of a row-wise op over `rank` loops: the identity for the input, the
/// projection dropping the innermost dimension for per-row values.
struct RowMaps {
  AffineMap element;
  AffineMap row;
  SmallVector<int64_t> rowShape;
  int64_t lastDim;
};

RowMaps rowMaps(OpBuilder &b, RankedTensorType type) {
  int64_t rank = type.getRank();
  return {b.getMultiDimIdentityMap(rank),
          dropDimsMap(b.getContext(), rank, {rank - 1}),
          dropDims(type.getShape(), {rank - 1}), rank - 1};
}

/// The f32 maximum of every row (innermost dimension) of `input`; a NaN in
/// the row propagates.
Value rowMax(OpBuilder &b, Location loc, Value input, const RowMaps &maps) {
  Value init = createFilled(b, loc, maps.rowShape, b.getF32Type(),
                            -std::numeric_limits<double>::infinity());
  return buildGeneric(
      b, loc, input, init, {maps.element, maps.row},
      iteratorTypes(maps.element.getNumDims(), {maps.lastDim}),
      [](OpBuilder &nb, Location l, ValueRange args) -> SmallVector<Value> {
        return {
            arith::MaximumFOp::create(nb, l, args[1], toF32(nb, l, args[0]))};
      })[0];
}

/// The f32 sum of exp(x - max) of every row, given the row maxima.
Value rowSumExp(OpBuilder &b, Location loc, Value input, Value max,
                const RowMaps &maps) {
  Value init = createFilled(b, loc, maps.rowShape, b.getF32Type(), 0.0);
  return buildGeneric(
      b, loc, ValueRange{input, max}, init, {maps.element, maps.row, maps.row},
      iteratorTypes(maps.element.getNumDims(), {maps.lastDim}),
      [](OpBuilder &nb, Location l, ValueRange args) -> SmallVector<Value> {
        FloatMath m{nb, l, nb.getF32Type()};
        return {m.add(args[2], m.exp(m.sub(m.cast(args[0]), args[1])))};
      })[0];
}

/// Whether the class index of the current innermost loop equals `label`.
Value isLabel(OpBuilder &b, Location loc, Value label, int64_t classDim) {
  Value index = linalg::IndexOp::create(b, loc, classDim);
  Value classIndex = arith::IndexCastOp::create(b, loc, label.getType(), index);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, classIndex,
                               label);
}

/// exp(x - max) / sum(exp(x - max)) over the innermost dimension.
struct SoftmaxLowering : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType type = op.getType();
    RowMaps maps = rowMaps(rewriter, type);
    Value max = rowMax(rewriter, loc, input, maps);
    Value sum = rowSumExp(rewriter, loc, input, max, maps);
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, loc, type.getShape(), ValueRange{input, max, sum},
                {maps.element, maps.row, maps.row}, type.getElementType(),
                [&](OpBuilder &b, Location l,
                    ValueRange args) -> SmallVector<Value> {
                  FloatMath m{b, l, b.getF32Type()};
                  Value y =
                      m.div(m.exp(m.sub(m.cast(args[0]), args[1])), args[2]);
                  return {castScalar(b, l, y, type.getElementType())};
                }));
    return success();
  }
};

/// y * (grad - sum(grad * y)) with the row sums in f32.
struct SoftmaxGradLowering : OpConversionPattern<SoftmaxGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SoftmaxGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value grad = adaptor.getGrad(), output = adaptor.getOutput();
    RankedTensorType type = op.getType();
    RowMaps maps = rowMaps(rewriter, type);
    Value init =
        createFilled(rewriter, loc, maps.rowShape, rewriter.getF32Type(), 0.0);
    Value dot = buildGeneric(
        rewriter, loc, ValueRange{grad, output}, init,
        {maps.element, maps.element, maps.row},
        iteratorTypes(type.getRank(), {maps.lastDim}),
        [](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value grad = m.cast(args[0]);
          Value output = m.cast(args[1]);
          return {m.add(args[2], m.mul(grad, output))};
        })[0];
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, loc, type.getShape(), ValueRange{grad, output, dot},
                {maps.element, maps.element, maps.row}, type.getElementType(),
                [&](OpBuilder &b, Location l,
                    ValueRange args) -> SmallVector<Value> {
                  FloatMath m{b, l, b.getF32Type()};
                  Value grad = m.cast(args[0]);
                  Value output = m.cast(args[1]);
                  Value dx = m.mul(output, m.sub(grad, args[2]));
                  return {castScalar(b, l, dx, type.getElementType())};
                }));
    return success();
  }
};

/// Whether `label` counts towards the loss: it is not the ignored index.
Value isCounted(OpBuilder &b, Location loc, Value label, int64_t ignored) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, label,
                               intConstant(b, loc, label.getType(), ignored));
}

/// The f32 count of the labels that are not `ignored`, a 0-d tensor.
Value countedRows(OpBuilder &b, Location loc, Value labels, int64_t ignored) {
  return buildGeneric(
      b, loc, labels, createFilled(b, loc, {}, b.getF32Type(), 0.0),
      {b.getMultiDimIdentityMap(1), AffineMap::get(1, 0, {}, b.getContext())},
      iteratorTypes(1, {0}),
      [&](OpBuilder &nb, Location l, ValueRange args) -> SmallVector<Value> {
        FloatMath m{nb, l, nb.getF32Type()};
        Value one =
            arith::SelectOp::create(nb, l, isCounted(nb, l, args[0], ignored),
                                    m.constant(1.0), m.constant(0.0));
        return {m.add(args[1], one)};
      })[0];
}

/// mean over the counted rows of (1 - e) * -log_softmax(x)[label] + e / C *
/// sum over classes of -log_softmax(x), with PyTorch's log_softmax = (x - max)
/// - log(sum(exp(x - max))). The labelled logit, and with smoothing the sum of
/// x - max, are taken in the same pass as the sum of exponentials.
struct SoftmaxCrossEntropyLowering
    : OpConversionPattern<SoftmaxCrossEntropyOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SoftmaxCrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value logits = adaptor.getLogits(), labels = adaptor.getLabels();
    RankedTensorType type = tensorType(logits);
    RowMaps maps = rowMaps(rewriter, type);
    Type f32 = rewriter.getF32Type();
    double smoothing = op.getLabelSmoothing().convertToDouble();
    std::optional<int64_t> ignored = op.getIgnoreIndex();
    int64_t classes = type.getDimSize(1);
    Value max = rowMax(rewriter, loc, logits, maps);
    Value zeros = createFilled(rewriter, loc, maps.rowShape, f32, 0.0);
    SmallVector<Value> rowInits = {zeros, zeros};
    if (smoothing > 0.0)
      rowInits.push_back(zeros);
    SmallVector<AffineMap> rowPassMaps = {maps.element, maps.row, maps.row};
    rowPassMaps.append(rowInits.size(), maps.row);
    SmallVector<Value> rowSums = buildGeneric(
        rewriter, loc, ValueRange{logits, labels, max}, rowInits, rowPassMaps,
        iteratorTypes(2, {1}),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value x = m.cast(args[0]);
          Value hit = isLabel(b, l, args[1], 1);
          Value picked = arith::SelectOp::create(b, l, hit, x, m.constant(0.0));
          Value shifted = m.sub(x, args[2]);
          SmallVector<Value> sums = {m.add(args[3], m.exp(shifted)),
                                     m.add(args[4], picked)};
          if (smoothing > 0.0)
            sums.push_back(m.add(args[5], shifted));
          return sums;
        });

    // Sum over the counted rows of each row's loss, then the mean.
    Value scalarZero = createFilled(rewriter, loc, {}, f32, 0.0);
    AffineMap perRow = rewriter.getMultiDimIdentityMap(1);
    SmallVector<Value> rowValues = {rowSums[1], max, rowSums[0]};
    if (smoothing > 0.0)
      rowValues.push_back(rowSums[2]);
    size_t labelArg = rowValues.size();
    if (ignored)
      rowValues.push_back(labels);
    SmallVector<AffineMap> totalMaps(rowValues.size(), perRow);
    totalMaps.push_back(AffineMap::get(1, 0, {}, getContext()));
    Value total = buildGeneric(
        rewriter, loc, rowValues, scalarZero, totalMaps, iteratorTypes(1, {0}),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value shifted = m.sub(args[0], args[1]);
          Value logSum = m.log(args[2]);
          Value loss = m.sub(logSum, shifted);
          if (smoothing > 0.0) {
            // sum over classes of -log_softmax = C * logSum - sum(x - max).
            Value uniform = m.sub(m.mul(m.constant(classes), logSum), args[3]);
            loss = m.add(m.mul(m.constant(1.0 - smoothing), loss),
                         m.mul(m.constant(smoothing / classes), uniform));
          }
          if (ignored)
            loss = arith::SelectOp::create(
                b, l, isCounted(b, l, args[labelArg], *ignored), loss,
                m.constant(0.0));
          return {m.add(args.back(), loss)};
        })[0];
    // The mean: over the batch, or over the rows counted when some may be
    // ignored.
    SmallVector<Value> meanInputs = {total};
    if (ignored)
      meanInputs.push_back(countedRows(rewriter, loc, labels, *ignored));
    int64_t batch = type.getDimSize(0);
    rewriter.replaceOp(
        op, buildElementwise(rewriter, loc, {}, meanInputs, {}, f32,
                             [&](OpBuilder &b, Location l,
                                 ValueRange args) -> SmallVector<Value> {
                               FloatMath m{b, l, b.getF32Type()};
                               Value count =
                                   ignored ? args[1] : m.constant(batch);
                               return {m.div(args[0], count)};
                             }));
    return success();
  }
};

/// seed * (softmax(x) - target) / n on counted rows and zero on ignored ones,
/// with target = (1 - e) * onehot(label) + e / C.
struct SoftmaxCrossEntropyGradLowering
    : OpConversionPattern<SoftmaxCrossEntropyGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SoftmaxCrossEntropyGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value logits = adaptor.getLogits(), labels = adaptor.getLabels();
    RankedTensorType type = op.getType();
    RowMaps maps = rowMaps(rewriter, type);
    double smoothing = op.getLabelSmoothing().convertToDouble();
    std::optional<int64_t> ignored = op.getIgnoreIndex();
    double offTarget = smoothing / type.getDimSize(1);
    Value max = rowMax(rewriter, loc, logits, maps);
    Value sum = rowSumExp(rewriter, loc, logits, max, maps);
    AffineMap scalar = AffineMap::get(2, 0, {}, getContext());
    SmallVector<Value> inputs = {logits, labels, max, sum, adaptor.getSeed()};
    SmallVector<AffineMap> inputMaps = {maps.element, maps.row, maps.row,
                                        maps.row, scalar};
    if (ignored) {
      inputs.push_back(countedRows(rewriter, loc, labels, *ignored));
      inputMaps.push_back(scalar);
    }
    int64_t batch = type.getDimSize(0);
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, loc, type.getShape(), inputs, inputMaps,
                type.getElementType(),
                [&](OpBuilder &b, Location l,
                    ValueRange args) -> SmallVector<Value> {
                  FloatMath m{b, l, b.getF32Type()};
                  Value softmax =
                      m.div(m.exp(m.sub(m.cast(args[0]), args[2])), args[3]);
                  Value hit = isLabel(b, l, args[1], 1);
                  Value target = arith::SelectOp::create(
                      b, l, hit, m.constant(1.0 - smoothing + offTarget),
                      m.constant(offTarget));
                  Value scaled = m.mul(args[4], m.sub(softmax, target));
                  Value count = ignored ? args[5] : m.constant(batch);
                  Value dx = m.div(scaled, count);
                  if (ignored)
                    dx = arith::SelectOp::create(
                        b, l, isCounted(b, l, args[1], *ignored), dx,
                        m.constant(0.0));
                  return {castScalar(b, l, dx, type.getElementType())};
                }));
    return success();
  }
};

/// sum((x - t)^2) / N, the squares summed in f32 by `reduceByDims`.
struct MseLossLowering : OpConversionPattern<MseLossOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MseLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = tensorType(adaptor.getInput());
    AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<int64_t> allDims =
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
    Value sum = reduceByDims(
        rewriter, loc, ValueRange{adaptor.getInput(), adaptor.getTarget()},
        {identity, identity}, type.getShape(), allDims, /*numResults=*/1,
        [](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value input = m.cast(args[0]);
          Value difference = m.sub(input, m.cast(args[1]));
          return {m.mul(difference, difference)};
        })[0];
    int64_t count = type.getNumElements();
    rewriter.replaceOp(
        op, buildElementwise(rewriter, loc, {}, sum, {}, rewriter.getF32Type(),
                             [&](OpBuilder &b, Location l,
                                 ValueRange args) -> SmallVector<Value> {
                               FloatMath m{b, l, b.getF32Type()};
                               return {m.div(args[0], m.constant(count))};
                             }));
    return success();
  }
};

/// 2 / N * (x - t) * seed, as PyTorch's mse_loss_backward.
struct MseLossGradLowering : OpConversionPattern<MseLossGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MseLossGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
    double norm = 2.0 / type.getNumElements();
    rewriter.replaceOp(
        op,
        buildElementwise(rewriter, op.getLoc(), type.getShape(),
                         ValueRange{adaptor.getInput(), adaptor.getTarget(),
                                    adaptor.getSeed()},
                         {identity, identity,
                          AffineMap::get(type.getRank(), 0, {}, getContext())},
                         type.getElementType(),
                         [&](OpBuilder &b, Location l,
                             ValueRange args) -> SmallVector<Value> {
                           FloatMath m{b, l, b.getF32Type()};
                           Value input = m.cast(args[0]);
                           Value difference = m.sub(input, m.cast(args[1]));
                           Value dx = m.mul(m.mul(m.constant(norm), difference),
                                            args[2]);
                           return {castScalar(b, l, dx, type.getElementType())};
                         }));
    return success();
  }
};

/// The seed is 1.0, or the loss scale when there is one, divided by the world
/// size and the micro-batches when there are. The 1.0 is a filled tensor
/// rather than a constant, so that it bufferizes to a fresh buffer instead of
/// a read-only global.
struct LossGradLowering : OpConversionPattern<LossGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LossGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elementType = op.getType().getElementType();
    uint64_t divisor = op.getDivisor();
    Value scale = adaptor.getScale();
    if (!scale) {
      rewriter.replaceOp(
          op, createFilled(rewriter, loc, {}, elementType, 1.0 / divisor));
      return success();
    }
    if (divisor != 1)
      scale = arith::DivFOp::create(
          rewriter, loc, scale,
          createFilled(rewriter, loc, {}, elementType, double(divisor)));
    rewriter.replaceOp(op, scale);
    return success();
  }
};

} // namespace

void mpt::detail::populateLossPatterns(RewritePatternSet &patterns) {
  patterns.add<SoftmaxLowering, SoftmaxGradLowering,
               SoftmaxCrossEntropyLowering, SoftmaxCrossEntropyGradLowering,
               MseLossLowering, MseLossGradLowering, LossGradLowering>(
      patterns.getContext());
}
