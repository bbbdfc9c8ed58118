//===- LossScaleDefaults.h - the loss scaler's defaults ---------*- C++ -*-===//
//
// The one place the loss scaler's defaults are written (PyTorch's GradScaler,
// with bounds that keep the scale a finite f32 power of two). The pass, the
// pipeline, mpt.update_loss_scale's default attributes and the C API read
// them from here. Header-only and free of MLIR, so runtime/src includes it.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_CONTRACT_LOSSSCALEDEFAULTS_H
#define MPT_CONTRACT_LOSSSCALEDEFAULTS_H

#include <cstdint>

namespace mpt::loss_scale_defaults {

inline constexpr double kInitScale = 65536.0;
inline constexpr double kGrowthFactor = 2.0;
inline constexpr double kBackoffFactor = 0.5;
inline constexpr int64_t kGrowthInterval = 2000;
inline constexpr double kMinScale = 1.0;
inline constexpr double kMaxScale = 16777216.0; // 2^24

} // namespace mpt::loss_scale_defaults

#endif // MPT_CONTRACT_LOSSSCALEDEFAULTS_H
