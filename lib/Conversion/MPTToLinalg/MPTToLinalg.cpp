//===- MPTToLinalg.cpp - convert-mpt-to-linalg ------------------*- C++ -*-===//
//
// Lowers every mpt op to linalg (named ops where one fits, linalg.generic
// otherwise), tensor, arith and math on tensors. The patterns live next to
// this file, grouped by kind of op; Utils.h states the shared conventions.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include "Utils.h"

namespace mpt {
#define GEN_PASS_DEF_CONVERTMPTTOLINALG
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

void mpt::populateMPTToLinalgPatterns(RewritePatternSet &patterns) {
  detail::populateLinearAlgebraPatterns(patterns);
  detail::populateElementwisePatterns(patterns);
  detail::populateNormalizationPatterns(patterns);
  detail::populateLossPatterns(patterns);
  detail::populateOptimizerPatterns(patterns);
}

namespace {
struct ConvertMPTToLinalg
    : public mpt::impl::ConvertMPTToLinalgBase<ConvertMPTToLinalg> {
  using Base::Base;
  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.addIllegalDialect<MPTDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect>();
    RewritePatternSet patterns(&getContext());
    populateMPTToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
