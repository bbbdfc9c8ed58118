//===- StepCollectives.h - the all-reduces compiled steps call --*- C++ -*-===//
//
// A data-parallel step calls the runtime's `mpt_step_all_reduce_<type>`
// (Contract.def) on its gradient buckets and its finite flag. The step's
// ABI has no place for a communicator, so the session names it for the
// thread that runs the step, for the length of the call.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_COMM_STEPCOLLECTIVES_H
#define MPT_RUNTIME_COMM_STEPCOLLECTIVES_H

#include "mpt/comm.h"

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <cstdint>
#include <string>

namespace mpt::runtime {

/// While it lives, the steps this thread runs all-reduce over `comm` (null:
/// one process, where a sum or max over the ranks is the value itself) on
/// `memory`'s buffers.
class StepCollectives {
public:
  StepCollectives(mpt_comm_t comm, mpt_device_t memory);
  ~StepCollectives();
  StepCollectives(const StepCollectives &) = delete;
  StepCollectives &operator=(const StepCollectives &) = delete;

  /// The first collective of the step that failed, empty if none did. The
  /// later ones of the step were not made: the communicator refuses them.
  const std::string &error() const { return firstError; }
  /// The bytes this rank's collectives sent into the reductions.
  int64_t bytes() const { return bytesReduced; }

  /// One all-reduce of the step, of `count` contiguous elements.
  void allReduce(void *data, int64_t count, mpt_dtype_t dtype, int64_t kind);

private:
  mpt_comm_t comm;
  mpt_device_t memory;
  std::string firstError;
  int64_t bytesReduced = 0;
  StepCollectives *previous;
};

/// Binds the entry points of every type to the step collectives.
void bindStepCollectives(llvm::orc::SymbolMap &symbols,
                         llvm::orc::MangleAndInterner &interner);

} // namespace mpt::runtime

#endif // MPT_RUNTIME_COMM_STEPCOLLECTIVES_H
