//===- CarryStateInPlace.cpp - mpt-carry-state-in-place ---------*- C++ -*-===//
//
// A training step returns the new value of each piece of state it carries
// (`mpt.next`). Bufferized as is, every carried result gets its own buffer,
// which the runtime swaps with the argument after each step: state takes twice
// its memory, and on a skipped step the update copies the old value across.
// Materializing each carried result in its argument lets one-shot
// bufferization write the update into the old buffer, and the equivalent
// result then leaves the function's signature. The runtime passes a buffer
// for every other result of either step, so none of those may be an
// argument's.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

namespace mpt {
#define GEN_PASS_DEF_MPTCARRYSTATEINPLACE
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct CarryStateInPlace
    : public mpt::impl::MPTCarryStateInPlaceBase<CarryStateInPlace> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void CarryStateInPlace::runOnOperation() {
  func::FuncOp function = getOperation();
  bool train = function->hasAttr(MPTDialect::kTrainStepAttrName);
  if ((!train && !function->hasAttr(MPTDialect::kEvalStepAttrName)) ||
      function.isExternal())
    return;
  if (!function.getBody().hasOneBlock()) {
    function.emitError("mpt-carry-state-in-place: expected a step with one "
                       "block (structured control flow only)");
    return signalPassFailure();
  }
  auto ret = cast<func::ReturnOp>(function.front().getTerminator());
  // The argument each result is written into, or -1.
  SmallVector<int64_t> carriedInto(ret->getNumOperands(), -1);
  llvm::SmallDenseSet<Value> carriedValues;
  for (OpOperand &operand : ret->getOpOperands())
    if (auto next = function.getResultAttrOfType<IntegerAttr>(
            operand.getOperandNumber(), MPTDialect::kNextAttrName);
        train && next) {
      carriedInto[operand.getOperandNumber()] = next.getInt();
      carriedValues.insert(operand.get());
    }

  // Other results that would share a carried buffer (the loss scale a step
  // used, returned as a metric while the step carries the next one) read
  // their own copy, made as soon as the value exists, so that the update
  // after it can still write in place.
  OpBuilder builder(ret);
  for (OpOperand &operand : ret->getOpOperands()) {
    Value value = operand.get();
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || carriedInto[operand.getOperandNumber()] >= 0)
      continue;
    if (!isa<BlockArgument>(value) && !carriedValues.contains(value))
      continue;
    builder.setInsertionPointAfterValue(value);
    operand.set(bufferization::AllocTensorOp::create(
        builder, value.getLoc(), type, /*dynamicSizes=*/ValueRange(),
        /*copy=*/value));
  }
  // A loop that carries state from its argument to the result written back
  // into it (running statistics updated per micro-batch,
  // mpt-accumulate-gradients) starts from a copy: one-shot bufferization
  // rejects the loop otherwise ("cannot avoid RaW conflict"), although the
  // loop could run in the argument's buffer. State a loop carries is small.
  for (OpOperand &operand : ret->getOpOperands()) {
    int64_t into = carriedInto[operand.getOperandNumber()];
    auto result = dyn_cast<OpResult>(operand.get());
    auto loop = result ? dyn_cast<LoopLikeOpInterface>(result.getOwner())
                       : LoopLikeOpInterface();
    if (into < 0 || !loop)
      continue;
    OpOperand *init = loop.getTiedLoopInit(result);
    if (!init || init->get() != function.getArgument(into))
      continue;
    builder.setInsertionPoint(loop);
    init->set(bufferization::AllocTensorOp::create(
        builder, loop.getLoc(), cast<RankedTensorType>(result.getType()),
        /*dynamicSizes=*/ValueRange(), /*copy=*/init->get()));
  }
  builder.setInsertionPoint(ret);
  for (OpOperand &operand : ret->getOpOperands()) {
    int64_t into = carriedInto[operand.getOperandNumber()];
    if (into < 0 || operand.get() == function.getArgument(into))
      continue;
    operand.set(
        bufferization::MaterializeInDestinationOp::create(
            builder, ret.getLoc(), operand.get(), function.getArgument(into))
            .getResult());
  }
  if (train)
    function->setAttr(MPTDialect::kCarriedInPlaceAttrName,
                      builder.getDenseI64ArrayAttr(carriedInto));
}
