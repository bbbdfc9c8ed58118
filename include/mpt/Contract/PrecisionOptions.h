//===- PrecisionOptions.h - what mixed precision is asked for ---*- C++ -*-===//
//
// The typed values of the compute type, the loss-scaling mode and the
// recomputation policy, shared by the passes' options, the pipeline's and the
// runtime's compile options.
// Free of MLIR, so runtime/src includes it.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_CONTRACT_PRECISIONOPTIONS_H
#define MPT_CONTRACT_PRECISIONOPTIONS_H

#include <cstdint>

namespace mpt {

/// The type mpt-autocast runs `lower` ops in; F32 leaves the graph as it is.
enum class ComputeType { F32, F16, BF16 };

/// How mpt-loss-scaling scales; Auto is resolved by the pass alone.
enum class LossScaleMode { Auto, Dynamic, Static, None };
/// The type mpt-data-parallel all-reduces gradients in; Auto is resolved by
/// the pass alone.
enum class GradientReduceType { Auto, Compute, F32 };

/// The gradient bytes per all-reduce of mpt-data-parallel: PyTorch DDP's
/// default `bucket_cap_mb`.
inline constexpr int64_t kDefaultGradientBucketBytes = 25 * 1024 * 1024;

/// Which forward segments mpt-recompute recomputes in the backward: none,
/// about sqrt(N) equal segments of the N forward ops, or the segments ended
/// by the ops marked `mpt.segment_end`.
enum class RecomputePolicy { None, Sqrt, Marked };

} // namespace mpt

#endif // MPT_CONTRACT_PRECISIONOPTIONS_H
