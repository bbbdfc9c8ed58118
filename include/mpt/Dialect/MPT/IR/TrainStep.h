//===- TrainStep.h - training-step conventions passes share -----*- C++ -*-===//
//
// What the training-step verifier (TrainStep.cpp) and the passes that build
// a step agree on beyond the role attributes of MPTDialect.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_DIALECT_MPT_IR_TRAINSTEP_H
#define MPT_DIALECT_MPT_IR_TRAINSTEP_H

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringRef.h"

namespace mpt {

/// On an `mpt.param` argument: a parameter that is not trained (PyTorch's
/// requires_grad=False). It takes no gradient and no optimizer, is carried by
/// no result, so it stays bit-identical, and is still initialized, saved and
/// read by the eval step like any parameter.
inline constexpr llvm::StringLiteral kFrozenAttrName = "mpt.frozen";

/// Whether argument `index` of `function` is a frozen parameter.
inline bool isFrozenParameter(mlir::FunctionOpInterface function,
                              unsigned index) {
  return bool(function.getArgAttr(index, kFrozenAttrName));
}

} // namespace mpt

#endif // MPT_DIALECT_MPT_IR_TRAINSTEP_H
