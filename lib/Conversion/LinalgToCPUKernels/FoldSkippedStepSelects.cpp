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
// phase, instead of writing the update and copying one of the two. A working
// copy rounded from the new master (persistent-working-copy) folds in with
// its select, so the same pass writes it too.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/LinalgToCPUKernels/FoldSkippedStepSelects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

/// An elementwise generic over the update's loops that reads some of its
/// results element for element (a master's working copy, rounded from the
/// new master) and keeps its old value under the same condition: either its
/// one result is read only by such a select, or elementwise fusion already
/// put that select in its body (`keptBy` is then null). It folds into the
/// update, reading the update's values before their selects.
struct FoldedReader {
  linalg::GenericOp op;
  std::optional<TensorSelect> keptBy;
};

/// The condition under which `reader` yields its new value, if its body ends
/// in `select(condition, new, old)` on a scalar input and an input read at
/// the output's position.
std::optional<Value> selectsInItsBody(linalg::GenericOp reader) {
  Block &body = reader.getRegion().front();
  auto select =
      body.getTerminator()->getOperand(0).getDefiningOp<arith::SelectOp>();
  auto condition = dyn_cast_if_present<BlockArgument>(
      select ? select.getCondition() : Value());
  auto kept = dyn_cast_if_present<BlockArgument>(select ? select.getFalseValue()
                                                        : Value());
  if (!condition || !kept || condition.getOwner() != &body ||
      kept.getOwner() != &body)
    return std::nullopt;
  OpOperand *conditionInput = &reader->getOpOperand(condition.getArgNumber());
  OpOperand *keptInput = &reader->getOpOperand(kept.getArgNumber());
  if (!reader.isDpsInput(conditionInput) || !reader.isDpsInput(keptInput) ||
      !conditionInput->get().getType().isInteger(1) ||
      reader.getMatchingIndexingMap(keptInput) !=
          reader.getIndexingMapMatchingResult(reader->getResult(0)))
    return std::nullopt;
  return conditionInput->get();
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

    // The select must read both tensors at the update's own positions.
    auto selectsInPlace = [](TensorSelect select, AffineMap map) {
      return select.op.getMatchingIndexingMap(select.chosen) == map &&
             select.op.getMatchingIndexingMap(select.kept) == map &&
             select.op.getIndexingMapMatchingResult(select.op->getResult(0)) ==
                 map;
    };
    SmallVector<TensorSelect> selects;
    SmallVector<FoldedReader> readers;
    SmallVector<Value> readerConditions;
    auto sameCondition = [&](const TensorSelect &select) {
      return selects.empty() || select.condition == selects[0].condition;
    };
    for (OpResult result : update->getResults()) {
      AffineMap resultMap = update.getIndexingMapMatchingResult(result);
      std::optional<TensorSelect> own;
      for (Operation *user : result.getUsers()) {
        std::optional<TensorSelect> select = matchTensorSelect(user);
        if (select && !own && select->chosen->get() == result) {
          own = select;
          continue;
        }
        if (llvm::any_of(readers, [&](const FoldedReader &reader) {
              return reader.op == user;
            }))
          continue;
        auto reader = dyn_cast<linalg::GenericOp>(user);
        if (!reader || matchTensorSelect(reader) || reader == update ||
            reader.getNumResults() != 1 ||
            reader.getNumLoops() != update.getNumLoops() ||
            reader.getNumParallelLoops() != reader.getNumLoops() ||
            reader.getIndexingMapMatchingResult(reader->getResult(0)) !=
                resultMap ||
            reader.payloadUsesValueFromOperand(reader.getDpsInitOperand(0)) ||
            !reader->getResult(0).hasOneUse())
          return failure();
        for (OpOperand *input : reader.getDpsInputOperands())
          if (input->get().getDefiningOp() == update &&
              reader.getMatchingIndexingMap(input) !=
                  update.getIndexingMapMatchingResult(
                      cast<OpResult>(input->get())))
            return failure();
        if (std::optional<Value> condition = selectsInItsBody(reader)) {
          readerConditions.push_back(*condition);
          readers.push_back({reader, std::nullopt});
          continue;
        }
        std::optional<TensorSelect> readerSelect =
            matchTensorSelect(*reader->getUsers().begin());
        if (!readerSelect ||
            readerSelect->chosen->get() != reader->getResult(0) ||
            !selectsInPlace(*readerSelect, resultMap))
          return failure();
        readerConditions.push_back(readerSelect->condition);
        readers.push_back({reader, readerSelect});
      }
      if (!own || !sameCondition(*own) || !selectsInPlace(*own, resultMap))
        return failure();
      selects.push_back(*own);
    }
    if (llvm::any_of(readerConditions, [&](Value condition) {
          return condition != selects[0].condition;
        }))
      return failure();

    // The folded op goes where the first select is: the condition is computed
    // after the update (from every gradient), and everything the selects and
    // the readers read must already be defined there.
    Operation *first = selects[0].op;
    auto takeEarlier = [&](Operation *op) {
      if (op->isBeforeInBlock(first))
        first = op;
    };
    for (TensorSelect &select : selects)
      takeEarlier(select.op);
    for (FoldedReader &reader : readers)
      takeEarlier(reader.keptBy ? reader.keptBy->op : reader.op);
    auto definedBefore = [&](Value value) {
      Operation *definition = value.getDefiningOp();
      return definition == update || !definition ||
             definition->getBlock() != first->getBlock() ||
             definition->isBeforeInBlock(first);
    };
    // A reader's output, only written, may be a tensor.empty made after the
    // selects: the folded op gets its own.
    auto readersInputsDefined = llvm::all_of(readers, [&](FoldedReader &r) {
      Value init = r.op.getDpsInits()[0];
      return (!r.keptBy || definedBefore(r.keptBy->kept->get())) &&
             llvm::all_of(r.op.getDpsInputs(), definedBefore) &&
             (definedBefore(init) || init.getDefiningOp<tensor::EmptyOp>());
    });
    if (first->getBlock() != update->getBlock() ||
        !definedBefore(selects[0].condition) || !readersInputsDefined ||
        !llvm::all_of(selects, [&](TensorSelect &select) {
          return definedBefore(select.kept->get());
        }))
      return failure();

    // Operands: the update's inputs, the condition, the kept values of the
    // update's results, each reader's other inputs and its kept value; then
    // the update's inits and the readers'.
    MLIRContext *context = rewriter.getContext();
    SmallVector<Value> inputs = update.getDpsInputs();
    SmallVector<AffineMap> maps;
    for (OpOperand *input : update.getDpsInputOperands())
      maps.push_back(update.getMatchingIndexingMap(input));
    inputs.push_back(selects[0].condition);
    maps.push_back(AffineMap::get(update.getNumLoops(), 0, context));
    for (TensorSelect &select : selects) {
      inputs.push_back(select.kept->get());
      maps.push_back(select.op.getMatchingIndexingMap(select.kept));
    }
    for (FoldedReader &reader : readers) {
      for (OpOperand *input : reader.op.getDpsInputOperands())
        if (input->get().getDefiningOp() != update) {
          inputs.push_back(input->get());
          maps.push_back(reader.op.getMatchingIndexingMap(input));
        }
      if (reader.keptBy) {
        inputs.push_back(reader.keptBy->kept->get());
        maps.push_back(
            reader.keptBy->op.getMatchingIndexingMap(reader.keptBy->kept));
      }
    }
    SmallVector<Value> inits = update.getDpsInits();
    SmallVector<Type> resultTypes(update->getResultTypes());
    for (OpOperand &init : update.getDpsInitsMutable())
      maps.push_back(update.getMatchingIndexingMap(&init));
    rewriter.setInsertionPoint(first);
    for (FoldedReader &reader : readers) {
      Value init = reader.op.getDpsInits()[0];
      if (!definedBefore(init))
        init = tensor::EmptyOp::create(
            rewriter, reader.op.getLoc(),
            cast<RankedTensorType>(init.getType()).getShape(),
            getElementTypeOrSelf(init.getType()));
      inits.push_back(init);
      resultTypes.push_back(reader.op->getResult(0).getType());
      maps.push_back(
          reader.op.getMatchingIndexingMap(reader.op.getDpsInitOperand(0)));
    }

    rewriter.setInsertionPoint(first);
    auto folded = linalg::GenericOp::create(rewriter, update.getLoc(),
                                            resultTypes, inputs, inits, maps,
                                            update.getIteratorTypesArray());
    Block &oldBody = update.getRegion().front();
    Block *body = rewriter.createBlock(&folded.getRegion());
    auto addArgument = [&](Value like, Location loc) {
      return body->addArgument(getElementTypeOrSelf(like.getType()), loc);
    };
    IRMapping mapping;
    unsigned numUpdateInputs = update.getNumDpsInputs();
    for (BlockArgument argument :
         oldBody.getArguments().take_front(numUpdateInputs))
      mapping.map(argument, addArgument(argument, argument.getLoc()));
    Value condition =
        body->addArgument(rewriter.getI1Type(), selects[0].op.getLoc());
    SmallVector<Value> keptValues;
    for (TensorSelect &select : selects)
      keptValues.push_back(addArgument(select.kept->get(), select.op.getLoc()));
    // Each reader's arguments, the update's results left to map once the
    // update's body is cloned.
    SmallVector<IRMapping> readerMappings(readers.size());
    SmallVector<Value> readerKeptValues;
    for (auto [reader, readerMapping] :
         llvm::zip_equal(readers, readerMappings)) {
      for (OpOperand *input : reader.op.getDpsInputOperands())
        if (input->get().getDefiningOp() != update)
          readerMapping.map(reader.op.getMatchingBlockArgument(input),
                            addArgument(input->get(), reader.op.getLoc()));
      readerKeptValues.push_back(reader.keptBy
                                     ? addArgument(reader.keptBy->kept->get(),
                                                   reader.keptBy->op.getLoc())
                                     : Value());
    }
    for (BlockArgument argument :
         oldBody.getArguments().drop_front(numUpdateInputs))
      mapping.map(argument, addArgument(argument, argument.getLoc()));
    for (FoldedReader &reader : readers)
      addArgument(reader.op->getResult(0), reader.op.getLoc());

    rewriter.setInsertionPointToStart(body);
    for (Operation &op : oldBody.without_terminator())
      rewriter.clone(op, mapping);
    ValueRange updated = oldBody.getTerminator()->getOperands();
    SmallVector<Value> yielded;
    for (auto [value, kept] : llvm::zip_equal(updated, keptValues))
      yielded.push_back(arith::SelectOp::create(
          rewriter, update.getLoc(), condition, mapping.lookup(value), kept));
    for (auto [reader, readerMapping, kept] :
         llvm::zip_equal(readers, readerMappings, readerKeptValues)) {
      for (OpOperand *input : reader.op.getDpsInputOperands())
        if (auto result = dyn_cast<OpResult>(input->get());
            result && result.getOwner() == update)
          readerMapping.map(reader.op.getMatchingBlockArgument(input),
                            mapping.lookup(updated[result.getResultNumber()]));
      Block &readerBody = reader.op.getRegion().front();
      for (Operation &op : readerBody.without_terminator())
        rewriter.clone(op, readerMapping);
      Value value =
          readerMapping.lookup(readerBody.getTerminator()->getOperand(0));
      yielded.push_back(kept ? arith::SelectOp::create(rewriter,
                                                       reader.op.getLoc(),
                                                       condition, value, kept)
                                   .getResult()
                             : value);
    }
    linalg::YieldOp::create(rewriter, update.getLoc(), yielded);

    for (auto [select, result] : llvm::zip(selects, folded->getResults()))
      rewriter.replaceOp(select.op, result);
    for (auto [reader, result] : llvm::zip_equal(
             readers, folded->getResults().drop_front(selects.size()))) {
      if (!reader.keptBy) {
        rewriter.replaceOp(reader.op, result);
        continue;
      }
      rewriter.replaceOp(reader.keptBy->op, result);
      rewriter.eraseOp(reader.op);
    }
    rewriter.eraseOp(update);
    return success();
  }
};

} // namespace

void mpt::populateFoldSkippedStepSelectsPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldSkippedStepSelects>(patterns.getContext());
}
