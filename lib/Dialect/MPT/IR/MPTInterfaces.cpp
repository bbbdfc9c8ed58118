//===- MPTInterfaces.cpp - mpt op interfaces --------------------*- C++ -*-===//

#include "mpt/Dialect/MPT/IR/MPTInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

template <typename OpTy, bool (*Rule)(const llvm::SmallBitVector &)>
struct UpstreamScaleEquivariance
    : public ScaleEquivariantOpInterface::ExternalModel<
          UpstreamScaleEquivariance<OpTy, Rule>, OpTy> {
  bool isScaleEquivariantIn(Operation *,
                            const llvm::SmallBitVector &scaled) const {
    return Rule(scaled);
  }
};

template <bool (*Rule)(const llvm::SmallBitVector &), typename... OpTys>
void attachScaleEquivariance(MLIRContext *context) {
  (OpTys::template attachInterface<UpstreamScaleEquivariance<OpTys, Rule>>(
       *context),
   ...);
}

/// A select scales with its two branches together, not with its condition.
bool scalesWithBothBranches(const llvm::SmallBitVector &scaled) {
  return scaled.count() == 2 && scaled.test(1) && scaled.test(2);
}

/// An insert_slice scales with its source and destination together.
bool scalesWithSourceAndDest(const llvm::SmallBitVector &scaled) {
  return scaled.count() == 2 && scaled.test(0) && scaled.test(1);
}

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
    attachScaleEquivariance<scalesWithAllOperands, arith::AddFOp, arith::SubFOp,
                            arith::MaximumFOp, arith::MinimumFOp,
                            arith::MaxNumFOp, arith::MinNumFOp>(context);
    attachScaleEquivariance<scalesWithAnyOneOperand, arith::MulFOp>(context);
    attachScaleEquivariance<scalesWithFirstOperand, arith::DivFOp,
                            arith::NegFOp, arith::ExtFOp, arith::TruncFOp>(
        context);
    attachScaleEquivariance<scalesWithBothBranches, arith::SelectOp>(context);
  });
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    attachScaleEquivariance<scalesWithFirstOperand, tensor::CastOp,
                            tensor::ExtractSliceOp, tensor::ExpandShapeOp,
                            tensor::CollapseShapeOp>(context);
    attachScaleEquivariance<scalesWithAllOperands, tensor::ConcatOp>(context);
    attachScaleEquivariance<scalesWithSourceAndDest, tensor::InsertSliceOp>(
        context);
    // A slice keeps its operand's precision; so does a slice's gradient, an
    // insert into zeros that convert exactly.
    attachPolicy<PrecisionClass::Follow, tensor::ExtractSliceOp,
                 tensor::InsertSliceOp>(context);
    // As in PyTorch's autocast (cat is a promote op): f16 with f16 stays
    // f16, f16 with f32 (or bf16) joins in f32 instead of rounding one side.
    attachPolicy<PrecisionClass::Promote, tensor::ConcatOp>(context);
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
