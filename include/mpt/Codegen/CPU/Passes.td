//===- Passes.td - CPU codegen -----------------------------*- tablegen -*-===//
//
// Transforms that only mpt-lower-to-cpu runs.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_CODEGEN_CPU_PASSES_TD
#define MPT_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def MPTStackScalarAccumulators
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

def MPTOutlineParallelLinalg
    : Pass<"mpt-outline-parallel-linalg", "::mlir::ModuleOp"> {
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

#endif // MPT_CODEGEN_CPU_PASSES_TD
