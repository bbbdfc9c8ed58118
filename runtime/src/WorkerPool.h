//===- WorkerPool.h - fork-join loops for the CPU kernels -------*- C++ -*-===//
//
// Threads started once and reused by the runtime's parallel loops: the bf16
// GEMM (as many threads as OpenBLAS uses for sgemm, so that a step compares
// at the same thread count on every path) and gathering large batches. A
// kernel call lasts tens of microseconds, less than starting a thread.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_WORKERPOOL_H
#define MPT_RUNTIME_WORKERPOOL_H

#include <cstdint>
#include <functional>

namespace mpt::runtime {

/// Calls body(index) for every index in [0, count), spread over the calling
/// thread and up to threads - 1 pool workers; returns when all are done.
/// Calls from several threads at once run one after the other.
void parallelFor(int64_t count, int threads,
                 const std::function<void(int64_t)> &body);

} // namespace mpt::runtime

#endif // MPT_RUNTIME_WORKERPOOL_H
