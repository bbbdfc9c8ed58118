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
    tensors, in the element types the op carries: f32, f16 or bf16. Simple low-precision
    elementwise arithmetic (bias_add, relu) stays in its type and rounds once per op; composite
    ops (gelu and its gradient, the norms, losses and optimizers) compute in f32 and round their
    result once, as PyTorch's kernels do; `lower`-class ops (matmul, convolutions) multiply in
    the operand type's exact f32 products and accumulate in f32, then round once; reductions
    and statistics accumulate in f32.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def WidenMatmulOperands
    : Pass<"widen-matmul-operands", "::mlir::func::FuncOp"> {
  let summary = "Makes matmuls on 16-bit floats matmuls on their exact f32 copies";
  let description = [{
    For a CPU without a GEMM for the type: f16 on every CPU mpt runs on, bf16 without
    AVX512-BF16 (the runtime's kernels then widen both operands on every call). A
    `linalg.matmul` or `linalg.batch_matmul` on tensors with two inputs of a type to widen
    and an f32 accumulator becomes the same op on f32 inputs, each made by an elementwise
    `arith.extf`: the same products (the op widens every element exactly before it
    multiplies), computed by sgemm directly. Each tensor is widened once, right after its
    definition, for all products that read it (a weight in the forward and in the input
    gradient; an activation in the forward and in the weight gradient), and
    `fuse-elementwise-around-cpu-kernels` merges the widening into the op that computes the
    tensor when the products are its only readers.
  }];
  let options = [
    Option<"f16", "f16", "bool", /*default=*/"true", "Widen f16 products">,
    Option<"bf16", "bf16", "bool", /*default=*/"false",
           "Widen bf16 products (for CPUs without AVX512-BF16)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ConvertLinalgToCPUKernels
    : Pass<"convert-linalg-to-cpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Runs bufferized matmuls and convolutions through the runtime's BLAS kernels";
  let description = [{
    Replaces `linalg.matmul` and `linalg.batch_matmul` on memrefs whose inputs are f32, f16 or
    bf16 and whose accumulator is f32 (what `convert-mpt-to-linalg` produces) by calls to
    `mpt_cpu_matmul_<type>_<rank>d(A, B, C, transpose_a, transpose_b, accumulate)`, and
    `linalg.conv_2d_nchw_fchw` with the same element types by calls to
    `mpt_cpu_conv2d_<type>(input, filter, output, stride_h, stride_w, dilation_h, dilation_w,
    accumulate)`.
    The memrefs are cast to fully dynamic strided layouts and the kernels are declared with
    `llvm.emit_c_interface`. The runtime implements them on an optimized sgemm (convolutions
    through im2col): f16 and bf16 inputs are widened exactly to f32 and the products accumulate
    in f32 into the output, which is what the linalg op computes, only at BLAS speed. Matmul
    transposes come from the indexing maps; other maps, other element types and ops on tensors
    are left to the generic lowering. All three convolutions of a training step reach the conv
    kernel: `convert-mpt-to-linalg` writes conv2d_input_grad and conv2d_filter_grad as
    `linalg.conv_2d_nchw_fchw` too.

    Where a `linalg.fill` with 0.0 wrote all of the output just before, and nothing in between
    reads or writes its buffer, the fill goes and `accumulate` is 0: the kernel writes the product
    (sgemm's beta 0) instead of zeroing the output and then reading it back to add to it. Every
    product of a training step starts from such a fill. The result differs from adding to +0.0
    only in the sign of a sum that is exactly zero.

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

def ConvertLinalgToVectorizableLoops
    : Pass<"convert-linalg-to-vectorizable-loops", "::mlir::func::FuncOp"> {
  let summary = "Lowers linalg ops to loops and tells LLVM to vectorize their parallel ones";
  let description = [{
    LLVM's loop vectorizer leaves loops scalar that pay when vectorized on the CPUs mpt
    targets. On x86 without native 16-bit float arithmetic (no AVX512-FP16) it prices every
    vector f16 or bf16 operation as scalarized, although the backend lowers it to F16C/AVX-512
    conversions and f32 vector arithmetic; the scalar code converts and rounds one element at a
    time. And it fully unrolls short loops (a pooled row of 14 or 7 outputs) before it could
    vectorize them, or vectorizes the loop around them with gathers.

    This pass lowers, as `convert-linalg-to-loops` does, each linalg op on memrefs with a float
    operand whose vector loop is parallel and walks every operand at a constant stride, and
    marks that `scf.for` with a `loop_annotation`. The vector loop is the innermost one outside
    a nest of at most 4 static iterations (a pooling window's positions, which LLVM then unrolls
    into the vector loop's body); the loops inside it must be parallel too. A constant stride
    means the loop's dimension appears in one index only, followed only by constants and inner
    window dimensions: contiguous or interleaved accesses, not gathers. The annotation overrides
    the cost model (`llvm.loop.vectorize.enable`, width `vector-width`), with `predicate`
    predicates the last iteration instead of leaving a scalar remainder (`predicate.enable`: a
    row of 14 is one masked iteration), and keeps LLVM from fully unrolling the loop first
    (`unroll.disable`). The runtime asks for width 16 with predication on CPUs with AVX-512
    (F and BW) and width 8 without it elsewhere.

    First, an all-parallel `linalg.generic` whose trailing loops every operand indexes by
    dimensions alone, as one contiguous run or not at all, and that `linalg.index` does not
    read, has those loops collapsed into one (`memref.collapse_shape` on its operands): a
    batch norm fused with the 2x2 pooling's reshape, [N, C, H/2, 2, W/2, 2], then walks each
    image as one contiguous row instead of interleaved pairs.

    An innermost reduction over contiguous elements with more than 4 static iterations
    (softmax's, layer norm's and the losses' rows), whose results are each one add, max or min
    of the accumulator, has its reduction loop marked the same way, and its sums flagged
    `reassoc`. Left alone, LLVM may not reorder the sum: it unrolls the row and vectorizes the
    loop around it with a gather per element. Marked, each sum accumulates in `vector-width`
    partial sums added by a tree at the end (the pairwise summation of DESIGN 3.6; the low bits
    depend on the width, so results are deterministic for a given CPU), and max and min are
    exact in any order. Other ops are left for `convert-linalg-to-loops`.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "unsigned", /*default=*/"16",
           "Vector width asked of LLVM for the marked loops">,
    Option<"predicate", "predicate", "bool", /*default=*/"true",
           "Predicate the last iteration (cheap with AVX-512 masks; without them, "
           "as on AVX2, LLVM emulates 16-bit masked accesses lane by lane)">,
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def OutlineParallelLinalg
    : Pass<"outline-parallel-linalg", "::mlir::ModuleOp"> {
  let summary = "Splits large linalg ops on memrefs over the runtime's threads";
  let description = [{
    OpenBLAS runs the step's GEMMs on every thread it is given; the generated loops of the other
    ops (elementwise chains, row reductions, pooling, the optimizer updates) ran on one.
    This pass moves each linalg op on memrefs whose first loop is parallel, that every result
    is indexed by, and that has at least `min-iterations` static iterations in all, into a
    function that runs a slice [begin, end) of that loop: every operand indexed by it becomes a
    `memref.subview` of that slice, `linalg.index 0` is offset by `begin`, and the other operands
    are passed whole. The op is replaced by a call to the runtime's
    `mpt_cpu_parallel_for(entry, context, count)`, which runs `entry(context, begin, end)` over
    [0, count) in one contiguous slice per thread. The context is a stack struct holding what
    the op reads: a statically shaped memref as its aligned pointer alone (the slice function
    rebuilds its descriptor from constants), other memrefs as their descriptors, and the
    scalars the op's body uses from above. `entry` reads it and calls the slice function, whose
    pointer arguments are marked `llvm.noalias` where they are the only view passed of a buffer
    the step allocates: what LLVM knew of that buffer in the step, and without which it could
    not keep a row's running sum in a register.

    Each iteration of the first loop computes what it did before, in the same order, so results
    are bitwise the same for any thread count. Ops with fewer iterations stay in place: starting
    the threads costs more than it saves on them.
  }];
  let options = [
    Option<"minIterations", "min-iterations", "int64_t", /*default=*/"65536",
           "Static iterations (all loops together) below which an op stays in place">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def StackScalarAccumulators
    : Pass<"mpt-stack-scalar-accumulators", "::mlir::func::FuncOp"> {
  let summary = "Lets reductions into 0-d memrefs accumulate in a stack slot";
  let description = [{
    A linalg op on memrefs that reduces into a 0-d memref (a loss, an all-finite flag, the
    gradient counts) reads and writes that memref on every iteration once lowered to loops.
    When the memref is a function argument (a step result, after
    `buffer-results-to-out-params`) or may alias the reduced data, LLVM cannot keep the
    accumulator in a register, so it neither hoists the load and store nor vectorizes the
    reduction. This pass gives every such op a `memref.alloca` in its place: the current value
    is loaded into it before the op and stored back after it, and LLVM promotes the stack slot to
    a register. The result is the same value computed in the same order.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
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

    It also folds the selects that keep state on a skipped step into the update that computes
    the state (an optimizer's parameter and its buffers): one generic writes the update or the
    old values, which upstream's fusion cannot do for a producer with several results.

    A generic that only converts its input (`arith.truncf`/`arith.extf`) fuses into the
    elementwise generic that produces that input even when the producer has other readers (all
    after the cast): the producer then writes both its result and the converted one. Upstream's
    pattern would compute the producer again in the cast. The logits' gradient, rounded to f16 for
    its GEMMs and read in f32 by its bias gradient, is the case; so is a persistent working copy
    rounded from its updated master.

    With `recompute-cheap-producers`, an elementwise generic read by several generics, element
    for element, is fused into each of them when that moves fewer bytes than storing it once:
    a few cheap arith ops, no input wider than its result, and (readers - 1) * input bits
    <= (readers + 1) * result bits. Loss scaling's unscale, read by the finite check and the
    update, is the case. So is the rounding of a matmul's product to f16 or bf16, although its
    input is wider: the GEMM computes the product in f32 anyway, and the rounding kept would be a
    pass of its own over it (a weight gradient read by loss scaling's counts and the update).
    Upstream fuses only a producer with one use.

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

//===----------------------------------------------------------------------===//
// CUDA lowering (mpt-lower-to-cuda)
//===----------------------------------------------------------------------===//

def ConvertLinalgToCUDALibraryCalls
    : Pass<"convert-linalg-to-cuda-library-calls", "::mlir::ModuleOp"> {
  let summary = "Runs bufferized matmuls and convolutions through cuBLASLt";
  let description = [{
    Replaces `linalg.matmul` and `linalg.batch_matmul` on memrefs whose inputs are f32, f16 or
    bf16 and whose accumulator is f32 by calls to
    `mpt_cuda_matmul_<type>_<rank>d(A, B, C, transpose_a, transpose_b, accumulate)`, which the
    runtime runs with cuBLASLt: A and B in their own type, `CUBLAS_COMPUTE_32F`, C += A·B in f32,
    which is what the linalg op computes (exact products, f32 accumulation). Where a
    `linalg.fill` with 0.0 wrote all of C just before, and nothing in between reads or writes C's
    buffer, the fill goes and `accumulate` is 0: the GEMM writes C = A·B (cuBLASLt's beta 0)
    without a fill kernel ahead of it and without reading C.

    Where, besides, the only reader of that zeroed f32 product is a `linalg.generic` that rounds
    all of it (`arith.truncf` to the inputs' f16 or bf16, element for element) into all of a
    contiguous buffer, and nothing between the GEMM and that generic uses the rounded buffer, the
    call is `mpt_cuda_matmul_<type>_<rank>d_rounded(A, B, D, transpose_a, transpose_b)`: cuBLASLt
    writes the f32 product rounded to D (f16 or bf16, round to nearest even), as the generic did,
    and the generic goes. No f32 product is written or read again, and no cast kernel runs.

    `linalg.conv_2d_nchw_fchw` with the same element types becomes an implicit GEMM: a generated
    im2col copy (a `linalg.generic`, which later becomes a GPU kernel like any other) into a
    buffer of shape N x (C·KH·KW) x (OH·OW), then one `linalg.batch_matmul`, hence one call
    `mpt_cuda_matmul_<type>_3d(filter, columns, output)` whose filter operand repeats over the
    batch with stride 0. Every convolution of a training step reaches this path:
    `convert-mpt-to-linalg` writes the input and filter gradients as forward convolutions.
    With `im2col-only`, convolutions stop at im2col + `linalg.batch_matmul` and no call is
    made: the form in which the CPU checks the GPU lowering.
  }];
  let options = [
    Option<"im2colOnly", "im2col-only", "bool", /*default=*/"false",
           "Rewrite convolutions to im2col + batch_matmul, make no library calls">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def ConvertLinalgToGPULoops
    : Pass<"convert-linalg-to-gpu-loops", "::mlir::ModuleOp"> {
  let summary = "Lowers linalg ops on memrefs to tiled scf.parallel loops mapped to blocks and threads";
  let description = [{
    The source of truth of every generated GPU kernel. Each `linalg.generic` on memrefs (named
    ops are generalized first) becomes one `scf.parallel` nest carrying `#gpu.loop_dim_map`
    attributes; `convert-parallel-loops-to-gpu` turns each nest into one `gpu.launch`
    mechanically. The form is ordinary SCF, so it also runs on the CPU through the usual
    lowering, which is how CI checks the kernels without a GPU.

    - Ops without reduction dimensions: all loops are collapsed into one linear index, tiled by
      `block-size`, the tile loop mapped to `block_x` and the intra-tile loop to `thread_x`
      (consecutive threads touch consecutive elements of the innermost dimension); the last
      block is guarded by an `scf.if`.
    - Ops with at most `max-thread-reduction` reduction elements per output (pooling windows,
      a few classes): like the above over the parallel dimensions, each thread folding its
      output's reduction sequentially, in the CPU lowering's order.
    - Larger reductions: one block per point of the parallel dimensions; inside,
      `block-size` threads each fold a strided slice of the (linearized) reduction space
      sequentially, then the threads combine their partial values through `scf.reduce`, which
      becomes `gpu.all_reduce` (a shared-memory/shuffle tree; values cross threads as 32-bit:
      i1 and f16/bf16 max/min widen exactly, i64 counts of i1 narrow exactly, anything else is
      rejected). Threads start from the combiner's neutral element; the output's current value
      (read by every thread before the tree's barriers) is combined once with the total. One
      kernel per output of a multi-output generic. When there are fewer than `min-blocks`
      parallel points and the reduction is large, it runs in two passes: blocks per point
      write partial values to a temporary buffer, and a second kernel reduces them. Bodies
      whose reduction is not a single combiner op (acc - x counts as one) are rejected.
    - Column reductions (at least 32 outputs along the innermost loop dimension, which is
      parallel, every input read contiguously along it or not at all: bias and norm-weight
      gradients): one thread per output as for elementwise ops, so that a warp reads
      consecutive addresses, every output of the op folded in one kernel. When that gives
      fewer than `16 * min-blocks` blocks, `block_y` splits the rows into consecutive parts
      of at least 32, folded from the neutral element into a part-major buffer that a second
      kernel folds, in order, into the outputs.
    - `memref.copy` between views that are not contiguous becomes a copy kernel (contiguous
      copies stay, for `gpu.memcpy`).
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block">,
    Option<"maxThreadReduction", "max-thread-reduction", "int64_t", /*default=*/"32",
           "Reductions of at most this many elements per output run one thread per output">,
    Option<"minBlocks", "min-blocks", "int64_t", /*default=*/"64",
           "Reductions with fewer parallel points than this are split over more blocks">,
    Option<"gemmsAsLoops", "gemms-as-loops", "bool", /*default=*/"false",
           "Lower matmuls and batch matmuls to sequential loops as the CPU lowering does, "
           "not to kernels (for checking the generated kernels on the CPU: on the GPU the "
           "GEMMs are cuBLASLt calls)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def ConvertMemRefToGPUMemory
    : Pass<"convert-memref-to-gpu-memory", "::mlir::ModuleOp"> {
  let summary = "Moves the buffers of host functions to device memory";
  let description = [{
    Kernels can only touch device memory, so in every host function (outside `gpu.module`s and
    `gpu.launch` bodies) `memref.alloc`/`memref.dealloc` become `gpu.alloc`/`gpu.dealloc`,
    `memref.copy` becomes a `gpu.memcpy`, and a `memref.get_global` whose value a kernel reads
    is copied once into a device buffer. The function's memref arguments are taken to be device
    pointers (the CUDA runtime passes device buffers). A host function that still reads or
    writes a memref element directly is rejected, naming the op: it would dereference device
    memory on the host. With `host-shared`, buffers are managed memory (`gpu.alloc
    host_shared`) that the host may read and write after a synchronization: for test drivers
    that print results from the host, not for training steps.
  }];
  let options = [
    Option<"hostShared", "host-shared", "bool", /*default=*/"false",
           "Allocate managed memory that host code may access">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def ConvertGPUBinaryToFatbin
    : Pass<"convert-gpu-binary-to-fatbin", "::mlir::ModuleOp"> {
  let summary = "Packs the PTX of every NVVM target of a gpu.binary into one CUDA fatbin";
  let description = [{
    `gpu-module-to-binary` gives one object per target. This pass takes a `gpu.binary` whose
    objects are PTX (`format=isa`) for NVVM targets, assembles each with `ptxas` for its chip,
    and packs every cubin plus the PTX of the lowest chip (for the driver to JIT on newer chips)
    into one fatbin with `fatbinary`, which replaces the objects: one embedded GPU binary that
    the driver loads with `cuModuleLoadData`. The tools come from `cuda-path` (or `CUDA_HOME`
    or `PATH`); when they are missing or fail, the pass reports the tool and its output.
  }];
  let options = [
    Option<"cudaPath", "cuda-path", "std::string", /*default=*/"\"\"",
           "CUDA toolkit root (default: $CUDA_HOME, then PATH)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def MarkGPUReductionsUniform
    : Pass<"mark-gpu-reductions-uniform", "::mlir::ModuleOp"> {
  let summary = "Marks the block reductions that every thread reaches as uniform";
  let description = [{
    `convert-parallel-loops-to-gpu` turns the `scf.reduce` of a thread loop into a
    `gpu.all_reduce` without the `uniform` attribute, and the NVVM lowering only expands
    uniform ones (a block-wide shared-memory and shuffle tree with barriers, which every
    thread of the block must reach). An `all_reduce` directly in a `gpu.launch` body, not
    under any guard or loop, is reached by every thread: this pass marks those uniform.
    Others are left alone, and the NVVM lowering then reports them.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def NameStateUpdateKernels : Pass<"name-state-update-kernels", "::mlir::func::FuncOp"> {
  let summary = "Names the kernels that write a step's state";
  let description = [{
    A `gpu.launch` that writes an argument of its function whose incoming value the function
    reads (state that `mpt-carry-state-in-place` updates in its own buffer: a parameter, its
    optimizer state, its working copy, batch norm's running statistics, the loss scale) gets
    the kernel name `<function>_update` (the `function` attribute that `gpu-kernel-outlining`
    names the kernel by; outlining makes repeated names unique: `_update_0`, `_update_1`, ...).
    An argument counts as read first when, in the function's order, a kernel loads it, or a
    copy or a call uses it, before any kernel or copy writes it; a result's buffer (an
    out-parameter) is written first, so the reductions into a metric are not update kernels.
    Per-launch times (the runtime's `MPT_CUDA_KERNEL_TIMES`, a profiler) then show which
    kernels are the update phase's, whose bandwidth the GPU benchmark reports. A launch that
    already has a name keeps it.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def MergeGPUModules : Pass<"merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Moves every outlined kernel into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` gives each kernel its own `gpu.module`, hence its own binary and
    its own driver module load. This pass moves every kernel function into the first
    `gpu.module` and retargets the `gpu.launch_func` ops, so that a lowered step carries one
    GPU binary (one fatbin, one `cuModuleLoadData`). Outlined kernel names are unique in the
    host module already (each is its module's name); a clash is reported.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // MPT_CONVERSION_PASSES_TD
