//===- MPTOps.h - mpt operations --------------------------------*- C++ -*-===//

#ifndef MPT_DIALECT_MPT_IR_MPTOPS_H
#define MPT_DIALECT_MPT_IR_MPTOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mpt/Contract/LossScaleDefaults.h"
#include "mpt/Dialect/MPT/IR/MPTDialect.h"
#include "mpt/Dialect/MPT/IR/MPTInterfaces.h"

#define GET_ATTRDEF_CLASSES
#include "mpt/Dialect/MPT/IR/MPTAttrs.h.inc"

namespace mpt {
/// The data-parallel communicator, the resource the collectives act on.
struct CommunicatorResource
    : public mlir::SideEffects::Resource::Base<CommunicatorResource> {
  llvm::StringRef getName() final { return "Communicator"; }
};
/// What mpt.recompute_barrier acts on, only so that no two barriers merge.
struct RecomputeInputsResource
    : public mlir::SideEffects::Resource::Base<RecomputeInputsResource> {
  llvm::StringRef getName() final { return "RecomputeInputs"; }
};
} // namespace mpt

#define GET_OP_CLASSES
#include "mpt/Dialect/MPT/IR/MPTOps.h.inc"

namespace mpt {
/// The type of a value known to be a ranked tensor, as the operands and
/// results of mpt ops are.
inline mlir::RankedTensorType tensorType(mlir::Value value) {
  return llvm::cast<mlir::RankedTensorType>(value.getType());
}

/// Follows arith.extf/arith.truncf back to the value they convert: the
/// parameter, state or gradient behind its mixed-precision copies.
mlir::Value stripFloatCasts(mlir::Value value);
} // namespace mpt

#endif // MPT_DIALECT_MPT_IR_MPTOPS_H
