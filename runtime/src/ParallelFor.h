//===- ParallelFor.h - fork-join loops for the CPU kernels ------*- C++ -*-===//
//
// The runtime's parallel loops (the slices of mpt-outline-parallel-linalg, the
// bf16 GEMM, gathering large batches) run on OpenMP, the threads OpenBLAS's
// OpenMP build runs sgemm on. With a pool of its own, each of a step's
// parallel loops waited for a worker that OpenBLAS's spinning threads kept off
// the second core.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_PARALLELFOR_H
#define MPT_RUNTIME_PARALLELFOR_H

#include <cstdint>
#include <functional>

namespace mpt::runtime {

/// The number of threads the CPU kernels and the generated parallel loops run
/// on: OpenMP's (OMP_NUM_THREADS, or else every core), which OpenBLAS's OpenMP
/// build also reads before each call and which openblas_set_num_threads sets.
/// Not openblas_get_num_threads(): that build reports 1 until its first BLAS
/// call, so a bf16 step that never calls sgemm ran on one thread. 1 inside a
/// parallel region (a convolution's image): a nested region would run on one
/// thread anyway, after setting up a team for nothing.
int cpuThreads();

/// Calls body(index) for every index in [0, count), spread over up to
/// `threads` threads (the calling one among them); returns when all are done.
void parallelFor(int64_t count, int threads,
                 const std::function<void(int64_t)> &body);

} // namespace mpt::runtime

#endif // MPT_RUNTIME_PARALLELFOR_H
