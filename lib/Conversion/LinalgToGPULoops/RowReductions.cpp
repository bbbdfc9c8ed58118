//===- RowReductions.cpp - one GPU block per output -------------*- C++ -*-===//

#include "GPULoops.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mpt::gpuloops;
using gpu::Processor;

namespace {

/// Builds the kernels of a row reduction (lowerRowReduction), one output at
/// a time, each thread of a block folding a strided slice of the reduction.
class RowReductionBuilder : ReductionKernelBuilder {
public:
  RowReductionBuilder(OpBuilder &b, linalg::GenericOp op,
                      ArrayRef<int64_t> ranges, const IterationSpace &space,
                      ArrayRef<Reduction> reductions,
                      const AbsorbedOps &absorbed, int64_t threads,
                      int64_t split)
      : ReductionKernelBuilder(b, op, ranges, space, reductions, absorbed),
        threads(threads), split(split) {}

  /// One kernel (or two, when split) for output `i`:
  /// convert-parallel-loops-to-gpu maps one scf.reduce of one thread loop per
  /// block loop to gpu.all_reduce. The body's ops that output `i` does not
  /// need are dead in its fold loop and removed later.
  LogicalResult lowerOutput(unsigned i) {
    const Reduction &reduction = reductions[i];
    Type carrier = carrierType(reduction, space.length);
    if (!carrier)
      return op.emitOpError("reduces ")
             << reduction.neutral.getType() << " with "
             << reduction.combiner->getName()
             << ", which the GPU block reduction cannot exchange exactly "
                "(warp shuffles carry 32-bit values)";
    Value partialBuffer;
    if (split > 1)
      partialBuffer = foldParts(i, carrier);
    foldIntoOutput(i, carrier, partialBuffer);
    return success();
  }

private:
  Value neutralValue(OpBuilder &nb, const Reduction &reduction) {
    return arith::ConstantOp::create(nb, loc, reduction.neutral).getResult();
  }

  /// Folds the element at linear reduction index `r` of the output point
  /// `ivs` into `accumulators` of output `i`.
  SmallVector<Value> foldElement(unsigned i, OpBuilder &fb, ArrayRef<Value> ivs,
                                 Value r, ValueRange accumulators) {
    SmallVector<Value> pointIvs(ivs);
    delinearize(fb, loc, r, space.reductionDims, ranges, pointIvs);
    return combine(fb, reductions[i], accumulators,
                   elementsAt(fb, pointIvs)[i]);
  }

  /// The loop indices of the output point of the block loop `grid`.
  SmallVector<Value> outputPoint(scf::ParallelOp grid) {
    SmallVector<Value> ivs(ranges.size());
    delinearize(b, loc, grid.getInductionVars()[0], space.parallelDims, ranges,
                ivs);
    return ivs;
  }

  /// Pass 1 of a split reduction: block (point, part) folds elements
  /// part*threads + t, stepping by split*threads, into partial[point, part],
  /// the buffer returned.
  Value foldParts(unsigned i, Type carrier) {
    const Reduction &reduction = reductions[i];
    Value partialBuffer = memref::AllocOp::create(
        b, loc,
        MemRefType::get({space.points, split}, reduction.neutral.getType()));
    auto grid = scf::ParallelOp::create(b, loc, ValueRange{zero, zero},
                                        ValueRange{c(space.points), c(split)},
                                        ValueRange{one, one});
    mapLoop(b, grid, {Processor::BlockX, Processor::BlockY});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(grid.getBody());
    Value point = grid.getInductionVars()[0];
    Value part = grid.getInductionVars()[1];
    SmallVector<Value> ivs = outputPoint(grid);
    Value total = buildBlockReduction(
        b, loc, threads, reduction, carrier, [&](OpBuilder &nb, Value thread) {
          Value begin = arith::AddIOp::create(
              nb, loc, arith::MulIOp::create(nb, loc, part, c(threads)),
              thread);
          return buildStridedFold(
              nb, loc, begin, c(space.length), c(split * threads),
              neutralValue(nb, reduction),
              [&](OpBuilder &fb, Value r, ValueRange accumulators) {
                return foldElement(i, fb, ivs, r, accumulators);
              })[0];
        });
    memref::StoreOp::create(b, loc, total, partialBuffer,
                            ValueRange{point, part});
    return partialBuffer;
  }

  /// The final pass: block `point` folds the reduction (or, after a split,
  /// the partial values in `partialBuffer`), then the output's current
  /// value, into output i.
  void foldIntoOutput(unsigned i, Type carrier, Value partialBuffer) {
    const Reduction &reduction = reductions[i];
    OpOperand &output = op.getDpsInitsMutable()[i];
    auto grid = scf::ParallelOp::create(b, loc, zero, c(space.points), one);
    mapLoop(b, grid, Processor::BlockX);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(grid.getBody());
    Value point = grid.getInductionVars()[0];
    SmallVector<Value> ivs = outputPoint(grid);
    // Every thread reads the output before the reduction's barriers and
    // writes the same total after them.
    Value current = loadOutput(b, loc, op, output, ivs, absorbed);
    int64_t finalThreads =
        split > 1 ? std::min<int64_t>(threads, llvm::PowerOf2Ceil(split))
                  : threads;
    Value total = buildBlockReduction(
        b, loc, finalThreads, reduction, carrier,
        [&](OpBuilder &nb, Value thread) {
          if (split > 1)
            return buildStridedFold(
                nb, loc, thread, c(split), c(finalThreads),
                neutralValue(nb, reduction),
                [&](OpBuilder &fb, Value part, ValueRange accumulators) {
                  Value partial = memref::LoadOp::create(
                      fb, loc, partialBuffer, ValueRange{point, part});
                  return combine(fb, reduction, accumulators, partial,
                                 /*partials=*/true);
                })[0];
          return buildStridedFold(
              nb, loc, thread, c(space.length), c(threads),
              neutralValue(nb, reduction),
              [&](OpBuilder &fb, Value r, ValueRange accumulators) {
                return foldElement(i, fb, ivs, r, accumulators);
              })[0];
        });
    Value result = combine(b, reduction, current, total, /*partials=*/true)[0];
    storeOutput(b, loc, op, output, ivs, result, absorbed);
    if (partialBuffer) {
      b.setInsertionPointAfter(grid);
      memref::DeallocOp::create(b, loc, partialBuffer);
    }
  }

  int64_t threads, split;
};

} // namespace

namespace mpt::gpuloops {

LogicalResult lowerRowReduction(OpBuilder &b, linalg::GenericOp op,
                                ArrayRef<int64_t> ranges,
                                const IterationSpace &space,
                                const AbsorbedOps &absorbed, int64_t blockSize,
                                int64_t minBlocks) {
  FailureOr<SmallVector<Reduction>> reductions = matchReductionsOrReport(op);
  if (failed(reductions))
    return failure();
  int64_t points = space.points, length = space.length;
  int64_t threads = std::min<int64_t>(
      blockSize, llvm::PowerOf2Ceil(std::max<int64_t>(length, 32)));
  // Few outputs and a long reduction: spread each over `split` blocks so
  // that the grid fills the device, each thread still folding >= 8 elements.
  // Up to 16 * minBlocks blocks in all: about one full wave of 256-thread
  // blocks on an H200 (132 SMs, 8 such blocks each); fewer leave a reduction
  // short of loads in flight.
  int64_t split = 1;
  if (points < minBlocks)
    split = std::clamp<int64_t>(length / (8 * threads), 1,
                                llvm::divideCeil(16 * minBlocks, points));
  RowReductionBuilder builder(b, op, ranges, space, *reductions, absorbed,
                              threads, split);
  for (unsigned i = 0, e = reductions->size(); i < e; ++i)
    if (failed(builder.lowerOutput(i)))
      return failure();
  return success();
}

} // namespace mpt::gpuloops
