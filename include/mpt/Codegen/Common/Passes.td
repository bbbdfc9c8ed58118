//===- Passes.td - codegen both targets share --------------*- tablegen -*-===//
//
// The tensor-level passes that mpt-lower-to-cpu and mpt-lower-to-cuda both run.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_CODEGEN_COMMON_PASSES_TD
#define MPT_CODEGEN_COMMON_PASSES_TD

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

def MPTFuseElementwise
    : Pass<"mpt-fuse-elementwise", "::mlir::ModuleOp"> {
  let summary = "Fuses elementwise linalg ops and reshapes, leaving matmuls and convolutions named";
  let description = [{
    Upstream's `linalg-fuse-elementwise-ops`, with one difference: named linalg ops (matmul,
    batch_matmul, convolutions, transpose, fill) are never fused with a producer or consumer and
    never rewritten into `linalg.generic` by folding a reshape into them. Upstream generalizes a
    matmul whose result is reshaped and then fuses the producer of its operand into it (a layer
    norm into the q/k/v projection, a cast into a mixed-precision product), and the result runs
    as scalar loops instead of reaching `mpt-convert-linalg-to-cpu-kernels`. Elementwise
    `linalg.generic` ops still fuse with each other and with reductions, and reshapes still move
    through them.

    It also folds the selects that keep state on a skipped step into the update that computes
    the state (an optimizer's parameter and its buffers): one generic writes the update or the
    old values, which upstream's fusion cannot do for a producer with several results.

    A generic of one input and one result (a conversion, an activation) fuses into the
    elementwise generic that produces that input even when the producer has other readers (all
    after it): the producer then writes both its result and the unary op's. Upstream's pattern
    would compute the producer again in the unary op. The logits' gradient, rounded to f16 for its
    GEMMs and read in f32 by its bias gradient, is the case; so is a persistent working copy
    rounded from its updated master, and a bias add whose result relu's or gelu's gradient reads
    in the backward pass, with the activation after it: one loop (on the GPU one kernel) writes
    the pre-activation and the activation.

    With `recompute-cheap-producers`, an elementwise generic read by several generics, element
    for element, is fused into each of them when that moves fewer bytes than storing it once:
    a few cheap arith ops, no input wider than its result, and (readers - 1) * input bits
    <= (readers + 1) * result bits. Loss scaling's unscale, read by the finite check and the
    update, is the case. The rounding of a matmul's product to f16 or bf16 is not: the CPU's
    GEMM kernels round the product a block at a time, while a product rounded in each reader
    lives whole in f32 until the last of them (a pre-activation read in the forward and again
    in the backward). Upstream fuses only a producer with one use.

    With `keep-product-rounding`, a generic that only rounds a matmul's product, and is the
    product's only reader, fuses into none of its readers: the CPU lowering turns the pair into
    one kernel that writes the rounded product and holds the f32 one a block at a time. Fused,
    the reader read the whole f32 product, twice the bytes of the rounded one; at the peak of
    the backward (the FFN's input gradient, read by gelu's gradient) that f32 product was the
    largest buffer.

    With `recompute-conversions`, a generic that only converts its input (`arith.truncf` and
    `arith.extf`, element for element, to a result no narrower than the input: an f32 value
    rounded to f16 and back, or an f16 value widened), whose readers are all generics, is
    computed again in each of them: they read its input, no more bytes than its result, and no
    kernel of its own writes the result. The attention probabilities' gradient, rounded to f16
    by autocast and read in f32 by softmax's backward reductions, is the case. With it too, a
    cast that reads a reshaped value (`tensor.collapse_shape`) is moved ahead of the reshape, so
    that it fuses with the value's producer although the reshape has other readers: the
    transformer's gradient of the mean over the sequence, broadcast and reshaped to [B·S, D],
    rounded for a GEMM and summed in f32 for a bias gradient.

    With `fuse-data-movement`, `linalg.transpose` and `linalg.broadcast` ops become generics
    first and fuse like any elementwise op: on the GPU each is a generated kernel either way,
    and the cast that rounds a product to f16 ahead of a transpose (attention heads moved
    between [B, S, H, D] and [B, H, S, D]) is then computed in it, not in a kernel of its own;
    a broadcast computes its elementwise producer.
  }];
  let options = [
    Option<"recomputeCheapProducers", "recompute-cheap-producers", "bool",
           /*default=*/"false",
           "Fuse a cheap elementwise producer into each of its readers">,
    Option<"recomputeConversions", "recompute-conversions", "bool", /*default=*/"false",
           "Fuse a generic that only widens or round-trips its input into each of its "
           "readers">,
    Option<"keepProductRounding", "keep-product-rounding", "bool", /*default=*/"false",
           "Fuse no generic that only rounds a matmul's product, its only reader, into the "
           "rounding's readers (for a lowering whose GEMM kernels write rounded products)">,
    Option<"fuseDataMovement", "fuse-data-movement", "bool", /*default=*/"false",
           "Generalize linalg.transpose and linalg.broadcast ops so that they fuse with "
           "elementwise producers and consumers">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // MPT_CODEGEN_COMMON_PASSES_TD
