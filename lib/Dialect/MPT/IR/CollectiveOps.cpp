//===- CollectiveOps.cpp - mpt collectives: verifiers, interfaces -*- C++
//-*-===//
//
// The ops that combine values across data-parallel ranks.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/MPTOps.h"

using namespace mlir;
using namespace mpt;

LogicalResult AllReduceOp::verify() {
  if (getInputs().empty())
    return emitOpError("reduces no tensor: a bucket needs at least one");
  return success();
}

LogicalResult AllReduceOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferredReturnTypes) {
  llvm::append_range(inferredReturnTypes, operands.getTypes());
  return success();
}

// Each tensor is reduced in its own type: f16 gradients in f16 (half the
// bytes), f32 ones in f32; a bucket mixes them.
bool AllReduceOp::isPrecisionOperand(unsigned) { return false; }
bool AllReduceOp::isPrecisionResult(unsigned) { return false; }

// A sum and a max of values all multiplied by one positive factor are
// multiplied by it. Result i scales only with operand i, so every result
// does when every operand does.
bool AllReduceOp::isScaleEquivariantIn(const llvm::SmallBitVector &scaled) {
  return scalesWithAllOperands(scaled);
}
