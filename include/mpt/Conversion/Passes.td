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
  let summary = "Runs bufferized matmuls and convolutions through the runtime's BLAS kernels";
  let description = [{
    Replaces `linalg.matmul` and `linalg.batch_matmul` on memrefs whose inputs are f32, f16 or
    bf16 and whose accumulator is f32 (what `convert-mpt-to-linalg` produces) by calls to
    `mpt_cpu_matmul_<type>_<rank>d(A, B, C, transpose_a, transpose_b)`, and
    `linalg.conv_2d_nchw_fchw` with the same element types by calls to
    `mpt_cpu_conv2d_<type>(input, filter, output, stride_h, stride_w, dilation_h, dilation_w)`.
    The memrefs are cast to fully dynamic strided layouts and the kernels are declared with
    `llvm.emit_c_interface`. The runtime implements them on an optimized sgemm (convolutions
    through im2col): f16 and bf16 inputs are widened exactly to f32 and the products accumulate
    in f32 into the output, which is what the linalg op computes, only at BLAS speed. Matmul
    transposes come from the indexing maps; other maps, other element types and ops on tensors
    are left to the generic lowering. All three convolutions of a training step reach the conv
    kernel: `convert-mpt-to-linalg` writes conv2d_input_grad and conv2d_filter_grad as
    `linalg.conv_2d_nchw_fchw` too.

    `memref.copy` ops with a strided source or target become `linalg.copy`, so that they lower
    to loops that LLVM vectorizes instead of to the runner utility `memrefCopy`, which copies
    strided memrefs element by element.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def FuseElementwiseAroundCPUKernels
    : Pass<"fuse-elementwise-around-cpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Fuses elementwise linalg ops and reshapes, leaving matmuls and convolutions named";
  let description = [{
    Upstream's `linalg-fuse-elementwise-ops`, with one difference: named linalg ops (matmul,
    batch_matmul, convolutions, transpose, fill) are never fused with a producer or consumer and
    never rewritten into `linalg.generic` by folding a reshape into them. Upstream generalizes a
    matmul whose result is reshaped and then fuses the producer of its operand into it (a layer
    norm into the q/k/v projection, a cast into a mixed-precision product), and the result runs
    as scalar loops instead of reaching `convert-linalg-to-cpu-kernels`. Elementwise
    `linalg.generic` ops still fuse with each other and with reductions, and reshapes still move
    through them.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // MPT_CONVERSION_PASSES_TD
