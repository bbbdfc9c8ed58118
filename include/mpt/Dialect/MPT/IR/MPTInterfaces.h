//===- MPTInterfaces.h - mpt op interfaces and traits -----------*- C++ -*-===//

#ifndef MPT_DIALECT_MPT_IR_MPTINTERFACES_H
#define MPT_DIALECT_MPT_IR_MPTINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallBitVector.h"

#include "mpt/Dialect/MPT/IR/MPTEnums.h.inc"

namespace mpt {

/// Whether `type` is a ranked tensor of floating-point elements.
inline bool isFloatTensor(mlir::Type type) {
  auto tensorType = llvm::dyn_cast<mlir::RankedTensorType>(type);
  return tensorType && llvm::isa<mlir::FloatType>(tensorType.getElementType());
}

// Rules of ScaleEquivariantOpInterface: for which set of operands multiplied
// by a positive factor every result is multiplied by it.

/// The first operand alone: `*_grad` ops in their incoming gradient, shape ops
/// and casts, a quotient in its numerator.
inline bool scalesWithFirstOperand(const llvm::SmallBitVector &scaled) {
  return scaled.count() == 1 && scaled.test(0);
}

/// Any one operand alone, not several: products (matmul, convolution, mulf).
inline bool scalesWithAnyOneOperand(const llvm::SmallBitVector &scaled) {
  return scaled.count() == 1;
}

/// All operands together: sums, max and min, concatenation.
inline bool scalesWithAllOperands(const llvm::SmallBitVector &scaled) {
  return scaled.all();
}

namespace OpTrait {
// The default precision class of an mpt op, read by PrecisionPolicyOpInterface.
#define MPT_DEFINE_PRECISION_CLASS_TRAIT(NAME, CLASS)                          \
  template <typename ConcreteType>                                             \
  class NAME : public mlir::OpTrait::TraitBase<ConcreteType, NAME> {           \
  public:                                                                      \
    static constexpr PrecisionClass kDefaultPrecisionClass =                   \
        PrecisionClass::CLASS;                                                 \
  };
MPT_DEFINE_PRECISION_CLASS_TRAIT(LowerPrecisionClass, Lower)
MPT_DEFINE_PRECISION_CLASS_TRAIT(FP32PrecisionClass, FP32)
MPT_DEFINE_PRECISION_CLASS_TRAIT(FollowPrecisionClass, Follow)
#undef MPT_DEFINE_PRECISION_CLASS_TRAIT
} // namespace OpTrait

} // namespace mpt

#include "mpt/Dialect/MPT/IR/MPTInterfaces.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mpt {
/// Attaches DifferentiableOpInterface to the upstream arith and math ops that
/// may appear on tensors in a training step (Differentiation.cpp).
void registerDifferentiableExternalModels(mlir::DialectRegistry &registry);
} // namespace mpt

#endif // MPT_DIALECT_MPT_IR_MPTINTERFACES_H
