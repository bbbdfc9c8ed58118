//===- MPTToLinalg.cpp - mpt-convert-to-linalg ------------------*- C++ -*-===//
//
// Lowers every mpt op to linalg (named ops where one fits, linalg.generic
// otherwise), tensor, arith and math on tensors, and the embedding's
// scatter-add to scf.forall (Embedding.cpp). The patterns live next to this
// file, grouped by kind of op; Utils.h states the shared conventions.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Dialect/MPT/Transforms/BufferizableOpInterfaceImpl.h"

#include "Utils.h"

namespace mpt {
#define GEN_PASS_DEF_MPTCONVERTTOLINALG
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
  detail::populateCollectivePatterns(patterns);
  detail::populateEmbeddingPatterns(patterns);
  detail::populateDropoutPatterns(patterns);
}

namespace {
struct MPTConvertToLinalg
    : public mpt::impl::MPTConvertToLinalgBase<MPTConvertToLinalg> {
  using Base::Base;
  // The all-reduces this pass leaves bufferize through the external model.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerBufferizableOpInterfaceExternalModels(registry);
  }
  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.addIllegalDialect<MPTDialect>();
    target.addDynamicallyLegalOp<AllReduceOp>(mpt::detail::isFlatBucket);
    // Barriers stay until bufferization, past the CSE that would merge the
    // recomputed ops back into the forward's.
    target.addLegalOp<RecomputeBarrierOp>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    // A concatenation as inserts into one new tensor, which bufferize in
    // place.
    target.addIllegalOp<tensor::ConcatOp>();
    RewritePatternSet patterns(&getContext());
    populateMPTToLinalgPatterns(patterns);
    tensor::populateDecomposeTensorConcatPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    stripConventionAttrs();
  }

private:
  /// The training-step conventions describe mpt-level steps; the lowered
  /// functions no longer carry them (bufferization turns results into
  /// arguments). The runtime reads them before lowering.
  void stripConventionAttrs() {
    // What mpt-drop-carried-results reads after bufferization stays.
    auto isOurs = [](NamedAttribute attribute) {
      return attribute.getName().getValue().starts_with("mpt.") &&
             attribute.getName() != MPTDialect::kCarriedInPlaceAttrName;
    };
    auto strip = [&](DictionaryAttr attrs) {
      return DictionaryAttr::get(
          &getContext(), llvm::to_vector(llvm::make_filter_range(
                             attrs, [&](auto a) { return !isOurs(a); })));
    };
    getOperation()->walk([&](Operation *op) {
      for (NamedAttribute attribute :
           llvm::to_vector(op->getDiscardableAttrs()))
        if (isOurs(attribute))
          op->removeDiscardableAttr(attribute.getName());
      auto function = dyn_cast<FunctionOpInterface>(op);
      if (!function)
        return;
      for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
        function.setArgAttrs(i,
                             strip(function.getArgAttrDict(i)
                                       ? function.getArgAttrDict(i)
                                       : DictionaryAttr::get(&getContext())));
      for (unsigned i = 0, e = function.getNumResults(); i < e; ++i)
        function.setResultAttrs(
            i, strip(function.getResultAttrDict(i)
                         ? function.getResultAttrDict(i)
                         : DictionaryAttr::get(&getContext())));
    });
  }
};
} // namespace
