//===- Collectives.cpp - all-reduce buckets as flat tensors ---------------===//
//
// mpt.all_reduce stays an mpt op through mpt-convert-to-linalg: it is no
// computation, and bufferization turns it into a call of the runtime
// (lib/Dialect/MPT/Transforms/BufferizableOpInterfaceImpl.cpp). What changes
// here is its shape: a bucket of tensors becomes one 1-d tensor per element
// type, so each bucket costs one collective per type, as DDP's flat buckets
// do, and the runtime's entry points see only contiguous vectors.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

using namespace mlir;
using namespace mpt;

namespace {

/// `value` as a vector of its elements: a free reshape.
Value flatten(OpBuilder &builder, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == 1)
    return value;
  auto flat =
      RankedTensorType::get({type.getNumElements()}, type.getElementType());
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(builder, loc, flat, value,
                                         ArrayRef<ReassociationIndices>{});
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return tensor::CollapseShapeOp::create(builder, loc, flat, value,
                                         ArrayRef<ReassociationIndices>{all});
}

/// `flat`, a vector, in the shape of `type`.
Value unflatten(OpBuilder &builder, Location loc, Value flat,
                RankedTensorType type) {
  if (type.getRank() == 1)
    return flat;
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(builder, loc, type, flat,
                                           ArrayRef<ReassociationIndices>{});
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return tensor::ExpandShapeOp::create(builder, loc, type, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

/// One offset, size or stride of a slice of a vector.
SmallVector<OpFoldResult> index(OpBuilder &builder, int64_t value) {
  return {builder.getIndexAttr(value)};
}

int64_t numElements(Value tensor) {
  return cast<RankedTensorType>(tensor.getType()).getNumElements();
}

/// `flats`, vectors of one element type, one after the other in one vector
/// (copied, unless there is only one), with the offset of each.
Value pack(OpBuilder &builder, Location loc, ArrayRef<Value> flats,
           SmallVectorImpl<int64_t> &offsets) {
  int64_t total = 0;
  for (Value flat : flats) {
    offsets.push_back(total);
    total += numElements(flat);
  }
  if (flats.size() == 1)
    return flats.front();
  Value packed = tensor::EmptyOp::create(builder, loc, {total},
                                         getElementTypeOrSelf(flats.front()));
  for (auto [flat, offset] : llvm::zip_equal(flats, offsets))
    packed = tensor::InsertSliceOp::create(
        builder, loc, flat, packed, index(builder, offset),
        index(builder, numElements(flat)), index(builder, 1));
  return packed;
}

/// Packs each element type's tensors of a bucket into one vector, reduces
/// it, and unpacks the results.
struct FlattenAllReduceBucket : OpConversionPattern<AllReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AllReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    llvm::MapVector<Type, SmallVector<unsigned>> byType;
    for (auto [i, input] : llvm::enumerate(adaptor.getInputs()))
      byType[getElementTypeOrSelf(input)].push_back(i);

    SmallVector<Value> results(op.getNumResults());
    for (auto &[elementType, indices] : byType) {
      SmallVector<Value> flats = llvm::map_to_vector(indices, [&](unsigned i) {
        return flatten(rewriter, loc, adaptor.getInputs()[i]);
      });
      SmallVector<int64_t> offsets;
      Value packed = pack(rewriter, loc, flats, offsets);
      Value reduced =
          AllReduceOp::create(rewriter, loc, packed, op.getKind()).getResult(0);
      for (auto [i, flat, offset] : llvm::zip_equal(indices, flats, offsets)) {
        Value slice = reduced;
        if (flats.size() > 1)
          slice = tensor::ExtractSliceOp::create(
              rewriter, loc, cast<RankedTensorType>(flat.getType()), reduced,
              index(rewriter, offset), index(rewriter, numElements(flat)),
              index(rewriter, 1));
        results[i] =
            unflatten(rewriter, loc, slice,
                      cast<RankedTensorType>(op.getResult(i).getType()));
      }
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

bool mpt::detail::isFlatBucket(AllReduceOp op) {
  return op.getInputs().size() == 1 &&
         cast<RankedTensorType>(op.getInputs().front().getType()).getRank() ==
             1;
}

void mpt::detail::populateCollectivePatterns(RewritePatternSet &patterns) {
  patterns.add<FlattenAllReduceBucket>(patterns.getContext());
}
