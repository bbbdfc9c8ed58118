//===- ParallelFor.cpp - fork-join loops for the CPU kernels --------------===//

#include "ParallelFor.h"

#include <algorithm>
#include <omp.h>

namespace mpt::runtime {

int cpuThreads() {
  return omp_in_parallel() ? 1 : std::max(omp_get_max_threads(), 1);
}

void parallelFor(int64_t count, int threads,
                 const std::function<void(int64_t)> &body) {
  int team = static_cast<int>(std::min<int64_t>(threads, count));
  if (team <= 1) {
    for (int64_t index = 0; index < count; ++index)
      body(index);
    return;
  }
#pragma omp parallel for num_threads(team) schedule(dynamic)
  for (int64_t index = 0; index < count; ++index)
    body(index);
}

} // namespace mpt::runtime
