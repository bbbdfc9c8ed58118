//===- Passes.td - mpt conversions ------------------------*- tablegen -*-===//

#ifndef MPT_CONVERSION_PASSES_TD
#define MPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMPTToLinalg : Pass<"convert-mpt-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lowers mpt ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Every mpt op becomes linalg (named ops or linalg.generic), tensor, arith and math ops on
    tensors, in the element types the op carries: f32, f16 or bf16. Low-precision elementwise
    arithmetic stays in its type, so the CPU rounds after each op as the hardware does;
    `lower`-class ops (matmul, convolutions) multiply in the operand type's exact f32 products
    and accumulate in f32, then round once; reductions and statistics accumulate in f32.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ConvertLinalgToCPUKernels
    : Pass<"convert-linalg-to-cpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Runs bufferized matmuls through the runtime's BLAS kernels";
  let description = [{
    Replaces `linalg.matmul` and `linalg.batch_matmul` on memrefs whose inputs are f32, f16 or
    bf16 and whose accumulator is f32 (what `convert-mpt-to-linalg` produces) by calls to
    `mpt_cpu_matmul_<type>_<rank>d(A, B, C, transpose_a, transpose_b)`, declared with
    `llvm.emit_c_interface`. The runtime implements them on an optimized sgemm: f16 and bf16
    inputs are widened exactly to f32 and the products accumulate in f32 into C, which is what
    the linalg op computes, only at BLAS speed. Transposes come from the indexing maps; other
    maps are left to the generic lowering.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

#endif // MPT_CONVERSION_PASSES_TD
