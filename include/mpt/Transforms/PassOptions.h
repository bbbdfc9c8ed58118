//===- PassOptions.h - typed options of the mpt passes ----------*- C++ -*-===//
//
// The command-line spellings of the enum options, which the passes and the
// mpt-mixed-precision pipeline share.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_TRANSFORMS_PASSOPTIONS_H
#define MPT_TRANSFORMS_PASSOPTIONS_H

#include "llvm/Support/CommandLine.h"

#include "mpt/Contract/LossScaleDefaults.h"
#include "mpt/Contract/PrecisionOptions.h"

namespace mpt {

inline llvm::cl::ValuesClass computeTypeValues() {
  return llvm::cl::values(
      clEnumValN(ComputeType::F16, "f16", "IEEE half precision"),
      clEnumValN(ComputeType::BF16, "bf16", "bfloat16"),
      clEnumValN(ComputeType::F32, "f32", "no change"));
}

inline llvm::cl::ValuesClass lossScaleModeValues() {
  return llvm::cl::values(
      clEnumValN(LossScaleMode::Auto, "auto",
                 "dynamic for steps that compute in f16, none otherwise"),
      clEnumValN(LossScaleMode::Dynamic, "dynamic",
                 "GradScaler's rule: back off on overflow, grow after "
                 "growth-interval finite steps"),
      clEnumValN(LossScaleMode::Static, "static",
                 "a fixed scale; non-finite steps are still skipped"),
      clEnumValN(LossScaleMode::None, "none", "no loss scaling"));
}

inline llvm::cl::ValuesClass gradientReduceTypeValues() {
  return llvm::cl::values(
      clEnumValN(GradientReduceType::Auto, "auto",
                 "f32 for bf16 gradients, their own type otherwise"),
      clEnumValN(GradientReduceType::Compute, "compute",
                 "each gradient in its own type: f16/bf16 send half the "
                 "bytes"),
      clEnumValN(GradientReduceType::F32, "f32",
                 "f32, as Megatron's grad_reduce_in_fp32"));
}

inline llvm::cl::ValuesClass recomputePolicyValues() {
  return llvm::cl::values(
      clEnumValN(RecomputePolicy::None, "none", "keep every activation"),
      clEnumValN(RecomputePolicy::Sqrt, "sqrt",
                 "about sqrt(N) segments of the N forward ops"),
      clEnumValN(RecomputePolicy::Marked, "marked",
                 "segments ended by the ops marked mpt.segment_end"));
}

} // namespace mpt

#endif // MPT_TRANSFORMS_PASSOPTIONS_H
