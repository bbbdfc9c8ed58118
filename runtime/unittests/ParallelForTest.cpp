//===- ParallelForTest.cpp - parallelFor ----------------------------------===//

#include "ParallelFor.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using mpt::runtime::cpuThreads;
using mpt::runtime::parallelFor;

namespace {

/// Every index runs exactly once, on more than one thread when the loop is
/// long enough to keep them busy, whatever thread count each call asks for.
TEST(ParallelFor, EveryIndexRunsOnce) {
  for (int threads : {1, 2, 3, 5, 2}) {
    for (int64_t count : {0, 1, 2, 7, 1000}) {
      std::vector<std::atomic<int>> runs(count);
      parallelFor(count, threads, [&](int64_t index) { ++runs[index]; });
      for (int64_t index = 0; index < count; ++index)
        EXPECT_EQ(runs[index].load(), 1) << "index " << index << " of " << count
                                         << ", " << threads << " threads";
    }
  }
}

TEST(ParallelFor, UsesSeveralThreads) {
  std::mutex mutex;
  std::set<std::thread::id> ids;
  std::atomic<int> waiting{0};
  // Each of the first two indices waits (bounded) for the other to start, so
  // that one thread cannot take both.
  parallelFor(2, 2, [&](int64_t) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
    }
    ++waiting;
    for (int spin = 0; spin < 2000 && waiting.load() < 2; ++spin)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  EXPECT_EQ(ids.size(), 2u);
}

/// Calls from two threads at once each run their own loop, not one
/// interleaved loop.
TEST(ParallelFor, ConcurrentCallsEachRunTheirOwnLoop) {
  std::vector<std::atomic<int>> first(500), second(700);
  std::thread other(
      [&] { parallelFor(700, 2, [&](int64_t index) { ++second[index]; }); });
  parallelFor(500, 2, [&](int64_t index) { ++first[index]; });
  other.join();
  for (auto &runs : first)
    EXPECT_EQ(runs.load(), 1);
  for (auto &runs : second)
    EXPECT_EQ(runs.load(), 1);
}

/// cpuThreads() is OpenMP's count, and 1 inside a parallel loop, whose nested
/// loops (a convolution image's product) would run on one thread anyway.
TEST(ParallelFor, CpuThreadsIsOpenMPsCountAndOneInsideALoop) {
  int saved = omp_get_max_threads();
  omp_set_num_threads(2);
  EXPECT_EQ(cpuThreads(), 2);
  std::vector<int> inside(2, 0);
  parallelFor(2, 2, [&](int64_t index) { inside[index] = cpuThreads(); });
  EXPECT_EQ(inside, std::vector<int>({1, 1}));
  omp_set_num_threads(3);
  EXPECT_EQ(cpuThreads(), 3);
  omp_set_num_threads(saved);
}

} // namespace
