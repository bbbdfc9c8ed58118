//===- Transport.h - how the ranks reach each other -------------*- C++ -*-===//
//
// How the ranks of a run reach each other: on host memory, MPI under a
// launcher, or nothing at all for a single process; on CUDA device memory,
// NCCL. The C API (api/CommApi.cpp) checks the arguments before it calls a
// transport.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_COMM_TRANSPORT_H
#define MPT_RUNTIME_COMM_TRANSPORT_H

#include "mpt/comm.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mpt::runtime::comm {

class HostTransport {
public:
  virtual ~HostTransport() = default;
  /// What mpt_comm_transport returns.
  virtual const char *name() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// `count` fits an int; `op` and `dtype` are valid.
  virtual mpt_status_t allReduce(void *buffer, int64_t count, mpt_dtype_t dtype,
                                 mpt_reduce_op_t op) = 0;
  /// `bytes` fits an int; `root` is a rank.
  virtual mpt_status_t broadcast(void *data, size_t bytes, int root) = 0;
  /// Every rank's `bytes` bytes at `mine`, in rank order, into `all`.
  virtual mpt_status_t allGather(const void *mine, size_t bytes, void *all) = 0;
  virtual mpt_status_t barrier() = 0;
};

/// "all-reduce (sum) of 10 F16 elements", for errors.
std::string describeAllReduce(int64_t count, mpt_dtype_t dtype,
                              mpt_reduce_op_t op);
/// A number as printf's %g writes it ("2", "0.5", "nan"), for errors.
std::string formatNumber(double value);
/// "rank 1" or "ranks 0, 2", for errors.
std::string describeRanks(const std::vector<int> &ranks);

/// The transport of the launcher's world: MPI under a launcher (when this
/// build has MPI), else a single process; FAILED_PRECONDITION for a launcher
/// with more than one rank in a build without MPI. Collectives wait at most
/// `timeoutSeconds` for the other ranks.
mpt_status_t createHostTransport(double timeoutSeconds,
                                 std::unique_ptr<HostTransport> &transport);

#ifdef MPT_ENABLE_MPI
mpt_status_t createMpiTransport(double timeoutSeconds,
                                std::unique_ptr<HostTransport> &transport);
#endif

/// All-reduces of CUDA device memory, enqueued on the runtime's stream.
class DeviceTransport {
public:
  virtual ~DeviceTransport() = default;
  /// As HostTransport::allReduce, on device memory.
  virtual mpt_status_t allReduce(void *buffer, int64_t count, mpt_dtype_t dtype,
                                 mpt_reduce_op_t op) = 0;
};

/// NCCL among `host`'s ranks, which it uses to agree: FAILED_PRECONDITION,
/// on every rank, when one of them cannot load NCCL or has no driver or
/// device, or when this build has no CUDA. While it lives, a host wait on
/// the runtime's stream fails once the all-reduces there have not completed
/// within `timeoutSeconds` or NCCL reports an error, and it aborts the
/// communicator; its later all-reduces fail.
mpt_status_t createDeviceTransport(HostTransport &host, double timeoutSeconds,
                                   std::unique_ptr<DeviceTransport> &transport);

} // namespace mpt::runtime::comm

#endif // MPT_RUNTIME_COMM_TRANSPORT_H
