//===- ColumnReductions.cpp - one GPU thread per column ---------*- C++ -*-===//

#include "GPULoops.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace mpt::gpuloops {

bool isColumnReduction(linalg::GenericOp op,
                       ArrayRef<utils::IteratorType> iterators) {
  if (iterators.empty() || iterators.back() != utils::IteratorType::parallel)
    return false;
  unsigned innermost = iterators.size() - 1;
  Block *body = op.getBody();
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (body->getArgument(input->getOperandNumber()).use_empty())
      continue;
    auto type = dyn_cast<MemRefType>(input->get().getType());
    if (!type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(input);
    bool readsInnermost =
        map.getNumResults() > 0 &&
        map.getResults().back() == getAffineDimExpr(innermost, op.getContext());
    int64_t uses = llvm::count_if(map.getResults(), [&](AffineExpr result) {
      return result.isFunctionOfDim(innermost);
    });
    if (uses == 0)
      continue; // the same element for a whole warp: a broadcast
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!readsInnermost || uses != 1 ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return false;
  }
  return true;
}

namespace {

/// Builds the kernels of a column reduction (lowerColumnReduction): a thread
/// per output folds all outputs of `op` at once.
class ColumnReductionBuilder : ReductionKernelBuilder {
public:
  ColumnReductionBuilder(OpBuilder &b, linalg::GenericOp op,
                         ArrayRef<int64_t> ranges, const IterationSpace &space,
                         ArrayRef<Reduction> reductions,
                         const AbsorbedOps &absorbed, int64_t blockSize,
                         int64_t minBlocks)
      : ReductionKernelBuilder(b, op, ranges, space, reductions, absorbed) {
    constexpr int64_t kMinPartLength = 32;
    threads = std::min(blockSize, space.points);
    blocks = llvm::divideCeil(space.points, threads);
    // As lowerReduction: up to about one wave of blocks (16 * minBlocks).
    split = std::clamp<int64_t>(space.length / kMinPartLength, 1,
                                llvm::divideCeil(16 * minBlocks, blocks));
    partLength = llvm::divideCeil(space.length, split);
    split = llvm::divideCeil(space.length, partLength);
  }

  void build() {
    SmallVector<Value> partials;
    if (split > 1)
      partials = foldParts();
    foldIntoOutputs(partials);
    for (Value partial : partials)
      memref::DeallocOp::create(b, loc, partial);
  }

private:
  /// Folds the rows [begin, end) at the output point `ivs` into
  /// `accumulators`, four independent loads in flight per iteration.
  SmallVector<Value> foldRows(OpBuilder &nb, ArrayRef<Value> ivs, Value begin,
                              Value end, ValueRange accumulators) {
    return buildStridedFold(
        nb, loc, begin, end, one, accumulators,
        [&](OpBuilder &fb, Value r, ValueRange folded) {
          SmallVector<Value> pointIvs(ivs);
          delinearize(fb, loc, r, space.reductionDims, ranges, pointIvs);
          return combine(fb, reductions, folded, elementsAt(fb, pointIvs));
        });
  }

  /// Builds a thread per output (and `parts` over block_y) and calls
  /// `perOutput` in the guarded body with the output's loop indices, its
  /// linear index and the part.
  void
  forEachOutput(int64_t parts,
                function_ref<void(OpBuilder &, ArrayRef<Value>, Value, Value)>
                    perOutput) {
    OpBuilder::InsertionGuard guard(b);
    auto [point, part] =
        buildGuardedThreads(b, loc, blocks, parts, threads, space.points);
    SmallVector<Value> ivs(ranges.size());
    delinearize(b, loc, point, space.parallelDims, ranges, ivs);
    perOutput(b, ivs, point, part);
  }

  /// The first kernel of a split reduction: each part from the neutral
  /// elements into a [split x outputs] buffer per reduction, returned.
  SmallVector<Value> foldParts() {
    SmallVector<Value> partials;
    for (const Reduction &reduction : reductions)
      partials.push_back(memref::AllocOp::create(
          b, loc,
          MemRefType::get({split, space.points}, reduction.neutral.getType())));
    forEachOutput(split, [&](OpBuilder &nb, ArrayRef<Value> ivs, Value point,
                             Value part) {
      Value begin = arith::MulIOp::create(nb, loc, part, c(partLength));
      Value end = arith::MinSIOp::create(
          nb, loc, arith::AddIOp::create(nb, loc, begin, c(partLength)),
          c(space.length));
      SmallVector<Value> neutrals;
      for (const Reduction &reduction : reductions)
        neutrals.push_back(
            arith::ConstantOp::create(nb, loc, reduction.neutral));
      for (auto [partial, folded] :
           llvm::zip(partials, foldRows(nb, ivs, begin, end, neutrals)))
        memref::StoreOp::create(nb, loc, folded, partial,
                                ValueRange{part, point});
    });
    return partials;
  }

  /// The final kernel: each output folds its rows, or the `partials` in
  /// order, into its current value.
  void foldIntoOutputs(ArrayRef<Value> partials) {
    forEachOutput(1, [&](OpBuilder &nb, ArrayRef<Value> ivs, Value point,
                         Value) {
      SmallVector<Value> current;
      for (OpOperand &init : op.getDpsInitsMutable())
        current.push_back(loadOutput(nb, loc, op, init, ivs, absorbed));
      SmallVector<Value> totals;
      if (partials.empty()) {
        totals = foldRows(nb, ivs, zero, c(space.length), current);
      } else {
        auto loop = scf::ForOp::create(
            nb, loc, zero, c(split), one, current,
            [&](OpBuilder &fb, Location, Value part, ValueRange accumulators) {
              SmallVector<Value> parts =
                  llvm::map_to_vector(partials, [&](Value partial) -> Value {
                    return memref::LoadOp::create(fb, loc, partial,
                                                  ValueRange{part, point});
                  });
              scf::YieldOp::create(fb, loc,
                                   combine(fb, reductions, accumulators, parts,
                                           /*partials=*/true));
            });
        totals = SmallVector<Value>(loop.getResults());
      }
      for (auto [init, total] : llvm::zip(op.getDpsInitsMutable(), totals))
        storeOutput(nb, loc, op, init, ivs, total, absorbed);
    });
  }

  int64_t threads, blocks, split, partLength;
};

} // namespace

LogicalResult lowerColumnReduction(OpBuilder &b, linalg::GenericOp op,
                                   ArrayRef<int64_t> ranges,
                                   const IterationSpace &space,
                                   const AbsorbedOps &absorbed,
                                   int64_t blockSize, int64_t minBlocks) {
  FailureOr<SmallVector<Reduction>> reductions = matchReductionsOrReport(op);
  if (failed(reductions))
    return failure();
  ColumnReductionBuilder(b, op, ranges, space, *reductions, absorbed, blockSize,
                         minBlocks)
      .build();
  return success();
}

} // namespace mpt::gpuloops
