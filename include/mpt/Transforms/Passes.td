//===- Passes.td - mixed-precision passes -----------------*- tablegen -*-===//

#ifndef MPT_TRANSFORMS_PASSES_TD
#define MPT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MPTAutocast : Pass<"mpt-autocast", "::mlir::func::FuncOp"> {
  let summary = "Runs every op in the precision its policy asks for, inserting casts";
  let description = [{
    Paints the whole function in one forward sweep, like TensorFlow's automatic mixed
    precision: `lower` ops (matmul, conv) run in the compute type; `fp32` ops (losses,
    softmax, reductions, optimizers, transcendentals) get f32 inputs; `promote` ops run in the
    widest of their input types; `follow` ops run in the compute type as soon as one of their
    inputs is in it, so chains of elementwise ops between matmuls stay low precision.

    Casts (`arith.truncf` / `arith.extf`) go right after the value they convert, each value is
    cast at most once per target type, and an f32 op that needs back a value that was
    truncated from f32 reads the original f32 value: nothing is cast back and forth. Values
    that reach ops without a policy (`func.return`, tensor ops) keep their original type, so
    the function signature does not change.

    The `mpt.precision = #mpt.precision<...>` attribute pins one op; the `*-ops` options move
    op names (e.g. `mpt.gelu`) to another class for the whole run. With `compute-type=f32` the
    pass changes nothing.
  }];
  let options = [
    Option<"computeType", "compute-type", "::mpt::ComputeType",
           /*default=*/"::mpt::ComputeType::F16",
           "Low-precision compute type: f16, bf16, or f32 (no change)",
           "::mpt::computeTypeValues()">,
    ListOption<"lowerOps", "lower-ops", "std::string",
               "Op names to run in the compute type">,
    ListOption<"fp32Ops", "fp32-ops", "std::string", "Op names to run in f32">,
    ListOption<"promoteOps", "promote-ops", "std::string",
               "Op names to run in the widest input type">,
    ListOption<"followOps", "follow-ops", "std::string",
               "Op names that follow the precision of their inputs">,
  ];
  // The option lists name ops of these dialects, which must be loaded to be found.
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mpt::MPTDialect"];
}

def MPTMasterWeights : Pass<"mpt-master-weights", "::mlir::ModuleOp"> {
  let summary = "Keeps f32 master parameters and optimizer state, with one working copy";
  let description = [{
    On functions marked `mpt.train_step`: every parameter and its optimizer state become f32
    (promoting low-precision arguments and the results that carry them), the optimizer
    updates the f32 master from an f32 gradient, and the forward and backward passes read one
    low-precision working copy per parameter per step.

    With `persistent-working-copy`, the working copy becomes a state argument of its own
    (`mpt.working_copy_of = <master index>`), produced by truncating the updated master right
    after the update, so the next step reads it without converting the master again.

    The pass runs on the module because an `mpt.eval_step` argument that reads a promoted
    argument (`mpt.state_of`) is promoted with it, converting at the evaluation step's entry.
  }];
  let options = [
    Option<"persistentWorkingCopy", "persistent-working-copy", "bool", /*default=*/"false",
           "Carry the low-precision working copy as state instead of recomputing it">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def MPTNormStatsFP32 : Pass<"mpt-norm-stats-fp32", "::mlir::ModuleOp"> {
  let summary = "Computes and stores normalization statistics in f32";
  let description = [{
    Batch-norm and layer-norm statistics (gamma and beta, batch mean and inverse standard
    deviation, running mean and variance) become f32, including the state arguments that hold
    running statistics and the results that carry them. The normalized output keeps the
    activation type. Runs on the module: `mpt.eval_step` arguments that read a promoted
    running statistic are promoted with it.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def MPTLossScaling : Pass<"mpt-loss-scaling", "::mlir::func::FuncOp"> {
  let summary = "Scales the loss, unscales gradients, and skips non-finite steps";
  let description = [{
    On functions marked `mpt.train_step`:
    - the backward seed `mpt.loss_grad` becomes the loss scale S, a state argument;
    - every gradient is unscaled (`mpt.unscale`, x1/S in f32) where it leaves the scaled
      backward slice. A value is scaled when it depends on the seed through ops that are
      scale-equivariant in it (`ScaleEquivariantOpInterface`: `*_grad` ops in their incoming
      gradient, matmul and convolution in one factor, sums of scaled values, shape ops and
      casts); any other reader (an add of an unscaled value such as hand-written weight decay
      or an accumulation buffer, a comparison or clamp, an optimizer, clipping, an op inside
      a region, a return) reads the unscaled value, so nothing outside the slice sees S;
    - one `mpt.all_finite` covers every unscaled gradient;
    - every carried state result becomes `select(finite, updated, previous)`, so a skipped step
      leaves all state bit-identical;
    - in dynamic mode `mpt.update_loss_scale` applies GradScaler's rule to S and its growth
      tracker (both state); static mode keeps S fixed but still skips non-finite steps;
    - metrics `loss_scale` (S used by the step), `skipped`, and `grad_zero` / `grad_nonfinite`
      (gradient elements, as produced before unscaling, that are zero or inf/nan) are added.

    `mode=auto` picks dynamic for f16 graphs and none for bf16 and f32 ones, and for any graph
    with `compute-type=f32` (no autocast, nothing low-precision to protect). Loss scaling with
    bf16 works but warns: bf16 has f32's range and does not need it.
  }];
  let options = [
    Option<"mode", "mode", "::mpt::LossScaleMode",
           /*default=*/"::mpt::LossScaleMode::Auto", "How to scale the loss",
           "::mpt::lossScaleModeValues()">,
    Option<"computeType", "compute-type", "::mpt::ComputeType",
           /*default=*/"::mpt::ComputeType::F16",
           "The type mpt-autocast ran the step in: with f32, mode=auto scales nothing",
           "::mpt::computeTypeValues()">,
    Option<"initScale", "init-scale", "double",
           /*default=*/"::mpt::loss_scale_defaults::kInitScale",
           "Initial loss scale, in [min-scale, max-scale]">,
    Option<"growthFactor", "growth-factor", "double",
           /*default=*/"::mpt::loss_scale_defaults::kGrowthFactor",
           "Scale multiplier after growth-interval finite steps">,
    Option<"backoffFactor", "backoff-factor", "double",
           /*default=*/"::mpt::loss_scale_defaults::kBackoffFactor",
           "Scale multiplier after a non-finite step">,
    Option<"growthInterval", "growth-interval", "int64_t",
           /*default=*/"::mpt::loss_scale_defaults::kGrowthInterval",
           "Finite steps before the scale grows">,
    Option<"minScale", "min-scale", "double",
           /*default=*/"::mpt::loss_scale_defaults::kMinScale",
           "Lower bound of the scale">,
    Option<"maxScale", "max-scale", "double",
           /*default=*/"::mpt::loss_scale_defaults::kMaxScale",
           "Upper bound of the scale, at most the largest finite f32">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"];
}

def MPTDataParallel : Pass<"mpt-data-parallel", "::mlir::func::FuncOp"> {
  let summary = "Sums every parameter gradient across the data-parallel ranks";
  let description = [{
    On functions marked `mpt.train_step` whose backward pass exists (after `mpt-autodiff`, and
    in `mpt-mixed-precision` after `mpt-autocast` and `mpt-master-weights`, so the gradients
    have their final types, and before `mpt-loss-scaling`):
    - the backward seed `mpt.loss_grad` gets `world_size = N`, so each rank's gradients are
      1/N of its own and the collective is a plain sum: the mean over the ranks, which cannot
      overflow where the mean itself would not;
    - the gradients the optimizers read (traced back through casts and clipping, as
      `mpt-loss-scaling` finds them) are grouped, in the order the backward produces them
      (the order PyTorch DDP approximates by reversing the parameters), into buckets of at
      least `bucket-bytes` (DDP's 25 MiB by default; the last bucket holds the rest);
    - one `mpt.all_reduce sum` per bucket goes right after the last producer of its
      gradients, so the reduction of one bucket can overlap the rest of the backward; every
      reader after it reads the sum.

    `reduce-type=auto` reduces bf16 gradients in f32 (Megatron's `grad_reduce_in_fp32`: bf16
    keeps 8 significant bits, and a sum over many ranks loses the small gradients) and every
    other gradient in its own type: f16 gradients stay f16, half the bytes, as PyTorch DDP's
    fp16 compression hook, because loss scaling already keeps them in f16's range, the 1/N
    seed keeps the sum there, and `mpt-loss-scaling` checks the reduced gradients, so a sum
    that still overflows is caught and the step skipped on every rank. `compute` and `f32`
    force either.

    `mpt-loss-scaling` then unscales after the sums (`mpt.all_reduce` is scale-equivariant),
    and reduces its finite flag with `max` in the same step, so every rank skips or applies
    the step together without a host round trip. Batch-norm running statistics are not
    reduced: each rank keeps its own, as PyTorch DDP does by default.

    The world size is an option because the runtime compiles the step in each process after
    its communicator is up, when the size is known; a step compiled for N ranks is wrong on
    any other number.
  }];
  let options = [
    Option<"worldSize", "world-size", "int64_t", /*default=*/"1",
           "Number of data-parallel ranks (processes) that sum their gradients">,
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"::mpt::kDefaultGradientBucketBytes",
           "Bytes of gradients at which a bucket is closed and all-reduced">,
    Option<"reduceType", "reduce-type", "::mpt::GradientReduceType",
           /*default=*/"::mpt::GradientReduceType::Auto",
           "Type the gradients are summed in", "::mpt::gradientReduceTypeValues()">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mpt::MPTDialect"];
}

def MPTAccumulateGradients : Pass<"mpt-accumulate-gradients", "::mlir::func::FuncOp"> {
  let summary = "Accumulates the gradients of several micro-batches per optimizer step";
  let description = [{
    On a function marked `mpt.train_step` written for one micro-batch of `m` rows, with
    `micro-batches = K`: every data argument (`mpt.data`) takes `K*m` rows, and the
    per-micro-batch computation runs in one `scf.for` over `K`, on rows `[k*m, (k+1)*m)` of
    every data argument (`tensor.extract_slice`), so that the optimizers, the loss scaler and
    the data-parallel sum run once per step on the gradient of the mean over the `K*m` rows:

    - the gradients are cut where they leave the backward pass: at the operands of the
      `mpt.all_reduce sum` ops when the step is data parallel, else where they leave the
      backward seed's scale-equivariant slice (the operands of `mpt.unscale` with loss
      scaling; otherwise the values the optimizers, clipping or hand-written weight decay
      read);
    - the loop's body is every op those gradients depend on that depends on a data
      argument; the rest (parameters' working copies, the loss scale) is computed once
      before the loop;
    - each micro-batch's gradients are summed in f32 loop-carried tensors that start at zero,
      and the sums replace the gradients after the loop (rounded back to the gradient's type
      where it was f16 or bf16), so the all-reduce, unscaling, finite check, skipped-step
      selects and updates run once, and a skipped step discards all `K` micro-batches;
    - the backward seed gets `micro_batches = K` (divided by K), so the sum of the
      micro-batches' gradients, each of a mean over `m` rows, is that of the mean over `K*m`;
    - the loss becomes the mean of the micro-batches' losses (summed in f32);
    - carried state the body updates (batch-norm running statistics) is loop-carried, so it
      is updated once per micro-batch, as PyTorch does when it accumulates.

    A value computed per micro-batch that is read after the loop and is none of these (a
    metric other than the loss), or a data argument read outside the loop, is an error.
    `micro-batches = 1` leaves the step unchanged; a seed that already has `micro_batches`
    is left alone. Run last in `mpt-mixed-precision`, after `mpt-loss-scaling` and
    `mpt-cast-cleanup`, so that everything the other passes add after the gradients stays
    out of the loop.
  }];
  let options = [
    Option<"microBatches", "micro-batches", "int64_t", /*default=*/"1",
           "Micro-batches (loop iterations) per optimizer step, at least 1">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect", "::mpt::MPTDialect"];
}

def MPTCastCleanup : Pass<"mpt-cast-cleanup", "::mlir::func::FuncOp"> {
  let summary = "Folds round-trip casts, merges duplicates, and hoists casts to their source";
  let description = [{
    Folds `truncf(extf(x))` back to `x` and `extf(extf(x))` to one `extf` (both exact), moves
    every cast right after the value it converts, and merges casts of the same value to the
    same type so that each value is converted once per step. `extf(truncf(x))` is not folded:
    it rounds.
  }];
}

def MPTCheckMixedPrecision : Pass<"mpt-check-mixed-precision", "::mlir::func::FuncOp"> {
  let summary = "Rejects graphs that fall into the classic mixed-precision traps";
  let description = [{
    Errors:
    - a gradient that is still multiplied by the loss scale reaches clipping, an optimizer or
      the function's results, or an op that does not scale with it: a clamp or comparison
      against a threshold, or arithmetic with unscaled values (weight decay or an
      accumulation buffer written by hand). Scaledness is tracked from the scaled seed
      through the whole function, across `scf.if` results and loop-carried values, through
      the ops that are scale-equivariant in it (`ScaleEquivariantOpInterface`);
    - the unscaled seed multiplied or divided by hand (loss scaling without the `scale`
      operand of `mpt.loss_grad`), unless by a factor (divisor) of a product (quotient) the
      loss is computed through: the chain rule of a weighted loss such as `0.5 * CE` or
      `CE + 0.3 * CE_aux`, as `mpt-autodiff` builds it;
    - optimizer state or running statistics in f16/bf16, including carried state that the
      step updates from its previous value by hand in f16/bf16 (also f32 state, as
      `mpt-norm-stats-fp32` promotes a running statistic, whose update is computed in f16/bf16);
    - an optimizer updating a non-f32 parameter (no f32 master).
    Warnings: loss scaling in a bf16 graph; a `lower` op left in f32 in a low-precision graph
    without a pin; the loss multiplied by a constant above 1 right before an unscaled
    `mpt.loss_grad` (loss scaling by hand, or a weighted loss). Remark: a `lower` op pinned to f32.
  }];
}

def MPTWriteLoopCarriedInPlace : Pass<"mpt-write-loop-carried-in-place", "::mlir::func::FuncOp"> {
  let summary = "Makes the linalg ops that compute a loop-carried value write into it";
  let description = [{
    A value an `scf.for` carries from one iteration to the next (a gradient sum or running
    statistics of `mpt-accumulate-gradients`) is computed by an elementwise `linalg.generic`
    whose output operand is a `tensor.empty`, which bufferizes to a new buffer per iteration:
    the loop then yields a buffer that is not its iteration argument's, which one-shot
    bufferization either rejects or, with `allow-return-allocs-from-loops`, frees through
    runtime ownership checks on the host, which the CUDA lowering cannot run. When the
    yielded value is a result of a `linalg.generic` in the loop's body whose output operand
    for it is a `tensor.empty` its payload does not read, the output operand becomes the
    iteration argument, so the op writes the new value over the old one, element by element,
    and the loop yields its argument's buffer. Run right before bufferization.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def MPTUnshareFills : Pass<"mpt-unshare-fills", "::mlir::func::FuncOp"> {
  let summary = "Gives every op that writes into a filled or empty tensor its own";
  let description = [{
    CSE merges the identical zero fills that initialize matmul accumulators and reduction
    results into one `linalg.fill`, whose result several ops then write into. One-shot
    bufferization can write in place into only one of them and copies the filled buffer for
    each of the others. Each use of a `linalg.fill` beyond the first gets its own copy of the
    fill (and of the `tensor.empty` it fills), so that every writer fills its own buffer instead
    of copying a filled one. Likewise every writer into a shared `tensor.empty` gets its own,
    made right before it: bufferized, the shared one is allocated before its first writer and
    reused by the others once dead, so a forward buffer would stay allocated until a backward
    op writes into it again. Run right before bufferization.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def MPTDistinctResults : Pass<"mpt-distinct-results", "::mlir::func::FuncOp"> {
  let summary = "Copies tensors that one return returns more than once";
  let description = [{
    Every repeated operand of a `func.return` (a step counter returned as state and as a
    metric, the loss under two names, or two results that CSE merged) becomes a
    `bufferization.alloc_tensor() copy(...)`, so that every result bufferizes to its own
    buffer. Run before bufferization: `buffer-results-to-out-params` turns each result's
    allocation into the caller's out-parameter and cannot do so for one allocation returned
    twice. Returned arguments and constants are left alone; they are copied into their
    out-parameters.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def MPTCarryStateInPlace : Pass<"mpt-carry-state-in-place", "::mlir::func::FuncOp"> {
  let summary = "Writes every carried result of the training step into its argument";
  let description = [{
    Every result of an `mpt.train_step` marked `mpt.next = i` becomes
    `bufferization.materialize_in_destination %value in %argI`, so that one-shot bufferization
    computes the new state in the buffer of the old one (the optimizer's update reads and
    writes each element in place), and the step is marked `mpt.carried_in_place` for
    `mpt-drop-carried-results`, which then removes those results from the bufferized function.
    The runtime passes one buffer per piece of state, not two swapped after each step, and a
    skipped step has no old value to copy. Every other result of the training step or of the
    `mpt.eval_step` that returns an argument, or a value a carried result also returns, gets its
    own copy, so that only carried results are dropped. Run before `mpt-convert-to-linalg`,
    which strips the `mpt.next` markers.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def MPTDropCarriedResults : Pass<"mpt-drop-carried-results", "::mlir::ModuleOp"> {
  let summary = "Removes the carried results of a bufferized training step";
  let description = [{
    After one-shot bufferization, each result that `mpt-carry-state-in-place` materialized in
    an argument returns that argument's buffer. This pass removes those results from the
    function marked `mpt.carried_in_place` (and from its calls, which read the argument
    instead) and drops the marker, so that `buffer-results-to-out-params` gives out-parameters
    to the other results only. Unlike upstream's `drop-equivalent-buffer-results`, it changes a
    public function, drops exactly the marked results, and fails where one of them was not
    bufferized into its argument.
  }];
}

def MPTFreeAfterLastUse : Pass<"mpt-free-after-last-use", "::mlir::func::FuncOp"> {
  let summary = "Moves each buffer's memref.dealloc to right after its last use";
  let description = [{
    Run after the buffer-deallocation pipeline, which frees each buffer at the end of the
    block that allocated it: a `memref.dealloc` of a `memref.alloc` of its own block moves to
    right after the last op of that block that uses the buffer or any of its aliases
    (`BufferViewFlowAnalysis`: views, casts, values a region carries), counting uses inside the
    op's regions. A training step then frees each activation after the backward op that reads
    it last instead of after the optimizer, and its peak memory is that of the buffers live at
    once (`test/Runtime/step-memory.test`).
  }];
}

def MPTMarkBufferContents : Pass<"mpt-mark-buffer-contents", "::mlir::func::FuncOp"> {
  let summary = "Records in each op's location what its results hold";
  let description = [{
    In a function marked `mpt.train_step`, still in the mpt dialect: each op's location becomes
    a `FusedLoc` with the metadata `"mpt.holds.<kind>"`: `gradients` for the ops that produce
    the gradients optimizers read and the casts, unscaling and clipping on their way,
    `working_copies` for the rounding of a parameter, `activations` for every other op but
    the update side (optimizers, the finite check, the loss scale's update, the skipped-step
    selects). Conversions and bufferization give the ops and buffers they make the location of
    the op they come from, so `mpt-tag-step-allocations` finds the kind on the allocation.
  }];
}

def MPTTagStepAllocations : Pass<"mpt-tag-step-allocations", "::mlir::ModuleOp"> {
  let summary = "Calls the runtime's allocation function for what each buffer holds";
  let description = [{
    On the LLVM dialect, after `finalize-memref-to-llvm` with `use-aligned-alloc`: each call
    of `aligned_alloc` whose location carries `"mpt.holds.<kind>"` (`mpt-mark-buffer-contents`)
    calls `mpt_cpu_step_alloc_<kind>` instead, declared with the same type and a `noalias`
    result. The runtime binds those to its step allocator, which counts the bytes live by
    kind; other allocations stay `aligned_alloc`, counted as workspace.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def MPTRoundDataInCaller : Pass<"mpt-round-data-in-caller", "::mlir::ModuleOp"> {
  let summary = "Gives a step's data inputs the type the step rounds them to";
  let description = [{
    A data input (`mpt.data`) of a training or eval step whose every use is an `arith.truncf`
    to one type (the batch, which autocast rounds to f16 or bf16 before its first GEMM), or a
    `tensor.extract_slice` whose every use is (a micro-batch, `mpt-accumulate-gradients`), takes
    that type, and the step no longer rounds it: its callers do. Each call in the module
    rounds the operand with `arith.truncf` before the call; the runtime, the caller of the
    compiled step, rounds the batch (to nearest even, as `arith.truncf` does) as it stages it
    for the copy to the device, which then moves half the bytes. On a GPU the rounding would
    otherwise be a kernel of its own: its only reader is a GEMM, a library call that nothing
    fuses into. Run before `mpt-export-signature`, which then records the narrow type.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def MPTApproximateMath : Pass<"mpt-approximate-math", "::mlir::func::FuncOp"> {
  let summary = "Replaces f32 erf, exp and tanh by polynomial approximations";
  let description = [{
    Rewrites `math.erf`, `math.exp` and `math.tanh` on f32 into upstream MLIR's polynomial
    approximations (arith and `math.fma` only; erf within 2.5e-7 absolute, exp within 2^-22.5
    relative, flushing results below 2^-126 to zero; NaN and infinities propagate). A libm
    call keeps the loop around it scalar; arithmetic lets LLVM vectorize the elementwise loops
    of gelu, its gradient and softmax. On f16 and bf16 they compute in f32 and round once, as
    `math-extend-to-supported-types` makes the libm calls do.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect"];
}

def MPTFoldRoundedCompares : Pass<"mpt-fold-rounded-compares", "::mlir::func::FuncOp"> {
  let summary = "Compares values before their rounding to f16 or bf16 where that is exact";
  let description = [{
    Rewrites `cmpf(pred, truncf(x), c)`, for an ordering `pred` and a finite constant `c` whose
    neighbours are finite, into `cmpf(pred', x, b)`: `b` is the wide midpoint between `c` and
    its neighbour on the side `pred` looks at, and `pred'` includes `b` or not as
    round-to-nearest-even rounds it. The result is the same for every `x`, NaN and infinities
    included. Then `select(cond, truncf(x), k)` with a constant `k`, where nothing else reads
    the rounded value, becomes `truncf(select(cond, x, extf(k)))`. A ReLU or its gradient on
    a value computed in f32 and rounded (a batch norm's output recomputed in a fused loop)
    then compares and selects in f32 and rounds at most once. Only `truncf` that rounds to
    nearest even (the default) is rewritten.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def MPTExpandBF16Conversions : Pass<"mpt-expand-bf16-conversions", "::mlir::func::FuncOp"> {
  let summary = "Rewrites f32 <-> bf16 casts into integer operations";
  let description = [{
    Rewrites `arith.truncf` to bf16 (round to nearest even; NaN becomes the quiet NaN 0x7fc0) and
    `arith.extf` from bf16 into integer arithmetic on the bits, with upstream MLIR's patterns.
    Without AVX512-BF16, LLVM rounds each bf16 value in a library call, which keeps the loop
    around it scalar; integer operations vectorize. Run after `arith-emulate-unsupported-floats`
    has moved bf16 arithmetic to f32, so that these casts are all that is left of bf16 but loads
    and stores. Unlike `arith-expand{include-bf16}`, it leaves the other arith ops alone: that
    pass also turns `arith.maximumf` into compares and selects, in which LLVM no longer finds
    the max reduction of a softmax row.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def MPTStoreBF16AsI16 : Pass<"mpt-store-bf16-as-i16", "::mlir::LLVM::LLVMFuncOp"> {
  let summary = "Stores and selects bf16 values of the LLVM dialect as their i16 bits";
  let description = [{
    Without AVX512-BF16, LLVM's x86 backend stores a bf16 constant (a `linalg.fill`), or the
    lanes of a vectorized strided store, by widening the value to f32 and rounding it back in
    a `__truncsfbf2` call per element. What `mpt-expand-bf16-conversions` leaves of bf16 moves
    bits only, so this rewrites `llvm.load` of bf16, `llvm.store` of a bf16 constant or of an
    `llvm.bitcast` from i16, and `llvm.select` between bf16 values into the same operations on
    i16 (scalars and vectors), which need no conversion. A bf16 function argument is left
    alone: LLVM would fold a bitcast before its store back into a bf16 store, so
    `mpt-outline-parallel-linalg` clones constants into its slices instead of passing them.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def MPTPrecisionReport : Pass<"mpt-precision-report", "::mlir::ModuleOp"> {
  let summary = "Writes ops per precision, casts, and bytes of state per category as JSON";
  let description = [{
    Analyses every `mpt.train_step` function: ops per precision class and element type, casts,
    and bytes per category (low-precision weights, f32 masters, gradients, optimizer state,
    normalization statistics, loss-scale state, and activations live at the step's peak,
    computed from the real liveness of the graph).

    The JSON object in `output` gets one entry per `stage`: the pipeline runs the pass with
    `stage=fp32` before the rewrite (which starts a new file) and `stage=mixed` after it.
    Without `output` the report goes to stdout.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "JSON file to write, or - for stdout">,
    Option<"stage", "stage", "std::string", /*default=*/"\"mixed\"",
           "Name of this snapshot in the report; fp32 starts a new file">,
  ];
}

def MPTAutodiff : Pass<"mpt-autodiff", "::mlir::func::FuncOp"> {
  let summary = "Builds the backward pass and the optimizer update of a forward-only step";
  let description = [{
    Input: a function marked `mpt.train_step` with `mpt.optimizer = {kind = ..., ...}`: its
    arguments are parameters, state (running statistics, carried by the forward pass) and
    data; one result is the loss, `{mpt.metric = "loss"}`, an f32 scalar. Output: the training
    step of the hand-written form (examples/*_manual.mlir):

    - the backward pass, seeded by `mpt.loss_grad`, walking the ops in reverse and emitting
      each op's rule (DifferentiableOpInterface); the gradients of a value used more than once
      are summed with `arith.addf`, and no gradient flows into data, labels, running
      statistics, frozen parameters (`{mpt.param, mpt.frozen}`) or constants;
    - with `mpt.clip_grad_norm = <max norm>` on the function, one `mpt.clip_grad_norm` over
      every parameter gradient, whose norm becomes the metric `grad_norm`;
    - one optimizer op per parameter that is not frozen, in argument order. The spec's
      entries other than `kind` (`sgd`, `adam`, `adamw`, `rmsprop`, `adagrad`, `adadelta`) are
      the op's attributes, but for Adagrad's `initial_accumulator_value`; a parameter
      argument's own `mpt.optimizer` dictionary overrides them (e.g. no weight decay on
      biases). The optimizer state becomes new `mpt.state` arguments with `mpt.init` zeros
      (Adagrad's sum: its `initial_accumulator_value`), appended after the existing arguments
      (per parameter, in the op's operand order), and the updated parameters and state become
      new results after the existing ones (per parameter: the parameter, then its state).

    Errors: an op that receives a gradient on its way to a parameter but has no rule; a loss
    that is not an f32 scalar; no loss; a parameter that does not reach the loss (an error,
    not a warning: every parameter needs an optimizer, and one whose gradient is always zero
    is a wiring mistake; mark it `mpt.frozen` to keep it fixed); a parameter already carried by
    a result; a function that already has a backward pass. Functions without
    `mpt.optimizer`, such as hand-written training steps, are left unchanged, so pipelines
    can always run this pass first.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mpt::MPTDialect"];
}

def MPTRecompute : Pass<"mpt-recompute", "::mlir::func::FuncOp"> {
  let summary = "Recomputes forward segments in the backward instead of keeping their activations";
  let description = [{
    Activation recomputation (gradient checkpointing), on a training step with its backward
    (after `mpt-autodiff` and the mixed-precision rewrite, so that the copies round as the
    forward does). The forward is the ops before `mpt.loss_grad` in its block; the ops that
    may be recomputed are those without memory effects or regions, but constants. They are
    split into segments:

    - `policy=sqrt`: about sqrt(N) segments of about sqrt(N) consecutive ops each, as
      PyTorch's `checkpoint_sequential`;
    - `policy=marked`: a segment ends after each op the user marked `mpt.segment_end` (a
      block's output, say).

    A segment's value that the backward reads is kept if a later segment, the loss or the
    results read it too, and recomputed otherwise. Before the first backward op that reads
    one of a segment's recomputed values, the ops of the segment it needs are copied, reading
    what they read from outside the copy (kept values, arguments) through
    `mpt.recompute_barrier`, which keeps CSE from merging the copies back; the backward then
    reads the copies. The forward's own activations are then freed after the forward (after
    bufferization, `mpt-free-after-last-use`), and the backward holds one segment's at a
    time. The last segment is never recomputed: the backward starts with it. The copies
    compute what the forward computed, from the same values, so the step's results are
    bit-identical.

    Functions without `mpt.loss_grad` (eval steps) are left unchanged; a training step without
    one is an error, as is `policy=marked` on a step with no op marked.
  }];
  let options = [
    Option<"policy", "policy", "::mpt::RecomputePolicy",
           /*default=*/"::mpt::RecomputePolicy::Sqrt", "Which segments to recompute",
           "::mpt::recomputePolicyValues()">,
  ];
  let dependentDialects = ["::mpt::MPTDialect"];
}

#endif // MPT_TRANSFORMS_PASSES_TD
