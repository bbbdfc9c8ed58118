//===- Passes.h - CPU codegen -----------------------------------*- C++ -*-===//

#ifndef MPT_CODEGEN_CPU_PASSES_H
#define MPT_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mpt {

#define GEN_PASS_DECL
#include "mpt/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mpt/Codegen/CPU/Passes.h.inc"

} // namespace mpt

#endif // MPT_CODEGEN_CPU_PASSES_H
