//===- StepAllocatorTest.cpp - the compiled steps' allocator --------------===//
//
// Compiled steps allocate through malloc or aligned_alloc (the CPU lowering
// uses aligned_alloc with 64-byte alignment) and free, bound to the step
// allocator: blocks are 64-byte aligned whichever entry point made them, and
// a freed block serves the next request of its size class. While a
// StepMemoryCount is alive, the bytes asked for are counted by kind, with the
// high-water mark and its split.
//
//===----------------------------------------------------------------------===//

#include "cpu/StepAllocator.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <thread>

namespace {

using mpt::runtime::stepAlignedAlloc;
using mpt::runtime::stepAlignedAllocOf;
using mpt::runtime::StepBufferKind;
using mpt::runtime::stepFree;
using mpt::runtime::stepMalloc;
using mpt::runtime::StepMemory;
using mpt::runtime::StepMemoryCount;

bool aligned64(const void *pointer) {
  return reinterpret_cast<uintptr_t>(pointer) % 64 == 0;
}

TEST(StepAllocator, BlocksAre64ByteAlignedAndReusedBySizeClass) {
  // Sizes unlikely to be waiting from another test.
  void *first = stepMalloc(1000003);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(aligned64(first));
  std::memset(first, 0xab, 1000003);
  stepFree(first);
  // 1000003 and 1000001 round up to the same 64-byte class.
  void *again = stepMalloc(1000001);
  EXPECT_EQ(again, first);
  void *other = stepMalloc(1000003);
  EXPECT_NE(other, again);
  stepFree(again);
  stepFree(other);
}

TEST(StepAllocator, AlignedAllocSharesTheBlocks) {
  void *block = stepAlignedAlloc(64, 2000000);
  ASSERT_NE(block, nullptr);
  EXPECT_TRUE(aligned64(block));
  stepFree(block);
  EXPECT_EQ(stepMalloc(2000000), block);
  stepFree(block);
  void *small = stepAlignedAlloc(16, 3000000);
  EXPECT_TRUE(aligned64(small));
  stepFree(small);
}

TEST(StepAllocator, CountsLiveBytesAndThePeakByKind) {
  StepMemory memory;
  {
    StepMemoryCount count(memory);
    void *activation =
        stepAlignedAllocOf(StepBufferKind::Activations, 64, 1000);
    void *gradient = stepAlignedAllocOf(StepBufferKind::Gradients, 64, 300);
    void *scratch = stepMalloc(20);
    stepFree(activation); // before the peak of 300 + 20 + 4000
    void *copy = stepAlignedAllocOf(StepBufferKind::WorkingCopies, 64, 4000);
    stepFree(copy);
    stepFree(scratch);
    stepFree(gradient);
  }
  EXPECT_EQ(memory.peak, 4320);
  EXPECT_EQ(memory.atPeak,
            (std::array<int64_t, 4>{/*workspace*/ 20, /*activations*/ 0,
                                    /*gradients*/ 300,
                                    /*working copies*/ 4000}));
  EXPECT_EQ(memory.liveTotal, 0);

  // Outside the count nothing is counted; the next count's peak starts over.
  stepFree(stepMalloc(100000));
  {
    StepMemoryCount count(memory);
    stepFree(stepMalloc(64));
  }
  EXPECT_EQ(memory.peak, 64);
  EXPECT_EQ(memory.atPeak[size_t(StepBufferKind::Workspace)], 64);
}

TEST(StepAllocator, BlocksFreedOnAnotherThreadLeaveTheirCount) {
  StepMemory memory;
  void *block;
  {
    StepMemoryCount count(memory);
    block = stepAlignedAllocOf(StepBufferKind::Activations, 64, 512);
  }
  std::thread([&] { stepFree(block); }).join();
  EXPECT_EQ(memory.liveTotal, 0);
  EXPECT_EQ(memory.live[size_t(StepBufferKind::Activations)], 0);
  EXPECT_EQ(memory.peak, 512);
}

TEST(StepAllocatorDeathTest, AlignmentBeyond64BytesAborts) {
  EXPECT_DEATH(stepAlignedAlloc(128, 4096),
               "asked for 128-byte alignment; the step allocator gives 64");
}

} // namespace
