//===- LinearAlgebra.cpp - matmul, convolutions and pooling ---------------===//
//
// Products (matmul, conv2d and its gradients) multiply in the operand type and
// accumulate in an f32 tensor: the named linalg ops extend f16/bf16 operands
// to the f32 type of their init in their body. A result narrower than f32 is
// rounded once, at the end.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

using namespace mlir;
using namespace mpt;
using namespace mpt::detail;

namespace {

/// Rounds the f32 accumulator of a product to the op's result type and
/// replaces the op with it.
void replaceWithAccumulator(ConversionPatternRewriter &rewriter, Operation *op,
                            Value accumulator) {
  Type resultElement = elementType(op->getResult(0));
  rewriter.replaceOp(
      op, convertElements(rewriter, op->getLoc(), accumulator, resultElement));
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType resultType = op.getType();
    bool batched = resultType.getRank() == 3;
    Value init = createFilled(rewriter, loc, resultType.getShape(),
                              rewriter.getF32Type(), 0.0);

    // Loops ([batch,] m, n, k); the transposes are folded into the operand
    // maps instead of materializing transposed copies.
    int64_t numLoops = batched ? 4 : 3;
    int64_t m = numLoops - 3, n = numLoops - 2, k = numLoops - 1;
    auto operandMap = [&](int64_t outer, int64_t inner, bool transposed) {
      SmallVector<int64_t> dims;
      if (batched)
        dims.push_back(0);
      dims.append(transposed ? std::initializer_list<int64_t>{inner, outer}
                             : std::initializer_list<int64_t>{outer, inner});
      return AffineMapAttr::get(projectionMap(context, numLoops, dims));
    };
    SmallVector<int64_t> resultDims =
        batched ? SmallVector<int64_t>{0, m, n} : SmallVector<int64_t>{m, n};
    ArrayAttr maps = rewriter.getArrayAttr(
        {operandMap(m, k, op.getTransposeA()),
         operandMap(k, n, op.getTransposeB()),
         AffineMapAttr::get(projectionMap(context, numLoops, resultDims))});

    SmallVector<Value> inputs = {adaptor.getLhs(), adaptor.getRhs()};
    Value product;
    if (batched) {
      auto matmul = linalg::BatchMatmulOp::create(rewriter, loc, init.getType(),
                                                  inputs, init);
      matmul.setIndexingMapsAttr(maps);
      product = matmul.getResult(0);
    } else {
      auto matmul =
          linalg::MatmulOp::create(rewriter, loc, init.getType(), inputs, init);
      matmul.setIndexingMapsAttr(maps);
      product = matmul.getResult(0);
    }
    replaceWithAccumulator(rewriter, op, product);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// [D0, G*D1, ...] viewed as [D0, G, D1, ...] (`groupedDim` 1) or
/// [G*D0, D1, ...] as [G, D0, D1, ...] (`groupedDim` 0).
Value splitGroups(OpBuilder &b, Location loc, Value value, int64_t groupedDim,
                  int64_t groups) {
  RankedTensorType type = tensorType(value);
  SmallVector<int64_t> shape(type.getShape());
  shape[groupedDim] /= groups;
  shape.insert(shape.begin() + groupedDim, groups);
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d)
    reassociation.push_back(d < groupedDim    ? ReassociationIndices{d}
                            : d == groupedDim ? ReassociationIndices{d, d + 1}
                                              : ReassociationIndices{d + 1});
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      reassociation);
}

/// The convolution of `input` (N, C, H, W) with `filter` (F, C/G, KH, KW)
/// into `init` (N, F, OH, OW), in `groups` G groups of channels: one
/// linalg.conv_2d_nchw_fchw, which the CPU kernels and the GPU's im2col GEMM
/// take, when G is 1, and otherwise linalg.conv_2d_ngchw_gfchw on views that
/// split the channels into (G, C/G) and (G, F/G), which both targets lower to
/// loops.
Value convolve(OpBuilder &b, Location loc, Value input, Value filter,
               Value init, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> dilations, int64_t groups) {
  if (groups == 1)
    return linalg::Conv2DNchwFchwOp::create(
               b, loc, init.getType(), ValueRange{input, filter}, init,
               b.getI64TensorAttr(strides), b.getI64TensorAttr(dilations))
        .getResult(0);
  Value groupedInit = splitGroups(b, loc, init, 1, groups);
  Value conv = linalg::Conv2DNgchwGfchwOp::create(
                   b, loc, groupedInit.getType(),
                   ValueRange{splitGroups(b, loc, input, 1, groups),
                              splitGroups(b, loc, filter, 0, groups)},
                   groupedInit, b.getI64TensorAttr(strides),
                   b.getI64TensorAttr(dilations))
                   .getResult(0);
  return tensor::CollapseShapeOp::create(
      b, loc, init.getType(), conv,
      SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
}

/// conv2d: zero-pad the input, then convolve into f32.
struct Conv2DLowering : OpConversionPattern<Conv2DOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Conv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input =
        padSpatial(rewriter, loc, adaptor.getLhs(), op.getPadding(), 0.0);
    Value init = createFilled(rewriter, loc, op.getType().getShape(),
                              rewriter.getF32Type(), 0.0);
    Value conv = convolve(rewriter, loc, input, adaptor.getRhs(), init,
                          op.getStrides(), op.getDilations(), op.getGroups());
    replaceWithAccumulator(rewriter, op, conv);
    return success();
  }
};

/// conv2d_input_grad as the transposed convolution:
///   dx[n, c, h, w] = sum_{f, kh, kw} dy'[n, f, h + kh*d, w + kw*d]
///                                    * filter[f, c, KH-1-kh, KW-1-kw]
/// where dy' is dy spread out by the stride (zeros in between) and offset by
/// (KH-1)*d - pad, so that dy'[j] holds dy[oh] at j = oh*s + (KH-1)*d - pad.
/// The flipped, channel-swapped filter makes this a plain convolution with
/// stride 1 and the forward dilation, in the forward's groups.
struct Conv2DInputGradLowering : OpConversionPattern<Conv2DInputGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Conv2DInputGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value spread = spreadGrad(rewriter, op, adaptor.getLhs(),
                              tensorType(adaptor.getRhs()).getShape());
    if (!spread) {
      rewriter.replaceOp(op,
                         createFilled(rewriter, loc, op.getType().getShape(),
                                      op.getType().getElementType(), 0.0));
      return success();
    }
    Value flipped = flipFilter(rewriter, loc, adaptor.getRhs(),
                               elementType(adaptor.getLhs()), op.getGroups());
    Value init = createFilled(rewriter, loc, op.getType().getShape(),
                              rewriter.getF32Type(), 0.0);
    Value conv = convolve(rewriter, loc, spread, flipped, init, {1, 1},
                          op.getDilations(), op.getGroups());
    replaceWithAccumulator(rewriter, op, conv);
    return success();
  }

private:
  /// dy': `grad` spread out by the stride and offset, in zeros; null when no
  /// output position receives a gradient.
  static Value spreadGrad(ConversionPatternRewriter &rewriter,
                          Conv2DInputGradOp op, Value grad,
                          ArrayRef<int64_t> filterShape) {
    Location loc = op.getLoc();
    ArrayRef<int64_t> gradShape = tensorType(grad).getShape();
    ArrayRef<int64_t> resultShape = op.getType().getShape();
    ArrayRef<int64_t> strides = op.getStrides(), padding = op.getPadding(),
                      dilations = op.getDilations();
    // Per spatial dimension: the spread-out gradient's size, and the range
    // [first, first + count) of output positions that land inside it. Output
    // positions whose window lies entirely in the padding (possible when
    // pad > (K-1)*d) have no input to flow back to.
    SmallVector<int64_t> spreadShape = {gradShape[0], gradShape[1]};
    SmallVector<OpFoldResult> sliceOffsets(2, rewriter.getIndexAttr(0)),
        sliceSizes = {rewriter.getIndexAttr(gradShape[0]),
                      rewriter.getIndexAttr(gradShape[1])},
        insertOffsets(2, rewriter.getIndexAttr(0)),
        insertStrides(2, rewriter.getIndexAttr(1));
    bool empty = false, sliced = false;
    for (int i = 0; i < 2; ++i) {
      int64_t span = (filterShape[2 + i] - 1) * dilations[i];
      int64_t offset = span - padding[i];
      int64_t size = resultShape[2 + i] + span;
      int64_t first = offset >= 0 ? 0 : llvm::divideCeil(-offset, strides[i]);
      int64_t last =
          std::min(gradShape[2 + i] - 1,
                   llvm::divideFloorSigned(size - 1 - offset, strides[i]));
      int64_t count = last - first + 1;
      empty |= count <= 0;
      sliced |= count != gradShape[2 + i];
      spreadShape.push_back(size);
      sliceOffsets.push_back(rewriter.getIndexAttr(first));
      sliceSizes.push_back(rewriter.getIndexAttr(std::max<int64_t>(count, 0)));
      insertOffsets.push_back(
          rewriter.getIndexAttr(first * strides[i] + offset));
      insertStrides.push_back(rewriter.getIndexAttr(strides[i]));
    }
    if (empty)
      return {};
    Value used = grad;
    if (sliced)
      used = tensor::ExtractSliceOp::create(
          rewriter, loc, grad, sliceOffsets, sliceSizes,
          SmallVector<OpFoldResult>(4, rewriter.getIndexAttr(1)));
    return tensor::InsertSliceOp::create(
        rewriter, loc, used,
        createFilled(rewriter, loc, spreadShape, elementType(grad), 0.0),
        insertOffsets, sliceSizes, insertStrides);
  }

  /// flipped[c, f, kh, kw] = filter[f, c, KH-1-kh, KW-1-kw], in `element`;
  /// in G groups, the (C/G, F/G) block of each group is swapped in place:
  /// flipped[c, j, ...] = filter[(c / (C/G)) * (F/G) + j, c % (C/G), ...].
  static Value flipFilter(OpBuilder &b, Location loc, Value filter,
                          Type element, int64_t groups) {
    ArrayRef<int64_t> filterShape = tensorType(filter).getShape();
    int64_t groupFilters = filterShape[0] / groups;
    int64_t groupChannels = filterShape[1];
    MLIRContext *context = b.getContext();
    AffineExpr d0, d1, d2, d3;
    bindDims(context, d0, d1, d2, d3);
    AffineExpr f = d1, c = d0;
    if (groups != 1) {
      f = d0.floorDiv(groupChannels) * groupFilters + d1;
      c = d0 % groupChannels;
    }
    AffineMap flipMap = AffineMap::get(
        4, 0, {f, c, filterShape[2] - 1 - d2, filterShape[3] - 1 - d3},
        context);
    return buildGeneric(
        b, loc, filter,
        createEmpty(b, loc,
                    {groupChannels * groups, groupFilters, filterShape[2],
                     filterShape[3]},
                    element),
        {flipMap, b.getMultiDimIdentityMap(4)}, iteratorTypes(4),
        [](OpBuilder &, Location, ValueRange args) -> SmallVector<Value> {
          return {args[0]};
        })[0];
  }
};

/// conv2d_filter_grad as a convolution over the batch:
///   dw[f, c, kh, kw] = sum_{n, oh, ow} x_pad[n, c, kh*d + oh*s, kw*d + ow*s]
///                                      * dy[n, f, oh, ow]
/// is linalg.conv_2d_nchw_fchw of x_pad as [c, n, H, W] (the "batch" is c,
/// the reduced channel n) with dy as [f, n, OH, OW] for the filter, the
/// forward dilation as its stride and the forward stride as its dilation,
/// into [c, f, KH, KW], transposed back. In G groups, channel c of group g
/// only meets the filters of group g, so the batch is c within its group
/// and the channels are (g, n): x_pad as [C/G, G*N, H, W], grouped as the
/// forward op. A named op rather than the
/// equivalent linalg.generic: elementwise fusion would fold dy's producer
/// into a generic, leaving a body no kernel can recognize, and the named op
/// reduces over (n, oh, ow) in the same order as the generic did.
struct Conv2DFilterGradLowering : OpConversionPattern<Conv2DFilterGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Conv2DFilterGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto swapBatchAndChannels = [&](Value value) -> Value {
      RankedTensorType type = tensorType(value);
      ArrayRef<int64_t> shape = type.getShape();
      Value init =
          createEmpty(rewriter, loc, {shape[1], shape[0], shape[2], shape[3]},
                      type.getElementType());
      return linalg::TransposeOp::create(rewriter, loc, value, init,
                                         ArrayRef<int64_t>{1, 0, 2, 3})
          .getResult()[0];
    };
    int64_t groups = op.getGroups();
    Value padded =
        padSpatial(rewriter, loc, adaptor.getLhs(), op.getPadding(), 0.0);
    Value input = groups == 1
                      ? swapBatchAndChannels(padded)
                      : groupChannelsOverBatch(rewriter, loc, padded, groups);
    Value grad = swapBatchAndChannels(adaptor.getRhs());
    ArrayRef<int64_t> shape = op.getType().getShape();
    Value init =
        createFilled(rewriter, loc, {shape[1], shape[0], shape[2], shape[3]},
                     rewriter.getF32Type(), 0.0);
    Value conv = convolve(rewriter, loc, input, grad, init, op.getDilations(),
                          op.getStrides(), groups);
    replaceWithAccumulator(rewriter, op, swapBatchAndChannels(conv));
    return success();
  }

private:
  /// x [N, G*C', H, W] as [C', G*N, H, W]: x viewed as [N, G, C', H, W],
  /// transposed to [C', G, N, H, W] and collapsed.
  static Value groupChannelsOverBatch(OpBuilder &b, Location loc, Value x,
                                      int64_t groups) {
    Value grouped = splitGroups(b, loc, x, 1, groups);
    ArrayRef<int64_t> shape = tensorType(grouped).getShape();
    Value init =
        createEmpty(b, loc, {shape[2], shape[1], shape[0], shape[3], shape[4]},
                    elementType(x));
    Value transposed =
        linalg::TransposeOp::create(b, loc, grouped, init,
                                    ArrayRef<int64_t>{2, 1, 0, 3, 4})
            .getResult()[0];
    return tensor::CollapseShapeOp::create(
        b, loc, transposed,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Windows that tile the image (stride = kernel, no padding, the image
/// divides evenly), as in the common 2x2 pool: every input is in exactly one
/// window.
bool hasDisjointWindows(ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                        ArrayRef<int64_t> padding,
                        ArrayRef<int64_t> inputShape) {
  for (int i = 0; i < 2; ++i)
    if (strides[i] != kernel[i] || padding[i] != 0 ||
        inputShape[2 + i] % kernel[i] != 0)
      return false;
  return true;
}

/// [N, C, H, W] as [N, C, OH, KH, OW, KW] and back, for disjoint windows.
SmallVector<ReassociationIndices> windowedReassociation() {
  return {{0}, {1}, {2, 3}, {4, 5}};
}

Value windowedView(OpBuilder &b, Location loc, Value tensor,
                   ArrayRef<int64_t> kernel) {
  ArrayRef<int64_t> shape = tensorType(tensor).getShape();
  SmallVector<int64_t> windowedShape = {
      shape[0], shape[1], shape[2] / kernel[0], kernel[0], shape[3] / kernel[1],
      kernel[1]};
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(windowedShape, elementType(tensor)), tensor,
      windowedReassociation());
}

/// One operand per window position, in row-major order: the windowed view
/// read at constant (kh, kw) from loops whose first four are (n, c, oh, ow).
void addWindowPositions(Value windowed, ArrayRef<int64_t> kernel,
                        unsigned numLoops, SmallVectorImpl<Value> &inputs,
                        SmallVectorImpl<AffineMap> &maps) {
  MLIRContext *context = windowed.getContext();
  AffineExpr n, c, oh, ow;
  bindDims(context, n, c, oh, ow);
  for (int64_t k = 0; k < kernel[0] * kernel[1]; ++k) {
    inputs.push_back(windowed);
    maps.push_back(
        AffineMap::get(numLoops, 0,
                       {n, c, oh, getAffineConstantExpr(k / kernel[1], context),
                        ow, getAffineConstantExpr(k % kernel[1], context)},
                       context));
  }
}

/// `pooled` [N, C, OH, OW] spread over a tensor of `background` of the input
/// shape grown by the kernel, [N, C, H + KH - 1, W + KW - 1], with window
/// (oh, ow) at (oh*s + KH-1-pad, ow*s + KW-1-pad): the window that holds
/// input row h at kernel row kh is then at h - kh + KH-1, so a stride-1 pass
/// of kernel-sized windows over the result gathers, for every input
/// position, the windows that hold it. The verifier's 2*pad <= K keeps
/// K-1-pad >= 0 and the last window inside.
Value spreadOverWindows(OpBuilder &b, Location loc, Value pooled,
                        Value background, ArrayRef<int64_t> inputShape,
                        ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                        ArrayRef<int64_t> padding) {
  SmallVector<int64_t> spreadShape = {inputShape[0], inputShape[1]};
  SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0)),
      sizes =
          getAsIndexOpFoldResult(b.getContext(), tensorType(pooled).getShape()),
      spreadStrides(2, b.getIndexAttr(1));
  for (int i = 0; i < 2; ++i) {
    spreadShape.push_back(inputShape[2 + i] + kernel[i] - 1);
    offsets.push_back(b.getIndexAttr(kernel[i] - 1 - padding[i]));
    spreadStrides.push_back(b.getIndexAttr(strides[i]));
  }
  return tensor::InsertSliceOp::create(
      b, loc, pooled, createFilled(b, loc, spreadShape, background), offsets,
      sizes, spreadStrides);
}

/// Whether a window candidate read after `best` replaces it as the window's
/// first maximum: it is larger, or it is the first NaN (PyTorch's rule; a tie
/// keeps the earlier candidate).
Value replacesMaximum(OpBuilder &b, Location loc, Value value, Value best) {
  auto cmpf = [&](arith::CmpFPredicate predicate, Value lhs,
                  Value rhs) -> Value {
    return arith::CmpFOp::create(b, loc, predicate, lhs, rhs);
  };
  Value greater = cmpf(arith::CmpFPredicate::OGT, value, best);
  Value valueNaN = cmpf(arith::CmpFPredicate::UNO, value, value);
  Value bestNumber = cmpf(arith::CmpFPredicate::ORD, best, best);
  Value firstNaN = arith::AndIOp::create(b, loc, valueNaN, bestNumber);
  return arith::OrIOp::create(b, loc, greater, firstNaN);
}

/// max_pool2d: pad with -inf so that padding never wins, then
/// linalg.pooling_nchw_max (arith.maximumf: a NaN in the window propagates).
/// Disjoint windows are one parallel pass over the output instead, each
/// element the first maximum of its window's KH*KW inputs read at constant
/// (kh, kw), by the rule of their backward (replacesMaximum): no reduction
/// loop, and the loop along ow vectorizes. A compare and a select per
/// candidate cost less than arith.maximumf, which x86 lowers with fixups for
/// NaNs and signed zeros (the f16 pooling of the CNN example took 2.7 times
/// its FP32 time with it). They compare in f32, which holds f16 and bf16
/// exactly, so that LLVM does not round after every candidate.
struct MaxPool2DLowering : OpConversionPattern<MaxPool2DOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MaxPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = op.getType().getElementType();
    ArrayRef<int64_t> kernel = op.getKernel();
    if (hasDisjointWindows(kernel, op.getStrides(), op.getPadding(),
                           tensorType(adaptor.getInput()).getShape())) {
      SmallVector<Value> inputs;
      SmallVector<AffineMap> maps;
      addWindowPositions(
          windowedView(rewriter, loc, adaptor.getInput(), kernel), kernel, 4,
          inputs, maps);
      maps.push_back(rewriter.getMultiDimIdentityMap(4));
      Value init = createEmpty(rewriter, loc, op.getType().getShape(), element);
      rewriter.replaceOp(
          op, buildGeneric(rewriter, loc, inputs, init, maps, iteratorTypes(4),
                           [&](OpBuilder &b, Location l,
                               ValueRange args) -> SmallVector<Value> {
                             Value best = toF32(b, l, args[0]);
                             for (Value arg : args.drop_front().drop_back()) {
                               Value value = toF32(b, l, arg);
                               best = arith::SelectOp::create(
                                   b, l, replacesMaximum(b, l, value, best),
                                   value, best);
                             }
                             return {castScalar(b, l, best, element)};
                           }));
      return success();
    }
    double lowest = -std::numeric_limits<double>::infinity();
    Value input =
        padSpatial(rewriter, loc, adaptor.getInput(), op.getPadding(), lowest);
    Value init =
        createFilled(rewriter, loc, op.getType().getShape(), element, lowest);
    Value window = createEmpty(rewriter, loc, op.getKernel(), element);
    rewriter.replaceOpWithNewOp<linalg::PoolingNchwMaxOp>(
        op, init.getType(), ValueRange{input, window}, init,
        rewriter.getI64TensorAttr(op.getStrides()),
        rewriter.getI64TensorAttr({1, 1}));
    return success();
  }
};

/// max_pool2d_grad in two gathers, so that no index is ever scattered:
///  1. argmax[n, c, oh, ow]: the position kh*KW + kw of the first maximum of
///     every window in row-major order (PyTorch's tie rule; a NaN counts as
///     the largest value). Padding positions are never candidates.
///  2. dx[n, c, h, w] = sum over (kh, kw) of dy[window] where the window
///     (oh, ow) = ((h + pad - kh) / s, ...) chose position (kh, kw). dy and
///     argmax are spread out by the stride (argmax -1 in the gaps) so that
///     this is an affine access; overlapping windows accumulate, in f32.
struct MaxPool2DGradLowering : OpConversionPattern<MaxPool2DGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MaxPool2DGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (hasDisjointWindows(op.getKernel(), op.getStrides(), op.getPadding(),
                           op.getType().getShape())) {
      rewriter.replaceOp(op, buildDisjointWindowsGrad(rewriter, op,
                                                      adaptor.getInput(),
                                                      adaptor.getGrad()));
      return success();
    }
    Value argmax = buildArgmax(rewriter, op, adaptor.getInput());
    Value grad = adaptor.getGrad();
    ArrayRef<int64_t> kernel = op.getKernel();
    ArrayRef<int64_t> inputShape = op.getType().getShape();
    auto spread = [&](Value pooled, Value background) -> Value {
      return spreadOverWindows(rewriter, loc, pooled, background, inputShape,
                               kernel, op.getStrides(), op.getPadding());
    };
    Value spreadGrad =
        spread(grad, floatConstant(rewriter, loc, elementType(grad), 0.0));
    Value spreadArgmax =
        spread(argmax, intConstant(rewriter, loc, rewriter.getI32Type(), -1));

    // Window loops outside the image loops: the innermost loop then runs
    // along w, independent iterations that vectorize; (kh, kw) still sum in
    // row-major order.
    MLIRContext *context = rewriter.getContext();
    AffineExpr n, c, h, w, kh, kw;
    bindDims(context, n, c, kh, kw, h, w);
    AffineMap windowMap = AffineMap::get(
        6, 0, {n, c, h - kh + (kernel[0] - 1), w - kw + (kernel[1] - 1)},
        context);
    Value init =
        createFilled(rewriter, loc, inputShape, rewriter.getF32Type(), 0.0);
    int64_t kernelWidth = kernel[1];
    Value dx = buildGeneric(
        rewriter, loc,
        ValueRange{spreadGrad, spreadArgmax, windowShape(rewriter, op)}, init,
        {windowMap, windowMap, AffineMap::get(6, 0, {kh, kw}, context),
         AffineMap::get(6, 0, {n, c, h, w}, context)},
        iteratorTypes(6, {2, 3}),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value position =
              windowPosition(b, l, /*khDim=*/2, /*kwDim=*/3, kernelWidth);
          Value chosen = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                               args[1], position);
          Value grad = toF32(b, l, args[0]);
          Value zero = floatConstant(b, l, b.getF32Type(), 0.0);
          Value routed = arith::SelectOp::create(b, l, chosen, grad, zero);
          return {arith::AddFOp::create(b, l, args[3], routed)};
        })[0];
    rewriter.replaceOp(
        op, convertElements(rewriter, loc, dx, op.getType().getElementType()));
    return success();
  }

private:
  /// Disjoint windows in one parallel pass instead of the argmax and gather
  /// passes. Input and dx are viewed as [N, C, OH, KH, OW, KW] (a reshape of
  /// the same buffer), and every dx element reads its window's KH*KW inputs
  /// (constant (kh, kw) in the maps), picks the first maximum by
  /// buildArgmax's rule and takes dy if that is its position. The loops are
  /// (n, c, oh, ow, kh, kw): once LLVM unrolls the constant window loops,
  /// the window's loads and argmax are common to its KH*KW elements and
  /// computed once, and no access is a gather.
  /// Each dx element gets 0 + (dy or 0) in f32, as in the general path.
  static Value buildDisjointWindowsGrad(ConversionPatternRewriter &rewriter,
                                        MaxPool2DGradOp op, Value input,
                                        Value grad) {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    ArrayRef<int64_t> kernel = op.getKernel();
    RankedTensorType resultType = op.getType();
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    int64_t positions = kernel[0] * kernel[1];
    addWindowPositions(windowedView(rewriter, loc, input, kernel), kernel, 6,
                       inputs, maps);
    AffineExpr n, c, oh, ow, kh, kw;
    bindDims(context, n, c, oh, ow, kh, kw);
    inputs.push_back(grad);
    maps.push_back(AffineMap::get(6, 0, {n, c, oh, ow}, context));
    maps.push_back(AffineMap::get(6, 0, {n, c, oh, kh, ow, kw}, context));
    Value init = windowedView(rewriter, loc,
                              createEmpty(rewriter, loc, resultType.getShape(),
                                          resultType.getElementType()),
                              kernel);
    Value dx = buildGeneric(
        rewriter, loc, inputs, init, maps, iteratorTypes(6),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          // Candidates in row-major order, compared in f32 (exact for f16
          // and bf16), which LLVM vectorizes.
          Value best = toF32(b, l, args[0]);
          Value bestIndex = intConstant(b, l, b.getI32Type(), 0);
          for (int64_t k = 1; k < positions; ++k) {
            Value value = toF32(b, l, args[k]);
            Value take = replacesMaximum(b, l, value, best);
            best = arith::SelectOp::create(b, l, take, value, best);
            bestIndex = arith::SelectOp::create(
                b, l, take, intConstant(b, l, b.getI32Type(), k), bestIndex);
          }
          Value chosen = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::eq, bestIndex,
              windowPosition(b, l, /*khDim=*/4, /*kwDim=*/5, kernel[1]));
          Value zero = floatConstant(b, l, b.getF32Type(), 0.0);
          Value routed = arith::SelectOp::create(
              b, l, chosen, toF32(b, l, args[positions]), zero);
          Value value = arith::AddFOp::create(b, l, zero, routed);
          return {castScalar(b, l, value, resultType.getElementType())};
        })[0];
    return tensor::CollapseShapeOp::create(rewriter, loc, resultType, dx,
                                           windowedReassociation());
  }

  /// An operand of the kernel's shape that only gives the window loops
  /// (kh, kw) their range, as the window operand of linalg.pooling_* does.
  static Value windowShape(OpBuilder &b, MaxPool2DGradOp op) {
    return createEmpty(b, op.getLoc(), op.getKernel(), b.getI1Type());
  }

  /// kh * KW + kw as an i32, from the generic's loop indices.
  static Value windowPosition(OpBuilder &b, Location loc, int64_t khDim,
                              int64_t kwDim, int64_t kernelWidth) {
    auto index = [&](int64_t dim) -> Value {
      return arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                        linalg::IndexOp::create(b, loc, dim));
    };
    Value kh = index(khDim);
    Value kw = index(kwDim);
    return arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, kh,
                              intConstant(b, loc, b.getI32Type(), kernelWidth)),
        kw);
  }

  /// The first maximum of every window, as an order-independent reduction:
  /// a candidate replaces the current one if it is larger (a NaN beats any
  /// number), or equal (or both NaN) and earlier in row-major order.
  static Value buildArgmax(ConversionPatternRewriter &rewriter,
                           MaxPool2DGradOp op, Value input) {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                      padding = op.getPadding();
    ArrayRef<int64_t> inputShape = tensorType(input).getShape();
    ArrayRef<int64_t> pooledShape = tensorType(op.getGrad()).getShape();
    Type element = elementType(input);
    Value padded = padSpatial(rewriter, loc, input, padding, 0.0);

    // Window loops outside the output loops, as in the gather above: row-major
    // window order is kept, and the innermost loop along ow vectorizes.
    AffineExpr n, c, oh, ow, kh, kw;
    bindDims(context, n, c, kh, kw, oh, ow);
    AffineMap windowMap = AffineMap::get(
        6, 0, {n, c, oh * strides[0] + kh, ow * strides[1] + kw}, context);
    AffineMap pooledMap = AffineMap::get(6, 0, {n, c, oh, ow}, context);
    Value maxInit = createFilled(rewriter, loc, pooledShape, element,
                                 -std::numeric_limits<double>::infinity());
    // The sentinel kernel size loses every tie, so the first real candidate
    // always replaces it.
    Value indexInit =
        createFilled(rewriter, loc, pooledShape,
                     intConstant(rewriter, loc, rewriter.getI32Type(),
                                 kernel[0] * kernel[1]));
    bool hasPadding = padding[0] != 0 || padding[1] != 0;
    return buildGeneric(
        rewriter, loc, ValueRange{padded, windowShape(rewriter, op)},
        ValueRange{maxInit, indexInit},
        {windowMap, AffineMap::get(6, 0, {kh, kw}, context), pooledMap,
         pooledMap},
        iteratorTypes(6, {2, 3}),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value value = args[0], best = args[2], bestIndex = args[3];
          Value position = windowPosition(b, l, 2, 3, kernel[1]);
          Value take = takesCandidate(b, l, value, best, position, bestIndex);
          if (hasPadding)
            take = arith::AndIOp::create(
                b, l, take, isInsideImage(b, l, strides, padding, inputShape));
          return {arith::SelectOp::create(b, l, take, value, best),
                  arith::SelectOp::create(b, l, take, position, bestIndex)};
        })[1];
  }

  /// Whether the candidate `value` at window position `position` replaces
  /// `best`, at `bestIndex`, by buildArgmax's rule.
  static Value takesCandidate(OpBuilder &b, Location l, Value value, Value best,
                              Value position, Value bestIndex) {
    auto cmpf = [&](arith::CmpFPredicate predicate, Value lhs,
                    Value rhs) -> Value {
      return arith::CmpFOp::create(b, l, predicate, lhs, rhs);
    };
    auto andi = [&](Value lhs, Value rhs) -> Value {
      return arith::AndIOp::create(b, l, lhs, rhs);
    };
    auto ori = [&](Value lhs, Value rhs) -> Value {
      return arith::OrIOp::create(b, l, lhs, rhs);
    };
    // One op per statement: their order must not depend on the
    // compiler's argument evaluation order.
    Value valueNaN = cmpf(arith::CmpFPredicate::UNO, value, value);
    Value bestNaN = cmpf(arith::CmpFPredicate::UNO, best, best);
    Value bestNumber = cmpf(arith::CmpFPredicate::ORD, best, best);
    Value equal = cmpf(arith::CmpFPredicate::OEQ, value, best);
    Value tie = ori(equal, andi(valueNaN, bestNaN));
    Value earlier = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                          position, bestIndex);
    Value firstNaN = andi(valueNaN, bestNumber);
    Value greater = cmpf(arith::CmpFPredicate::OGT, value, best);
    Value earlierTie = andi(tie, earlier);
    return ori(ori(firstNaN, greater), earlierTie);
  }

  /// Whether the padded input read at the generic's loop point, row
  /// oh*s + kh - pad (and column likewise), is inside the image: loops
  /// (n, c, kh, kw, oh, ow).
  static Value isInsideImage(OpBuilder &b, Location l,
                             ArrayRef<int64_t> strides,
                             ArrayRef<int64_t> padding,
                             ArrayRef<int64_t> inputShape) {
    Value inside;
    for (int i = 0; i < 2; ++i) {
      Value out = linalg::IndexOp::create(b, l, 4 + i);
      Value k = linalg::IndexOp::create(b, l, 2 + i);
      Value row = arith::AddIOp::create(
          b, l,
          arith::MulIOp::create(
              b, l, out, arith::ConstantIndexOp::create(b, l, strides[i])),
          k);
      Value low = arith::ConstantIndexOp::create(b, l, padding[i]);
      Value high =
          arith::ConstantIndexOp::create(b, l, padding[i] + inputShape[2 + i]);
      Value aboveLow =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, row, low);
      Value belowHigh =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, row, high);
      Value inRange = arith::AndIOp::create(b, l, aboveLow, belowHigh);
      inside = inside ? arith::AndIOp::create(b, l, inside, inRange).getResult()
                      : inRange;
    }
    return inside;
  }
};

/// The divisor of avg_pool2d's window at loop indices (oh, ow) = (2, 3) of a
/// generic over [N, C, OH, OW], in f32: the window's size, or without
/// `countIncludePad` the number of its positions inside the image,
/// (min(start + K, H) - max(start, 0)) per dimension with start = oh*s - pad.
Value windowDivisor(OpBuilder &b, Location l, ArrayRef<int64_t> kernel,
                    ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                    ArrayRef<int64_t> inputShape, bool countIncludePad) {
  if (countIncludePad || llvm::all_of(padding, [](int64_t p) { return !p; }))
    return floatConstant(b, l, b.getF32Type(), kernel[0] * kernel[1]);
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, l, value);
  };
  Value count = index(1);
  for (int i = 0; i < 2; ++i) {
    Value start = arith::SubIOp::create(
        b, l,
        arith::MulIOp::create(b, l, linalg::IndexOp::create(b, l, 2 + i),
                              index(strides[i])),
        index(padding[i]));
    Value end = arith::MinSIOp::create(
        b, l, arith::AddIOp::create(b, l, start, index(kernel[i])),
        index(inputShape[2 + i]));
    Value first = arith::MaxSIOp::create(b, l, start, index(0));
    count = arith::MulIOp::create(b, l, count,
                                  arith::SubIOp::create(b, l, end, first));
  }
  return arith::UIToFPOp::create(
      b, l, b.getF32Type(),
      arith::IndexCastOp::create(b, l, b.getI32Type(), count));
}

/// Sums kernel-sized windows of `input` into an f32 tensor of `resultShape`:
/// linalg.pooling_nchw_sum, whose body extends f16/bf16 to its f32 init.
Value sumWindows(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> resultShape, ArrayRef<int64_t> kernel,
                 ArrayRef<int64_t> strides) {
  Value init = createFilled(b, loc, resultShape, b.getF32Type(), 0.0);
  Value window = createEmpty(b, loc, kernel, b.getF32Type());
  return linalg::PoolingNchwSumOp::create(
             b, loc, init.getType(), ValueRange{input, window}, init,
             b.getI64TensorAttr(strides), b.getI64TensorAttr({1, 1}))
      .getResult(0);
}

/// `pooled` (f32 [N, C, OH, OW]) divided by each window's divisor, in
/// `element`.
Value divideByWindows(OpBuilder &b, Location loc, Value pooled, Type element,
                      ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                      ArrayRef<int64_t> padding, ArrayRef<int64_t> inputShape,
                      bool countIncludePad) {
  ArrayRef<int64_t> shape = tensorType(pooled).getShape();
  return buildGeneric(
      b, loc, pooled, createEmpty(b, loc, shape, element),
      {b.getMultiDimIdentityMap(4), b.getMultiDimIdentityMap(4)},
      iteratorTypes(4),
      [&](OpBuilder &nb, Location l, ValueRange args) -> SmallVector<Value> {
        Value divisor = windowDivisor(nb, l, kernel, strides, padding,
                                      inputShape, countIncludePad);
        Value average =
            arith::DivFOp::create(nb, l, toF32(nb, l, args[0]), divisor);
        return {castScalar(nb, l, average, element)};
      })[0];
}

/// avg_pool2d: zero-pad, sum each window into f32 (linalg.pooling_nchw_sum),
/// then divide and round once.
struct AvgPool2DLowering : OpConversionPattern<AvgPool2DOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AvgPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value padded =
        padSpatial(rewriter, loc, adaptor.getInput(), op.getPadding(), 0.0);
    Value sums = sumWindows(rewriter, loc, padded, op.getType().getShape(),
                            op.getKernel(), op.getStrides());
    rewriter.replaceOp(
        op, divideByWindows(rewriter, loc, sums, op.getType().getElementType(),
                            op.getKernel(), op.getStrides(), op.getPadding(),
                            tensorType(adaptor.getInput()).getShape(),
                            op.getCountIncludePad()));
    return success();
  }
};

/// avg_pool2d_grad: every window's gradient divided by its divisor (in
/// f32), spread over the input (spreadOverWindows) and summed over the
/// windows that hold each input position by a stride-1 window sum, then
/// rounded once. Positions in the padding fall outside the result.
struct AvgPool2DGradLowering : OpConversionPattern<AvgPool2DGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AvgPool2DGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    ArrayRef<int64_t> inputShape = op.getType().getShape();
    ArrayRef<int64_t> kernel = op.getKernel();
    Value shares = divideByWindows(rewriter, loc, adaptor.getGrad(), f32,
                                   kernel, op.getStrides(), op.getPadding(),
                                   inputShape, op.getCountIncludePad());
    Value spread = spreadOverWindows(
        rewriter, loc, shares, floatConstant(rewriter, loc, f32, 0.0),
        inputShape, kernel, op.getStrides(), op.getPadding());
    Value dx = sumWindows(rewriter, loc, spread, inputShape, kernel, {1, 1});
    rewriter.replaceOp(
        op, convertElements(rewriter, loc, dx, op.getType().getElementType()));
    return success();
  }
};

} // namespace

void mpt::detail::populateLinearAlgebraPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulLowering, Conv2DLowering, Conv2DInputGradLowering,
               Conv2DFilterGradLowering, MaxPool2DLowering,
               MaxPool2DGradLowering, AvgPool2DLowering, AvgPool2DGradLowering>(
      patterns.getContext());
}
