//===- StepAllocatorTest.cpp - the compiled steps' allocator --------------===//
//
// Compiled steps allocate through malloc or aligned_alloc (the CPU lowering
// uses aligned_alloc with 64-byte alignment) and free, bound to the step
// allocator: blocks are 64-byte aligned whichever entry point made them, and
// a freed block serves the next request of its size class.
//
//===----------------------------------------------------------------------===//

#include "cpu/StepAllocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace {

using mpt::runtime::stepAlignedAlloc;
using mpt::runtime::stepFree;
using mpt::runtime::stepMalloc;

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

TEST(StepAllocatorDeathTest, AlignmentBeyond64BytesAborts) {
  EXPECT_DEATH(stepAlignedAlloc(128, 4096),
               "asked for 128-byte alignment; the step allocator gives 64");
}

} // namespace
