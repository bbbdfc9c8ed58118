//===- MPTInterfaces.cpp - mpt op interfaces --------------------*- C++ -*-===//

#include "mpt/Dialect/MPT/IR/MPTInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

#include "mpt/Dialect/MPT/IR/MPTDialect.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

using namespace mlir;
using namespace mpt;

#include "mpt/Dialect/MPT/IR/MPTInterfaces.cpp.inc"

PrecisionClass PrecisionPolicyOpInterface::getPrecisionClass() {
  if (auto pinned = (*this)->getAttrOfType<PrecisionClassAttr>(
          MPTDialect::kPrecisionAttrName))
    return pinned.getValue();
  return getDefaultPrecisionClass();
}

namespace {
template <typename OpTy, PrecisionClass Class>
struct UpstreamPrecisionPolicy
    : public PrecisionPolicyOpInterface::ExternalModel<
          UpstreamPrecisionPolicy<OpTy, Class>, OpTy> {
  PrecisionClass getDefaultPrecisionClass(Operation *) const { return Class; }
};

template <PrecisionClass Class, typename... OpTys>
void attachPolicy(MLIRContext *context) {
  (OpTys::template attachInterface<UpstreamPrecisionPolicy<OpTys, Class>>(
       *context),
   ...);
}
} // namespace

void mpt::registerPrecisionPolicyExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    attachPolicy<PrecisionClass::Promote, arith::AddFOp, arith::SubFOp,
                 arith::MulFOp, arith::DivFOp, arith::RemFOp, arith::MaximumFOp,
                 arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp,
                 arith::CmpFOp, arith::SelectOp>(context);
    attachPolicy<PrecisionClass::Follow, arith::NegFOp>(context);
  });
  registry.addExtension(+[](MLIRContext *context, math::MathDialect *) {
    // Transcendentals lose too much in f16 (exp overflows at 11.1, log of a
    // subnormal is inaccurate), so they run in f32 as in PyTorch's autocast
    // lists.
    attachPolicy<PrecisionClass::FP32, math::ExpOp, math::Exp2Op, math::ExpM1Op,
                 math::LogOp, math::Log2Op, math::Log10Op, math::Log1pOp,
                 math::PowFOp, math::SqrtOp, math::RsqrtOp, math::TanhOp,
                 math::ErfOp, math::SinOp, math::CosOp>(context);
    attachPolicy<PrecisionClass::Follow, math::AbsFOp>(context);
  });
}
