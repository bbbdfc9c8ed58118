//===- LowerToCUDA.cpp - the mpt-lower-to-cuda pipeline ---------*- C++ -*-===//

#include "mpt/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Process.h"

#include "mpt/Codegen/Common/Passes.h"
#include "mpt/Codegen/GPU/Passes.h"
#include "mpt/Conversion/Passes.h"
#include "mpt/Transforms/Passes.h"

using namespace mlir;

/// The CUDA toolkit root: the option, else $CUDA_HOME, else /usr/local/cuda.
/// gpu-module-to-binary needs it for libdevice (math functions): without it
/// the PTX has unresolved __nv_* calls that only ptxas reports.
static std::string cudaToolkitPath(const mpt::LowerToCUDAOptions &options) {
  if (!options.cudaPath.empty())
    return options.cudaPath;
  if (std::optional<std::string> home = llvm::sys::Process::GetEnv("CUDA_HOME"))
    return *home;
  return "/usr/local/cuda";
}

/// Tensors to bufferized library calls and mapped scf.parallel loops, the
/// form `stop-at=cpu-loops` runs on the CPU.
static void addLowerToGPULoops(OpPassManager &pm,
                               const mpt::LowerToCUDAOptions &options,
                               bool onCPU) {
  // The batch's rounding would be a kernel of its own, read by a GEMM: the
  // runtime rounds it as it stages it.
  pm.addPass(mpt::createMPTRoundDataInCaller());
  // The tensor-level lowering and fusion the CPU's runs too: one fused
  // elementwise chain per linalg.generic, hence per kernel, and every named
  // matmul and convolution whole for cuBLASLt (upstream's fusion generalizes
  // some into generated loops). cuBLASLt multiplies f16 and bf16 itself: no
  // matmul is widened.
  // Producers are not computed again in their readers, as on the CPU: not
  // timed on a GPU yet; but for conversions that only widen or round-trip a
  // value, which cost the readers nothing. Transposes and broadcasts are
  // generated kernels here, so the casts around them fuse into them.
  mpt::MPTFuseElementwiseOptions fusion;
  fusion.recomputeConversions = true;
  fusion.fuseDataMovement = true;
  mpt::addLowerToFusedLinalg(pm, fusion);
  mpt::addBufferizeToOutParams(pm);
  // Math functions compute in f32 and round once, as on the CPU.
  pm.addNestedPass<func::FuncOp>(math::createMathExtendToSupportedTypes(
      math::MathExtendToSupportedTypesOptions{{}, "f32"}));

  mpt::MPTConvertLinalgToCUDALibraryCallsOptions libraryCalls;
  libraryCalls.im2colOnly = onCPU;
  pm.addPass(mpt::createMPTConvertLinalgToCUDALibraryCalls(libraryCalls));
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  pm.addPass(createCanonicalizerPass());

  mpt::MPTConvertLinalgToGPULoopsOptions loops;
  loops.blockSize = options.blockSize;
  loops.gemmsAsLoops = onCPU;
  pm.addPass(mpt::createMPTConvertLinalgToGPULoops(loops));
  // No canonicalization until the loops are launches: it folds away the
  // one-block grid loops of full reductions and their mapping with them.
  pm.addPass(createCSEPass());
  // Each buffer goes back to the block cache after its last use, not at the
  // step's end: a later launch may reuse it, ordered after that use on the
  // one stream, so the step holds only the buffers live at once. Only now:
  // a free between them would keep the loop conversion from merging sums.
  pm.addNestedPass<func::FuncOp>(mpt::createMPTFreeAfterLastUse());
}

/// The mapped loops to kernels in one gpu.module, launched asynchronously,
/// with device (or managed) memory: the form `stop-at=gpu` prints.
static void addOutlineKernels(OpPassManager &pm,
                              const mpt::LowerToCUDAOptions &options) {
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(mpt::createMPTMarkGPUReductionsUniform());
  mpt::MPTConvertMemRefToGPUMemoryOptions memory;
  memory.hostShared = options.managedMemory;
  if (!options.managedMemory)
    pm.addPass(mpt::createMPTConvertMemRefToGPUMemory(memory));
  pm.addNestedPass<func::FuncOp>(mpt::createMPTNameStateUpdateKernels());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(mpt::createMPTMergeGPUModules());
  // gpu-to-llvm lowers copies and frees only in their async form; launches
  // become asynchronous too, with a host wait before each library call.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  // Managed allocations lower only in their synchronous form.
  if (options.managedMemory)
    pm.addPass(mpt::createMPTConvertMemRefToGPUMemory(memory));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Device code: one target per chip, then the kernels to NVVM.
static void addLowerKernelsToNVVM(OpPassManager &pm,
                                  const mpt::LowerToCUDAOptions &options) {
  for (const std::string &chip : options.chips) {
    GpuNVVMAttachTargetOptions target;
    target.chip = chip;
    target.optLevel = 3;
    pm.addPass(createGpuNVVMAttachTarget(target));
  }
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
}

void mpt::buildLowerToCUDAPipeline(OpPassManager &pm,
                                   const LowerToCUDAOptions &options) {
  bool onCPU = options.stopAt == "cpu-loops";
  addLowerToGPULoops(pm, options, onCPU);
  if (onCPU) {
    // The mapping attributes are ignored: the same loops run sequentially.
    addHostLowerToLLVM(pm);
    return;
  }
  addOutlineKernels(pm, options);
  if (options.stopAt == "gpu")
    return;
  addLowerKernelsToNVVM(pm, options);

  // Host code: launches and library calls to the LLVM dialect, the kernels
  // to PTX for each target.
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.toolkitPath = cudaToolkitPath(options);
  toBinary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(toBinary));
  if (options.stopAt == "ptx")
    return;
  MPTConvertGPUBinaryToFatbinOptions fatbin;
  fatbin.cudaPath = cudaToolkitPath(options);
  pm.addPass(createMPTConvertGPUBinaryToFatbin(fatbin));
  addHostLowerToLLVM(pm);
}
