//===- LinalgToVectorizableLoops.cpp - loops LLVM is told to vectorize ---===//
//
// LLVM's cost model keeps loops scalar that pay when vectorized on the CPUs
// mpt targets: f16/bf16 loops on x86 without AVX512-FP16 (priced as if
// scalarized, although they lower to vector conversions and f32 vector
// arithmetic) and the short rows of pooling windows (fully unrolled first,
// or vectorized with gathers), and the rows of innermost reductions (unrolled,
// and the loop around them vectorized with gathers). Marking the loop
// overrides it.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_MPTCONVERTLINALGTOVECTORIZABLELOOPS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Inner loops of at most this many iterations in all (a pooling window's
/// positions) are left for LLVM to unroll fully; the loop around them is the
/// one to vectorize.
constexpr int64_t kUnrolledIterations = 4;

/// The loop dimension `dim` appears in at most one index of the operand, and
/// every index after it is a constant or depends only on the unrolled inner
/// loops (dimensions after `dim`): consecutive iterations of `dim` are a
/// constant stride apart (1, or the trailing dimensions' size), which LLVM
/// vectorizes as contiguous or interleaved accesses, not gathers.
bool hasConstantStride(AffineMap map, unsigned dim) {
  std::optional<unsigned> position;
  for (auto [index, result] : llvm::enumerate(map.getResults())) {
    if (!result.isFunctionOfDim(dim))
      continue;
    if (position)
      return false;
    position = index;
  }
  if (!position)
    return true;
  return llvm::all_of(map.getResults().drop_front(*position + 1),
                      [&](AffineExpr result) {
                        for (unsigned outer = 0; outer <= dim; ++outer)
                          if (result.isFunctionOfDim(outer))
                            return false;
                        return true;
                      });
}

/// The loop to mark: the innermost one outside a nest of at most
/// kUnrolledIterations static iterations, if it and the loops inside it are
/// parallel, it walks every operand at a constant stride and some operand is
/// a float.
std::optional<unsigned> vectorDimension(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned dim = op.getNumLoops() - 1;
  for (int64_t inner = 1; dim > 0 && !ShapedType::isDynamic(ranges[dim]) &&
                          inner * ranges[dim] <= kUnrolledIterations;
       --dim)
    inner *= ranges[dim];
  for (unsigned loop = dim; loop < op.getNumLoops(); ++loop)
    if (!linalg::isParallelIterator(iterators[loop]))
      return std::nullopt;
  bool touchesFloats = false;
  for (OpOperand &operand : op->getOpOperands()) {
    touchesFloats |= isa<FloatType>(getElementTypeOrSelf(operand.get()));
    if (!hasConstantStride(op.getMatchingIndexingMap(&operand), dim))
      return std::nullopt;
  }
  if (!touchesFloats)
    return std::nullopt;
  return dim;
}

/// Collapses the trailing loops of an all-parallel generic into one where every
/// operand indexes them by dimensions alone, as one contiguous run (or not at
/// all), and linalg.index reads none of them. A batch norm fused with the 2x2
/// pooling after it iterates [N, C, 14, 2, 14, 2]: vectorized along the 14
/// with the 2 unrolled, it needs interleaved accesses (in f16, shuffles of
/// 16-bit lanes around each conversion), where its 28 x 28 image collapsed is
/// one contiguous row. On a Zen 5, one thread, that took the CNN's f16 step
/// from 4.3-4.5 ms to 4.1 (FP32 3.7).
void collapseContiguousTrailingLoops(RewriterBase &rewriter,
                                     linalg::GenericOp op) {
  const unsigned loops = op.getNumLoops();
  if (!op.hasPureBufferSemantics() || loops < 2 ||
      !llvm::all_of(op.getIteratorTypesArray(), linalg::isParallelIterator))
    return;
  llvm::SmallBitVector indexed(loops);
  op.getBlock()->walk(
      [&](linalg::IndexOp index) { indexed.set(index.getDim()); });
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto collapsible = [&](unsigned first) {
    ReassociationIndices group =
        llvm::to_vector(llvm::seq<int64_t>(first, loops));
    for (OpOperand &operand : op->getOpOperands()) {
      // Indices with constants (a pooling window's position) keep their
      // loops: collapsing reshapes operands by their dimension expressions.
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (!map.isProjectedPermutation() ||
          !linalg::isDimSequencePreserved(map, group))
        return false;
      std::optional<unsigned> position =
          map.getResultPosition(getAffineDimExpr(first, op.getContext()));
      if (!position)
        continue;
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type)
        return false;
      SmallVector<ReassociationIndices> reassociation;
      for (int64_t dim = 0; dim < type.getRank(); ++dim) {
        if (dim > static_cast<int64_t>(*position) &&
            dim < static_cast<int64_t>(*position + group.size()))
          reassociation.back().push_back(dim);
        else
          reassociation.push_back({dim});
      }
      if (!memref::CollapseShapeOp::isGuaranteedCollapsible(type,
                                                            reassociation))
        return false;
    }
    return true;
  };
  auto fixed = [&](unsigned dim) {
    return !indexed[dim] && !ShapedType::isDynamic(ranges[dim]);
  };
  if (!fixed(loops - 1))
    return;
  unsigned first = loops - 1;
  while (first > 0 && fixed(first - 1) && collapsible(first - 1))
    --first;
  if (first == loops - 1)
    return;
  rewriter.setInsertionPoint(op);
  SmallVector<ReassociationIndices> folded = {
      llvm::to_vector(llvm::seq<int64_t>(first, loops))};
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, folded, rewriter);
  if (succeeded(collapsed))
    rewriter.replaceOp(op, collapsed->results);
}

/// The combiners of an innermost reduction over contiguous elements (softmax's
/// and layer norm's rows), if it has more than kUnrolledIterations static
/// iterations and each of its results is one add, max or min of the
/// accumulator that nothing else in the body reads (a running sum read by
/// another result would change with the order). Left scalar, LLVM unrolls such
/// a row and vectorizes the loop around it with a gather per element;
/// vectorized, each sum accumulates in vector-width partial sums added by a
/// tree at the end (DESIGN 3.6), and max and min are exact in any order.
std::optional<SmallVector<Operation *>>
innerReductionCombiners(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0)
    return std::nullopt;
  unsigned dim = op.getNumLoops() - 1;
  int64_t range = op.getStaticLoopRanges()[dim];
  if (!linalg::isReductionIterator(op.getIteratorTypesArray()[dim]) ||
      ShapedType::isDynamic(range) || range <= kUnrolledIterations)
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [index, result] : llvm::enumerate(map.getResults()))
      if (result.isFunctionOfDim(dim) &&
          (index + 1 != map.getNumResults() ||
           result != getAffineDimExpr(dim, op.getContext())))
        return std::nullopt;
  }
  SmallVector<Operation *> combiners;
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument accumulator = op.getMatchingBlockArgument(&init);
    Value yielded =
        yield.getOperand(init.getOperandNumber() - op.getNumDpsInputs());
    Operation *combiner = yielded.getDefiningOp();
    if (!accumulator.hasOneUse() || !combiner || !yielded.hasOneUse() ||
        accumulator.getUses().begin()->getOwner() != combiner ||
        !isa<arith::AddFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp>(combiner))
      return std::nullopt;
    combiners.push_back(combiner);
  }
  return combiners;
}

/// Unpredicated, the last `tripCount % width` iterations of a vectorized loop
/// run scalar: most of the short rows of pooling and normalization (7, 14 and
/// 28 wide for 8 lanes), and in f16 or bf16 each scalar element costs its
/// conversions as well. Splits the loop into consecutive loops of halving
/// widths, each running a multiple of its width (14 is 8 + 4 + 2), so that
/// at most one iteration stays scalar, and marks each with
/// `annotationFor(width)`. Loops other than 0 to a constant, step 1, are
/// marked whole.
void markInPieces(
    RewriterBase &rewriter, scf::ForOp loop, unsigned width,
    function_ref<LLVM::LoopAnnotationAttr(unsigned)> annotationFor) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || *lower != 0 || !upper || !step || *step != 1) {
    loop->setAttr("loop_annotation", annotationFor(width));
    return;
  }
  Location loc = loop.getLoc();
  scf::ForOp piece = loop;
  int64_t begin = 0;
  for (unsigned pieceWidth = width; begin < *upper; pieceWidth /= 2) {
    int64_t end = pieceWidth <= 1
                      ? *upper
                      : begin + (*upper - begin) / pieceWidth * pieceWidth;
    if (end == begin)
      continue;
    if (begin != 0) {
      rewriter.setInsertionPointAfter(piece);
      piece = cast<scf::ForOp>(rewriter.clone(*loop));
      piece.setLowerBound(arith::ConstantIndexOp::create(rewriter, loc, begin));
    }
    rewriter.setInsertionPoint(piece);
    piece.setUpperBound(arith::ConstantIndexOp::create(rewriter, loc, end));
    if (pieceWidth > 1)
      piece->setAttr("loop_annotation", annotationFor(pieceWidth));
    else
      piece->removeAttr("loop_annotation");
    begin = end;
  }
}

struct MPTConvertLinalgToVectorizableLoops
    : public mpt::impl::MPTConvertLinalgToVectorizableLoopsBase<
          MPTConvertLinalgToVectorizableLoops> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    auto annotationFor = [&](unsigned width) {
      auto vectorize = LLVM::LoopVectorizeAttr::get(
          context, /*disable=*/BoolAttr::get(context, false),
          /*predicateEnable=*/BoolAttr::get(context, predicate),
          /*scalableEnable=*/{},
          IntegerAttr::get(IntegerType::get(context, 32), width),
          /*followupVectorized=*/{}, /*followupEpilogue=*/{},
          /*followupAll=*/{});
      return LLVM::LoopAnnotationAttr::get(
          context, /*disableNonforced=*/{}, vectorize, /*interleave=*/{},
          /*unroll=*/
          LLVM::LoopUnrollAttr::get(context, BoolAttr::get(context, true), {},
                                    {}, {}, {}, {}, {}),
          /*unrollAndJam=*/{}, /*licm=*/{}, /*distribute=*/{},
          /*pipeline=*/{}, /*peeled=*/{}, /*unswitch=*/{}, /*mustProgress=*/{},
          /*isVectorized=*/{}, /*startLoc=*/{}, /*endLoc=*/{},
          /*parallelAccesses=*/{});
    };
    // Unpredicated, a loop shorter than a vector has no vector iteration:
    // LLVM warns that it could not do the forced transformation.
    auto shorterThanAVector = [&](linalg::LinalgOp op, unsigned dim) {
      int64_t range = op.getStaticLoopRanges()[dim];
      return !predicate && !ShapedType::isDynamic(range) &&
             range < static_cast<int64_t>(vectorWidth);
    };
    IRRewriter rewriter(context);
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics)
      collapseContiguousTrailingLoops(rewriter, op);
    SmallVector<std::tuple<linalg::LinalgOp, unsigned, bool>> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (std::optional<unsigned> dim = vectorDimension(op)) {
        ops.emplace_back(op, *dim, /*reduction=*/false);
        return;
      }
      std::optional<SmallVector<Operation *>> combiners =
          innerReductionCombiners(op);
      if (!combiners || shorterThanAVector(op, op.getNumLoops() - 1))
        return;
      // Lets LLVM split each sum into partial sums.
      for (Operation *combiner : *combiners)
        if (auto add = dyn_cast<arith::AddFOp>(combiner))
          add.setFastmath(add.getFastmath() | arith::FastMathFlags::reassoc);
      ops.emplace_back(op, op.getNumLoops() - 1, /*reduction=*/true);
    });
    for (auto [op, dim, reduction] : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops))
        continue;
      bool complete = loops->size() == op.getNumLoops();
      rewriter.eraseOp(op);
      if (!complete)
        continue;
      auto loop = cast<scf::ForOp>((*loops)[dim]);
      // Split reductions would sum in a different order than whole ones.
      if (predicate || reduction)
        loop->setAttr("loop_annotation", annotationFor(vectorWidth));
      else
        markInPieces(rewriter, loop, vectorWidth, annotationFor);
    }
    // The loops index through identity affine.apply ops, which
    // convert-linalg-to-loops folds away too.
    RewritePatternSet patterns(context);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};
} // namespace
