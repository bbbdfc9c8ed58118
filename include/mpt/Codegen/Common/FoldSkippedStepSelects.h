//===- FoldSkippedStepSelects.h - selects into updates ----------*- C++ -*-===//

#ifndef MPT_CODEGEN_COMMON_FOLDSKIPPEDSTEPSELECTS_H
#define MPT_CODEGEN_COMMON_FOLDSKIPPEDSTEPSELECTS_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mpt {
/// Folds the selects that keep state on a skipped step into the elementwise
/// linalg.generic computing the updated state: one pass that writes either
/// the update or the old value, instead of the update and then a copy.
void populateFoldSkippedStepSelectsPatterns(mlir::RewritePatternSet &patterns);
} // namespace mpt

#endif // MPT_CODEGEN_COMMON_FOLDSKIPPEDSTEPSELECTS_H
