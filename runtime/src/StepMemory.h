//===- StepMemory.h - bytes a step's own buffers hold -----------*- C++ -*-===//
//
// The buffers a compiled step allocates for itself (its intermediate tensors),
// counted as the step allocates and frees them: their live bytes and the
// step's high-water mark, split by what each buffer holds. The CPU's step
// allocator and the CUDA block cache count them. The lowering tags
// each allocation site with that (mpt-tag-step-allocations); the kinds'
// names are Contract.def's `buffer` group, in this order.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_STEPMEMORY_H
#define MPT_RUNTIME_STEPMEMORY_H

#include <array>
#include <cstddef>
#include <cstdint>

namespace mpt::runtime {

/// What a step's own buffer holds. Workspace is everything the compiler did
/// not tag: copies and scratch the lowering made.
enum class StepBufferKind : uint8_t {
  Workspace,
  Activations,
  Gradients,
  WorkingCopies,
};
constexpr size_t kStepBufferKinds = 4;

struct StepMemory {
  std::array<int64_t, kStepBufferKinds> live{};
  /// `live` when the total was highest.
  std::array<int64_t, kStepBufferKinds> atPeak{};
  int64_t liveTotal = 0;
  int64_t peak = 0;

  void allocated(StepBufferKind kind, int64_t bytes) {
    live[size_t(kind)] += bytes;
    liveTotal += bytes;
    if (liveTotal > peak) {
      peak = liveTotal;
      atPeak = live;
    }
  }
  void freed(StepBufferKind kind, int64_t bytes) {
    live[size_t(kind)] -= bytes;
    liveTotal -= bytes;
  }
  /// Starts a new high-water mark from the bytes live now.
  void resetPeak() {
    peak = liveTotal;
    atPeak = live;
  }
};

/// The count this thread's step allocations go to (StepMemoryCount), or null.
inline thread_local StepMemory *countingStepMemory = nullptr;

/// While alive, the blocks this thread's step allocates are counted in
/// `memory` (until freed, on any thread), whose peak starts again from its
/// live bytes. Blocks allocated on threads with no count (the workers of a
/// parallel loop) are not counted.
class StepMemoryCount {
public:
  explicit StepMemoryCount(StepMemory &memory) : outer(countingStepMemory) {
    memory.resetPeak();
    countingStepMemory = &memory;
  }
  ~StepMemoryCount() { countingStepMemory = outer; }
  StepMemoryCount(const StepMemoryCount &) = delete;
  StepMemoryCount &operator=(const StepMemoryCount &) = delete;

private:
  StepMemory *outer;
};

} // namespace mpt::runtime

#endif // MPT_RUNTIME_STEPMEMORY_H
