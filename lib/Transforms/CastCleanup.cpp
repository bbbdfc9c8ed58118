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

bool isCast(Operation *op) { return isa<arith::ExtFOp, arith::TruncFOp>(op); }

/// The runs of casts that sit where hoisting puts casts: right after the op
/// whose results they convert, or at the start of the block for its
/// arguments. The casts of all results of one op (a loop's) form one run, as
/// those of all arguments do, so that a cast of one result does not move in
/// front of a cast of another, and back on the next run. Scanning a
/// run for every cast costs the square of its length (a block's argument casts
/// form one run as long as the parameter list), so runs are kept between casts
/// and rescanned only when a move may have changed them.
class CastRuns {
public:
  struct Run {
    llvm::SmallPtrSet<Operation *, 4> members;
    /// The last member; the source's definition or null (the block's start)
    /// while there is none.
    Operation *end = nullptr;
  };

  /// The run that `cast` belongs to when it is hoisted: that of its block for
  /// an argument of its block, that of its source's op when that is in its
  /// block; null otherwise (the cast stays where it is).
  static const void *getKey(Operation *cast) {
    Value source = cast->getOperand(0);
    Block *block = cast->getBlock();
    if (auto arg = dyn_cast<BlockArgument>(source))
      return arg.getOwner() == block ? block : nullptr;
    Operation *producer = source.getDefiningOp();
    return producer->getBlock() == block ? producer : nullptr;
  }

  /// The current run of `key`, which `cast` has.
  Run &get(const void *key, Operation *cast) {
    auto [it, inserted] = runs.try_emplace(key);
    Run &run = it->second;
    if (!inserted)
      return run;
    Value source = cast->getOperand(0);
    Operation *next;
    if (isa<BlockArgument>(source)) {
      next = &cast->getBlock()->front();
    } else {
      run.end = source.getDefiningOp();
      next = run.end->getNextNode();
    }
    for (; next && isCast(next) && getKeyIfCast(next) == key;
         next = next->getNextNode()) {
      run.members.insert(next);
      run.end = next;
    }
    return run;
  }

  /// Moves `cast`, not in its run, to the end of it.
  void moveToEnd(const void *key, Operation *cast) {
    // Leaving: the run ending before `cast` may now reach further, and the
    // run of casts of `cast` itself no longer follows it.
    if (Operation *previous = cast->getPrevNode())
      forgetIfEndsAt(previous);
    else
      forgetIfEndsAt(cast->getBlock(), nullptr);
    forgetResultRuns(cast);

    assert(runs.count(key) && "a run never ends right before a cast it lacks");
    Operation *after = runs.find(key)->second.end;
    if (after) {
      cast->moveAfter(after);
      // Arriving: a run that `after` is inside (the source's own run, when
      // the source is a cast) is cut at it, and casts of the results of
      // `after`, other than the run being extended, no longer follow it.
      if (const void *afterKey = getKeyIfCast(after); afterKey != key)
        if (auto it = runs.find(afterKey);
            it != runs.end() && it->second.end != after)
          runs.erase(it);
      forgetResultRuns(after, /*except=*/key);
    } else {
      cast->moveBefore(cast->getBlock(), cast->getBlock()->begin());
    }
    // Erasing leaves the other entries where they are.
    Run &run = runs.find(key)->second;
    run.members.insert(cast);
    run.end = cast;
  }

private:
  static const void *getKeyIfCast(Operation *op) {
    return isCast(op) ? getKey(op) : nullptr;
  }

  void forgetIfEndsAt(const void *key, Operation *end) {
    if (!key)
      return;
    if (auto it = runs.find(key); it != runs.end() && it->second.end == end)
      runs.erase(it);
  }

  void forgetIfEndsAt(Operation *end) {
    forgetIfEndsAt(getKeyIfCast(end), end);
    forgetIfEndsAt(static_cast<const void *>(end), end);
  }

  void forgetResultRuns(Operation *op, const void *except = nullptr) {
    if (op != except)
      runs.erase(op);
  }

  DenseMap<const void *, Run> runs;
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
  SmallVector<Operation *> casts;
  function.walk([&](Operation *op) {
    if (isCast(op))
      casts.push_back(op);
  });
  CastRuns runs;
  for (Operation *cast : casts) {
    const void *key = CastRuns::getKey(cast);
    if (!key)
      continue;
    CastRuns::Run &run = runs.get(key, cast);
    if (!run.members.contains(cast))
      runs.moveToEnd(key, cast);
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
