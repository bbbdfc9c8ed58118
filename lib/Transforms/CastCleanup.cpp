//===- CastCleanup.cpp - mpt-cast-cleanup -----------------------*- C++ -*-===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "Utils.h"

namespace mpt {
#define GEN_PASS_DEF_MPTCASTCLEANUP
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
/// truncf(extf(x)) -> x when x has the result type: widening is exact, so
/// narrowing back returns x bit for bit.
struct FoldTruncOfExt : public OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp trunc,
                                PatternRewriter &rewriter) const override {
    auto ext = trunc.getIn().getDefiningOp<arith::ExtFOp>();
    if (!ext || ext.getIn().getType() != trunc.getType())
      return rewriter.notifyMatchFailure(trunc, "not a widen-narrow pair");
    rewriter.replaceOp(trunc, ext.getIn());
    return success();
  }
};

/// extf(extf(x)) -> extf(x): both widenings are exact.
struct FoldExtOfExt : public OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp ext,
                                PatternRewriter &rewriter) const override {
    auto inner = ext.getIn().getDefiningOp<arith::ExtFOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(ext, "operand is not a widening");
    rewriter.replaceOpWithNewOp<arith::ExtFOp>(ext, ext.getType(),
                                               inner.getIn());
    return success();
  }
};

struct CastCleanup : public mpt::impl::MPTCastCleanupBase<CastCleanup> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void mpt::populateCastCleanupPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldTruncOfExt, FoldExtOfExt>(patterns.getContext());
}

void CastCleanup::runOnOperation() {
  func::FuncOp function = getOperation();
  RewritePatternSet patterns(&getContext());
  populateCastCleanupPatterns(patterns);
  // Only the cast patterns: folding would also hoist and merge unrelated
  // constants, which is canonicalization's business, not this pass's.
  GreedyRewriteConfig config;
  config.enableFolding(false)
      .enableConstantCSE(false)
      .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  if (failed(applyPatternsGreedily(function, std::move(patterns), config)))
    return signalPassFailure();

  // Hoist each cast next to its source, behind the casts already there (so
  // that running the pass again moves nothing), then keep one cast per source
  // and type: the first in the block, which now dominates every reader.
  auto isCast = [](Operation *op) {
    return isa<arith::ExtFOp, arith::TruncFOp>(op);
  };
  SmallVector<Operation *> casts;
  function.walk([&](Operation *op) {
    if (isCast(op))
      casts.push_back(op);
  });
  for (Operation *cast : casts) {
    Value source = cast->getOperand(0);
    Block *block = cast->getBlock();
    auto arg = dyn_cast<BlockArgument>(source);
    if (arg ? arg.getOwner() != block
            : source.getDefiningOp()->getBlock() != block)
      continue;
    // Casts that already sit at the hoisting point: entry casts of arguments,
    // or casts of the same value right after its definition.
    auto belongsToRun = [&](Operation *op) {
      if (!isCast(op))
        return false;
      auto opArg = dyn_cast<BlockArgument>(op->getOperand(0));
      return arg ? opArg && opArg.getOwner() == block
                 : op->getOperand(0) == source;
    };
    Operation *runEnd = nullptr;
    Operation *next = arg ? &block->front() : source.getDefiningOp();
    if (!arg) {
      runEnd = next;
      next = next->getNextNode();
    }
    bool inRun = false;
    for (; next && belongsToRun(next); next = next->getNextNode()) {
      if (next == cast) {
        inRun = true;
        break;
      }
      runEnd = next;
    }
    if (inRun)
      continue;
    if (runEnd)
      cast->moveAfter(runEnd);
    else
      cast->moveBefore(block, block->begin());
  }
  // Casts with different rounding modes or fast-math flags are different.
  DenseMap<std::tuple<Value, Type, OperationName, Attribute>, Operation *>
      firstCast;
  function.walk([&](Operation *op) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(op))
      return;
    auto key = std::make_tuple(op->getOperand(0), op->getResult(0).getType(),
                               op->getName(), op->getPropertiesAsAttribute());
    auto [it, inserted] = firstCast.try_emplace(key, op);
    if (!inserted && it->second->getBlock() == op->getBlock() &&
        it->second->isBeforeInBlock(op)) {
      op->getResult(0).replaceAllUsesWith(it->second->getResult(0));
      op->erase();
    }
  });
  eraseDeadCasts(function);
}
