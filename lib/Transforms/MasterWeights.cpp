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
  void makeWorkingCopiesPersistent(func::FuncOp function,
                                   ArrayRef<BlockArgument> masters);
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
  CarriedArgumentPromoter promoter(function);
  for (OptimizerOpInterface optimizer : optimizers) {
    runInF32(optimizer);
    SmallVector<OpOperand *> stateOperands = {
        &optimizer->getOpOperand(0)}; // the parameter
    // An empty range (SGD without momentum) has no begin index.
    if (OperandRange state = optimizer.getOptimizerState(); !state.empty())
      for (OpOperand &operand : optimizer->getOpOperands().slice(
               state.getBeginOperandIndex(), state.size()))
        stateOperands.push_back(&operand);
    for (OpOperand *operand : stateOperands) {
      BlockArgument root = getArgumentRoot(operand->get());
      if (!root || !isFloatTensor(root.getType()))
        continue;
      if (!getElementType(root).isF32())
        promoter.promote(root.getArgNumber(), f32);
      // Reading the master itself, not a converted copy of it.
      if (operand->get().getType() == root.getType())
        operand->set(root);
    }
    if (BlockArgument param = getArgumentRoot(optimizer.getParam()))
      masters.push_back(param);
  }
  promoter.finish();

  if (persistentWorkingCopy)
    makeWorkingCopiesPersistent(function, masters);
  eraseDeadCasts(function);
}

void MasterWeights::makeWorkingCopiesPersistent(
    func::FuncOp function, ArrayRef<BlockArgument> masters) {
  // The first result carrying each argument.
  DenseMap<int64_t, unsigned> carriers;
  for (unsigned r = 0, e = function.getNumResults(); r < e; ++r)
    if (auto next = function.getResultAttrOfType<IntegerAttr>(
            r, MPTDialect::kNextAttrName))
      carriers.try_emplace(next.getInt(), r);

  // The copies become arguments and results all at once: appending them one
  // by one would rebuild the signature for every parameter.
  MLIRContext *context = &getContext();
  Builder builder(context);
  Block &body = function.getBody().front();
  func::ReturnOp ret = getReturn(function);
  SmallVector<DictionaryAttr> argAttrs, resultAttrs;
  function.getAllArgAttrs(argAttrs);
  function.getAllResultAttrs(resultAttrs);
  SmallVector<Value> nextCopies;
  for (BlockArgument master : masters) {
    auto copyIt = llvm::find_if(master.getUsers(), [](Operation *user) {
      return isa<arith::TruncFOp>(user);
    });
    if (copyIt == master.getUsers().end())
      continue;
    Operation *copy = *copyIt;
    auto carrier = carriers.find(master.getArgNumber());
    if (carrier == carriers.end())
      continue;

    BlockArgument persistent =
        body.addArgument(copy->getResult(0).getType(), function.getLoc());
    argAttrs.push_back(builder.getDictionaryAttr(
        {builder.getNamedAttr(MPTDialect::kStateAttrName,
                              builder.getUnitAttr()),
         builder.getNamedAttr(
             MPTDialect::kWorkingCopyOfAttrName,
             builder.getI64IntegerAttr(master.getArgNumber()))}));
    copy->getResult(0).replaceAllUsesWith(persistent);
    copy->erase();

    // The next step's copy comes from the updated master, right after the
    // update.
    Value updated = ret.getOperand(carrier->second);
    OpBuilder opBuilder(context);
    opBuilder.setInsertionPointAfterValue(updated);
    nextCopies.push_back(createFloatCast(opBuilder, updated.getLoc(), updated,
                                         getElementType(persistent)));
    resultAttrs.push_back(builder.getDictionaryAttr(builder.getNamedAttr(
        MPTDialect::kNextAttrName,
        builder.getI64IntegerAttr(persistent.getArgNumber()))));
  }
  if (nextCopies.empty())
    return;
  ret->insertOperands(ret->getNumOperands(), nextCopies);
  updateFunctionType(function);
  function.setAllArgAttrs(argAttrs);
  function.setAllResultAttrs(resultAttrs);
}
