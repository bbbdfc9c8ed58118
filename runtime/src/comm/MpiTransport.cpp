//===- MpiTransport.cpp - collectives on host memory over MPI ---*- C++ -*-===//
//
// Every collective is started non-blocking and tested until it completes or
// the timeout passes, so that a rank that hangs (stopped, deadlocked, or
// making other calls) cannot hold the others forever; a rank that dies makes
// the launcher end the job (MPICH's hydra kills the other ranks). Testing
// drives MPI's progress, which a sleeping wait would slow down, so the loop
// only yields the core between tests, as MPI's own blocking waits spin.
//
//===----------------------------------------------------------------------===//

#include "comm/Reduce.h"
#include "comm/Transport.h"

#include "api/Status.h"

#include <mpi.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>

using namespace mpt::runtime::api;
using namespace mpt::runtime::comm;

namespace {

/// MPI's state in this process, shared by its communicators.
struct MpiProcess {
  std::mutex mutex;
  int communicators = 0;
  /// MPI_Init ran here, so the last communicator freed finalizes.
  bool initializedHere = false;
  /// A collective failed: finalizing could wait forever for a dead rank.
  bool failed = false;
};

MpiProcess &mpiProcess() {
  static MpiProcess process;
  return process;
}

std::string describeMpiError(int error) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(error, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(error);
  return std::string(text, length);
}

/// The MPI_User_function of `op` on float `dtype`.
template <mpt_reduce_op_t op, mpt_dtype_t dtype>
void reduceFloats(void *in, void *inout, int *count, MPI_Datatype *) {
  combineFloats(op, dtype, in, inout, *count);
}

/// Waits for `request` until it completes or `timeoutSeconds` pass; `what`
/// names the collective in errors, and `failed` is set if it fails.
mpt_status_t wait(MPI_Request &request, double timeoutSeconds,
                  const std::string &what, bool &failed) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(timeoutSeconds));
  for (;;) {
    int done = 0;
    if (int error = MPI_Test(&request, &done, MPI_STATUS_IGNORE)) {
      failed = true;
      return makeStatus(MPT_STATUS_UNAVAILABLE,
                        what + " failed: " + describeMpiError(error));
    }
    if (done)
      return nullptr;
    if (Clock::now() > deadline) {
      failed = true;
      return makeStatus(
          MPT_STATUS_UNAVAILABLE,
          what + ": no answer from the other ranks within " +
              formatNumber(timeoutSeconds) +
              " s (the communicator's timeout): a rank hangs, died, or "
              "makes different collective calls; the communicator is no "
              "longer usable");
    }
    std::this_thread::yield();
  }
}

/// Collectives on a duplicate of MPI_COMM_WORLD, with the float reductions
/// of comm/Reduce.h as MPI operations.
class MpiTransport final : public HostTransport {
public:
  MpiTransport(MPI_Comm comm, double timeoutSeconds)
      : comm(comm), timeout(timeoutSeconds) {
    MPI_Comm_rank(comm, &rankInWorld);
    MPI_Comm_size(comm, &worldSize);
    MPI_Op_create(reduceFloats<MPT_REDUCE_SUM, MPT_DTYPE_F32>, 1, &sumF32);
    MPI_Op_create(reduceFloats<MPT_REDUCE_SUM, MPT_DTYPE_F16>, 1, &sumF16);
    MPI_Op_create(reduceFloats<MPT_REDUCE_SUM, MPT_DTYPE_BF16>, 1, &sumBF16);
    MPI_Op_create(reduceFloats<MPT_REDUCE_MAX, MPT_DTYPE_F32>, 1, &maxF32);
    MPI_Op_create(reduceFloats<MPT_REDUCE_MAX, MPT_DTYPE_F16>, 1, &maxF16);
    MPI_Op_create(reduceFloats<MPT_REDUCE_MAX, MPT_DTYPE_BF16>, 1, &maxBF16);
  }

  ~MpiTransport() override {
    MpiProcess &process = mpiProcess();
    std::lock_guard<std::mutex> lock(process.mutex);
    process.failed |= failed;
    if (!process.failed) {
      for (MPI_Op *op :
           {&sumF32, &sumF16, &sumBF16, &maxF32, &maxF16, &maxBF16})
        MPI_Op_free(op);
      MPI_Comm_free(&comm);
    }
    if (--process.communicators == 0 && process.initializedHere &&
        !process.failed)
      MPI_Finalize();
  }

  const char *name() const override { return "mpi"; }
  int rank() const override { return rankInWorld; }
  int size() const override { return worldSize; }

  mpt_status_t allReduce(void *buffer, int64_t count, mpt_dtype_t dtype,
                         mpt_reduce_op_t op) override {
    bool sum = op == MPT_REDUCE_SUM;
    // f16 and bf16 travel as 16-bit integers, which only their own
    // operations read.
    MPI_Datatype type = MPI_UINT16_T;
    MPI_Op mpiOp = sum ? MPI_SUM : MPI_MAX;
    switch (dtype) {
    case MPT_DTYPE_F32:
      type = MPI_FLOAT;
      mpiOp = sum ? sumF32 : maxF32;
      break;
    case MPT_DTYPE_F16:
      mpiOp = sum ? sumF16 : maxF16;
      break;
    case MPT_DTYPE_BF16:
      mpiOp = sum ? sumBF16 : maxBF16;
      break;
    case MPT_DTYPE_I32:
      type = MPI_INT32_T;
      break;
    case MPT_DTYPE_I64:
      type = MPI_INT64_T;
      break;
    }
    return run(
        [&](MPI_Request *request) {
          return MPI_Iallreduce(MPI_IN_PLACE, buffer, int(count), type, mpiOp,
                                comm, request);
        },
        describeAllReduce(count, dtype, op));
  }

  mpt_status_t broadcast(void *data, size_t bytes, int root) override {
    return run(
        [&](MPI_Request *request) {
          return MPI_Ibcast(data, int(bytes), MPI_BYTE, root, comm, request);
        },
        "broadcast of " + std::to_string(bytes) + " bytes from rank " +
            std::to_string(root));
  }

  mpt_status_t allGather(const void *mine, size_t bytes, void *all) override {
    return run(
        [&](MPI_Request *request) {
          return MPI_Iallgather(mine, int(bytes), MPI_BYTE, all, int(bytes),
                                MPI_BYTE, comm, request);
        },
        "all-gather of " + std::to_string(bytes) + " bytes per rank");
  }

  mpt_status_t barrier() override {
    return run(
        [&](MPI_Request *request) { return MPI_Ibarrier(comm, request); },
        "barrier");
  }

private:
  /// Starts a collective with `start` and waits for it; refuses once a
  /// collective failed, since the ranks no longer agree on what comes next.
  template <typename Start>
  mpt_status_t run(Start start, const std::string &what) {
    if (failed)
      return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                        what + ": an earlier collective of this "
                               "communicator failed");
    MPI_Request request;
    if (int error = start(&request)) {
      failed = true;
      return makeStatus(MPT_STATUS_UNAVAILABLE,
                        what + " failed: " + describeMpiError(error));
    }
    return wait(request, timeout, what, failed);
  }

  MPI_Comm comm;
  double timeout;
  int rankInWorld = 0, worldSize = 1;
  MPI_Op sumF32, sumF16, sumBF16, maxF32, maxF16, maxBF16;
  bool failed = false;
};

} // namespace

mpt_status_t
mpt::runtime::comm::createMpiTransport(double timeoutSeconds,
                                       std::unique_ptr<HostTransport> &out) {
  MpiProcess &process = mpiProcess();
  std::lock_guard<std::mutex> lock(process.mutex);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
    return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                      "MPI was finalized in this process (by mpt_comm_free or "
                      "the application), and MPI cannot start again");
  if (!initialized) {
    // Calls may come from any thread, one at a time.
    int provided = 0;
    if (int error =
            MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided))
      return makeStatus(MPT_STATUS_UNAVAILABLE,
                        "MPI_Init failed: " + describeMpiError(error));
    process.initializedHere = true;
  }
  // A communicator of its own, so that the application's messages on
  // MPI_COMM_WORLD cannot match mpt's, whose errors return instead of
  // aborting.
  MPI_Comm comm;
  MPI_Request request;
  bool failed = false;
  if (int error = MPI_Comm_idup(MPI_COMM_WORLD, &comm, &request))
    return makeStatus(MPT_STATUS_UNAVAILABLE,
                      "MPI_Comm_idup failed: " + describeMpiError(error));
  if (mpt_status_t status =
          wait(request, timeoutSeconds, "duplicating MPI_COMM_WORLD", failed)) {
    process.failed = true;
    return status;
  }
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  out = std::make_unique<MpiTransport>(comm, timeoutSeconds);
  ++process.communicators;
  return nullptr;
}
