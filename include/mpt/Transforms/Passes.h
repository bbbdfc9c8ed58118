//===- Passes.h - mixed-precision passes ------------------------*- C++ -*-===//

#ifndef MPT_TRANSFORMS_PASSES_H
#define MPT_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "mpt/Dialect/MPT/IR/MPTDialect.h"
#include "mpt/Transforms/PassOptions.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mpt {

#define GEN_PASS_DECL
#include "mpt/Transforms/Passes.h.inc"

/// Folds exact round-trip casts: truncf(extf(x)) -> x, extf(extf(x)) ->
/// extf(x).
void populateCastCleanupPatterns(mlir::RewritePatternSet &patterns);

/// Compares (and selects) values before their rounding to a narrower float
/// type where the result is the same for every value:
/// mpt-fold-rounded-compares.
void populateFoldRoundedComparePatterns(mlir::RewritePatternSet &patterns);

/// Polynomial approximations of f32 erf, exp and tanh, which LLVM can
/// vectorize, where libm calls would keep loops scalar.
void populateApproximateMathPatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "mpt/Transforms/Passes.h.inc"

} // namespace mpt

#endif // MPT_TRANSFORMS_PASSES_H
