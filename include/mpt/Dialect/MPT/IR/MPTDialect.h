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

/// Registers the dialects a training-step file may contain: mpt, and the
/// upstream func, arith, math, tensor and scf ops it composes with, with the
/// precision-policy models. Tools that read training steps parse with only
/// these, so that input naming any other dialect is an "unregistered dialect"
/// error instead of reaching that dialect's parser (upstream linalg's crashes
/// on malformed ops: test/Fuzz/upstream-linalg-conv-parse.mlir).
void registerTrainingStepDialects(mlir::DialectRegistry &registry);

/// The deepest bracket nesting MLIR's recursive-descent parser is given:
/// deeper input overflows its stack instead of failing. Training steps nest a
/// few levels.
constexpr unsigned kMaxSourceNesting = 256;

/// Whether `source` nests brackets deeper than `kMaxSourceNesting`, counting
/// (, [, { and < outside string literals and comments; the arrow `->` closes
/// nothing.
bool nestsTooDeepToParse(llvm::StringRef source);
} // namespace mpt

#endif // MPT_DIALECT_MPT_IR_MPTDIALECT_H
