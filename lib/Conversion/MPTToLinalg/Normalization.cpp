//===- Normalization.cpp - batch and layer normalization ------------------===//
//
// Statistics are sums accumulated in f32 whatever the activation type, with
// the variance from a second pass over the centered values (numerically
// stable). The normalization itself runs in f32 as well, since it combines
// the activations with f32 statistics, and rounds once to the activation
// type; statistics results take their declared type.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

using namespace mlir;
using namespace mpt;
using namespace mpt::detail;

namespace {

/// The layout of a normalization: `input` is read through the identity map,
/// its statistics (shaped like `statShape`) through `statMap` and its affine
/// parameters through `paramMap`; statistics reduce over `reducedDims`.
struct NormLayout {
  int64_t rank;
  SmallVector<int64_t> reducedDims;
  SmallVector<int64_t> statShape;
  AffineMap statMap;
  AffineMap paramMap;
  /// Number of elements each statistic is computed from.
  int64_t count;
};

/// Batch norm: per channel (dimension 1) over the batch and spatial dims.
NormLayout batchNormLayout(MLIRContext *context, RankedTensorType type) {
  int64_t rank = type.getRank();
  SmallVector<int64_t> reduced =
      rank == 2 ? SmallVector<int64_t>{0} : SmallVector<int64_t>{0, 2, 3};
  AffineMap channel = projectionMap(context, rank, {1});
  int64_t count = 1;
  for (int64_t dim : reduced)
    count *= type.getDimSize(dim);
  return {rank, reduced, {type.getDimSize(1)}, channel, channel, count};
}

/// Layer norm: per row over the innermost dimension.
NormLayout layerNormLayout(MLIRContext *context, RankedTensorType type) {
  int64_t rank = type.getRank();
  int64_t last = rank - 1;
  return {rank,
          {last},
          dropDims(type.getShape(), {last}),
          dropDimsMap(context, rank, {last}),
          projectionMap(context, rank, {last}),
          type.getDimSize(last)};
}

/// The f32 mean of `input` over the layout's reduced dims.
Value computeMean(OpBuilder &b, Location loc, Value input,
                  const NormLayout &layout) {
  Value sum = sumToF32(b, loc, input, layout.reducedDims);
  return buildElementwise(
      b, loc, layout.statShape, sum, {}, b.getF32Type(),
      [&](OpBuilder &nb, Location l, ValueRange args) -> SmallVector<Value> {
        FloatMath m{nb, l, nb.getF32Type()};
        return {m.div(args[0], m.constant(layout.count))};
      })[0];
}

/// sum((x - mean)^2) over the layout's reduced dims, in f32.
Value computeCenteredSquares(OpBuilder &b, Location loc, Value input,
                             Value mean, const NormLayout &layout) {
  return reduceByDims(
      b, loc, ValueRange{input, mean},
      {b.getMultiDimIdentityMap(layout.rank), layout.statMap},
      tensorType(input).getShape(), layout.reducedDims, /*numResults=*/1,
      [](OpBuilder &nb, Location l, ValueRange args) -> SmallVector<Value> {
        FloatMath m{nb, l, nb.getF32Type()};
        Value centered = m.sub(m.cast(args[0]), args[1]);
        return {m.mul(centered, centered)};
      })[0];
}

/// (x - mean) * invstd * gamma + beta in f32, rounded to x's type; `mean` and
/// `invstd` are f32.
Value normalize(OpBuilder &b, Location loc, Value input, Value mean,
                Value invstd, Value gamma, Value beta,
                const NormLayout &layout) {
  RankedTensorType type = tensorType(input);
  return buildElementwise(
      b, loc, type.getShape(), ValueRange{input, mean, invstd, gamma, beta},
      {b.getMultiDimIdentityMap(layout.rank), layout.statMap, layout.statMap,
       layout.paramMap, layout.paramMap},
      type.getElementType(),
      [&](OpBuilder &nb, Location l, ValueRange args) -> SmallVector<Value> {
        FloatMath m{nb, l, nb.getF32Type()};
        Value x = m.cast(args[0]), scale = m.cast(args[3]),
              shift = m.cast(args[4]);
        Value normalized = m.mul(m.sub(x, args[1]), args[2]);
        Value scaled = m.add(m.mul(normalized, scale), shift);
        return {castScalar(nb, l, scaled, type.getElementType())};
      })[0];
}

/// 1 / sqrt(sumSquares / count + epsilon), in f32.
Value inverseStd(FloatMath &m, Value sumSquares, int64_t count, float epsilon) {
  Value variance = m.div(sumSquares, m.constant(count));
  Value stddev = m.sqrt(m.add(variance, m.constant(epsilon)));
  return m.div(m.constant(1.0), stddev);
}

//===----------------------------------------------------------------------===//
// Batch norm
//===----------------------------------------------------------------------===//

/// Training mode: normalizes with the biased batch variance and blends the
/// unbiased one into the running variance, as PyTorch does.
struct BatchNormLowering : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    NormLayout layout = batchNormLayout(getContext(), tensorType(input));
    Type statType = elementType(adaptor.getGamma());
    Value mean = computeMean(rewriter, loc, input, layout);
    Value sumSquares =
        computeCenteredSquares(rewriter, loc, input, mean, layout);

    float epsilon = op.getEpsilon().convertToFloat();
    float momentum = op.getMomentum().convertToFloat();
    float keep = 1.0f - momentum;
    int64_t count = layout.count;
    SmallVector<Value> channelStats = buildElementwise(
        rewriter, loc, layout.statShape,
        ValueRange{mean, sumSquares, adaptor.getRunningMean(),
                   adaptor.getRunningVar()},
        {}, TypeRange{rewriter.getF32Type(), statType, statType},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value batchMean = args[0], squares = args[1];
          Value invstd = inverseStd(m, squares, count, epsilon);
          Value unbiased = m.div(squares, m.constant(count - 1));
          auto blend = [&](Value running, Value batch) {
            Value kept = m.mul(m.constant(keep), m.cast(running));
            Value blended = m.add(kept, m.mul(m.constant(momentum), batch));
            return castScalar(b, l, blended, statType);
          };
          return {invstd, blend(args[2], batchMean), blend(args[3], unbiased)};
        });
    Value invstd = channelStats[0];
    Value output = normalize(rewriter, loc, input, mean, invstd,
                             adaptor.getGamma(), adaptor.getBeta(), layout);
    rewriter.replaceOp(op,
                       {output, convertElements(rewriter, loc, mean, statType),
                        convertElements(rewriter, loc, invstd, statType),
                        channelStats[1], channelStats[2]});
    return success();
  }
};

/// PyTorch's training-mode backward, per channel over its M elements:
///   dx = (dy - (x - mean) * k - sum(dy) / M) * invstd * gamma
///   k = sum(dy * (x - mean)) * invstd^2 / M
///   dgamma = sum(dy * (x - mean)) * invstd, dbeta = sum(dy)
struct BatchNormGradLowering : OpConversionPattern<BatchNormGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BatchNormGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value grad = adaptor.getGrad(), input = adaptor.getInput();
    RankedTensorType type = tensorType(input);
    NormLayout layout = batchNormLayout(getContext(), type);
    Type f32 = rewriter.getF32Type();
    Type statType = elementType(adaptor.getGamma());
    AffineMap identity = rewriter.getMultiDimIdentityMap(layout.rank);
    SmallVector<Value> sums = reduceByDims(
        rewriter, loc, ValueRange{grad, input, adaptor.getBatchMean()},
        {identity, identity, layout.statMap}, type.getShape(),
        layout.reducedDims, /*numResults=*/2,
        [](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value dy = m.cast(args[0]), x = m.cast(args[1]),
                mean = m.cast(args[2]);
          Value centered = m.sub(x, mean);
          return {dy, m.mul(dy, centered)};
        });

    int64_t count = layout.count;
    SmallVector<Value> coefficients = buildElementwise(
        rewriter, loc, layout.statShape,
        ValueRange{sums[0], sums[1], adaptor.getBatchInvstd(),
                   adaptor.getGamma()},
        {}, TypeRange{f32, f32, f32, statType, statType},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value sumDy = args[0], dot = args[1], invstd = m.cast(args[2]);
          Value dotInvstd2 = m.mul(m.mul(dot, invstd), invstd);
          Value k = m.div(dotInvstd2, m.constant(count));
          Value gradMean = m.div(sumDy, m.constant(count));
          Value gradScale = m.mul(invstd, m.cast(args[3]));
          return {k, gradMean, gradScale,
                  castScalar(b, l, m.mul(dot, invstd), statType),
                  castScalar(b, l, sumDy, statType)};
        });

    Value inputGrad = buildElementwise(
        rewriter, loc, type.getShape(),
        ValueRange{grad, input, adaptor.getBatchMean(), coefficients[0],
                   coefficients[1], coefficients[2]},
        {identity, identity, layout.statMap, layout.statMap, layout.statMap,
         layout.statMap},
        type.getElementType(),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value dy = m.cast(args[0]), x = m.cast(args[1]),
                mean = m.cast(args[2]);
          Value centered = m.sub(x, mean);
          Value projected = m.sub(dy, m.mul(centered, args[3]));
          Value dx = m.mul(m.sub(projected, args[4]), args[5]);
          return {castScalar(b, l, dx, type.getElementType())};
        })[0];
    rewriter.replaceOp(op, {inputGrad, coefficients[3], coefficients[4]});
    return success();
  }
};

/// (x - mean) / sqrt(var + epsilon) * gamma + beta, with the per-channel
/// sqrt(var + epsilon) computed once, all in f32.
struct BatchNormInferenceLowering : OpConversionPattern<BatchNormInferenceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BatchNormInferenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType type = tensorType(input);
    NormLayout layout = batchNormLayout(getContext(), type);
    float epsilon = op.getEpsilon().convertToFloat();
    Value stddev = buildElementwise(
        rewriter, loc, layout.statShape, adaptor.getVar(), {},
        rewriter.getF32Type(),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value variance = m.cast(args[0]);
          return {m.sqrt(m.add(variance, m.constant(epsilon)))};
        })[0];
    AffineMap channel = layout.statMap;
    rewriter.replaceOp(
        op,
        buildElementwise(rewriter, loc, type.getShape(),
                         ValueRange{input, adaptor.getMean(), stddev,
                                    adaptor.getGamma(), adaptor.getBeta()},
                         {rewriter.getMultiDimIdentityMap(layout.rank), channel,
                          channel, channel, channel},
                         type.getElementType(),
                         [&](OpBuilder &b, Location l,
                             ValueRange args) -> SmallVector<Value> {
                           FloatMath m{b, l, b.getF32Type()};
                           Value x = m.cast(args[0]), mean = m.cast(args[1]),
                                 gamma = m.cast(args[3]),
                                 beta = m.cast(args[4]);
                           Value normalized = m.div(m.sub(x, mean), args[2]);
                           Value y = m.add(m.mul(normalized, gamma), beta);
                           return {castScalar(b, l, y, type.getElementType())};
                         }));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

struct LayerNormLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    NormLayout layout = layerNormLayout(getContext(), tensorType(input));
    Type statType = elementType(op.getMean());
    Value mean = computeMean(rewriter, loc, input, layout);
    Value sumSquares =
        computeCenteredSquares(rewriter, loc, input, mean, layout);
    float epsilon = op.getEpsilon().convertToFloat();
    Value invstd = buildElementwise(
        rewriter, loc, layout.statShape, sumSquares, {}, rewriter.getF32Type(),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          return {inverseStd(m, args[0], layout.count, epsilon)};
        })[0];
    Value output = normalize(rewriter, loc, input, mean, invstd,
                             adaptor.getGamma(), adaptor.getBeta(), layout);
    rewriter.replaceOp(op,
                       {output, convertElements(rewriter, loc, mean, statType),
                        convertElements(rewriter, loc, invstd, statType)});
    return success();
  }
};

/// With xhat = (x - mean) * invstd and g = dy * gamma, per row of D:
///   dx = invstd * (g - sum(g) / D - xhat * sum(g * xhat) / D)
///   dgamma = sum over rows of dy * xhat, dbeta = sum over rows of dy.
struct LayerNormGradLowering : OpConversionPattern<LayerNormGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LayerNormGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value grad = adaptor.getGrad(), input = adaptor.getInput(),
          gamma = adaptor.getGamma(), mean = adaptor.getMean(),
          invstd = adaptor.getInvstd();
    RankedTensorType type = tensorType(input);
    NormLayout layout = layerNormLayout(getContext(), type);
    AffineMap identity = rewriter.getMultiDimIdentityMap(layout.rank);
    SmallVector<Value> operands = {grad, input, gamma, mean, invstd};
    SmallVector<AffineMap> operandMaps = {identity, identity, layout.paramMap,
                                          layout.statMap, layout.statMap};
    // xhat and g from the operands' scalars, in f32.
    auto normalizedInput = [](FloatMath &m, ValueRange args) {
      Value x = m.cast(args[1]), rowMean = m.cast(args[3]),
            rowInvstd = m.cast(args[4]);
      return m.mul(m.sub(x, rowMean), rowInvstd);
    };
    auto scaledGrad = [](FloatMath &m, ValueRange args) {
      Value dy = m.cast(args[0]), scale = m.cast(args[2]);
      return m.mul(dy, scale);
    };

    SmallVector<Value> rowSums = reduceByDims(
        rewriter, loc, operands, operandMaps, type.getShape(),
        layout.reducedDims, /*numResults=*/2,
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value xhat = normalizedInput(m, args), g = scaledGrad(m, args);
          return {g, m.mul(g, xhat)};
        });

    int64_t width = layout.count;
    SmallVector<Value> dxOperands(operands);
    dxOperands.append(rowSums);
    SmallVector<AffineMap> dxMaps(operandMaps);
    dxMaps.append({layout.statMap, layout.statMap});
    Value inputGrad = buildElementwise(
        rewriter, loc, type.getShape(), dxOperands, dxMaps,
        type.getElementType(),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value xhat = normalizedInput(m, args), g = scaledGrad(m, args);
          Value meanG = m.div(args[5], m.constant(width));
          Value meanGXhat = m.div(args[6], m.constant(width));
          Value gCentered = m.sub(g, meanG);
          Value correction = m.mul(xhat, meanGXhat);
          Value dx = m.mul(m.cast(args[4]), m.sub(gCentered, correction));
          return {castScalar(b, l, dx, type.getElementType())};
        })[0];

    // Parameter gradients reduce over every dimension but the last.
    SmallVector<int64_t> rowDims;
    for (int64_t dim = 0; dim + 1 < layout.rank; ++dim)
      rowDims.push_back(dim);
    SmallVector<Value> paramSums = reduceByDims(
        rewriter, loc, operands, operandMaps, type.getShape(), rowDims,
        /*numResults=*/2,
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          FloatMath m{b, l, b.getF32Type()};
          Value dy = m.cast(args[0]);
          return {m.mul(dy, normalizedInput(m, args)), dy};
        });
    Type paramType = elementType(gamma);
    rewriter.replaceOp(
        op, {inputGrad, convertElements(rewriter, loc, paramSums[0], paramType),
             convertElements(rewriter, loc, paramSums[1], paramType)});
    return success();
  }
};

} // namespace

void mpt::detail::populateNormalizationPatterns(RewritePatternSet &patterns) {
  patterns
      .add<BatchNormLowering, BatchNormGradLowering, BatchNormInferenceLowering,
           LayerNormLowering, LayerNormGradLowering>(patterns.getContext());
}
