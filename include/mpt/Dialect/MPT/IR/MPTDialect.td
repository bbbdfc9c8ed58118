//===- MPTDialect.td - mpt dialect definition -------------*- tablegen -*-===//
//
// The mpt dialect: FP32 training steps (forward, backward, optimizer update) on tensors, and the
// ops the mixed-precision rewrite introduces.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_DIALECT_MPT_IR_MPTDIALECT_TD
#define MPT_DIALECT_MPT_IR_MPTDIALECT_TD

include "mlir/IR/OpBase.td"

def MPT_Dialect : Dialect {
  let name = "mpt";
  let cppNamespace = "::mpt";
  let summary = "Training-step ops for the mpt mixed-precision compiler";
  let description = [{
    The mpt dialect expresses one training step of a neural network as a `func.func` on tensors:
    the forward pass, the backward pass written out op by op (seeded by `mpt.loss_grad`), and the
    optimizer update. Every compute op reports the precision it should run in under mixed
    precision through `PrecisionPolicyOpInterface`.

    Functions marked `mpt.train_step` follow the training-step conventions: every argument is
    `mpt.param`, `mpt.state` or `mpt.data`; every result is either `mpt.next = i` (the value of
    argument `i` in the next step) or `mpt.metric = "name"`. A state argument may carry its
    initial value (`mpt.init = dense<...>`, zeros otherwise), and a state argument that holds
    the low-precision working copy of parameter `i` says so with `mpt.working_copy_of = i`.

    A training step may also be written forward-only: without a backward pass and optimizer
    ops, with the optimizer given as `mpt.optimizer = {kind = "adamw", lr = 1.0e-3 : f32, ...}`
    on the function (per-parameter overrides as the same attribute on a parameter argument) and
    optionally `mpt.clip_grad_norm = <max norm>`. `mpt-autodiff` turns it into the form above.

    A function marked `mpt.eval_step` is a forward-only pass (evaluation) over the state of the
    module's training step: each argument is `{mpt.data}` or `{mpt.state_of = i}`, the current
    value of argument `i` of the training step.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();

    // Discardable attribute names of the training-step conventions.
    static constexpr ::llvm::StringLiteral kTrainStepAttrName = "mpt.train_step";
    // A forward-only function (evaluation) over the state of the training step.
    static constexpr ::llvm::StringLiteral kEvalStepAttrName = "mpt.eval_step";
    // On an eval_step argument: it takes argument <i> of the training step.
    static constexpr ::llvm::StringLiteral kStateOfAttrName = "mpt.state_of";
    static constexpr ::llvm::StringLiteral kParamAttrName = "mpt.param";
    static constexpr ::llvm::StringLiteral kStateAttrName = "mpt.state";
    static constexpr ::llvm::StringLiteral kDataAttrName = "mpt.data";
    static constexpr ::llvm::StringLiteral kNextAttrName = "mpt.next";
    static constexpr ::llvm::StringLiteral kMetricAttrName = "mpt.metric";
    // Initial value of a state argument (zeros when absent).
    static constexpr ::llvm::StringLiteral kInitAttrName = "mpt.init";
    // Marks a state argument as the low-precision copy of a parameter.
    static constexpr ::llvm::StringLiteral kWorkingCopyOfAttrName =
        "mpt.working_copy_of";
    // A forward-only training step: the optimizer mpt-autodiff appends, as a
    // dictionary {kind = "sgd" | "adam" | "adamw" | "rmsprop" | "adagrad" |
    // "adadelta", <op attributes>}; on a parameter argument, the entries that
    // override the function's for it.
    static constexpr ::llvm::StringLiteral kOptimizerAttrName = "mpt.optimizer";
    // On a forward-only training step: clip the global gradient norm to this.
    static constexpr ::llvm::StringLiteral kClipGradNormAttrName =
        "mpt.clip_grad_norm";
    // Pins one op to a precision class, overriding its policy.
    static constexpr ::llvm::StringLiteral kPrecisionAttrName = "mpt.precision";
    // On a module: the training step's signature as JSON (mpt-export-signature).
    static constexpr ::llvm::StringLiteral kSignatureAttrName = "mpt.signature";
    // On a training step from mpt-carry-state-in-place to
    // mpt-drop-carried-results (an array of i64, one per result): the
    // argument each result is written into, or -1.
    static constexpr ::llvm::StringLiteral kCarriedInPlaceAttrName =
        "mpt.carried_in_place";
    // On a forward op: with mpt-recompute's policy=marked, a segment ends
    // after it (its results are kept, the segment's other activations
    // recomputed in the backward).
    static constexpr ::llvm::StringLiteral kSegmentEndAttrName =
        "mpt.segment_end";
  }];
}

class MPT_Op<string mnemonic, list<Trait> traits = []>
    : Op<MPT_Dialect, mnemonic, traits>;

#endif // MPT_DIALECT_MPT_IR_MPTDIALECT_TD
