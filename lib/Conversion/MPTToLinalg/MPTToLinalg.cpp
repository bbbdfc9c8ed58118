//===- MPTToLinalg.cpp - convert-mpt-to-linalg ------------------*- C++ -*-===//

#include "mpt/Conversion/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt {
#define GEN_PASS_DEF_CONVERTMPTTOLINALG
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

void mpt::populateMPTToLinalgPatterns(RewritePatternSet &patterns) {}

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
