//===- OpVerifiers.h - checks the mpt op verifiers share --------*- C++ -*-===//

#ifndef MPT_LIB_DIALECT_MPT_IR_OPVERIFIERS_H
#define MPT_LIB_DIALECT_MPT_IR_OPVERIFIERS_H

#include "mlir/IR/Operation.h"

namespace mpt::detail {

/// Checks that `value` has shape `expected`.
mlir::LogicalResult verifyShape(mlir::Operation *op, llvm::StringRef name,
                                mlir::Value value,
                                llvm::ArrayRef<int64_t> expected);

mlir::LogicalResult verifyPositive(mlir::Operation *op, llvm::StringRef name,
                                   float value);

mlir::LogicalResult verifyNonNegative(mlir::Operation *op, llvm::StringRef name,
                                      float value);

/// Checks that `value` is in [low, high] or [low, high).
mlir::LogicalResult verifyInRange(mlir::Operation *op, llvm::StringRef name,
                                  float value, float low, float high,
                                  bool highInclusive);

} // namespace mpt::detail

#endif // MPT_LIB_DIALECT_MPT_IR_OPVERIFIERS_H
