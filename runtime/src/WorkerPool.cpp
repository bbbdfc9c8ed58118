//===- WorkerPool.cpp - fork-join loops for the CPU kernels ---------------===//

#include "WorkerPool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace mpt::runtime {
namespace {

/// Workers sleep on `wake` until `generation` changes, then take indices of
/// the current loop from `next` until none is left.
class WorkerPool {
public:
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    for (std::thread &worker : workers)
      worker.join();
  }

  void run(int64_t count, int threads,
           const std::function<void(int64_t)> &body) {
    std::lock_guard<std::mutex> serial(callMutex);
    int helpers = std::min<int64_t>(threads, count) - 1;
    {
      std::unique_lock<std::mutex> lock(mutex);
      while (static_cast<int>(workers.size()) < helpers)
        workers.emplace_back([this] { work(); });
      loopBody = &body;
      loopCount = count;
      next.store(0);
      pending = helpers;
      active = helpers;
      ++generation;
    }
    wake.notify_all();
    runIndices();
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [this] { return pending == 0; });
    loopBody = nullptr;
  }

private:
  void runIndices() {
    for (int64_t index = next.fetch_add(1); index < loopCount;
         index = next.fetch_add(1))
      (*loopBody)(index);
  }

  void work() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      wake.wait(lock, [&] { return stopping || generation != seen; });
      if (stopping)
        return;
      seen = generation;
      // Only the first `active` workers to wake join this loop; the others
      // wait for the next one.
      if (active == 0)
        continue;
      --active;
      lock.unlock();
      runIndices();
      lock.lock();
      if (--pending == 0)
        done.notify_one();
    }
  }

  std::mutex callMutex;
  std::mutex mutex;
  std::condition_variable wake, done;
  std::vector<std::thread> workers;
  const std::function<void(int64_t)> *loopBody = nullptr;
  int64_t loopCount = 0;
  std::atomic<int64_t> next{0};
  uint64_t generation = 0;
  int pending = 0, active = 0;
  bool stopping = false;
};

} // namespace

void parallelFor(int64_t count, int threads,
                 const std::function<void(int64_t)> &body) {
  if (threads <= 1 || count <= 1) {
    for (int64_t index = 0; index < count; ++index)
      body(index);
    return;
  }
  static WorkerPool pool;
  pool.run(count, threads, body);
}

} // namespace mpt::runtime
