//===- Pipelines.h - named mpt pipelines ------------------------*- C++ -*-===//

#ifndef MPT_PIPELINES_PIPELINES_H
#define MPT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include "mpt/Transforms/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mpt {

struct MPTFuseElementwiseOptions;
struct MPTAutocastOptions;
struct MPTLossScalingOptions;
struct MPTDataParallelOptions;

/// Options of `mpt-mixed-precision`: those of the passes it runs, under the
/// same names (but `loss-scale` for mpt-loss-scaling's `mode`), with their
/// defaults and values.
struct MixedPrecisionOptions
    : public mlir::PassPipelineOptions<MixedPrecisionOptions> {
  Option<ComputeType> computeType{
      *this, "compute-type",
      llvm::cl::desc("Low-precision compute type: f16, bf16, or f32 (no "
                     "change)"),
      llvm::cl::init(ComputeType::F16), computeTypeValues()};
  Option<LossScaleMode> lossScale{
      *this, "loss-scale", llvm::cl::desc("How to scale the loss"),
      llvm::cl::init(LossScaleMode::Auto), lossScaleModeValues()};
  Option<double> initScale{
      *this, "init-scale",
      llvm::cl::desc("Initial loss scale, in [min-scale, max-scale]"),
      llvm::cl::init(loss_scale_defaults::kInitScale)};
  Option<double> growthFactor{
      *this, "growth-factor",
      llvm::cl::desc("Scale multiplier after growth-interval finite steps"),
      llvm::cl::init(loss_scale_defaults::kGrowthFactor)};
  Option<double> backoffFactor{
      *this, "backoff-factor",
      llvm::cl::desc("Scale multiplier after a non-finite step"),
      llvm::cl::init(loss_scale_defaults::kBackoffFactor)};
  Option<int64_t> growthInterval{
      *this, "growth-interval",
      llvm::cl::desc("Finite steps before the scale grows"),
      llvm::cl::init(loss_scale_defaults::kGrowthInterval)};
  Option<double> minScale{*this, "min-scale",
                          llvm::cl::desc("Lower bound of the loss scale"),
                          llvm::cl::init(loss_scale_defaults::kMinScale)};
  Option<double> maxScale{*this, "max-scale",
                          llvm::cl::desc("Upper bound of the loss scale"),
                          llvm::cl::init(loss_scale_defaults::kMaxScale)};
  Option<bool> persistentWorkingCopy{
      *this, "persistent-working-copy",
      llvm::cl::desc("Carry low-precision weight copies as state"),
      llvm::cl::init(false)};
  ListOption<std::string> fp32Ops{*this, "fp32-ops",
                                  llvm::cl::desc("Op names to run in f32")};
  ListOption<std::string> lowerOps{
      *this, "lower-ops",
      llvm::cl::desc("Op names to run in the compute type")};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Write the FP32-vs-mixed precision report (JSON) here")};
  Option<int64_t> dataParallelWorldSize{
      *this, "data-parallel-world-size",
      llvm::cl::desc("Sum the gradients across this many data-parallel ranks "
                     "(mpt-data-parallel); 0 trains on one process"),
      llvm::cl::init(0)};
  Option<int64_t> bucketBytes{
      *this, "bucket-bytes",
      llvm::cl::desc("Bytes of gradients per all-reduce bucket"),
      llvm::cl::init(kDefaultGradientBucketBytes)};
  Option<GradientReduceType> reduceType{
      *this, "reduce-type",
      llvm::cl::desc("Type the gradients are summed across ranks in"),
      llvm::cl::init(GradientReduceType::Auto), gradientReduceTypeValues()};
  Option<int64_t> microBatches{
      *this, "micro-batches",
      llvm::cl::desc("Micro-batches whose gradients are summed per optimizer "
                     "step (mpt-accumulate-gradients); the step is written "
                     "for one"),
      llvm::cl::init(1)};
  Option<RecomputePolicy> recompute{
      *this, "recompute",
      llvm::cl::desc("Forward segments recomputed in the backward instead of "
                     "kept (mpt-recompute)"),
      llvm::cl::init(RecomputePolicy::None), recomputePolicyValues()};

  /// The options of the passes, forwarded from these.
  MPTAutocastOptions autocastOptions() const;
  MPTLossScalingOptions lossScalingOptions() const;
  MPTDataParallelOptions dataParallelOptions() const;
};

/// Autodiff (forward-only steps), autocast, master weights, f32 normalization
/// statistics, the data-parallel sum, loss scaling, cast cleanup, gradient
/// accumulation, the trap check and recomputation, in that order.
void buildMixedPrecisionPipeline(mlir::OpPassManager &pm,
                                 const MixedPrecisionOptions &options);

/// Options of `mpt-lower-to-cpu`.
struct LowerToCPUOptions : public mlir::PassPipelineOptions<LowerToCPUOptions> {
  Option<bool> cpuKernels{
      *this, "cpu-kernels",
      llvm::cl::desc("Call the runtime's BLAS kernels for matmuls (the "
                     "module then runs only inside the mpt runtime)"),
      llvm::cl::init(false)};
  Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Compute erf, exp and tanh with vectorizable polynomial "
                     "approximations instead of libm calls"),
      llvm::cl::init(true)};
  Option<unsigned> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("Vector width asked of LLVM for the loops "
                     "mpt-convert-linalg-to-vectorizable-loops marks"),
      llvm::cl::init(16)};
  Option<bool> expandBF16Rounding{
      *this, "expand-bf16-rounding",
      llvm::cl::desc("Compute bf16 arithmetic in f32 and round to bf16 with "
                     "integer operations, which LLVM vectorizes, instead of "
                     "its call per element (for CPUs without AVX512-BF16)"),
      llvm::cl::init(false)};
  Option<bool> computeF16InF32{
      *this, "compute-f16-in-f32",
      llvm::cl::desc("Compute f16 arithmetic in f32 and round each result to "
                     "f16, which LLVM vectorizes with F16C conversions (for "
                     "CPUs without AVX512-FP16, where LLVM's cost model "
                     "leaves f16 vector arithmetic scalar)"),
      llvm::cl::init(false)};
  Option<bool> predicateVectorLoops{
      *this, "predicate-vector-loops",
      llvm::cl::desc("Predicate the last iteration of those loops (for CPUs "
                     "with AVX-512 masks)"),
      llvm::cl::init(true)};
  Option<int64_t> parallelMinIterations{
      *this, "parallel-min-iterations",
      llvm::cl::desc("With cpu-kernels, linalg ops of at least this many "
                     "iterations run over the runtime's threads "
                     "(mpt-outline-parallel-linalg); 0 keeps every op on the "
                     "calling thread"),
      llvm::cl::init(65536)};
  Option<bool> tagAllocations{
      *this, "tag-allocations",
      llvm::cl::desc("Allocate the buffers of gradients, activations and "
                     "working copies through the runtime's counting "
                     "allocation functions (mpt-tag-step-allocations; the "
                     "module then runs only inside the mpt runtime)"),
      llvm::cl::init(false)};
};

/// mpt -> linalg on tensors -> elementwise fusion -> one-shot bufferization
/// (results become caller-allocated out-parameters) -> loops -> LLVM dialect.
void buildLowerToCPUPipeline(mlir::OpPassManager &pm,
                             const LowerToCPUOptions &options);

/// Options of `mpt-lower-to-cuda`.
struct LowerToCUDAOptions
    : public mlir::PassPipelineOptions<LowerToCUDAOptions> {
  ListOption<std::string> chips{
      *this, "chips",
      llvm::cl::desc("GPU architectures of the fatbin's cubins; the PTX of "
                     "the lowest one is embedded too"),
      llvm::cl::list_init<std::string>({"sm_80", "sm_90"})};
  Option<std::string> stopAt{
      *this, "stop-at",
      llvm::cl::desc(
          "Stop early: `cpu-loops` lowers the mapped scf.parallel kernels "
          "(and im2col + generated GEMMs) to LLVM for the CPU, to check the "
          "kernels' semantics without a GPU; `gpu` stops after kernel "
          "outlining; `ptx` stops with one PTX object per chip; empty (the "
          "default) gives host LLVM IR with one fatbin"),
      llvm::cl::init("")};
  Option<bool> managedMemory{
      *this, "managed-memory",
      llvm::cl::desc("Buffers in managed memory that host code may read "
                     "(test drivers that print results; not for steps run "
                     "by the runtime)"),
      llvm::cl::init(false)};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block of the "
                                           "generated kernels"),
                            llvm::cl::init(256)};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit root for libdevice, ptxas and fatbinary "
                     "(default: $CUDA_HOME, then /usr/local/cuda)"),
      llvm::cl::init("")};
};

/// mpt -> linalg on tensors -> elementwise fusion -> bufferization -> GEMMs
/// and convolutions as cuBLASLt calls, everything else as mapped
/// scf.parallel kernels -> gpu.launch -> NVVM -> one fatbin; host code to the
/// LLVM dialect, launching through the runtime's mgpu* functions.
void buildLowerToCUDAPipeline(mlir::OpPassManager &pm,
                              const LowerToCUDAOptions &options);

/// The tensor-level lowering both lowerings share: the step's signature
/// exported, mpt to linalg, and elementwise chains (casts included) fused into
/// one linalg.generic each around the named matmuls and convolutions, which
/// stay whole for the BLAS and cuBLASLt calls. `fusion` holds
/// mpt-fuse-elementwise's options.
void addLowerToFusedLinalg(mlir::OpPassManager &pm,
                           const MPTFuseElementwiseOptions &fusion);

/// The bufferization both lowerings share: duplicated results copied apart,
/// one-shot bufferization, and results turned into caller-owned
/// out-parameters, so nothing crosses the boundary that the runtime must free.
void addBufferizeToOutParams(mlir::OpPassManager &pm);

/// Host code (loops, memrefs, math) to the LLVM dialect.
void addHostLowerToLLVM(mlir::OpPassManager &pm);

/// Registers `mpt-mixed-precision`, `mpt-lower-to-cpu` and
/// `mpt-lower-to-cuda`.
void registerPipelines();

} // namespace mpt

#endif // MPT_PIPELINES_PIPELINES_H
