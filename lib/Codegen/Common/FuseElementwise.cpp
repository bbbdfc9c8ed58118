//===- FuseElementwise.cpp - mpt-fuse-elementwise ---------------*- C++ -*-===//
//
// Elementwise fusion that keeps the operands of
// mpt-convert-linalg-to-cpu-kernels intact: a matmul or convolution that became
// a linalg.generic would run as scalar loops, an order of magnitude slower than
// the BLAS kernel.
//
//===----------------------------------------------------------------------===//

#include "mpt/Codegen/Common/FoldSkippedStepSelects.h"
#include "mpt/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_MPTFUSEELEMENTWISE
#include "mpt/Codegen/Common/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Whether `op` is an elementwise generic of one input and one result: a
/// conversion, or an activation (relu, gelu, ...).
static bool isUnaryElementwise(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.getNumDpsInputs() == 1 &&
         generic.getNumDpsInits() == 1 &&
         generic.getNumParallelLoops() == generic.getNumLoops();
}

/// Whether `op` is a generic that only converts its one input
/// (arith.truncf/extf, element for element).
static bool isCast(Operation *op) {
  return isUnaryElementwise(op) &&
         llvm::all_of(
             cast<linalg::GenericOp>(op).getBlock()->without_terminator(),
             [](Operation &nested) {
               return isa<arith::TruncFOp, arith::ExtFOp>(nested);
             });
}

/// Whether `op` only rounds a matmul's product and is the product's only
/// reader: the lowering can then compute the rounding in the GEMM's kernel,
/// which writes the rounded product and holds the f32 one only a block at a
/// time (the CPU's `_to_<type>` kernels).
static bool isProductsOnlyRounding(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !isCast(generic))
    return false;
  Value product = generic.getDpsInputOperand(0)->get();
  return isa_and_nonnull<linalg::MatmulOp, linalg::BatchMatmulOp>(
             product.getDefiningOp()) &&
         product.hasOneUse();
}

/// Whether computing `producer` again in each of the generics that read it
/// moves fewer bytes than storing its result once and loading it in each:
/// (uses - 1) * input bytes <= (uses + 1) * result bytes per element, counting
/// the inputs read element for element (not broadcast scalars or vectors).
/// Its body must be a few cheap arith ops, and no input wider than its
/// result: a truncation to f16 read by several ops (an activation kept for
/// the backward pass) would keep its f32 source alive instead of its
/// half-size result. That includes the rounding of a matmul's product: the
/// CPU's GEMM kernels round a block of the product at a time, while the product
/// computed whole in f32 for readers to round would live until the last of
/// them (a pre-activation read in the forward and again in the backward).
/// Loss scaling's unscale is the case: its f32 result was written in full,
/// then read by the finite check and the update.
static bool isCheapToRecompute(Operation *producer) {
  constexpr int64_t kMaxBodyOps = 6;
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  // Each reader reads it once, element for element: read through several
  // maps (a pooling window's positions), it would be computed again per map.
  // Readers are elementwise or reduce to scalars (the finite check): fused
  // into partial reductions (batch norm's gradient sums per channel), it left
  // loops LLVM could not vectorize.
  for (OpOperand &use : producer->getUses()) {
    auto reader = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!reader || !reader.getMatchingIndexingMap(&use).isIdentity() ||
        llvm::count(reader->getOperands(), use.get()) != 1)
      return false;
    bool elementwise = reader.getNumParallelLoops() == reader.getNumLoops();
    bool toScalars = llvm::all_of(reader.getDpsInits(), [](Value init) {
      return cast<ShapedType>(init.getType()).getRank() == 0;
    });
    if (!elementwise && !toScalars)
      return false;
  }
  int64_t bodyOps = 0;
  for (Operation &op : generic.getBlock()->without_terminator()) {
    if (op.getDialect()->getNamespace() != "arith" ||
        isa<arith::DivFOp, arith::RemFOp, arith::DivSIOp, arith::DivUIOp,
            arith::RemSIOp, arith::RemUIOp>(op) ||
        ++bodyOps > kMaxBodyOps)
      return false;
  }
  auto bitWidth = [](Value value) -> int64_t {
    Type element = getElementTypeOrSelf(value);
    return element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : -1;
  };
  int64_t resultBits = bitWidth(generic->getResult(0));
  if (resultBits < 0)
    return false;
  int64_t inputBits = 0;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    if (map.getNumResults() != generic.getNumLoops() || !map.isPermutation())
      continue;
    int64_t bits = bitWidth(input->get());
    if (bits < 0 || bits > resultBits)
      return false;
    inputBits += bits;
  }
  int64_t uses = llvm::range_size(producer->getUses());
  return (uses - 1) * inputBits <= (uses + 1) * resultBits;
}

/// Whether `producer` only converts its one input, element for element, to a
/// result at least as wide (a rounding to f16 and back, a widening), and is
/// read only by generics: computed in each of them instead, it costs no
/// kernel and no extra bytes.
static bool isWideningConversion(Operation *producer) {
  if (!isCast(producer))
    return false;
  auto generic = cast<linalg::GenericOp>(producer);
  if (generic.getNumDpsInits() != 1 ||
      !generic.getMatchingIndexingMap(generic.getDpsInputOperand(0))
           .isIdentity() ||
      !llvm::all_of(producer->getUsers(), llvm::IsaPred<linalg::GenericOp>))
    return false;
  Type input = getElementTypeOrSelf(generic.getDpsInputOperand(0)->get());
  Type result = getElementTypeOrSelf(generic->getResult(0));
  return input.isIntOrFloat() && result.isIntOrFloat() &&
         input.getIntOrFloatBitWidth() <= result.getIntOrFloatBitWidth();
}

/// Upstream's rule (the producer has no other use, so nothing is computed
/// twice), except that named linalg ops take part in no fusion: both the
/// elementwise and the reshape patterns would turn them into generics.
static bool isFusable(OpOperand *fusedOperand) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  return llvm::none_of(
      std::initializer_list<Operation *>{producer, fusedOperand->getOwner()},
      [](Operation *op) {
        return isa<linalg::LinalgOp>(op) && !isa<linalg::GenericOp>(op);
      });
}

/// A unary elementwise generic (a conversion, an activation), whose input's
/// elementwise producer is read by other ops too, fused into that producer:
/// the fused op writes the producer's results and the unary op's, for the
/// producer's work, and replaces both ops. The unary op then runs as no loop
/// (on the GPU no kernel) of its own, reading the producer's result again: a
/// bias add and the relu or gelu after it, whose input the backward pass
/// keeps, are one kernel that writes both. Upstream's pattern replaces only
/// the consumer and would compute the producer again in it.
/// The fused op stands where the unary op did, so the producer's other
/// readers must come after it; with `moveReshapes`, a reshape of the
/// producer's result ahead of it moves after it.
struct FuseUnaryIntoSharedProducer : OpRewritePattern<linalg::GenericOp> {
  FuseUnaryIntoSharedProducer(MLIRContext *context, bool moveReshapes)
      : OpRewritePattern(context, /*benefit=*/2), moveReshapes(moveReshapes) {}

  LogicalResult matchAndRewrite(linalg::GenericOp unary,
                                PatternRewriter &rewriter) const override {
    if (!isUnaryElementwise(unary))
      return rewriter.notifyMatchFailure(unary, "not unary elementwise");
    OpOperand *input = unary.getDpsInputOperand(0);
    Operation *producer = input->get().getDefiningOp();
    // An op that writes into the producer's result (in place) reads it
    // twice; the fused op could not replace the producer.
    if (!producer || producer->hasOneUse() ||
        unary.getDpsInitOperand(0)->get().getDefiningOp() == producer ||
        !unary.getMatchingIndexingMap(input).isIdentity() ||
        !linalg::areElementwiseOpsFusable(input))
      return rewriter.notifyMatchFailure(unary,
                                         "no shared elementwise producer");
    Block *block = unary->getBlock();
    auto readsAtOrAfterUnary = [&](Operation *user) {
      Operation *reader = block->findAncestorOpInBlock(*user);
      return reader && (reader == unary || unary->isBeforeInBlock(reader));
    };
    // A reshape of the producer's result ahead of the unary op reads
    // nothing itself: it can move after it if its readers come after.
    SmallVector<Operation *> earlierReshapes;
    for (Operation *user : producer->getUsers()) {
      if (readsAtOrAfterUnary(user))
        continue;
      if (moveReshapes &&
          isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user) &&
          user->getBlock() == block &&
          llvm::all_of(user->getUsers(), readsAtOrAfterUnary)) {
        earlierReshapes.push_back(user);
        continue;
      }
      return rewriter.notifyMatchFailure(unary, "the producer is read earlier");
    }

    rewriter.setInsertionPoint(unary);
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, input);
    if (failed(fused))
      return failure();
    // They read the fused op's results from now on.
    for (Operation *reshape : earlierReshapes)
      rewriter.moveOpAfter(reshape, fused->fusedOp);
    for (auto [original, replacement] : fused->replacements)
      rewriter.replaceAllUsesWith(original, replacement);
    rewriter.eraseOp(unary);
    rewriter.eraseOp(producer);
    return success();
  }

private:
  bool moveReshapes;
};

struct MPTFuseElementwise
    : public mpt::impl::MPTFuseElementwiseBase<MPTFuseElementwise> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    if (fuseDataMovement) {
      SmallVector<linalg::LinalgOp> moves;
      getOperation().walk([&](Operation *op) {
        if (isa<linalg::TransposeOp, linalg::BroadcastOp>(op))
          moves.push_back(cast<linalg::LinalgOp>(op));
      });
      IRRewriter rewriter(context);
      for (linalg::LinalgOp op : moves) {
        rewriter.setInsertionPoint(op);
        // Each is a generic with a known body: this cannot fail.
        (void)linalg::generalizeNamedOp(rewriter, op);
      }
    }
    RewritePatternSet patterns(context);
    // A product's only rounding stays beside it: neither fused into its
    // readers nor expanded to a reshape of the product (which would hide the
    // product from it).
    auto keepsRounding = [this](OpOperand *fusedOperand) {
      Operation *producer = fusedOperand->get().getDefiningOp();
      return keepProductRounding && producer &&
             isProductsOnlyRounding(producer);
    };
    // Elementwise fusion alone may compute a producer again in each of its
    // readers (generics, which isCheapToRecompute checks).
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [this, keepsRounding](OpOperand *fusedOperand) {
          Operation *producer = fusedOperand->get().getDefiningOp();
          if (keepsRounding(fusedOperand))
            return false;
          return isFusable(fusedOperand) ||
                 (recomputeCheapProducers && producer &&
                  isCheapToRecompute(producer)) ||
                 (recomputeConversions && producer &&
                  isWideningConversion(producer));
        });
    // Ahead of upstream's fusion, which may recompute a cheap producer.
    patterns.add<FuseUnaryIntoSharedProducer>(
        context,
        /*moveReshapes=*/recomputeConversions);
    mpt::populateFoldSkippedStepSelectsPatterns(patterns);
    // A cast reading a reshape moves ahead of it (the cast is expanded to the
    // reshape's source), whatever else reads the reshape, to meet its
    // producer in FuseUnaryIntoSharedProducer.
    linalg::populateFoldReshapeOpsByExpansionPatterns(
        patterns, [this, keepsRounding](OpOperand *fusedOperand) {
          if (keepsRounding(fusedOperand))
            return false;
          return isFusable(fusedOperand) ||
                 (recomputeConversions &&
                  isa_and_nonnull<tensor::CollapseShapeOp>(
                      fusedOperand->get().getDefiningOp()) &&
                  isCast(fusedOperand->getOwner()));
        });
    linalg::populateConstantFoldLinalgOperations(patterns, isFusable);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    // Fusion is an optimization: stopping at the iteration limit of a large
    // graph leaves correct, only less fused, IR.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};
} // namespace
