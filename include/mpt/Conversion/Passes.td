//===- Passes.td - mpt conversions -------------------------*- tablegen -*-===//
//
// Conversions from one dialect or form to another (X-to-Y); the transforms
// that lowering runs are under mpt/Codegen.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_CONVERSION_PASSES_TD
#define MPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def MPTConvertToLinalg : Pass<"mpt-convert-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lowers mpt ops to linalg, tensor, arith, math and scf on tensors";
  let description = [{
    Every mpt op becomes linalg (named ops or linalg.generic), tensor, arith and math ops on
    tensors, in the element types the op carries: f32, f16 or bf16. Simple low-precision
    elementwise arithmetic (bias_add, relu) stays in its type and rounds once per op; composite
    ops (gelu, sigmoid, tanh, silu and their gradients, the norms, losses and optimizers)
    compute in f32 and round their result once, as PyTorch's kernels do; `lower`-class ops
    (matmul, convolutions) multiply in the operand type's exact f32 products and accumulate in
    f32, then round once; reductions and statistics accumulate in f32. The one scatter,
    `embedding_grad`, is an `scf.forall` over the table's columns, each adding its rows in
    order in an `scf.for`: no linalg op writes an element chosen by data. A `tensor.concat`
    becomes `tensor.insert_slice`s into one new tensor.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def MPTConvertLinalgToCPUKernels
    : Pass<"mpt-convert-linalg-to-cpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Runs bufferized matmuls and convolutions through the runtime's BLAS kernels";
  let description = [{
    Replaces `linalg.matmul` and `linalg.batch_matmul` on memrefs whose inputs are f32, f16 or
    bf16 and whose accumulator is f32 (what `mpt-convert-to-linalg` produces) by calls to
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
    kernel: `mpt-convert-to-linalg` writes conv2d_input_grad and conv2d_filter_grad as
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

def MPTConvertLinalgToVectorizableLoops
    : Pass<"mpt-convert-linalg-to-vectorizable-loops", "::mlir::func::FuncOp"> {
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

def MPTConvertLinalgToCUDALibraryCalls
    : Pass<"mpt-convert-linalg-to-cuda-library-calls", "::mlir::ModuleOp"> {
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
    `mpt-convert-to-linalg` writes the input and filter gradients as forward convolutions.
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

def MPTConvertLinalgToGPULoops
    : Pass<"mpt-convert-linalg-to-gpu-loops", "::mlir::ModuleOp"> {
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
    - A reduction's kernels absorb the ops beside it that would be kernels of their own
      (`AbsorbedOps.cpp`): a `linalg.fill` of an output just before it (only allocations
      between) is gone, and the kernel starts from the fill's scalar instead of reading the
      output; an elementwise generic just after it that reads one of its outputs through an
      identity map, and no other, is computed where the kernel stores that output (a bias
      gradient's unscale, the loss's copy into the step's output), and the output is stored
      only if something else reads it. A column reduction also computes the elementwise
      generic just before it that writes one of its inputs (read through a permutation, so
      each element once), and stores its results there for their other readers: relu's
      masked gradient and the bias gradient's partial sums are one kernel. Same arithmetic,
      same results. A fill that an elementwise op overwrites without reading is dropped; one
      under a select that keeps the old value stays.
    - `memref.copy` between views that are not contiguous becomes a copy kernel (contiguous
      copies stay, for `gpu.memcpy`).
    - `scf.forall` on memrefs (the columns of `embedding_grad`'s scatter-add): one thread per
      iteration, tiled and guarded as for elementwise ops, its body unchanged.
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

def MPTConvertMemRefToGPUMemory
    : Pass<"mpt-convert-memref-to-gpu-memory", "::mlir::ModuleOp"> {
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

def MPTConvertGPUBinaryToFatbin
    : Pass<"mpt-convert-gpu-binary-to-fatbin", "::mlir::ModuleOp"> {
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

#endif // MPT_CONVERSION_PASSES_TD
