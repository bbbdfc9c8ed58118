//===- StepAllocator.h - buffer reuse across training steps -----*- C++ -*-===//
//
// A compiled step allocates and frees the same buffer sizes in every call (its
// intermediate tensors). glibc serves those by searching its bins, and maps
// and unmaps the large ones, page faults included, every step. The JIT binds
// the step's malloc and free to these instead: freed blocks wait in per-size
// lists for the next step.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_CPU_STEPALLOCATOR_H
#define MPT_RUNTIME_CPU_STEPALLOCATOR_H

#include <cstddef>

namespace mpt::runtime {

/// malloc for compiled code: a block of at least `bytes`, 64-byte aligned,
/// reused from an earlier stepFree of the same size class when there is one.
void *stepMalloc(size_t bytes);

/// aligned_alloc for compiled code: stepMalloc's blocks are 64-byte aligned;
/// a larger `alignment` (never emitted by the CPU lowering) aborts.
void *stepAlignedAlloc(size_t alignment, size_t bytes);

/// free for compiled code: keeps the block (from stepMalloc) for reuse.
void stepFree(void *block);

/// Returns the blocks waiting for reuse to the system (when a program goes
/// away: its sizes may never come back).
void releaseStepBlocks();

} // namespace mpt::runtime

#endif // MPT_RUNTIME_CPU_STEPALLOCATOR_H
