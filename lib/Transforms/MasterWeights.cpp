//===- MasterWeights.cpp - mpt-master-weights -------------------*- C++ -*-===//
//
// Parameters and optimizer state live in f32; the forward and backward passes
// read one low-precision working copy per parameter per step.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include "Utils.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt {
#define GEN_PASS_DEF_MPTMASTERWEIGHTS
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct MasterWeights : public mpt::impl::MPTMasterWeightsBase<MasterWeights> {
  using Base::Base;
  void runOnOperation() override;

private:
  void runOnFunction(func::FuncOp function);
  void makeWorkingCopyPersistent(func::FuncOp function, BlockArgument master);
};
} // namespace

/// Makes `op` read and produce f32 floats, converting at its boundary, as
/// mpt-autocast does for fp32-class ops; a no-op after mpt-autocast.
static void runInF32(Operation *op) {
  OpBuilder builder(op);
  Type f32 = builder.getF32Type();
  for (OpOperand &operand : op->getOpOperands())
    if (isFloatTensor(operand.get().getType()) &&
        !getElementType(operand.get()).isF32())
      operand.set(createFloatCast(builder, op->getLoc(), operand.get(), f32));
  builder.setInsertionPointAfter(op);
  for (OpResult result : op->getResults()) {
    if (!isFloatTensor(result.getType()) || getElementType(result).isF32())
      continue;
    Type oldElementType = getElementType(result);
    result.setType(withElementType(result.getType(), f32));
    Value narrowed =
        createFloatCast(builder, op->getLoc(), result, oldElementType);
    result.replaceAllUsesExcept(narrowed, narrowed.getDefiningOp());
  }
}

/// The argument that `value` converts, if it is a function argument.
static BlockArgument getArgumentRoot(Value value) {
  return dyn_cast<BlockArgument>(stripFloatCasts(value));
}

void MasterWeights::runOnOperation() {
  for (auto function : getOperation().getOps<func::FuncOp>())
    if (isTrainStep(function))
      runOnFunction(function);
}

void MasterWeights::runOnFunction(func::FuncOp function) {
  Type f32 = Float32Type::get(&getContext());

  // Parameters and optimizer state: f32 arguments read directly by the update.
  SmallVector<BlockArgument> masters;
  SmallVector<OptimizerOpInterface> optimizers;
  function.walk([&](OptimizerOpInterface op) { optimizers.push_back(op); });
  for (OptimizerOpInterface optimizer : optimizers) {
    runInF32(optimizer);
    SmallVector<OpOperand *> stateOperands = {
        &optimizer->getOpOperand(0)}; // the parameter
    for (OpOperand &state : optimizer->getOpOperands().drop_front(2))
      stateOperands.push_back(&state);
    for (OpOperand *operand : stateOperands) {
      BlockArgument root = getArgumentRoot(operand->get());
      if (!root || !isFloatTensor(root.getType()))
        continue;
      if (!getElementType(root).isF32())
        promoteCarriedArgument(function, root.getArgNumber(), f32);
      // Reading the master itself, not a converted copy of it.
      if (operand->get().getType() == root.getType())
        operand->set(root);
    }
    if (BlockArgument param = getArgumentRoot(optimizer.getParam()))
      masters.push_back(param);
  }

  if (persistentWorkingCopy)
    for (BlockArgument master : masters)
      makeWorkingCopyPersistent(function, master);
  eraseDeadCasts(function);
}

void MasterWeights::makeWorkingCopyPersistent(func::FuncOp function,
                                              BlockArgument master) {
  auto copyIt = llvm::find_if(master.getUsers(), [](Operation *user) {
    return isa<arith::TruncFOp>(user);
  });
  if (copyIt == master.getUsers().end())
    return;
  Operation *copy = *copyIt;
  std::optional<unsigned> carrier =
      getCarryingResult(function, master.getArgNumber());
  if (!carrier)
    return;

  MLIRContext *context = &getContext();
  Builder builder(context);
  BlockArgument persistent = appendArgument(
      function, copy->getResult(0).getType(),
      {builder.getNamedAttr(MPTDialect::kStateAttrName, builder.getUnitAttr()),
       builder.getNamedAttr(MPTDialect::kWorkingCopyOfAttrName,
                            builder.getI64IntegerAttr(master.getArgNumber()))});
  copy->getResult(0).replaceAllUsesWith(persistent);
  copy->erase();

  // The next step's copy comes from the updated master, right after the update.
  Value updated = getReturn(function).getOperand(*carrier);
  OpBuilder opBuilder(context);
  opBuilder.setInsertionPointAfterValue(updated);
  Value nextCopy = createFloatCast(opBuilder, updated.getLoc(), updated,
                                   getElementType(persistent));
  appendResult(function, nextCopy,
               {builder.getNamedAttr(
                   MPTDialect::kNextAttrName,
                   builder.getI64IntegerAttr(persistent.getArgNumber()))});
}
