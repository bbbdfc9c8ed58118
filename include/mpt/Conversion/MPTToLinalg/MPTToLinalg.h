//===- MPTToLinalg.h - mpt to linalg conversion -----------------*- C++ -*-===//

#ifndef MPT_CONVERSION_MPTTOLINALG_MPTTOLINALG_H
#define MPT_CONVERSION_MPTTOLINALG_MPTTOLINALG_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mpt {
/// Patterns lowering every mpt op to linalg/tensor/arith/math on tensors.
void populateMPTToLinalgPatterns(mlir::RewritePatternSet &patterns);
} // namespace mpt

#endif // MPT_CONVERSION_MPTTOLINALG_MPTTOLINALG_H
