//===- StepAllocator.h - buffer reuse across training steps -----*- C++ -*-===//
//
// A compiled step allocates and frees the same buffer sizes in every call (its
// intermediate tensors). glibc serves those by searching its bins, and maps
// and unmaps the large ones, page faults included, every step. The JIT binds
// the step's malloc and free to these instead: freed blocks wait in per-size
// lists for the next step. They also count the step's live bytes, by what
// each buffer holds (StepMemory.h).
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_CPU_STEPALLOCATOR_H
#define MPT_RUNTIME_CPU_STEPALLOCATOR_H

#include "../StepMemory.h"

#include <cstddef>

namespace mpt::runtime {

/// malloc for compiled code: a block of at least `bytes`, 64-byte aligned,
/// reused from an earlier stepFree of the same size class when there is one.
void *stepMalloc(size_t bytes);

/// aligned_alloc for compiled code: stepMalloc's blocks are 64-byte aligned;
/// a larger `alignment` (never emitted by the CPU lowering) aborts.
void *stepAlignedAlloc(size_t alignment, size_t bytes);

/// stepAlignedAlloc for a buffer the lowering tagged as holding `kind`.
void *stepAlignedAllocOf(StepBufferKind kind, size_t alignment, size_t bytes);

/// stepAlignedAllocOf as one function per kind, which the JIT binds to the
/// tagged allocation functions' names.
template <StepBufferKind kind>
void *stepAlignedAllocAs(size_t alignment, size_t bytes) {
  return stepAlignedAllocOf(kind, alignment, bytes);
}

/// free for compiled code: keeps the block (from stepMalloc) for reuse.
void stepFree(void *block);

/// Counts `bytes` of a kernel's scratch as step workspace (negative: no
/// longer in use). Kernels keep their scratch across calls, but a caching
/// allocator would lend it to them for each call; counting it that way keeps
/// the measured peak honest about what a call holds on top of the step's
/// buffers.
void countKernelScratch(int64_t bytes);

/// Returns the blocks waiting for reuse to the system (when a program goes
/// away: its sizes may never come back).
void releaseStepBlocks();

} // namespace mpt::runtime

#endif // MPT_RUNTIME_CPU_STEPALLOCATOR_H
