//===- LRSchedule.h - learning-rate schedules -------------------*- C++ -*-===//
//
// The schedules `mpt.lr_schedule` computes, read from the dictionary that
// `mpt.optimizer`'s `lr_schedule` gives and the op keeps.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_DIALECT_MPT_IR_LRSCHEDULE_H
#define MPT_DIALECT_MPT_IR_LRSCHEDULE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"

namespace mpt {

/// A learning-rate schedule; the fields its kind does not use keep their
/// defaults.
struct LRSchedule {
  enum class Kind { Constant, Step, WarmupCosine, Table };

  Kind kind = Kind::Constant;
  int64_t stepSize = 1;
  double gamma = 0.1;
  int64_t warmupSteps = 0;
  int64_t totalSteps = 0;
  double startFactor = 1.0 / 3.0;
  double minLr = 0.0;
  llvm::SmallVector<double> values;

  /// Reads `schedule`, or reports its first malformed field, by name,
  /// through `emitError`.
  static mlir::FailureOr<LRSchedule>
  parse(mlir::DictionaryAttr schedule,
        llvm::function_ref<mlir::InFlightDiagnostic()> emitError);
};

} // namespace mpt

#endif // MPT_DIALECT_MPT_IR_LRSCHEDULE_H
