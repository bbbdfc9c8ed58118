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

#endif // MPT_CONVERSION_PASSES_TD
