//===- MPTOps.td - mpt operations -------------------------*- tablegen -*-===//

#ifndef MPT_DIALECT_MPT_IR_MPTOPS_TD
#define MPT_DIALECT_MPT_IR_MPTOPS_TD

include "mpt/Dialect/MPT/IR/MPTDialect.td"
include "mpt/Dialect/MPT/IR/MPTAttrs.td"
include "mpt/Dialect/MPT/IR/MPTInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def MPT_FloatTensor : StaticShapeTensorOf<[F16, BF16, F32]>;
def MPT_LabelTensor : StaticShapeTensorOf<[I32, I64]>;
def MPT_F32Scalar : 0DTensorOf<[F32]> {
  let builderCall = "::mlir::RankedTensorType::get({}, $_builder.getF32Type())";
}
def MPT_StepScalar : 0DTensorOf<[I32, I64]>;

//===----------------------------------------------------------------------===//
// Precision classes: every mpt op carries one, through PrecisionPolicyOpInterface.
//===----------------------------------------------------------------------===//

def MPT_LowerClass : NativeOpTrait<"LowerPrecisionClass"> { let cppNamespace = "::mpt::OpTrait"; }
def MPT_FP32Class : NativeOpTrait<"FP32PrecisionClass"> { let cppNamespace = "::mpt::OpTrait"; }
def MPT_FollowClass : NativeOpTrait<"FollowPrecisionClass"> { let cppNamespace = "::mpt::OpTrait"; }

class MPT_ComputeOp<string mnemonic, Trait precisionClass, list<Trait> traits = [],
                    Trait policy = PrecisionPolicyOpInterface>
    : MPT_Op<mnemonic, !listconcat([Pure, precisionClass, policy], traits)>;

// Ops whose results scale with either operand alone (products).
def MPT_ScalesWithEitherOperand
    : DeclareOpInterfaceMethods<ScaleEquivariantOpInterface, ["isScaleEquivariantIn"]>;

// Ops whose statistics operands and results keep their own (f32) type under mixed precision.
def MPT_ActivationOperandsOnly
    : DeclareOpInterfaceMethods<PrecisionPolicyOpInterface,
                                ["isPrecisionOperand", "isPrecisionResult"]>;
// Ops whose reverse-mode rule is in Differentiation.cpp.
def MPT_Differentiable : DeclareOpInterfaceMethods<DifferentiableOpInterface>;
// Differentiable ops with operands or results that carry no gradient (statistics).
def MPT_DifferentiableActivationsOnly
    : DeclareOpInterfaceMethods<DifferentiableOpInterface,
                                ["isDifferentiableOperand", "isDifferentiableResult"]>;

// Ops that read operands of several precisions on purpose and are never cast.
def MPT_NoPrecisionOperands
    : DeclareOpInterfaceMethods<PrecisionPolicyOpInterface,
                                ["isPrecisionOperand", "isPrecisionResult"]>;

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def MPT_MatmulOp : MPT_ComputeOp<"matmul", MPT_LowerClass,
                                 [MPT_ScalesWithEitherOperand, MPT_Differentiable]> {
  let summary = "matrix product, optionally batched and transposed";
  let description = [{
    `result = op(lhs) x op(rhs)` where `op` transposes the two innermost dimensions when
    `transpose_a` / `transpose_b` is set. Operands are rank 2 (`MxK`, `KxN`) or rank 3 with a
    leading batch dimension that must match. The result element type is the operand element
    type or f32 (accumulating a low-precision product in f32).

    ```mlir
    %c = mpt.matmul %a, %b : tensor<128x784xf32>, tensor<784x256xf32> -> tensor<128x256xf32>
    %dw = mpt.matmul %x, %dy {transpose_a} : tensor<128x784xf32>, tensor<128x256xf32> -> tensor<784x256xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$lhs, MPT_FloatTensor:$rhs,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MPT_BiasAddOp : MPT_ComputeOp<"bias_add", MPT_FollowClass,
    [AllTypesMatch<["input", "result"]>,
     DeclareOpInterfaceMethods<ScaleEquivariantOpInterface, ["isScaleEquivariantIn"]>,
     MPT_Differentiable]> {
  let summary = "adds a vector along one dimension";
  let description = [{
    Adds the rank-1 `bias` along dimension `axis` of `input` (the last one by default). Its
    gradient with respect to the bias is `mpt.reduce_sum` over the other dimensions.

    ```mlir
    %y = mpt.bias_add %x, %b : tensor<128x256xf32>, tensor<256xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, MPT_FloatTensor:$bias,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input `,` $bias attr-dict `:` type($input) `,` type($bias)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `axis` with a negative value resolved against the input rank.
    int64_t getNormalizedAxis();
  }];
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

def MPT_ReluOp : MPT_ComputeOp<"relu", MPT_FollowClass,
    [SameOperandsAndResultType, MPT_Differentiable]> {
  let summary = "rectified linear unit, max(x, 0)";
  let arguments = (ins MPT_FloatTensor:$input);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def MPT_ReluGradOp : MPT_ComputeOp<"relu_grad", MPT_FollowClass,
    [SameOperandsAndResultType, ScaleEquivariantOpInterface]> {
  let summary = "gradient of relu: grad where input > 0, else 0";
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$input);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($input)";
}

def MPT_GeluOp : MPT_ComputeOp<"gelu", MPT_FollowClass,
    [SameOperandsAndResultType, MPT_Differentiable]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `x * Phi(x)` with the exact erf form, or the tanh approximation when `approximate` is set.
    On f16 and bf16 it computes in f32 and rounds the result once, as PyTorch's kernels do.
  }];
  let arguments = (ins MPT_FloatTensor:$input, UnitAttr:$approximate);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def MPT_GeluGradOp : MPT_ComputeOp<"gelu_grad", MPT_FollowClass,
    [SameOperandsAndResultType, ScaleEquivariantOpInterface]> {
  let summary = "gradient of gelu with respect to its input";
  let description = [{
    `grad * gelu'(input)`; on f16 and bf16 computed in f32 and rounded once, like `gelu`.
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$input, UnitAttr:$approximate);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($input)";
}

// Activations whose gradient reads the forward output (sigmoid, tanh), as
// PyTorch's sigmoid_backward and tanh_backward do. Both compute in f32 and round
// once on f16 and bf16.
class MPT_OutputGradActivation<string mnemonic, string summaryText, string formula>
    : MPT_ComputeOp<mnemonic, MPT_FollowClass, [SameOperandsAndResultType, MPT_Differentiable]> {
  let summary = summaryText;
  let description = "`" # formula # "`; on f16 and bf16 computed in f32 and rounded once, as "
                    # "PyTorch's kernels do.";
  let arguments = (ins MPT_FloatTensor:$input);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

class MPT_OutputGradActivationGrad<string mnemonic, string summaryText>
    : MPT_ComputeOp<mnemonic, MPT_FollowClass,
                    [SameOperandsAndResultType, ScaleEquivariantOpInterface]> {
  let summary = summaryText;
  let description = [{
    Reads the forward op's result (`output`), not its input; computed in f32 and rounded once
    on f16 and bf16.
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$output);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $output attr-dict `:` type($output)";
}

def MPT_SigmoidOp : MPT_OutputGradActivation<"sigmoid", "logistic sigmoid",
                                             "1 / (1 + exp(-x))">;
def MPT_SigmoidGradOp : MPT_OutputGradActivationGrad<"sigmoid_grad",
    "gradient of sigmoid from its output: grad * y * (1 - y)">;

def MPT_TanhOp : MPT_OutputGradActivation<"tanh", "hyperbolic tangent", "tanh(x)">;
def MPT_TanhGradOp : MPT_OutputGradActivationGrad<"tanh_grad",
    "gradient of tanh from its output: grad * (1 - y^2)">;

def MPT_SiluOp : MPT_ComputeOp<"silu", MPT_FollowClass,
    [SameOperandsAndResultType, MPT_Differentiable]> {
  let summary = "sigmoid linear unit (swish), x * sigmoid(x)";
  let description = [{
    On f16 and bf16 it computes in f32 and rounds the result once, as PyTorch's kernels do.
  }];
  let arguments = (ins MPT_FloatTensor:$input);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def MPT_SiluGradOp : MPT_ComputeOp<"silu_grad", MPT_FollowClass,
    [SameOperandsAndResultType, ScaleEquivariantOpInterface]> {
  let summary = "gradient of silu: grad * s * (1 + x * (1 - s)) with s = sigmoid(x)";
  let description = [{
    As PyTorch's silu_backward, from the forward input; on f16 and bf16 computed in f32 and
    rounded once, like `silu`.
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$input);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// Convolution and pooling (NCHW activations, FCHW filters)
//===----------------------------------------------------------------------===//

class MPT_ConvOp<string mnemonic, string summaryText, list<Trait> traits = []>
    : MPT_ComputeOp<mnemonic, MPT_LowerClass,
                    !listconcat([MPT_ScalesWithEitherOperand], traits)> {
  let summary = summaryText;
  let arguments = (ins MPT_FloatTensor:$lhs, MPT_FloatTensor:$rhs,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$groups);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MPT_Conv2DOp : MPT_ConvOp<"conv2d", "2-d convolution, NCHW input and FCHW filter",
                              [MPT_Differentiable]> {
  let description = [{
    `lhs` is the input (N, C, H, W), `rhs` the filter (F, C/G, KH, KW); the result is
    (N, F, OH, OW) with `OH = (H + 2*pad - dilation*(KH-1) - 1) / stride + 1`. `padding` is
    symmetric, one value per spatial dimension. The result element type is the input's or f32.
    With `groups` G (PyTorch's), C and F split into G consecutive groups and output group g
    reads only input group g; G = C is a depthwise convolution.

    ```mlir
    %y = mpt.conv2d %x, %w {padding = array<i64: 1, 1>}
        : tensor<64x1x28x28xf32>, tensor<8x1x3x3xf32> -> tensor<64x8x28x28xf32>
    ```
  }];
}

def MPT_Conv2DInputGradOp
    : MPT_ConvOp<"conv2d_input_grad", "gradient of conv2d with respect to its input"> {
  let description = [{
    `lhs` is the output gradient (N, F, OH, OW), `rhs` the filter (F, C/G, KH, KW); the result
    has the shape of the forward input (N, C, H, W). Attributes are those of the forward op.
  }];
}

def MPT_Conv2DFilterGradOp
    : MPT_ConvOp<"conv2d_filter_grad", "gradient of conv2d with respect to its filter"> {
  let description = [{
    `lhs` is the forward input (N, C, H, W), `rhs` the output gradient (N, F, OH, OW); the
    result has the filter's shape (F, C/G, KH, KW). Attributes are those of the forward op.
  }];
}

def MPT_MaxPool2DOp : MPT_ComputeOp<"max_pool2d", MPT_FollowClass, [MPT_Differentiable]> {
  let summary = "2-d max pooling over NCHW";
  let description = [{
    Padding positions never win the max. Output size per spatial dimension is
    `(H + 2*pad - kernel) / stride + 1`.

    ```mlir
    %p = mpt.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : tensor<64x8x28x28xf32> -> tensor<64x8x14x14xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MPT_MaxPool2DGradOp : MPT_ComputeOp<"max_pool2d_grad", MPT_FollowClass,
    [AllTypesMatch<["input", "result"]>, ScaleEquivariantOpInterface]> {
  let summary = "gradient of max_pool2d: routes each output gradient to its window's max";
  let description = [{
    Ties go to the first maximum in row-major window order, as in PyTorch.
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($grad) `,` type($input)";
  let hasVerifier = 1;
}

def MPT_AvgPool2DOp : MPT_ComputeOp<"avg_pool2d", MPT_FollowClass, [MPT_Differentiable]> {
  let summary = "2-d average pooling over NCHW";
  let description = [{
    PyTorch's avg_pool2d without ceil_mode: each output is the sum of its window divided by
    the window's size, or with `count_include_pad = false` by the number of its positions
    inside the image (padding adds zeros either way). Output size per spatial dimension is
    `(H + 2*pad - kernel) / stride + 1`. On f16 and bf16 the sum accumulates in f32 and the
    average is rounded once.

    ```mlir
    %p = mpt.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                            padding = array<i64: 1, 1>, count_include_pad = false}
        : tensor<64x8x28x28xf32> -> tensor<64x8x14x14xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
                       DefaultValuedAttr<BoolAttr, "true">:$count_include_pad);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MPT_AvgPool2DGradOp : MPT_ComputeOp<"avg_pool2d_grad", MPT_FollowClass,
    [ScaleEquivariantOpInterface]> {
  let summary = "gradient of avg_pool2d: spreads each output gradient over its window";
  let description = [{
    `grad` is the pooled gradient; the result has the forward input's shape. Each input
    position receives the sum, over the windows that hold it, of the window's gradient divided
    by the forward op's divisor; computed in f32 and rounded once on f16 and bf16.
  }];
  let arguments = (ins MPT_FloatTensor:$grad, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
                       DefaultValuedAttr<BoolAttr, "true">:$count_include_pad);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$grad attr-dict `:` type($grad) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

def MPT_IdTensor : StaticShapeTensorOf<[I32]>;
def MPT_F32Tensor : StaticShapeTensorOf<[F32]>;

def MPT_EmbeddingOp : MPT_ComputeOp<"embedding", MPT_FollowClass, [MPT_Differentiable]> {
  let summary = "looks up rows of a table by integer ids";
  let description = [{
    `table` is (V, D) and `ids` any static shape S of ids in [0, V); the result is (S..., D),
    `result[s][d] = table[ids[s]][d]`: PyTorch's `embedding` without padding or max norm. The
    runtime refuses ids outside [0, V) when a data input is bound. Only the table takes a
    gradient, `mpt.embedding_grad`.

    ```mlir
    %e = mpt.embedding %table, %ids : tensor<1000x64xf32>, tensor<8x16xi32> -> tensor<8x16x64xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$table, MPT_IdTensor:$ids);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $table `,` $ids attr-dict `:` type($table) `,` type($ids) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MPT_EmbeddingGradOp : MPT_ComputeOp<"embedding_grad", MPT_FP32Class,
    [ScaleEquivariantOpInterface]> {
  let summary = "gradient of embedding with respect to its table: a scatter-add of grad rows";
  let description = [{
    `grad` is (S..., D), shaped like the embedding's result, and the result is the (V, D) table
    gradient, always f32: row `v` is the f32 sum of the `grad` rows whose id is `v`, added in
    the row-major order of `ids`, so repeated ids sum and the result does not depend on how
    the lowering splits the work.

    ```mlir
    %dt = mpt.embedding_grad %dy, %ids : tensor<8x16x64xf32>, tensor<8x16xi32> -> tensor<1000x64xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_IdTensor:$ids);
  let results = (outs MPT_F32Tensor:$result);
  let assemblyFormat = [{
    $grad `,` $ids attr-dict `:` type($grad) `,` type($ids) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def MPT_BatchNormOp : MPT_ComputeOp<"batch_norm", MPT_FollowClass, [
    AllTypesMatch<["input", "output"]>,
    AllTypesMatch<["gamma", "beta", "running_mean", "running_var", "batch_mean",
                   "batch_invstd", "new_running_mean", "new_running_var"]>,
    MPT_DifferentiableActivationsOnly], MPT_ActivationOperandsOnly> {
  let summary = "batch normalization in training mode";
  let description = [{
    Normalizes `input` (N, C) or (N, C, H, W) per channel with the batch statistics, scales by
    `gamma` and shifts by `beta`. Also returns the batch mean and inverse standard deviation
    (for the gradient) and the updated running statistics:
    `new_running = (1 - momentum) * running + momentum * batch`, where the running variance
    takes the unbiased batch variance, as in PyTorch.

    The per-channel operands and results share one type, which may be wider than the
    activations: under mixed precision the statistics stay f32 while `input` is f16.

    ```mlir
    %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm, %rv
        {momentum = 1.0e-1 : f32, epsilon = 1.0e-5 : f32} : tensor<64x8x28x28xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, MPT_FloatTensor:$gamma, MPT_FloatTensor:$beta,
                       MPT_FloatTensor:$running_mean, MPT_FloatTensor:$running_var,
                       DefaultValuedAttr<F32Attr, "0.1f">:$momentum,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs MPT_FloatTensor:$output, MPT_FloatTensor:$batch_mean,
                      MPT_FloatTensor:$batch_invstd, MPT_FloatTensor:$new_running_mean,
                      MPT_FloatTensor:$new_running_var);
  let assemblyFormat = [{
    $input `,` $gamma `,` $beta `,` $running_mean `,` $running_var attr-dict `:`
    type($input) `,` type($gamma)
  }];
  let hasVerifier = 1;
}

def MPT_BatchNormGradOp : MPT_ComputeOp<"batch_norm_grad", MPT_FollowClass, [
    AllTypesMatch<["grad", "input", "input_grad"]>,
    AllTypesMatch<["gamma", "batch_mean", "batch_invstd", "gamma_grad", "beta_grad"]>,
    ScaleEquivariantOpInterface], MPT_ActivationOperandsOnly> {
  let summary = "gradient of training-mode batch_norm";
  let description = [{
    Takes the output gradient, the forward input, `gamma` and the batch statistics returned by
    `mpt.batch_norm`; returns the gradients of the input, `gamma` and `beta`.
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$input, MPT_FloatTensor:$gamma,
                       MPT_FloatTensor:$batch_mean, MPT_FloatTensor:$batch_invstd);
  let results = (outs MPT_FloatTensor:$input_grad, MPT_FloatTensor:$gamma_grad,
                      MPT_FloatTensor:$beta_grad);
  let assemblyFormat = [{
    $grad `,` $input `,` $gamma `,` $batch_mean `,` $batch_invstd attr-dict `:`
    type($input) `,` type($gamma)
  }];
  let hasVerifier = 1;
}

def MPT_BatchNormInferenceOp : MPT_ComputeOp<"batch_norm_inference", MPT_FollowClass, [
    AllTypesMatch<["input", "output"]>,
    AllTypesMatch<["gamma", "beta", "mean", "var"]>], MPT_ActivationOperandsOnly> {
  let summary = "batch normalization with given (running) statistics";
  let description = [{
    `(input - mean) / sqrt(var + epsilon) * gamma + beta` per channel: the evaluation form of
    `mpt.batch_norm`, fed with the running statistics.
  }];
  let arguments = (ins MPT_FloatTensor:$input, MPT_FloatTensor:$gamma, MPT_FloatTensor:$beta,
                       MPT_FloatTensor:$mean, MPT_FloatTensor:$var,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs MPT_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $gamma `,` $beta `,` $mean `,` $var attr-dict `:` type($input) `,` type($gamma)
  }];
  let hasVerifier = 1;
}

def MPT_LayerNormOp : MPT_ComputeOp<"layer_norm", MPT_FollowClass, [
    AllTypesMatch<["input", "output"]>, AllTypesMatch<["gamma", "beta"]>,
    AllTypesMatch<["mean", "invstd"]>, MPT_DifferentiableActivationsOnly],
    MPT_ActivationOperandsOnly> {
  let summary = "layer normalization over the innermost dimension";
  let description = [{
    Normalizes every row of `input` over its last dimension (size D), then scales by `gamma` and
    shifts by `beta` (both of size D). Returns the per-row mean and inverse standard deviation,
    shaped like `input` without its last dimension, for the gradient.

    ```mlir
    %y, %mean, %invstd = mpt.layer_norm %x, %g, %b {epsilon = 1.0e-5 : f32}
        : tensor<8x64x128xf32>, tensor<128xf32> -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, MPT_FloatTensor:$gamma, MPT_FloatTensor:$beta,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs MPT_FloatTensor:$output, MPT_FloatTensor:$mean, MPT_FloatTensor:$invstd);
  let assemblyFormat = [{
    $input `,` $gamma `,` $beta attr-dict `:` type($input) `,` type($gamma) `->` type($mean)
  }];
  let hasVerifier = 1;
}

def MPT_LayerNormGradOp : MPT_ComputeOp<"layer_norm_grad", MPT_FollowClass, [
    AllTypesMatch<["grad", "input", "input_grad"]>,
    AllTypesMatch<["gamma", "gamma_grad", "beta_grad"]>, AllTypesMatch<["mean", "invstd"]>,
    ScaleEquivariantOpInterface], MPT_ActivationOperandsOnly> {
  let summary = "gradient of layer_norm";
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$input, MPT_FloatTensor:$gamma,
                       MPT_FloatTensor:$mean, MPT_FloatTensor:$invstd);
  let results = (outs MPT_FloatTensor:$input_grad, MPT_FloatTensor:$gamma_grad,
                      MPT_FloatTensor:$beta_grad);
  let assemblyFormat = [{
    $grad `,` $input `,` $gamma `,` $mean `,` $invstd attr-dict `:`
    type($input) `,` type($gamma) `,` type($mean)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Softmax and loss
//===----------------------------------------------------------------------===//

def MPT_SoftmaxOp : MPT_ComputeOp<"softmax", MPT_FP32Class,
    [SameOperandsAndResultType, MPT_Differentiable]> {
  let summary = "softmax over the innermost dimension";
  let arguments = (ins MPT_FloatTensor:$input);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MPT_SoftmaxGradOp : MPT_ComputeOp<"softmax_grad", MPT_FP32Class,
    [SameOperandsAndResultType, ScaleEquivariantOpInterface]> {
  let summary = "gradient of softmax from its output: y * (grad - sum(grad * y))";
  let arguments = (ins MPT_FloatTensor:$grad, MPT_FloatTensor:$output);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $output attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def MPT_SoftmaxCrossEntropyOp : MPT_ComputeOp<"softmax_cross_entropy", MPT_FP32Class,
    [MPT_Differentiable]> {
  let summary = "mean softmax cross-entropy of logits against integer labels";
  let description = [{
    `logits` is (N, C), `labels` is (N) with class indices in [0, C). The result is the mean
    over the batch of `-log softmax(logits)[label]`, an f32 scalar: PyTorch's `cross_entropy`
    with `reduction='mean'` (a sequence model's (N, T, C) logits are reshaped to (N*T, C)).

    With `label_smoothing` ε in [0, 1], a row's loss is
    `(1 - ε) * -log p[label] + ε / C * sum over classes of -log p`. With `ignore_index`, rows
    whose label equals it contribute nothing and the mean is over the other rows, as in
    PyTorch; when every row is ignored the mean is 0 / 0, NaN, and the gradient is zero.
    The ignored value may lie outside [0, C), PyTorch's -100 for instance.

    ```mlir
    %loss = mpt.softmax_cross_entropy %logits, %y : tensor<128x10xf32>, tensor<128xi32>
    %lm = mpt.softmax_cross_entropy %logits, %y {label_smoothing = 1.0e-01, ignore_index = -100}
        : tensor<512x50xf32>, tensor<512xi64>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$logits, MPT_LabelTensor:$labels,
                       DefaultValuedAttr<F64Attr, "0.0">:$label_smoothing,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs MPT_F32Scalar:$loss);
  let assemblyFormat = "$logits `,` $labels attr-dict `:` type($logits) `,` type($labels)";
  let hasVerifier = 1;
}

def MPT_SoftmaxCrossEntropyGradOp
    : MPT_ComputeOp<"softmax_cross_entropy_grad", MPT_FP32Class,
                    [AllTypesMatch<["logits", "result"]>, ScaleEquivariantOpInterface]> {
  let summary = "gradient of softmax_cross_entropy";
  let description = [{
    `seed * (softmax(logits) - (1 - ε) * onehot(label) - ε / C) / n` on the rows whose label
    is not `ignore_index`, n being their count (N without `ignore_index`), and zero on the
    ignored rows.
  }];
  let arguments = (ins MPT_F32Scalar:$seed, MPT_FloatTensor:$logits, MPT_LabelTensor:$labels,
                       DefaultValuedAttr<F64Attr, "0.0">:$label_smoothing,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = [{
    $seed `,` $logits `,` $labels attr-dict `:` type($logits) `,` type($labels)
  }];
  let hasVerifier = 1;
}

def MPT_MseLossOp : MPT_ComputeOp<"mse_loss", MPT_FP32Class,
    [AllTypesMatch<["input", "target"]>, MPT_Differentiable]> {
  let summary = "mean squared error between two tensors";
  let description = [{
    The mean over all elements of `(input - target)^2`, an f32 scalar: PyTorch's `mse_loss`
    with `reduction='mean'`. Both operands have the same type and at least one element; the
    sum accumulates in f32.

    ```mlir
    %loss = mpt.mse_loss %prediction, %y : tensor<128x1xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, MPT_FloatTensor:$target);
  let results = (outs MPT_F32Scalar:$loss);
  let assemblyFormat = "$input `,` $target attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MPT_MseLossGradOp : MPT_ComputeOp<"mse_loss_grad", MPT_FP32Class,
    [AllTypesMatch<["input", "target", "result"]>, ScaleEquivariantOpInterface]> {
  let summary = "gradient of mse_loss with respect to its input: seed * 2 * (input - target) / N";
  let description = [{
    N is the number of elements; the gradient with respect to `target` is its negation.
  }];
  let arguments = (ins MPT_F32Scalar:$seed, MPT_FloatTensor:$input, MPT_FloatTensor:$target);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$seed `,` $input `,` $target attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MPT_LossGradOp : MPT_ComputeOp<"loss_grad", MPT_FP32Class> {
  let summary = "the backward seed dL/dL";
  let description = [{
    Marks where the backward pass starts. Its value is 1.0 in an FP32 graph; after loss scaling
    it is the loss scale `S`, given as the `scale` operand. The `loss` operand ties the seed to
    the loss it differentiates. With `world_size = N` (`mpt-data-parallel`) the seed is divided
    by N, so that the sum of the N ranks' gradients is the gradient of their mean loss; with
    `micro_batches = K` (`mpt-accumulate-gradients`) it is divided by K too, so that the sum of
    the K micro-batches' gradients is the gradient of their mean loss.

    ```mlir
    %seed = mpt.loss_grad %loss
    %scaled_seed = mpt.loss_grad %loss scale %s
    %rank_seed = mpt.loss_grad %loss {world_size = 2 : i64}
    %micro_batch_seed = mpt.loss_grad %loss scale %s {micro_batches = 4 : i64}
    ```
  }];
  let arguments = (ins MPT_F32Scalar:$loss, Optional<MPT_F32Scalar>:$scale,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$world_size,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$micro_batches);
  let extraClassDeclaration = [{
    /// What the seed is divided by: the world size times the micro-batches.
    uint64_t getDivisor() {
      return getWorldSize().value_or(1) * getMicroBatches().value_or(1);
    }
  }];
  let results = (outs MPT_F32Scalar:$seed);
  let assemblyFormat = "$loss (`scale` $scale^)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Shape and reduction
//===----------------------------------------------------------------------===//

def MPT_ReshapeOp : MPT_ComputeOp<"reshape", MPT_FollowClass, [ScaleEquivariantOpInterface, MPT_Differentiable]> {
  let summary = "reinterprets a tensor with another static shape of the same size";
  let arguments = (ins MPT_FloatTensor:$input);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def MPT_TransposeOp : MPT_ComputeOp<"transpose", MPT_FollowClass, [ScaleEquivariantOpInterface, MPT_Differentiable]> {
  let summary = "permutes the dimensions of a tensor";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`.

    ```mlir
    %t = mpt.transpose %x [0, 2, 1] : tensor<8x64x32xf32> -> tensor<8x32x64xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input $permutation attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def MPT_ReduceSumOp : MPT_ComputeOp<"reduce_sum", MPT_FP32Class, [ScaleEquivariantOpInterface, MPT_Differentiable]> {
  let summary = "sums a tensor over the given dimensions";
  let description = [{
    `dims` are strictly increasing dimension indices. They are dropped from the result, or kept
    with size 1 when `keep_dims` is set. The result element type is the input's or f32.

    ```mlir
    %db = mpt.reduce_sum %dy [0] : tensor<128x256xf32> -> tensor<256xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, DenseI64ArrayAttr:$dims, UnitAttr:$keep_dims);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input $dims attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def MPT_BroadcastOp : MPT_ComputeOp<"broadcast", MPT_FollowClass,
                                   [ScaleEquivariantOpInterface, MPT_Differentiable]> {
  let summary = "repeats a tensor along new dimensions";
  let description = [{
    `dims` are the strictly increasing result dimensions that the input does not have; the
    other result dimensions are the input's, in order. The inverse of `mpt.reduce_sum` over
    `dims`, and its gradient: a learned position embedding (S, D) is added to every sequence
    of a batch (B, S, D) through it.

    ```mlir
    %pb = mpt.broadcast %pos [0] : tensor<49x64xf32> -> tensor<128x49x64xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input $dims attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

def MPT_SGDOp : MPT_ComputeOp<"sgd", MPT_FP32Class, [
    DeclareOpInterfaceMethods<OptimizerOpInterface, ["getOptimizerStateNames"]>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>, AttrSizedOperandSegments,
    TypesMatchWith<"grad has the type of param", "param", "grad", "$_self">,
    OptionalTypesMatchWith<"momentum_buffer has the type of param", "param",
                           "momentum_buffer", "$_self">]> {
  let summary = "stochastic gradient descent with momentum, dampening, weight decay, nesterov";
  let description = [{
    PyTorch's `torch.optim.SGD` for one parameter:
    ```
    g = grad + weight_decay * param
    buf' = momentum * buf + (1 - dampening) * g        (when momentum != 0)
    d = nesterov ? g + momentum * buf' : buf'          (d = g without momentum)
    param' = param - lr * d
    ```
    With a non-zero `momentum` the buffer is an operand and its update a second result. As in
    PyTorch's first step, the buffer starts as the zero tensor. A `scheduled_lr` operand (from
    `mpt.lr_schedule`) replaces `lr`, which then only records the schedule's base learning rate.

    ```mlir
    %w2, %m2 = mpt.sgd %w, %dw, %m {lr = 5.0e-2 : f32, momentum = 9.0e-1 : f32}
        : tensor<784x256xf32>
    %w3 = mpt.sgd %w, %dw scheduled_lr(%lr) {lr = 5.0e-2 : f32} : tensor<784x256xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$param, MPT_FloatTensor:$grad,
                       Optional<MPT_FloatTensor>:$momentum_buffer,
                       Optional<MPT_F32Scalar>:$scheduled_lr,
                       F32Attr:$lr,
                       DefaultValuedAttr<F32Attr, "0.0f">:$momentum,
                       DefaultValuedAttr<F32Attr, "0.0f">:$dampening,
                       DefaultValuedAttr<F32Attr, "0.0f">:$weight_decay,
                       UnitAttr:$nesterov);
  let results = (outs MPT_FloatTensor:$updated_param,
                      Optional<MPT_FloatTensor>:$updated_momentum_buffer);
  let assemblyFormat = [{
    $param `,` $grad (`,` $momentum_buffer^)? (`scheduled_lr` `(` $scheduled_lr^ `)`)?
    attr-dict `:` type($param)
  }];
  let hasVerifier = 1;
}

class MPT_AdamBase<string mnemonic, string defaultWeightDecay, string summaryText,
                   string descriptionText>
    : MPT_ComputeOp<mnemonic, MPT_FP32Class, [
        DeclareOpInterfaceMethods<OptimizerOpInterface, ["getOptimizerStateNames"]>,
        AllTypesMatch<["param", "grad", "exp_avg", "exp_avg_sq", "updated_param",
                       "updated_exp_avg", "updated_exp_avg_sq"]>,
        AllTypesMatch<["step", "updated_step"]>]> {
  let summary = summaryText;
  let description = descriptionText;
  let arguments = (ins MPT_FloatTensor:$param, MPT_FloatTensor:$grad,
                       MPT_FloatTensor:$exp_avg, MPT_FloatTensor:$exp_avg_sq,
                       MPT_StepScalar:$step,
                       Optional<MPT_F32Scalar>:$scheduled_lr,
                       F32Attr:$lr,
                       DefaultValuedAttr<F32Attr, "0.9f">:$beta1,
                       DefaultValuedAttr<F32Attr, "0.999f">:$beta2,
                       DefaultValuedAttr<F32Attr, "1.0e-8f">:$epsilon,
                       DefaultValuedAttr<F32Attr, defaultWeightDecay>:$weight_decay);
  let results = (outs MPT_FloatTensor:$updated_param, MPT_FloatTensor:$updated_exp_avg,
                      MPT_FloatTensor:$updated_exp_avg_sq, MPT_StepScalar:$updated_step);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` $step
    (`scheduled_lr` `(` $scheduled_lr^ `)`)? attr-dict `:` type($param) `,` type($step)
  }];
  let hasVerifier = 1;
}

def MPT_AdamOp : MPT_AdamBase<"adam", "0.0f", "Adam with bias correction", [{
    PyTorch's `torch.optim.Adam` (no amsgrad) for one parameter. `step` counts completed
    updates; the update uses `t = step + 1` and returns it:
    ```
    g = grad + weight_decay * param
    m' = beta1 * m + (1 - beta1) * g
    v' = beta2 * v + (1 - beta2) * g^2
    param' = param - lr * (m' / (1 - beta1^t)) / (sqrt(v' / (1 - beta2^t)) + epsilon)
    ```
    A `scheduled_lr` operand (from `mpt.lr_schedule`) replaces `lr`, which then only records
    the schedule's base learning rate.

    ```mlir
    %w2, %m2, %v2, %t2 = mpt.adam %w, %dw, %m, %v, %t {lr = 1.0e-3 : f32}
        : tensor<128x128xf32>, tensor<i64>
    ```
  }]>;

def MPT_AdamWOp : MPT_AdamBase<"adamw", "0.01f", "AdamW: Adam with decoupled weight decay", [{
    PyTorch's `torch.optim.AdamW` for one parameter: as `mpt.adam`, but the weight decay is
    applied to the parameter directly (`param *= 1 - lr * weight_decay`) instead of being added
    to the gradient. The default weight decay is 0.01.
  }]>;

def MPT_RMSpropOp : MPT_ComputeOp<"rmsprop", MPT_FP32Class, [
    DeclareOpInterfaceMethods<OptimizerOpInterface, ["getOptimizerStateNames"]>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>, AttrSizedOperandSegments,
    TypesMatchWith<"grad has the type of param", "param", "grad", "$_self">,
    TypesMatchWith<"square_avg has the type of param", "param", "square_avg", "$_self">,
    OptionalTypesMatchWith<"momentum_buffer has the type of param", "param",
                           "momentum_buffer", "$_self">,
    OptionalTypesMatchWith<"grad_avg has the type of param", "param", "grad_avg",
                           "$_self">]> {
  let summary = "RMSprop with momentum, centering and weight decay";
  let description = [{
    PyTorch's `torch.optim.RMSprop` for one parameter:
    ```
    g = grad + weight_decay * param
    v' = alpha * v + (1 - alpha) * g^2                  (v: square_avg)
    a' = alpha * a + (1 - alpha) * g                    (a: grad_avg, when centered)
    d = (centered ? sqrt(v' - a'^2) : sqrt(v')) + epsilon
    buf' = momentum * buf + g / d                       (when momentum != 0)
    param' = param - lr * (momentum != 0 ? buf' : g / d)
    ```
    The momentum buffer is an operand exactly when `momentum` is non-zero and the gradient
    average exactly when `centered` is set; the updated state follows the updated parameter in
    operand order. All state starts as the zero tensor. A `scheduled_lr` operand (from
    `mpt.lr_schedule`) replaces `lr`, which then only records the schedule's base learning rate.

    ```mlir
    %w2, %v2, %b2 = mpt.rmsprop %w, %dw, %v momentum_buffer(%b) {momentum = 9.0e-1 : f32}
        : tensor<784x256xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$param, MPT_FloatTensor:$grad,
                       MPT_FloatTensor:$square_avg,
                       Optional<MPT_FloatTensor>:$momentum_buffer,
                       Optional<MPT_FloatTensor>:$grad_avg,
                       Optional<MPT_F32Scalar>:$scheduled_lr,
                       DefaultValuedAttr<F32Attr, "0.01f">:$lr,
                       DefaultValuedAttr<F32Attr, "0.99f">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0e-8f">:$epsilon,
                       DefaultValuedAttr<F32Attr, "0.0f">:$weight_decay,
                       DefaultValuedAttr<F32Attr, "0.0f">:$momentum,
                       UnitAttr:$centered);
  let results = (outs MPT_FloatTensor:$updated_param,
                      Variadic<MPT_FloatTensor>:$updated_state);
  let assemblyFormat = [{
    $param `,` $grad `,` $square_avg (`momentum_buffer` `(` $momentum_buffer^ `)`)?
    (`grad_avg` `(` $grad_avg^ `)`)? (`scheduled_lr` `(` $scheduled_lr^ `)`)? attr-dict `:`
    type($param)
  }];
  let hasVerifier = 1;
}

def MPT_AdagradOp : MPT_ComputeOp<"adagrad", MPT_FP32Class, [
    DeclareOpInterfaceMethods<OptimizerOpInterface, ["getOptimizerStateNames"]>,
    AllTypesMatch<["param", "grad", "sum", "updated_param", "updated_sum"]>,
    AllTypesMatch<["step", "updated_step"]>]> {
  let summary = "Adagrad with learning-rate decay and weight decay";
  let description = [{
    PyTorch's `torch.optim.Adagrad` for one parameter. `step` counts completed updates; the
    update uses `t = step + 1` and returns it:
    ```
    g = grad + weight_decay * param
    sum' = sum + g^2
    param' = param - lr / (1 + (t - 1) * lr_decay) * g / (sqrt(sum') + epsilon)
    ```
    `sum` starts at PyTorch's `initial_accumulator_value` (the `mpt.init` of its state). A
    `scheduled_lr` operand (from `mpt.lr_schedule`) replaces `lr`, which then only records the
    schedule's base learning rate.

    ```mlir
    %w2, %s2, %t2 = mpt.adagrad %w, %dw, %s, %t {lr_decay = 1.0e-2 : f32}
        : tensor<128x128xf32>, tensor<i64>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$param, MPT_FloatTensor:$grad,
                       MPT_FloatTensor:$sum, MPT_StepScalar:$step,
                       Optional<MPT_F32Scalar>:$scheduled_lr,
                       DefaultValuedAttr<F32Attr, "0.01f">:$lr,
                       DefaultValuedAttr<F32Attr, "0.0f">:$lr_decay,
                       DefaultValuedAttr<F32Attr, "0.0f">:$weight_decay,
                       DefaultValuedAttr<F32Attr, "1.0e-10f">:$epsilon);
  let results = (outs MPT_FloatTensor:$updated_param, MPT_FloatTensor:$updated_sum,
                      MPT_StepScalar:$updated_step);
  let assemblyFormat = [{
    $param `,` $grad `,` $sum `,` $step (`scheduled_lr` `(` $scheduled_lr^ `)`)? attr-dict `:`
    type($param) `,` type($step)
  }];
  let hasVerifier = 1;
}

def MPT_AdadeltaOp : MPT_ComputeOp<"adadelta", MPT_FP32Class, [
    DeclareOpInterfaceMethods<OptimizerOpInterface, ["getOptimizerStateNames"]>,
    AllTypesMatch<["param", "grad", "square_avg", "acc_delta", "updated_param",
                   "updated_square_avg", "updated_acc_delta"]>]> {
  let summary = "Adadelta with weight decay";
  let description = [{
    PyTorch's `torch.optim.Adadelta` for one parameter:
    ```
    g = grad + weight_decay * param
    v' = rho * v + (1 - rho) * g^2                                  (v: square_avg)
    delta = sqrt(u + epsilon) / sqrt(v' + epsilon) * g              (u: acc_delta)
    u' = rho * u + (1 - rho) * delta^2
    param' = param - lr * delta
    ```
    A `scheduled_lr` operand (from `mpt.lr_schedule`) replaces `lr`, which then only records
    the schedule's base learning rate.

    ```mlir
    %w2, %v2, %u2 = mpt.adadelta %w, %dw, %v, %u {rho = 9.5e-1 : f32} : tensor<128x128xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$param, MPT_FloatTensor:$grad,
                       MPT_FloatTensor:$square_avg, MPT_FloatTensor:$acc_delta,
                       Optional<MPT_F32Scalar>:$scheduled_lr,
                       DefaultValuedAttr<F32Attr, "1.0f">:$lr,
                       DefaultValuedAttr<F32Attr, "0.9f">:$rho,
                       DefaultValuedAttr<F32Attr, "1.0e-6f">:$epsilon,
                       DefaultValuedAttr<F32Attr, "0.0f">:$weight_decay);
  let results = (outs MPT_FloatTensor:$updated_param,
                      MPT_FloatTensor:$updated_square_avg,
                      MPT_FloatTensor:$updated_acc_delta);
  let assemblyFormat = [{
    $param `,` $grad `,` $square_avg `,` $acc_delta (`scheduled_lr` `(` $scheduled_lr^ `)`)?
    attr-dict `:` type($param)
  }];
  let hasVerifier = 1;
}

def MPT_LRScheduleOp : MPT_ComputeOp<"lr_schedule", MPT_FP32Class, [
    AllTypesMatch<["step", "updated_step"]>]> {
  let summary = "the learning rate of a schedule at the step count, and the next count";
  let description = [{
    The learning rate a schedule gives `base_lr` after `step` applied updates (PyTorch's
    scheduler `last_epoch`), computed in f64 and rounded to f32 once, and `step + 1`.
    `schedule` is the dictionary of `mpt.optimizer`'s `lr_schedule` (`kind` and its fields):
    - `constant`: `base_lr`;
    - `step` (`step_size`, `gamma` = 0.1), PyTorch's StepLR:
      `base_lr * gamma^floor(step / step_size)`;
    - `warmup_cosine` (`warmup_steps`, `total_steps`, `start_factor` = 1/3, `min_lr` = 0),
      PyTorch's SequentialLR of LinearLR(`start_factor`, 1, `warmup_steps`) and
      CosineAnnealingLR(`total_steps - warmup_steps`, `min_lr`) in closed form: before
      `warmup_steps`, `base_lr * (start_factor + (1 - start_factor) * step / warmup_steps)`;
      then `min_lr + (base_lr - min_lr) * (1 + cos(pi * u / T)) / 2` with
      `u = min(step, total_steps) - warmup_steps` and `T = total_steps - warmup_steps`, so the
      rate stays `min_lr` after `total_steps` (PyTorch's cosine would rise again);
    - `table` (`values`): `values[min(step, size - 1)]`, absolute rates; `base_lr` is unused.

    ```mlir
    %lr, %t2 = mpt.lr_schedule %t {base_lr = 1.0e-1 : f64,
                                   schedule = {kind = "step", step_size = 30, gamma = 0.1}}
        : tensor<i64>
    ```
  }];
  let arguments = (ins MPT_StepScalar:$step, F64Attr:$base_lr, DictionaryAttr:$schedule);
  let results = (outs MPT_F32Scalar:$lr, MPT_StepScalar:$updated_step);
  let assemblyFormat = "$step attr-dict `:` type($step)";
  let hasVerifier = 1;
}

def MPT_ClipGradNormOp : MPT_ComputeOp<"clip_grad_norm", MPT_FP32Class,
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "scales gradients so that their global L2 norm is at most max_norm";
  let description = [{
    PyTorch's `clip_grad_norm_`: with `norm` the L2 norm of all `grads` together, every gradient
    is multiplied by `min(1, max_norm / (norm + 1e-6))`. Returns the clipped gradients, in
    order, followed by `norm`.

    ```mlir
    %g1c, %g2c, %norm = mpt.clip_grad_norm %g1, %g2 {max_norm = 1.0 : f32}
        : tensor<784x256xf32>, tensor<256xf32>
    ```
  }];
  let arguments = (ins Variadic<MPT_FloatTensor>:$grads, F32Attr:$max_norm);
  let results = (outs Variadic<MPT_FloatTensor>:$clipped, MPT_F32Scalar:$norm);
  let assemblyFormat = "$grads attr-dict `:` type($grads)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

def MPT_UnscaleOp : MPT_ComputeOp<"unscale", MPT_FP32Class, [], MPT_NoPrecisionOperands> {
  let summary = "divides a scaled gradient by the loss scale, in f32";
  let description = [{
    `result = f32(grad) * (1 / scale)`: the gradient of the unscaled loss, computed in f32
    whatever the gradient's own type, so that small gradients that survived in f16 thanks to the
    scale keep their value.

    ```mlir
    %g = mpt.unscale %dw, %scale : tensor<784x256xf16> -> tensor<784x256xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$grad, MPT_F32Scalar:$scale);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $scale attr-dict `:` type($grad) `->` type($result)";
  let hasVerifier = 1;
}

def MPT_I1Scalar : 0DTensorOf<[I1]> {
  let builderCall = "::mlir::RankedTensorType::get({}, $_builder.getI1Type())";
}

def MPT_AllFiniteOp : MPT_ComputeOp<"all_finite", MPT_FP32Class, [], MPT_NoPrecisionOperands> {
  let summary = "whether every element of every operand is finite (no inf, no nan)";
  let description = [{
    One fused check over all gradients of a step. The result stays on the device and
    predicates every state update, so a skipped step needs no host round trip.

    ```mlir
    %ok = mpt.all_finite %g1, %g2 : tensor<784x256xf32>, tensor<256xf32>
    ```
  }];
  let arguments = (ins Variadic<MPT_FloatTensor>:$inputs);
  let results = (outs MPT_I1Scalar:$result);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def MPT_I64Scalar : 0DTensorOf<[I64]> {
  let builderCall = "::mlir::RankedTensorType::get({}, $_builder.getIntegerType(64))";
}

def MPT_GradientStatsOp : MPT_ComputeOp<"gradient_stats", MPT_FP32Class, [],
                                        MPT_NoPrecisionOperands> {
  let summary = "counts gradient elements that are zero and that are not finite";
  let description = [{
    Over all `inputs` (the step's gradients): the number of elements that are exactly zero
    (underflowed, or truly zero) and the number that are inf or nan (overflowed). Unscaling
    preserves both, so the unscaled gradients give the counts of the f16 ones. Reported per
    step, they show what the loss scale is fighting.

    ```mlir
    %zeros, %nonfinite = mpt.gradient_stats %dw1, %db1 : tensor<784x256xf16>, tensor<256xf32>
    ```
  }];
  let arguments = (ins Variadic<MPT_FloatTensor>:$inputs);
  let results = (outs MPT_I64Scalar:$zeros, MPT_I64Scalar:$nonfinite);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

// An attribute whose default is the named constant of
// mpt/Contract/LossScaleDefaults.h.
class MPT_LossScaleDefault<Attr attr, string name>
    : DefaultValuedAttr<attr, "::mpt::loss_scale_defaults::" # name>;

def MPT_UpdateLossScaleOp : MPT_ComputeOp<"update_loss_scale", MPT_FP32Class, [
    AllTypesMatch<["scale", "updated_scale"]>,
    AllTypesMatch<["growth_tracker", "updated_growth_tracker"]>]> {
  let summary = "the dynamic loss-scale rule of PyTorch's GradScaler";
  let description = [{
    When `finite` is false: `scale *= backoff_factor`, `growth_tracker = 0`. Otherwise
    `growth_tracker += 1`, and when it reaches `growth_interval`: `scale *= growth_factor`,
    `growth_tracker = 0`. The new scale is clamped to [`min_scale`, `max_scale`], so it never
    becomes inf or 0.

    ```mlir
    %s2, %n2 = mpt.update_loss_scale %s, %n, %ok {growth_interval = 100 : i64}
        : tensor<i64>
    ```
  }];
  let arguments = (ins MPT_F32Scalar:$scale, MPT_StepScalar:$growth_tracker,
                       MPT_I1Scalar:$finite,
                       MPT_LossScaleDefault<F32Attr, "kGrowthFactor">:$growth_factor,
                       MPT_LossScaleDefault<F32Attr, "kBackoffFactor">:$backoff_factor,
                       MPT_LossScaleDefault<I64Attr, "kGrowthInterval">:$growth_interval,
                       MPT_LossScaleDefault<F32Attr, "kMinScale">:$min_scale,
                       MPT_LossScaleDefault<F32Attr, "kMaxScale">:$max_scale);
  let results = (outs MPT_F32Scalar:$updated_scale, MPT_StepScalar:$updated_growth_tracker);
  let assemblyFormat = [{
    $scale `,` $growth_tracker `,` $finite attr-dict `:` type($growth_tracker)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data parallelism
//===----------------------------------------------------------------------===//

// What every rank's communicator is: a collective reads and writes it, so two
// collectives keep their order and neither is erased or merged.
def MPT_Communicator : Resource<"::mpt::CommunicatorResource">;

// Each tensor keeps the type it was given, never cast to the bucket's: mpt-data-parallel
// widens the gradients it sums in f32 itself.
def MPT_AllReduceOp : MPT_ComputeOp<"all_reduce", MPT_FollowClass, [
    MemoryEffects<[MemRead<MPT_Communicator>, MemWrite<MPT_Communicator>]>,
    DeclareOpInterfaceMethods<ScaleEquivariantOpInterface, ["isScaleEquivariantIn"]>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>], MPT_NoPrecisionOperands> {
  let summary = "combines tensors element by element across the data-parallel ranks";
  let description = [{
    Every rank passes the same number of tensors, of the same types, in the same order; result
    `i` is operand `i` combined over all ranks (`sum` or `max`), the same on every rank. One op
    is one bucket: its operands travel together. Each tensor is reduced in its own type: an
    f16 sum is rounded to f16 as it goes, so a sum that leaves f16's range is inf on every rank.

    The op reads and writes the communicator: it is never erased, merged with another or moved
    past another collective, so every rank issues the same collectives in the same order.
    Scaling every operand by one positive factor scales every result by it (for `sum` and
    `max`), so loss scaling unscales after the reduction and its finite check sees the reduced
    gradients. `mpt-data-parallel` inserts it; a hand-written step may use it too.

    ```mlir
    %dw, %db = mpt.all_reduce sum %dw_local, %db_local : tensor<784x256xf16>, tensor<256xf32>
    ```
  }];
  let arguments = (ins Variadic<MPT_FloatTensor>:$inputs, MPT_ReduceKind:$kind);
  let results = (outs Variadic<MPT_FloatTensor>:$results);
  let assemblyFormat = "$kind $inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

def MPT_DropoutOp : MPT_ComputeOp<"dropout", MPT_FollowClass, [
    AllTypesMatch<["input", "result"]>, ScaleEquivariantOpInterface, MPT_Differentiable]> {
  let summary = "zeroes each element with probability p and scales the others by 1/(1-p)";
  let description = [{
    `result[i] = keep(i) ? round(f32(input[i]) * (1.0f / f32(1 - p))) : 0`, the scale computed
    in f32 as PyTorch's dropout computes it and the product rounded once to the element type.

    The mask is a function of the element's row-major index `i` and of the step's random state
    alone, never of a thread schedule: with `mix` the splitmix64 finalizer and
    `g = 0x9E3779B97F4A7C15` (arithmetic modulo 2^64),
    `key = mix(mix(seed + g * (stream + 1)) + g * (counter + 1))`, `u(i) = mix(key + g * (i + 1))`
    (splitmix64's output `i` from state `key`), and `keep(i) = u(i) >= floor(p * 2^64)`,
    unsigned. `counter` is the step's dropout counter, a piece of step state that advances by
    one per applied step (a skipped step leaves it, like all state); `stream` tells the
    dropouts of one step apart and `seed` the runs.

    A forward-only step leaves `counter` out: `mpt-autodiff` adds the counter as state and
    numbers the dropouts' streams. The gradient is the same op on the incoming gradient (same
    counter, seed and stream, hence the same mask), so no mask is saved for the backward.

    ```mlir
    %y = mpt.dropout %x, %counter {p = 1.0e-01 : f64, stream = 0 : i64} : tensor<64x256xf16>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, Optional<MPT_I64Scalar>:$counter, F64Attr:$p,
                       DefaultValuedAttr<I64Attr, "0">:$seed,
                       DefaultValuedAttr<I64Attr, "0">:$stream);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input (`,` $counter^)? attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Activation recomputation
//===----------------------------------------------------------------------===//

// What the recomputed ops read: a barrier reads and writes it, so no two
// barriers merge and none is erased.
def MPT_RecomputeInputs : Resource<"::mpt::RecomputeInputsResource">;

def MPT_RecomputeBarrierOp : MPT_Op<"recompute_barrier", [
    AllTypesMatch<["input", "result"]>,
    MemoryEffects<[MemRead<MPT_RecomputeInputs>, MemWrite<MPT_RecomputeInputs>]>]> {
  let summary = "the value a recomputed forward op reads, kept apart from the forward's";
  let description = [{
    `result` is `input`. `mpt-recompute` passes every value a recomputed segment of the forward
    reads through one, so that CSE and canonicalization, which would merge each recomputed op
    with the forward op it copies (same operands, same attributes), see different operands: the
    copies stay, and the forward's activations are freed after the forward. Bufferization
    gives the result the input's buffer; no copy is made.

    ```mlir
    %kept = mpt.recompute_barrier %block_input : tensor<256x64xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

#endif // MPT_DIALECT_MPT_IR_MPTOPS_TD
