//===- FoldSkippedStepSelects.cpp - selects into updates --------*- C++ -*-===//
//
// mpt-loss-scaling keeps every piece of state on a skipped step with
// `arith.select %finite, %updated, %old` on whole tensors, which
// convert-elementwise-to-linalg turns into one generic per tensor reading a
// scalar i1. An optimizer's update is one generic with a result per updated
// tensor (parameter, momentum, Adam's moments), each read only by its select.
// Upstream's elementwise fusion does not take a producer with several users,
// and fusing it into each select would compute the update once per result:
// this pattern folds all of its selects into it at once. The update then
// writes the new or the old value in one pass, as DESIGN.md asks of the update
// phase, instead of writing the update and copying one of the two.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/LinalgToCPUKernels/FoldSkippedStepSelects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {

/// A generic that only selects between two tensors by a scalar condition, as
/// convert-elementwise-to-linalg writes a tensor arith.select.
struct TensorSelect {
  linalg::GenericOp op;
  Value condition;   // the scalar i1
  OpOperand *chosen; // taken when the condition holds
  OpOperand *kept;   // taken otherwise
};

std::optional<TensorSelect> matchTensorSelect(Operation *user) {
  auto generic = dyn_cast<linalg::GenericOp>(user);
  if (!generic || generic.getNumDpsInputs() != 3 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return std::nullopt;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto select = yield.getOperand(0).getDefiningOp<arith::SelectOp>();
  if (!select || &body.front() != select.getOperation() ||
      select.getCondition() != body.getArgument(0) ||
      select.getTrueValue() != body.getArgument(1) ||
      select.getFalseValue() != body.getArgument(2))
    return std::nullopt;
  OpOperand *condition = generic.getDpsInputOperand(0);
  if (!condition->get().getType().isInteger(1))
    return std::nullopt;
  return TensorSelect{generic, condition->get(), generic.getDpsInputOperand(1),
                      generic.getDpsInputOperand(2)};
}

struct FoldSkippedStepSelects : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp update,
                                PatternRewriter &rewriter) const override {
    if (update.getNumResults() == 0 ||
        update.getNumParallelLoops() != update.getNumLoops())
      return failure();
    // The update's outputs are only written: its inits become plain outputs
    // of the folded op.
    for (OpOperand &init : update.getDpsInitsMutable())
      if (update.payloadUsesValueFromOperand(&init))
        return rewriter.notifyMatchFailure(update, "reads its outputs");

    SmallVector<TensorSelect> selects;
    for (OpResult result : update->getResults()) {
      if (!result.hasOneUse())
        return failure();
      std::optional<TensorSelect> select =
          matchTensorSelect(*result.getUsers().begin());
      if (!select || select->chosen->get() != result ||
          (!selects.empty() && select->condition != selects[0].condition))
        return failure();
      // The select must read both tensors at the update's own positions.
      AffineMap resultMap = update.getIndexingMapMatchingResult(result);
      if (select->op.getMatchingIndexingMap(select->chosen) != resultMap ||
          select->op.getMatchingIndexingMap(select->kept) != resultMap ||
          select->op.getIndexingMapMatchingResult(select->op->getResult(0)) !=
              resultMap)
        return failure();
      selects.push_back(*select);
    }

    // The folded op goes where the first select is: the condition is computed
    // after the update (from every gradient), and everything the selects
    // read must already be defined there.
    Operation *first = selects[0].op;
    for (TensorSelect &select : selects)
      if (select.op->isBeforeInBlock(first))
        first = select.op;
    auto definedBefore = [&](Value value) {
      Operation *definition = value.getDefiningOp();
      return !definition || definition->getBlock() != first->getBlock() ||
             definition->isBeforeInBlock(first);
    };
    if (first->getBlock() != update->getBlock() ||
        !definedBefore(selects[0].condition) ||
        !llvm::all_of(selects, [&](TensorSelect &select) {
          return definedBefore(select.kept->get());
        }))
      return failure();

    SmallVector<Value> inputs = update.getDpsInputs();
    SmallVector<AffineMap> maps;
    for (OpOperand *input : update.getDpsInputOperands())
      maps.push_back(update.getMatchingIndexingMap(input));
    MLIRContext *context = rewriter.getContext();
    inputs.push_back(selects[0].condition);
    maps.push_back(AffineMap::get(update.getNumLoops(), 0, context));
    for (TensorSelect &select : selects) {
      inputs.push_back(select.kept->get());
      maps.push_back(select.op.getMatchingIndexingMap(select.kept));
    }
    SmallVector<Value> inits = update.getDpsInits();
    for (OpOperand &init : update.getDpsInitsMutable())
      maps.push_back(update.getMatchingIndexingMap(&init));

    rewriter.setInsertionPoint(first);
    auto folded = linalg::GenericOp::create(
        rewriter, update.getLoc(), update->getResultTypes(), inputs, inits,
        maps, update.getIteratorTypesArray());
    Block &oldBody = update.getRegion().front();
    Block *body = rewriter.createBlock(&folded.getRegion());
    IRMapping mapping;
    unsigned numUpdateInputs = update.getNumDpsInputs();
    for (BlockArgument argument :
         oldBody.getArguments().take_front(numUpdateInputs))
      mapping.map(argument,
                  body->addArgument(argument.getType(), argument.getLoc()));
    Value condition =
        body->addArgument(rewriter.getI1Type(), selects[0].op.getLoc());
    SmallVector<Value> keptValues;
    for (TensorSelect &select : selects)
      keptValues.push_back(
          body->addArgument(getElementTypeOrSelf(select.kept->get().getType()),
                            select.op.getLoc()));
    for (BlockArgument argument :
         oldBody.getArguments().drop_front(numUpdateInputs))
      mapping.map(argument,
                  body->addArgument(argument.getType(), argument.getLoc()));
    rewriter.setInsertionPointToStart(body);
    for (Operation &op : oldBody.without_terminator())
      rewriter.clone(op, mapping);
    SmallVector<Value> yielded;
    for (auto [value, kept] :
         llvm::zip_equal(oldBody.getTerminator()->getOperands(), keptValues))
      yielded.push_back(arith::SelectOp::create(
          rewriter, update.getLoc(), condition, mapping.lookup(value), kept));
    linalg::YieldOp::create(rewriter, update.getLoc(), yielded);

    for (auto [select, result] : llvm::zip_equal(selects, folded->getResults()))
      rewriter.replaceOp(select.op, result);
    rewriter.eraseOp(update);
    return success();
  }
};

} // namespace

void mpt::populateFoldSkippedStepSelectsPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldSkippedStepSelects>(patterns.getContext());
}
