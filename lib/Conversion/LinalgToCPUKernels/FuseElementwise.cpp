//===- FuseElementwise.cpp - fuse-elementwise-around-cpu-kernels -*- C++
//-*-===//
//
// Elementwise fusion that keeps the operands of convert-linalg-to-cpu-kernels
// intact: a matmul or convolution that became a linalg.generic would run as
// scalar loops, an order of magnitude slower than the BLAS kernel.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/LinalgToCPUKernels/FoldSkippedStepSelects.h"
#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_FUSEELEMENTWISEAROUNDCPUKERNELS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Upstream's rule (the producer has no other use, so nothing is computed
/// twice), except that named linalg ops take part in no fusion: both the
/// elementwise and the reshape patterns would turn them into generics.
static bool isFusable(OpOperand *fusedOperand) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  return llvm::none_of(
      std::initializer_list<Operation *>{producer, fusedOperand->getOwner()},
      [](Operation *op) {
        return isa<linalg::LinalgOp>(op) && !isa<linalg::GenericOp>(op);
      });
}

struct FuseElementwiseAroundCPUKernels
    : public mpt::impl::FuseElementwiseAroundCPUKernelsBase<
          FuseElementwiseAroundCPUKernels> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, isFusable);
    mpt::populateFoldSkippedStepSelectsPatterns(patterns);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, isFusable);
    linalg::populateConstantFoldLinalgOperations(patterns, isFusable);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    // Fusion is an optimization: stopping at the iteration limit of a large
    // graph leaves correct, only less fused, IR.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};
} // namespace
