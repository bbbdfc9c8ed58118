//===- Passes.td - GPU codegen -----------------------------*- tablegen -*-===//
//
// Transforms that only mpt-lower-to-cuda runs.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_CODEGEN_GPU_PASSES_TD
#define MPT_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def MPTMarkGPUReductionsUniform
    : Pass<"mpt-mark-gpu-reductions-uniform", "::mlir::ModuleOp"> {
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

def MPTNameStateUpdateKernels : Pass<"mpt-name-state-update-kernels", "::mlir::func::FuncOp"> {
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

def MPTMergeGPUModules : Pass<"mpt-merge-gpu-modules", "::mlir::ModuleOp"> {
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

#endif // MPT_CODEGEN_GPU_PASSES_TD
