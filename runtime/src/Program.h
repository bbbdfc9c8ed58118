//===- Program.h - a compiled mpt training step -----------------*- C++ -*-===//
//
// The compiler driver: parses an MLIR file, runs mpt-mixed-precision and the
// device's lowering (which records the step's signature), and hands the
// result to the device's backend. Only Program.cpp and the backends see
// MLIR; this interface does not.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_PROGRAM_H
#define MPT_RUNTIME_PROGRAM_H

#include "Backend.h"
#include "Signature.h"
#include "mpt/Contract/LossScaleDefaults.h"
#include "mpt/Contract/PrecisionOptions.h"

#include <memory>
#include <string>

namespace mpt::runtime {

enum class Device { CPU, CUDA };

struct CompileOptions {
  ComputeType computeType = ComputeType::F32; // F32: no rewrite
  LossScaleMode lossScale = LossScaleMode::Auto;
  double initScale = loss_scale_defaults::kInitScale;
  int64_t growthInterval = loss_scale_defaults::kGrowthInterval;
  double minScale = loss_scale_defaults::kMinScale;
  double maxScale = loss_scale_defaults::kMaxScale;
  Device device = Device::CPU;
  std::string dumpPrefix;
  std::string precisionReport; // mpt-precision-report's file; empty: none
  bool cpuKernels = true;
  int64_t parallelMinIterations = 65536;
  bool persistentWorkingCopies = false;
  /// Ranks the step sums its gradients over; 0: one process, no collectives.
  int64_t dataParallelWorldSize = 0;
  GradientReduceType gradientReduceType = GradientReduceType::Auto;
  int64_t bucketBytes = kDefaultGradientBucketBytes;
  int64_t microBatches = 1;
  RecomputePolicy recompute = RecomputePolicy::None;
  bool cudaGraphs = true;
};

struct Program {
  Signature signature;
  /// The JSON the signature was read from, which data-parallel ranks compare.
  std::string signatureJson;
  std::unique_ptr<Backend> backend;
  /// The compiler's warnings on the source, as mpt-opt prints them.
  std::string warnings;

  enum class Failure {
    Unreadable,        // the file cannot be read
    Invalid,           // MLIR diagnostics: the input or its lowering
    DeviceUnavailable, // no CUDA in this build, or no driver or device
    Unwritable,        // an IR dump (dump_prefix) cannot be written
  };

  /// Compiles `path`; on failure returns null and sets `error` (the MLIR
  /// diagnostics, without op dumps, or what is missing) and `failure`.
  static std::unique_ptr<Program> compile(const std::string &path,
                                          const CompileOptions &options,
                                          std::string &error, Failure &failure);
};

} // namespace mpt::runtime

#endif // MPT_RUNTIME_PROGRAM_H
