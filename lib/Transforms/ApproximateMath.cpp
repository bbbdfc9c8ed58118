//===- ApproximateMath.cpp - mpt-approximate-math ---------------*- C++ -*-===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_MPTAPPROXIMATEMATH
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
struct ApproximateMath
    : public mpt::impl::MPTApproximateMathBase<ApproximateMath> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void mpt::populateApproximateMathPatterns(RewritePatternSet &patterns) {
  // Only the functions the training steps evaluate per element; log runs
  // once per row of the loss and stays exact.
  auto approximated = [](StringRef name) {
    return name == math::ErfOp::getOperationName() ||
           name == math::ExpOp::getOperationName() ||
           name == math::TanhOp::getOperationName();
  };
  // f16 and bf16 first widen to f32 (the higher benefit wins over the f16
  // erf approximation, which would evaluate its polynomial in f16).
  populateMathF32ExpansionPatterns(patterns, approximated, /*benefit=*/2);
  populateMathPolynomialApproximationPatterns(patterns, approximated);
}

void ApproximateMath::runOnOperation() {
  RewritePatternSet patterns(&getContext());
  mpt::populateApproximateMathPatterns(patterns);
  if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
    return signalPassFailure();
}
