//===- Passes.h - GPU codegen -----------------------------------*- C++ -*-===//

#ifndef MPT_CODEGEN_GPU_PASSES_H
#define MPT_CODEGEN_GPU_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mpt {

#define GEN_PASS_DECL
#include "mpt/Codegen/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mpt/Codegen/GPU/Passes.h.inc"

} // namespace mpt

#endif // MPT_CODEGEN_GPU_PASSES_H
