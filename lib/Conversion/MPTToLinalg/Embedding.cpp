//===- Embedding.cpp - embedding lookup and its gradient ---------*- C++
//-*-===//
//
// The lookup is a gather, a linalg.generic over the result reading the table
// at each id; its gradient is a scatter-add, which no linalg op expresses
// (the element written depends on data), so it is an scf.forall over the
// table's columns. Both run unchanged on the CPU and, one thread per column,
// on the GPU (mpt-convert-linalg-to-gpu-loops).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include "Utils.h"

using namespace mlir;
using namespace mpt;
using namespace mpt::detail;

namespace {

/// An id as an index into the table's rows.
Value rowIndex(OpBuilder &b, Location loc, Value id) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), id);
}

/// result[s..., d] = table[ids[s...], d]. The runtime has checked every id
/// against the table's rows where the ids were bound.
struct EmbeddingLowering : OpConversionPattern<EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t rank = resultType.getRank();
    Value table = adaptor.getTable();
    AffineMap idsMap = dropDimsMap(rewriter.getContext(), rank, {rank - 1});
    rewriter.replaceOp(
        op,
        buildElementwise(
            rewriter, loc, resultType.getShape(), adaptor.getIds(), idsMap,
            resultType.getElementType(),
            [&](OpBuilder &b, Location l,
                ValueRange args) -> SmallVector<Value> {
              Value column = linalg::IndexOp::create(b, l, rank - 1);
              return {tensor::ExtractOp::create(
                  b, l, table, ValueRange{rowIndex(b, l, args[0]), column})};
            }));
    return success();
  }
};

/// The (V, D) f32 table gradient from zero: column d, in parallel with the
/// others, adds grad[n, d] into row ids[n] for n = 0, 1, ... in order over the
/// ids flattened row-major. Each element thus sums its rows in one fixed
/// order whatever runs the columns, with no atomics, in O(N * D).
struct EmbeddingGradLowering : OpConversionPattern<EmbeddingGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(EmbeddingGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t rows = resultType.getDimSize(0), width = resultType.getDimSize(1);
    Value ids = flatten(rewriter, loc, adaptor.getIds(), /*keepLast=*/false);
    Value grad = flatten(rewriter, loc, adaptor.getGrad(), /*keepLast=*/true);
    int64_t count = tensorType(ids).getDimSize(0);
    Value zeros = createFilled(rewriter, loc, resultType.getShape(),
                               rewriter.getF32Type(), 0.0);

    auto forall = scf::ForallOp::create(
        rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(width)},
        ValueRange{zeros}, /*mapping=*/std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    Value d = forall.getInductionVar(0);
    Value out = forall.getRegionIterArgs()[0];
    SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(0), d},
                              sizes = {rewriter.getIndexAttr(rows),
                                       rewriter.getIndexAttr(1)},
                              strides(2, rewriter.getIndexAttr(1));
    auto columnType = RankedTensorType::get({rows}, rewriter.getF32Type());
    Value column = tensor::ExtractSliceOp::create(rewriter, loc, columnType,
                                                  out, offsets, sizes, strides);
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    auto overRows = scf::ForOp::create(
        rewriter, loc, c(0), c(count), c(1), ValueRange{column},
        [&](OpBuilder &b, Location l, Value n, ValueRange sums) {
          Value row = rowIndex(b, l, tensor::ExtractOp::create(b, l, ids, n));
          Value term = toF32(
              b, l, tensor::ExtractOp::create(b, l, grad, ValueRange{n, d}));
          Value sum = arith::AddFOp::create(
              b, l, tensor::ExtractOp::create(b, l, sums[0], row), term);
          scf::YieldOp::create(
              b, l,
              ValueRange{tensor::InsertOp::create(b, l, sum, sums[0], row)
                             .getResult()});
        });
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, overRows.getResult(0),
                                          out, offsets, sizes, strides);
    rewriter.replaceOp(op, forall.getResults());
    return success();
  }

private:
  /// `value` collapsed to one dimension, or with `keepLast` to two keeping
  /// its last.
  static Value flatten(OpBuilder &b, Location loc, Value value, bool keepLast) {
    RankedTensorType type = tensorType(value);
    int64_t kept = keepLast ? 1 : 0;
    int64_t outer = type.getRank() - kept;
    if (outer == 1)
      return value;
    ReassociationIndices leading =
        llvm::to_vector(llvm::seq<int64_t>(0, outer));
    SmallVector<ReassociationIndices> reassociation = {leading};
    if (keepLast)
      reassociation.push_back({outer});
    return tensor::CollapseShapeOp::create(b, loc, value, reassociation);
  }
};

} // namespace

void mpt::detail::populateEmbeddingPatterns(RewritePatternSet &patterns) {
  patterns.add<EmbeddingLowering, EmbeddingGradLowering>(patterns.getContext());
}
