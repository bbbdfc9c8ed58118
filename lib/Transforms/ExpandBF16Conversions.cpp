//===- ExpandBF16Conversions.cpp - mpt-expand-bf16-conversions --*- C++ -*-===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_MPTEXPANDBF16CONVERSIONS
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
struct ExpandBF16Conversions
    : public mpt::impl::MPTExpandBF16ConversionsBase<ExpandBF16Conversions> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
