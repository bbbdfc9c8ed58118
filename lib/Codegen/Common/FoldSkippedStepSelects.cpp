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
// copy rounded from the new master (persistent-working-copy) folds in too:
// elementwise fusion has already put its select in the rounding's body (the
// rounding has one reader), so it is a reader of the update that keeps its old
// value under the same flag, and the same pass writes it.
//
//===----------------------------------------------------------------------===//

#include "mpt/Codegen/Common/FoldSkippedStepSelects.h"

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

/// The condition under which `reader` yields its new value, if its body ends
/// in `select(condition, new, old)` on a scalar input and an input read at
/// the output's position.
std::optional<Value> selectsInItsBody(linalg::GenericOp reader) {
  if (reader.getNumResults() != 1)
    return std::nullopt;
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

/// Whether `reader`, another elementwise reader of `update` than a select,
/// reads it over the points of result map `resultMap` and keeps its old value
/// under a flag itself (a working copy rounded from the new master, fused with
/// its select). Returns that flag.
std::optional<Value> matchSelectingReader(linalg::GenericOp update,
                                          linalg::GenericOp reader,
                                          AffineMap resultMap) {
  std::optional<Value> condition = selectsInItsBody(reader);
  if (!condition || reader == update ||
      reader.getNumLoops() != update.getNumLoops() ||
      reader.getNumParallelLoops() != reader.getNumLoops() ||
      reader.getIndexingMapMatchingResult(reader->getResult(0)) != resultMap ||
      reader.payloadUsesValueFromOperand(reader.getDpsInitOperand(0)))
    return std::nullopt;
  for (OpOperand *input : reader.getDpsInputOperands())
    if (input->get().getDefiningOp() == update &&
        reader.getMatchingIndexingMap(input) !=
            update.getIndexingMapMatchingResult(cast<OpResult>(input->get())))
      return std::nullopt;
  return condition;
}

/// Folds the selects of an update, and its readers that select themselves,
/// into one generic.
class SelectFolder {
public:
  /// Matches the users of every result of `update`: its own select, reading
  /// it at the update's positions, and selecting readers, all under one flag.
  static std::optional<SelectFolder> match(linalg::GenericOp update) {
    SelectFolder folder(update);
    SmallVector<Value> conditions;
    for (OpResult result : update->getResults()) {
      AffineMap resultMap = update.getIndexingMapMatchingResult(result);
      std::optional<TensorSelect> own;
      for (Operation *user : result.getUsers()) {
        std::optional<TensorSelect> select = matchTensorSelect(user);
        if (select && !own && select->chosen->get() == result) {
          own = select;
          continue;
        }
        auto reader = dyn_cast<linalg::GenericOp>(user);
        if (llvm::is_contained(folder.readers, reader))
          continue;
        std::optional<Value> readerCondition =
            reader && !select ? matchSelectingReader(update, reader, resultMap)
                              : std::nullopt;
        if (!readerCondition)
          return std::nullopt;
        conditions.push_back(*readerCondition);
        folder.readers.push_back(reader);
      }
      // The select must read both tensors at the update's own positions.
      if (!own || own->op.getMatchingIndexingMap(own->chosen) != resultMap ||
          own->op.getMatchingIndexingMap(own->kept) != resultMap ||
          own->op.getIndexingMapMatchingResult(own->op->getResult(0)) !=
              resultMap)
        return std::nullopt;
      conditions.push_back(own->condition);
      folder.selects.push_back(*own);
    }
    if (llvm::any_of(conditions, [&](Value condition) {
          return condition != folder.condition();
        }))
      return std::nullopt;
    return folder;
  }

  /// Places the folded op where the first select or reader is: the condition
  /// is computed after the update (from every gradient), and everything the
  /// selects and the readers read must already be defined there.
  LogicalResult findInsertionPoint() {
    first = selects[0].op;
    auto takeEarlier = [&](Operation *op) {
      if (op->isBeforeInBlock(first))
        first = op;
    };
    for (TensorSelect &select : selects)
      takeEarlier(select.op);
    for (linalg::GenericOp reader : readers)
      takeEarlier(reader);
    // A reader's output, only written, may be a tensor.empty made after the
    // selects: the folded op gets its own.
    auto readersInputsDefined = llvm::all_of(readers, [&](linalg::GenericOp r) {
      Value init = r.getDpsInits()[0];
      return llvm::all_of(r.getDpsInputs(),
                          [&](Value input) { return definedBefore(input); }) &&
             (definedBefore(init) || init.getDefiningOp<tensor::EmptyOp>());
    });
    return success(first->getBlock() == update->getBlock() &&
                   definedBefore(condition()) && readersInputsDefined &&
                   llvm::all_of(selects, [&](TensorSelect &select) {
                     return definedBefore(select.kept->get());
                   }));
  }

  /// Replaces the update, its selects and readers by one generic.
  void rewrite(PatternRewriter &rewriter) {
    rewriter.setInsertionPoint(first);
    linalg::GenericOp folded = createFoldedOp(rewriter);
    buildFoldedBody(rewriter, folded);
    for (auto [select, result] : llvm::zip_equal(
             selects, folded->getResults().take_front(selects.size())))
      rewriter.replaceOp(select.op, result);
    for (auto [reader, result] : llvm::zip_equal(
             readers, folded->getResults().drop_front(selects.size())))
      rewriter.replaceOp(reader, result);
    rewriter.eraseOp(update);
  }

private:
  explicit SelectFolder(linalg::GenericOp update) : update(update) {}

  Value condition() const { return selects[0].condition; }

  bool definedBefore(Value value) const {
    Operation *definition = value.getDefiningOp();
    return definition == update || !definition ||
           definition->getBlock() != first->getBlock() ||
           definition->isBeforeInBlock(first);
  }

  /// The folded op, without its body. Operands: the update's inputs, the
  /// condition, the kept values of the update's results, each reader's inputs
  /// but the update's results; then the update's inits and the readers'.
  linalg::GenericOp createFoldedOp(PatternRewriter &rewriter) {
    SmallVector<Value> inputs = update.getDpsInputs();
    SmallVector<AffineMap> maps;
    for (OpOperand *input : update.getDpsInputOperands())
      maps.push_back(update.getMatchingIndexingMap(input));
    inputs.push_back(condition());
    maps.push_back(
        AffineMap::get(update.getNumLoops(), 0, rewriter.getContext()));
    for (TensorSelect &select : selects) {
      inputs.push_back(select.kept->get());
      maps.push_back(select.op.getMatchingIndexingMap(select.kept));
    }
    for (linalg::GenericOp reader : readers)
      for (OpOperand *input : reader.getDpsInputOperands())
        if (input->get().getDefiningOp() != update) {
          inputs.push_back(input->get());
          maps.push_back(reader.getMatchingIndexingMap(input));
        }
    SmallVector<Value> inits = update.getDpsInits();
    SmallVector<Type> resultTypes(update->getResultTypes());
    for (OpOperand &init : update.getDpsInitsMutable())
      maps.push_back(update.getMatchingIndexingMap(&init));
    for (linalg::GenericOp reader : readers) {
      Value init = reader.getDpsInits()[0];
      if (!definedBefore(init))
        init = tensor::EmptyOp::create(
            rewriter, reader.getLoc(),
            cast<RankedTensorType>(init.getType()).getShape(),
            getElementTypeOrSelf(init.getType()));
      inits.push_back(init);
      resultTypes.push_back(reader->getResult(0).getType());
      maps.push_back(
          reader.getMatchingIndexingMap(reader.getDpsInitOperand(0)));
    }
    return linalg::GenericOp::create(rewriter, update.getLoc(), resultTypes,
                                     inputs, inits, maps,
                                     update.getIteratorTypesArray());
  }

  /// The update's body, each result selected by the condition, then each
  /// reader's body on the update's values.
  void buildFoldedBody(PatternRewriter &rewriter, linalg::GenericOp folded) {
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
    Value flag =
        body->addArgument(rewriter.getI1Type(), selects[0].op.getLoc());
    SmallVector<Value> keptValues;
    for (TensorSelect &select : selects)
      keptValues.push_back(addArgument(select.kept->get(), select.op.getLoc()));
    // Each reader's arguments; those of the update's results are mapped once
    // the update's body is cloned.
    SmallVector<IRMapping> readerMappings(readers.size());
    for (auto [reader, readerMapping] :
         llvm::zip_equal(readers, readerMappings))
      for (OpOperand *input : reader.getDpsInputOperands())
        if (input->get().getDefiningOp() != update)
          readerMapping.map(reader.getMatchingBlockArgument(input),
                            addArgument(input->get(), reader.getLoc()));
    for (BlockArgument argument :
         oldBody.getArguments().drop_front(numUpdateInputs))
      mapping.map(argument, addArgument(argument, argument.getLoc()));
    for (linalg::GenericOp reader : readers)
      addArgument(reader->getResult(0), reader.getLoc());

    rewriter.setInsertionPointToStart(body);
    for (Operation &op : oldBody.without_terminator())
      rewriter.clone(op, mapping);
    ValueRange updated = oldBody.getTerminator()->getOperands();
    SmallVector<Value> yielded;
    for (auto [value, kept] : llvm::zip_equal(updated, keptValues))
      yielded.push_back(arith::SelectOp::create(rewriter, update.getLoc(), flag,
                                                mapping.lookupOrDefault(value),
                                                kept));
    // Readers read the update's values before the flag chooses: their own
    // select keeps their old value.
    for (auto [reader, readerMapping] :
         llvm::zip_equal(readers, readerMappings)) {
      for (OpOperand *input : reader.getDpsInputOperands())
        if (auto result = dyn_cast<OpResult>(input->get());
            result && result.getOwner() == update)
          readerMapping.map(
              reader.getMatchingBlockArgument(input),
              mapping.lookupOrDefault(updated[result.getResultNumber()]));
      Block &readerBody = reader.getRegion().front();
      for (Operation &op : readerBody.without_terminator())
        rewriter.clone(op, readerMapping);
      yielded.push_back(readerMapping.lookupOrDefault(
          readerBody.getTerminator()->getOperand(0)));
    }
    linalg::YieldOp::create(rewriter, update.getLoc(), yielded);
  }

  linalg::GenericOp update;
  SmallVector<TensorSelect> selects;
  SmallVector<linalg::GenericOp> readers;
  Operation *first = nullptr; // where the folded op goes
};

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
    std::optional<SelectFolder> folder = SelectFolder::match(update);
    if (!folder || failed(folder->findInsertionPoint()))
      return failure();
    folder->rewrite(rewriter);
    return success();
  }
};

} // namespace

void mpt::populateFoldSkippedStepSelectsPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldSkippedStepSelects>(patterns.getContext());
}
