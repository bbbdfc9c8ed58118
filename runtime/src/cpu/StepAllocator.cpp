//===- StepAllocator.cpp - buffer reuse across training steps -------------===//

#include "StepAllocator.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace mpt::runtime {
namespace {

/// Every block starts with this header, padded to keep the data 64-byte
/// aligned: stepFree learns the size class from it, and whose count of live
/// bytes the block is in.
struct alignas(64) BlockHeader {
  size_t sizeClass;
  size_t bytes;
  StepMemory *memory;
  StepBufferKind kind;
};

/// Sizes round up to 64 bytes, so that buffers differing by a few bytes (f16
/// and bf16 of one shape, the same shape with another element count) share.
size_t sizeClassOf(size_t bytes) { return (bytes + 63) / 64 * 64; }

struct FreeBlocks {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<BlockHeader *>> bySize;
};

FreeBlocks &freeBlocks() {
  static FreeBlocks *blocks = new FreeBlocks; // outlives static destructors
  return *blocks;
}

} // namespace

/// Takes a block of `bytes`'s size class, reused or new, and counts it.
static void *allocateBlock(size_t bytes, StepBufferKind kind) {
  size_t sizeClass = sizeClassOf(bytes);
  FreeBlocks &blocks = freeBlocks();
  BlockHeader *header = nullptr;
  {
    std::lock_guard<std::mutex> lock(blocks.mutex);
    auto found = blocks.bySize.find(sizeClass);
    if (found != blocks.bySize.end() && !found->second.empty()) {
      header = found->second.back();
      found->second.pop_back();
    }
  }
  if (!header) {
    header = static_cast<BlockHeader *>(std::aligned_alloc(
        alignof(BlockHeader), sizeof(BlockHeader) + sizeClass));
    if (!header)
      return nullptr;
    header->sizeClass = sizeClass;
  }
  header->bytes = bytes;
  header->memory = countingStepMemory;
  header->kind = kind;
  if (header->memory) {
    std::lock_guard<std::mutex> lock(blocks.mutex);
    header->memory->allocated(kind, bytes);
  }
  return header + 1;
}

void *stepMalloc(size_t bytes) {
  return allocateBlock(bytes, StepBufferKind::Workspace);
}

void *stepAlignedAllocOf(StepBufferKind kind, size_t alignment, size_t bytes) {
  if (alignment > alignof(BlockHeader)) {
    std::fprintf(stderr,
                 "mpt: compiled code asked for %zu-byte alignment; the step "
                 "allocator gives %zu\n",
                 alignment, alignof(BlockHeader));
    std::abort();
  }
  return allocateBlock(bytes, kind);
}

void *stepAlignedAlloc(size_t alignment, size_t bytes) {
  return stepAlignedAllocOf(StepBufferKind::Workspace, alignment, bytes);
}

void countKernelScratch(int64_t bytes) {
  StepMemory *memory = countingStepMemory;
  if (!memory)
    return;
  std::lock_guard<std::mutex> lock(freeBlocks().mutex);
  if (bytes >= 0)
    memory->allocated(StepBufferKind::Workspace, bytes);
  else
    memory->freed(StepBufferKind::Workspace, -bytes);
}

void stepFree(void *block) {
  if (!block)
    return;
  BlockHeader *header = static_cast<BlockHeader *>(block) - 1;
  FreeBlocks &blocks = freeBlocks();
  std::lock_guard<std::mutex> lock(blocks.mutex);
  if (header->memory)
    header->memory->freed(header->kind, header->bytes);
  blocks.bySize[header->sizeClass].push_back(header);
}

void releaseStepBlocks() {
  FreeBlocks &blocks = freeBlocks();
  std::lock_guard<std::mutex> lock(blocks.mutex);
  for (auto &[sizeClass, headers] : blocks.bySize)
    for (BlockHeader *header : headers)
      std::free(header);
  blocks.bySize.clear();
}

} // namespace mpt::runtime
