//===- MPTDialect.h - mpt dialect -------------------------------*- C++ -*-===//

#ifndef MPT_DIALECT_MPT_IR_MPTDIALECT_H
#define MPT_DIALECT_MPT_IR_MPTDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "mpt/Dialect/MPT/IR/MPTOpsDialect.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mpt {
/// Attaches PrecisionPolicyOpInterface to the upstream arith and math ops, and
/// ScaleEquivariantOpInterface to the arith and tensor ops, that may appear on
/// tensors in a training step.
void registerPrecisionPolicyExternalModels(mlir::DialectRegistry &registry);
} // namespace mpt

#endif // MPT_DIALECT_MPT_IR_MPTDIALECT_H
