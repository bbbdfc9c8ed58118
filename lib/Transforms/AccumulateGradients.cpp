//===- AccumulateGradients.cpp - mpt-accumulate-gradients -------*- C++ -*-===//
//
// Runs the per-micro-batch part of a training step K times in one scf.for,
// on K slices of the data, and sums the gradients in f32 before everything
// that must happen once per optimizer step: the data-parallel sum, unscaling,
// the finite check and the updates.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#include "Utils.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt {
#define GEN_PASS_DEF_MPTACCUMULATEGRADIENTS
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
/// What the loop computes per micro-batch and hands to the rest of the step.
struct MicroBatchBody {
  /// The ops run once per micro-batch, in program order.
  llvm::SetVector<Operation *> ops;
  /// The gradients, summed over the micro-batches.
  SmallVector<Value> gradients;
  /// The loss, averaged over the micro-batches.
  Value loss;
  /// Carried state the body updates, with the argument it updates.
  SmallVector<std::pair<Value, BlockArgument>> carried;
};

struct AccumulateGradients
    : public mpt::impl::MPTAccumulateGradientsBase<AccumulateGradients> {
  using Base::Base;
  LogicalResult initialize(MLIRContext *context) override;
  void runOnOperation() override;

private:
  LogicalResult findBody(func::FuncOp function, LossGradOp seed,
                         ArrayRef<BlockArgument> data, MicroBatchBody &body);
  void buildLoop(func::FuncOp function, ArrayRef<BlockArgument> data,
                 MicroBatchBody &body);
};
} // namespace

LogicalResult AccumulateGradients::initialize(MLIRContext *context) {
  if (microBatches < 1)
    return emitError(UnknownLoc::get(context),
                     "mpt-accumulate-gradients: micro-batches must be at "
                     "least 1, got ")
           << int64_t(microBatches);
  return success();
}

/// The gradients as the step produces them for one micro-batch: the operands
/// of the data-parallel sums, else the values leaving the backward seed's
/// scale-equivariant slice (what unscaling, or without it the optimizers,
/// clipping and hand-written weight decay, read).
static SmallVector<Value> findGradients(func::FuncOp function,
                                        LossGradOp seed) {
  llvm::SetVector<Value> sums;
  function.walk([&](AllReduceOp reduce) {
    if (reduce.getKind() == ReduceKind::Sum)
      sums.insert_range(reduce.getInputs());
  });
  if (!sums.empty())
    return sums.takeVector();
  return llvm::to_vector(llvm::make_first_range(findScaleBoundary(seed)));
}

/// The ops of the function's body that read one of `varying`, directly or
/// through other ops (an op whose region reads one counts as reading it).
static llvm::DenseSet<Operation *> dependOn(func::FuncOp function,
                                            ArrayRef<BlockArgument> varying) {
  Block &block = function.getBody().front();
  llvm::DenseSet<Operation *> dependent;
  SmallVector<Value> worklist(varying.begin(), varying.end());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      Operation *op = block.findAncestorOpInBlock(*user);
      if (op && !isa<func::ReturnOp>(op) && dependent.insert(op).second)
        llvm::append_range(worklist, op->getResults());
    }
  }
  return dependent;
}

/// The carried state that `value`, a result carried into `arg`, comes from:
/// the updated value the skipped-step select keeps, seen through casts.
static Value carriedUpdate(Value value, BlockArgument arg) {
  while (true) {
    value = stripFloatCasts(value);
    auto select = value.getDefiningOp<arith::SelectOp>();
    if (!select || select.getFalseValue() != arg)
      return value;
    value = select.getTrueValue();
  }
}

/// The ops of the function's body that `values` are computed from and that
/// read one of `varying`, in program order.
static FailureOr<llvm::SetVector<Operation *>>
sliceReading(func::FuncOp function, ArrayRef<Value> values,
             ArrayRef<BlockArgument> varying) {
  Block &block = function.getBody().front();
  llvm::DenseSet<Operation *> dependent = dependOn(function, varying);
  llvm::DenseSet<Operation *> inSlice;
  SmallVector<Value> worklist(values.begin(), values.end());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val().getDefiningOp();
    if (!op || !dependent.contains(op) || !inSlice.insert(op).second)
      continue;
    if (op->getBlock() != &block)
      return op->emitError("mpt-accumulate-gradients: a gradient is computed "
                           "inside '")
             << op->getParentOp()->getName()
             << "', so it cannot be summed over the micro-batches";
    llvm::append_range(worklist, op->getOperands());
    visitUsedValuesDefinedAbove(op->getRegions(), [&](OpOperand *use) {
      worklist.push_back(use->get());
    });
  }
  llvm::SetVector<Operation *> ops;
  for (Operation &op : block)
    if (inSlice.contains(&op))
      ops.insert(&op);
  return ops;
}

/// The carried state the body updates (batch-norm running statistics), which
/// the loop carries from one micro-batch to the next.
static LogicalResult findCarried(func::FuncOp function, MicroBatchBody &body) {
  func::ReturnOp ret = getReturn(function);
  for (OpOperand &result : ret->getOpOperands()) {
    auto next = function.getResultAttrOfType<IntegerAttr>(
        result.getOperandNumber(), MPTDialect::kNextAttrName);
    if (!next)
      continue;
    BlockArgument arg = function.getArgument(next.getInt());
    Value update = carriedUpdate(result.get(), arg);
    if (!body.ops.contains(update.getDefiningOp()))
      continue;
    if (update.getType() != arg.getType())
      return update.getDefiningOp()->emitError(
                 "mpt-accumulate-gradients: this op updates carried state "
                 "argument #")
             << arg.getArgNumber() << " as " << update.getType()
             << ", not as its type " << arg.getType()
             << ", so it cannot be carried from one micro-batch to the next";
    body.carried.emplace_back(update, arg);
  }
  return success();
}

/// Fails unless the body hands the rest of the step only the gradients, the
/// loss and the carried state, and nothing outside it reads the data.
static LogicalResult checkClosed(func::FuncOp function,
                                 ArrayRef<BlockArgument> data,
                                 const MicroBatchBody &body) {
  Block &block = function.getBody().front();
  llvm::DenseSet<Value> handed(body.gradients.begin(), body.gradients.end());
  handed.insert(body.loss);
  for (auto &[update, arg] : body.carried)
    handed.insert(update);
  auto inLoop = [&](Operation *user) {
    return body.ops.contains(block.findAncestorOpInBlock(*user));
  };
  for (Operation *op : body.ops)
    for (Value result : op->getResults())
      if (!handed.contains(result))
        for (Operation *user : result.getUsers())
          if (!inLoop(user))
            return user->emitError("mpt-accumulate-gradients: '")
                   << user->getName()
                   << "' reads a value computed once per micro-batch by '"
                   << op->getName()
                   << "' that is neither a gradient, the loss nor carried "
                      "state, so it has no value for the whole step";
  for (BlockArgument arg : data)
    for (Operation *user : arg.getUsers())
      if (!inLoop(user))
        return user->emitError("mpt-accumulate-gradients: '")
               << user->getName() << "' reads data argument #"
               << arg.getArgNumber()
               << " outside the gradients' computation, which reads one "
                  "micro-batch of it at a time";
  return success();
}

LogicalResult AccumulateGradients::findBody(func::FuncOp function,
                                            LossGradOp seed,
                                            ArrayRef<BlockArgument> data,
                                            MicroBatchBody &body) {
  body.gradients = findGradients(function, seed);
  body.loss = seed.getLoss();
  // Everything the gradients are computed from, that changes per micro-batch.
  FailureOr<llvm::SetVector<Operation *>> ops =
      sliceReading(function, body.gradients, data);
  if (failed(ops))
    return failure();
  if (!ops->contains(seed))
    return seed.emitError("mpt-accumulate-gradients: the loss reads no data "
                          "argument, so every micro-batch would give it the "
                          "same gradients");
  body.ops = std::move(*ops);
  // The dropout counter advances once per step, so every micro-batch would
  // draw the first one's masks.
  auto dropout =
      llvm::find_if(body.ops, [](Operation *op) { return isa<DropoutOp>(op); });
  if (dropout != body.ops.end())
    return (*dropout)->emitError(
        "mpt-accumulate-gradients: 'mpt.dropout' would draw the same mask for "
        "every micro-batch; dropout with micro-batches is not supported");
  // A gradient that reads no data (hand-written, not computed from the seed)
  // is the same for every micro-batch, so it is also their mean: it stays
  // out of the loop.
  llvm::erase_if(body.gradients, [&](Value gradient) {
    return !body.ops.contains(gradient.getDefiningOp());
  });

  if (failed(findCarried(function, body)))
    return failure();
  // What reads carried state changes per micro-batch too: an op that reads a
  // running statistic but no data would otherwise run once, before the loop,
  // on the step's first value.
  if (!body.carried.empty()) {
    SmallVector<BlockArgument> varying(data.begin(), data.end());
    for (auto &[update, arg] : body.carried)
      varying.push_back(arg);
    ops = sliceReading(function, body.gradients, varying);
    if (failed(ops))
      return failure();
    body.ops = std::move(*ops);
  }
  return checkClosed(function, data, body);
}

/// Moves the ops between the body's first and last op that read what the
/// body computes after the last one, keeping their order, so that the loop
/// can replace the body there.
static void sinkReadersOfBody(const MicroBatchBody &body) {
  Operation *last = body.ops.back();
  llvm::DenseSet<Operation *> sunk;
  auto readsBody = [&](Operation *op) {
    bool reads = false;
    auto check = [&](Value value) {
      Operation *producer = value.getDefiningOp();
      reads |=
          producer && (body.ops.contains(producer) || sunk.contains(producer));
    };
    for (Value operand : op->getOperands())
      check(operand);
    visitUsedValuesDefinedAbove(op->getRegions(),
                                [&](OpOperand *use) { check(use->get()); });
    return reads;
  };
  Operation *insertAfter = last;
  for (Operation &op : llvm::make_early_inc_range(llvm::make_range(
           body.ops.front()->getIterator(), last->getIterator()))) {
    if (body.ops.contains(&op) || !readsBody(&op))
      continue;
    sunk.insert(&op);
    op.moveAfter(insertAfter);
    insertAfter = &op;
  }
}

/// The loop over the micro-batches, after the body's last op: f32 sums
/// starting at zero, the loss's sum, then the carried state.
static scf::ForOp createLoop(OpBuilder &builder, Location loc,
                             const MicroBatchBody &body, int64_t microBatches) {
  Type f32 = builder.getF32Type();
  SmallVector<Value> inits;
  for (Value gradient : body.gradients)
    inits.push_back(arith::ConstantOp::create(
        builder, loc,
        cast<TypedAttr>(
            builder.getZeroAttr(withElementType(gradient.getType(), f32)))));
  inits.push_back(arith::ConstantOp::create(
      builder, loc, cast<TypedAttr>(builder.getZeroAttr(body.loss.getType()))));
  for (auto &[update, arg] : body.carried)
    inits.push_back(arg);
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value count = arith::ConstantIndexOp::create(builder, loc, microBatches);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  return scf::ForOp::create(builder, loc, zero, count, one, inits);
}

/// Clones the body into `loop`, each data argument sliced to the loop's
/// micro-batch right before its first reader, where a cast of it
/// (mpt-cast-cleanup's place) already is.
static void cloneBody(OpBuilder &builder, Location loc, scf::ForOp loop,
                      ArrayRef<BlockArgument> data, const MicroBatchBody &body,
                      int64_t microBatches, IRMapping &mapping) {
  llvm::SmallDenseMap<int64_t, Value> firstRows;
  auto sliceIfData = [&](Value value) {
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg || !llvm::is_contained(data, arg) || mapping.contains(arg))
      return;
    auto type = cast<RankedTensorType>(arg.getType());
    // The first row of micro-batch k, per number of rows of a micro-batch.
    Value &firstRow = firstRows[type.getDimSize(0)];
    if (!firstRow)
      firstRow = arith::MulIOp::create(
          builder, loc, loop.getInductionVar(),
          arith::ConstantIndexOp::create(builder, loc, type.getDimSize(0)));
    SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
    offsets.front() = firstRow;
    SmallVector<OpFoldResult> sizes =
        getAsIndexOpFoldResult(builder.getContext(), type.getShape());
    SmallVector<OpFoldResult> strides(type.getRank(), builder.getIndexAttr(1));
    mapping.map(arg, tensor::ExtractSliceOp::create(builder, loc, type, arg,
                                                    offsets, sizes, strides));
  };
  ValueRange iterArgs = loop.getRegionIterArgs();
  for (auto [carried, iterArg] :
       llvm::zip(body.carried, iterArgs.take_back(body.carried.size())))
    mapping.map(carried.second, iterArg);
  for (Operation *op : body.ops) {
    for (Value operand : op->getOperands())
      sliceIfData(operand);
    visitUsedValuesDefinedAbove(
        op->getRegions(), [&](OpOperand *use) { sliceIfData(use->get()); });
    Operation *clone = builder.clone(*op, mapping);
    if (auto seed = dyn_cast<LossGradOp>(clone))
      seed.setMicroBatches(uint64_t(microBatches));
  }
}

/// Ends the loop's body: adds each micro-batch's gradients, widened right
/// after them (where mpt-cast-cleanup puts casts), and its loss to the sums,
/// and passes the carried state on.
static void yieldSums(OpBuilder &builder, Location loc, scf::ForOp loop,
                      const MicroBatchBody &body, const IRMapping &mapping) {
  ValueRange sums = loop.getRegionIterArgs();
  SmallVector<Value> widened;
  for (Value gradient : body.gradients) {
    Value local = mapping.lookup(gradient);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfterValue(local);
    widened.push_back(
        createFloatCast(builder, loc, local, builder.getF32Type()));
  }
  SmallVector<Value> yielded;
  for (auto [local, sum] : llvm::zip(widened, sums))
    yielded.push_back(arith::AddFOp::create(builder, loc, sum, local));
  yielded.push_back(arith::AddFOp::create(
      builder, loc, sums[body.gradients.size()], mapping.lookup(body.loss)));
  for (auto &[update, arg] : body.carried)
    yielded.push_back(mapping.lookup(update));
  scf::YieldOp::create(builder, loc, yielded);
}

/// Makes what follows the body read the loop's results: the gradients' sums
/// in the gradients' own types, the mean loss, the carried state.
static void readLoopResults(OpBuilder &builder, Location loc,
                            func::FuncOp function, scf::ForOp loop,
                            MicroBatchBody &body, int64_t microBatches) {
  // The sums replace the gradients in their own type. Rounding an f16 sum
  // back to f16 here, before the data-parallel sum or the unscaling, is what
  // one step on the whole K*m rows would have computed: its f16 gradient
  // overflows exactly where this sum does, so the finite check, the skipped
  // steps and the loss scale follow the same trajectory.
  builder.setInsertionPointAfter(loop);
  auto outsideBody = [&](OpOperand &use) {
    return !body.ops.contains(
        function.getBody().front().findAncestorOpInBlock(*use.getOwner()));
  };
  ValueRange results = loop.getResults();
  for (auto [gradient, sum] : llvm::zip(body.gradients, results))
    gradient.replaceUsesWithIf(
        createFloatCast(builder, loc, sum, getElementType(gradient)),
        outsideBody);
  Value lossSum = results[body.gradients.size()];
  Value mean = arith::DivFOp::create(
      builder, loc, lossSum,
      arith::ConstantOp::create(
          builder, loc,
          DenseElementsAttr::get(cast<ShapedType>(lossSum.getType()),
                                 builder.getF32FloatAttr(microBatches))));
  body.loss.replaceUsesWithIf(mean, outsideBody);
  for (auto [carried, result] :
       llvm::zip(body.carried, results.take_back(body.carried.size())))
    carried.first.replaceUsesWithIf(result, outsideBody);
}

void AccumulateGradients::buildLoop(func::FuncOp function,
                                    ArrayRef<BlockArgument> data,
                                    MicroBatchBody &body) {
  sinkReadersOfBody(body);
  OpBuilder builder(function.getContext());
  builder.setInsertionPointAfter(body.ops.back());
  Location loc = function.getLoc();
  scf::ForOp loop = createLoop(builder, loc, body, microBatches);
  builder.setInsertionPointToStart(loop.getBody());
  IRMapping mapping;
  cloneBody(builder, loc, loop, data, body, microBatches, mapping);
  yieldSums(builder, loc, loop, body, mapping);
  readLoopResults(builder, loc, function, loop, body, microBatches);

  for (Operation *op : llvm::reverse(body.ops))
    op->erase();
  for (BlockArgument arg : data) {
    auto type = cast<RankedTensorType>(arg.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.front() *= microBatches;
    arg.setType(type.clone(shape));
  }
  updateFunctionType(function);
}

void AccumulateGradients::runOnOperation() {
  func::FuncOp function = getOperation();
  if (!isTrainStep(function) || microBatches == 1)
    return;
  FailureOr<LossGradOp> seed = findBackwardSeed(function, getArgument());
  if (failed(seed))
    return signalPassFailure();
  if (seed->getMicroBatches())
    return; // Already accumulated.

  SmallVector<BlockArgument> data;
  for (BlockArgument arg : function.getArguments()) {
    if (getArgumentRole(function, arg.getArgNumber()) !=
        MPTDialect::kDataAttrName)
      continue;
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() == 0 || !type.hasStaticShape()) {
      emitError(arg.getLoc(), "mpt-accumulate-gradients: data argument #")
          << arg.getArgNumber() << " has type " << arg.getType()
          << "; a micro-batch is a slice of the rows (first dimension) of "
             "every data argument, which must be a statically shaped tensor "
             "of rank 1 or more";
      return signalPassFailure();
    }
    data.push_back(arg);
  }
  if (data.empty()) {
    function.emitError("mpt-accumulate-gradients: the training step has no "
                       "data argument (mpt.data) to split into micro-batches");
    return signalPassFailure();
  }

  MicroBatchBody body;
  if (failed(findBody(function, *seed, data, body)))
    return signalPassFailure();
  buildLoop(function, data, body);
}
