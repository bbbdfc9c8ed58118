//===- Passes.td - mpt conversions ------------------------*- tablegen -*-===//

#ifndef MPT_CONVERSION_PASSES_TD
#define MPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def MPTExportSignature : Pass<"mpt-export-signature", "::mlir::ModuleOp"> {
  let summary = "Records the training step's signature for the runtime";
  let description = [{
    Describes the module's `mpt.train_step` function (and its `mpt.eval_step`, if any) as
    JSON, the contract between compiler and runtime, so that the runtime never inspects the
    step itself: for every argument its name, role (param, state, data), dtype, shape and
    initializer; for every result the argument it replaces (`mpt.next`) or the metric it
    reports; for every data argument read as class labels by a loss, the class count; for the
    eval step, which training-step state or data each argument takes and its outputs.

    Initializers follow PyTorch's module defaults. A weight is Kaiming-uniform with bound
    1/sqrt(fan_in), where fan_in is the number of inputs each output of its forward matmul or
    convolution sums over (`nn.Linear`'s in_features, `nn.Conv2d`'s C_in*kh*kw); a use that
    depends on the loss seed (the backward `dX = dY*W^T`) never counts. A bias takes the bound
    of the layer it is added to; normalization scales start at one, shifts at zero; batch-norm
    running variances at one; other state at zero or its `mpt.init`; working copies copy
    their master. Names come from the arguments' `NameLoc` locations (the runtime's parser
    attaches the source names), else from what the mixed-precision rewrite added them for
    (`loss_scale`, `<param>.working_copy`) or the optimizer state they are (`<param>.` and the
    key PyTorch's optimizer `state_dict` uses: `momentum_buffer`, `exp_avg`, `exp_avg_sq`,
    `step`), else `arg<N>`.

    The JSON is stored as the module attribute `mpt.signature` and as the constant global
    `__mpt_signature` (a NUL-terminated string), which survives lowering to the LLVM dialect
    and is looked up in the JIT-compiled code. Modules without a training step are left
    unchanged. Errors: two arguments with one name, an eval step whose logits width differs
    from the loss's class count, a tensor the runtime cannot hold.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

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
