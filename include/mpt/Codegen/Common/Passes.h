//===- Passes.h - codegen both targets share --------------------*- C++ -*-===//

#ifndef MPT_CODEGEN_COMMON_PASSES_H
#define MPT_CODEGEN_COMMON_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mpt {

#define GEN_PASS_DECL
#include "mpt/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mpt/Codegen/Common/Passes.h.inc"

} // namespace mpt

#endif // MPT_CODEGEN_COMMON_PASSES_H
