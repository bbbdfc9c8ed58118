//===- NormStatsFP32.cpp - mpt-norm-stats-fp32 ------------------*- C++ -*-===//
//
// Normalization statistics are sums of many small terms and running averages
// of them: in f16 they lose the updates, so they are computed and kept in f32
// while the normalized activations keep their own type.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include "Utils.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt {
#define GEN_PASS_DEF_MPTNORMSTATSFP32
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct NormStatsFP32 : public mpt::impl::MPTNormStatsFP32Base<NormStatsFP32> {
  using Base::Base;
  void runOnOperation() override;

private:
  void runOnFunction(func::FuncOp function);
};
} // namespace

static bool isNormOp(Operation *op) {
  return isa<BatchNormOp, BatchNormGradOp, BatchNormInferenceOp, LayerNormOp,
             LayerNormGradOp>(op);
}

void NormStatsFP32::runOnOperation() {
  for (auto function : getOperation().getOps<func::FuncOp>())
    if (!function.isExternal())
      runOnFunction(function);
}

void NormStatsFP32::runOnFunction(func::FuncOp function) {
  Type f32 = Float32Type::get(&getContext());

  SmallVector<Operation *> normOps;
  function.walk([&](Operation *op) {
    if (isNormOp(op))
      normOps.push_back(op);
  });

  // Retype every statistic to f32; remember what other readers expected.
  // In program order: the narrowing casts are created in this order, and a
  // DenseMap's order would change with the addresses from one run to the next.
  llvm::MapVector<Value, Type> originalTypes;
  llvm::SetVector<unsigned> runningStatArgs;
  for (Operation *op : normOps) {
    auto policy = cast<PrecisionPolicyOpInterface>(op);
    OpBuilder builder(op);
    for (OpOperand &operand : op->getOpOperands()) {
      if (policy.isPrecisionOperand(operand.getOperandNumber()))
        continue;
      Value value = operand.get();
      if (auto arg = dyn_cast<BlockArgument>(stripFloatCasts(value));
          arg && isa<BatchNormOp>(op) && operand.getOperandNumber() >= 3 &&
          getArgumentRole(function, arg.getArgNumber()) ==
              MPTDialect::kStateAttrName)
        runningStatArgs.insert(arg.getArgNumber());
      if (getElementType(value).isF32())
        continue;
      Value widened = stripFloatCasts(value);
      if (getElementType(widened) != f32)
        widened = createFloatCast(builder, op->getLoc(), value, f32);
      operand.set(widened);
    }
    for (OpResult result : op->getResults()) {
      if (policy.isPrecisionResult(result.getResultNumber()) ||
          getElementType(result).isF32())
        continue;
      originalTypes.try_emplace(result, result.getType());
      result.setType(withElementType(result.getType(), f32));
    }
  }

  // Readers outside the normalization ops keep the type they were written for.
  for (auto [value, originalType] : originalTypes) {
    Value narrowed;
    for (OpOperand &use : llvm::make_early_inc_range(value.getUses())) {
      if (isNormOp(use.getOwner()))
        continue;
      if (!narrowed) {
        OpBuilder builder(value.getContext());
        builder.setInsertionPointAfterValue(value);
        narrowed = createFloatCast(builder, value.getLoc(), value,
                                   getElementTypeOrSelf(originalType));
      }
      use.set(narrowed);
    }
  }

  // Running statistics are stored in f32 from one step to the next.
  CarriedArgumentPromoter promoter(function);
  for (unsigned index : runningStatArgs)
    if (!getElementType(function.getArgument(index)).isF32())
      promoter.promote(index, f32);
  promoter.finish();
  eraseDeadCasts(function);
}
