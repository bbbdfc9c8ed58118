/*===- comm.h - collectives among the ranks of data-parallel runs -*- C -*-===*\
|*                                                                            *|
|* In data-parallel training every process (a rank) holds the same state,     *|
|* runs the step on its own shard of each batch, and sums its gradients with  *|
|* the other ranks'. A communicator runs those collectives:                   *|
|* - started by a launcher (mpiexec: MPICH's hydra sets PMI_SIZE, Open MPI    *|
|*   OMPI_COMM_WORLD_SIZE), over MPI on host memory;                          *|
|* - started without one, as the only rank (size 1), with no MPI at all: the  *|
|*   collectives then only check their arguments;                             *|
|* - on memory of the CUDA device (options.device MPT_DEVICE_CUDA), over NCCL *|
|*   (libnccl.so.2, loaded at run time, never needed to build), enqueued on   *|
|*   the runtime's CUDA stream, after the steps queued there.                 *|
|*                                                                            *|
|* Collectives are collective: every rank makes the same calls in the same    *|
|* order, with the same count, dtype, op and root. A collective that waits    *|
|* longer than the communicator's timeout for the other ranks fails with      *|
|* MPT_STATUS_UNAVAILABLE and leaves the communicator unusable: the process   *|
|* should then exit non-zero, which makes the launcher end the other ranks    *|
|* (as it does when a rank dies). Calls on one communicator must not overlap. *|
|* Conventions (statuses, NULL handles) are runtime.h's.                      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MPT_COMM_H
#define MPT_COMM_H

#include "mpt/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

enum mpt_reduce_op_e {
  /* Floats add in f32 and round once per pair of operands to the dtype
     (nearest even), so an f16 sum that leaves f16's range is inf. */
  MPT_REDUCE_SUM = 0,
  /* A NaN on any rank makes the float result NaN (host memory; on CUDA
     memory NCCL's max decides: reduce an integer flag there instead). */
  MPT_REDUCE_MAX = 1,
};
/* An int, not the enum: callers may pass any value, which is checked. */
typedef int32_t mpt_reduce_op_t;

typedef struct mpt_comm_options_t {
  /* MPT_DEVICE_CPU: collectives on host memory only. MPT_DEVICE_CUDA: also
     all-reduces of CUDA device memory, over NCCL; init fails with
     MPT_STATUS_FAILED_PRECONDITION, saying what is missing, without CUDA in
     this build, libnccl.so.2 (or $MPT_NCCL_LIBRARY), a driver or a device. */
  mpt_device_t device;
  /* The longest a collective waits for the other ranks, in seconds: finite
     and positive. With MPT_DEVICE_CUDA, also the longest any host wait on
     the runtime's CUDA stream (for a step, a copy out) lasts while the
     communicator exists: then, or on an error NCCL reports, the wait fails
     and the NCCL communicator is aborted; its later all-reduces fail. */
  double timeout_seconds;
} mpt_comm_options_t;

/* The CPU device and a timeout of 600 s. NULL is a no-op. */
MPT_API void mpt_comm_options_init(mpt_comm_options_t *options);

/* The communicator of this process's rank in the launcher's world; `options`
   NULL means the defaults. Under a launcher with more than one rank in a
   build without MPI, fails with MPT_STATUS_FAILED_PRECONDITION. MPI is
   initialized here unless the process already did, and finalized when the
   last communicator is freed if it was initialized here (once per process:
   MPI cannot start again). On success `*comm` is owned by the caller. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t
mpt_comm_init(const mpt_comm_options_t *options, mpt_comm_t *comm);
/* Releases a communicator; NULL is a no-op. After a failed collective it
   releases only what this process holds, and MPI stays initialized: leaving
   MPI would wait for the rank that failed. */
MPT_API void mpt_comm_free(mpt_comm_t comm);

/* This process's rank in [0, size), and the number of ranks; 0 for NULL. */
MPT_API int mpt_comm_rank(mpt_comm_t comm);
MPT_API int mpt_comm_size(mpt_comm_t comm);
/* How host memory travels: "mpi" or "single-process"; "" for NULL. Static
   storage. */
MPT_API const char *mpt_comm_transport(mpt_comm_t comm);

/* Replaces `count` elements of `dtype` (F32, F16, BF16, I32 or I64; at most
   2^31 - 1) at `buffer` on every rank by their SUM or MAX over the ranks.
   `memory` is where `buffer` lives: MPT_DEVICE_CPU, host memory, reduced
   before the call returns; MPT_DEVICE_CUDA, device memory (a communicator
   initialized for the CUDA device), reduced on the runtime's CUDA stream:
   the call returns once the reduction is enqueued, and the runtime's calls
   that copy from the device see its result. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t
mpt_comm_all_reduce(mpt_comm_t comm, mpt_device_t memory, void *buffer,
                    int64_t count, mpt_dtype_t dtype, mpt_reduce_op_t op);

/* Copies `bytes` bytes (at most 2^31 - 1) of host memory at `data` on rank
   `root` to `data` on every other rank. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t mpt_comm_broadcast(mpt_comm_t comm,
                                                            void *data,
                                                            size_t bytes,
                                                            int root);

/* Returns once every rank has called it. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t mpt_comm_barrier(mpt_comm_t comm);

/* Checks that every rank passes the same `bytes` bytes at `data` (compared by
   a 64-bit hash), e.g. the program's signature at start-up. If not, every
   rank fails with MPT_STATUS_FAILED_PRECONDITION, naming `what` and which
   ranks hold which hash. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t mpt_comm_check_same(mpt_comm_t comm,
                                                             const void *data,
                                                             size_t bytes,
                                                             const char *what);

#ifdef __cplusplus
}
#endif

#endif /* MPT_COMM_H */
