//===- CommApi.cpp - the C API of mpt/comm.h --------------------*- C++ -*-===//
//
// Checks every argument, then hands the collective to the communicator's
// transport (comm/Transport.h); the transports' errors get the entry point's
// name in front.
//
//===----------------------------------------------------------------------===//

#include "mpt/comm.h"

#include "api/Status.h"
#include "comm/Transport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

using namespace mpt::runtime::api;
using namespace mpt::runtime::comm;

struct mpt_comm_s {
  std::unique_ptr<HostTransport> host;
  /// Only for a communicator of the CUDA device.
  std::unique_ptr<DeviceTransport> device;
};

namespace {

/// `status` with "<caller>: " in front of its message; NULL stays NULL.
mpt_status_t prefixed(const char *caller, mpt_status_t status) {
  if (!status)
    return nullptr;
  mpt_status_t named =
      makeStatus(mpt_status_code(status),
                 std::string(caller) + ": " + mpt_status_message(status));
  mpt_status_free(status);
  return named;
}

mpt_status_t invalid(const char *caller, const std::string &message) {
  return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                    std::string(caller) + ": " + message);
}

mpt_status_t checkDevice(const char *caller, const char *what,
                         mpt_device_t device) {
  if (device == MPT_DEVICE_CPU || device == MPT_DEVICE_CUDA)
    return nullptr;
  return invalid(caller, std::string("unknown ") + what + " " +
                             std::to_string(device) +
                             " (MPT_DEVICE_CPU or MPT_DEVICE_CUDA)");
}

mpt_status_t checkReduction(const char *caller, mpt_dtype_t dtype,
                            mpt_reduce_op_t op) {
  if (op != MPT_REDUCE_SUM && op != MPT_REDUCE_MAX)
    return invalid(caller, "unknown reduce op " + std::to_string(op) +
                               " (MPT_REDUCE_SUM or MPT_REDUCE_MAX)");
  switch (dtype) {
  case MPT_DTYPE_F32:
  case MPT_DTYPE_F16:
  case MPT_DTYPE_BF16:
  case MPT_DTYPE_I32:
  case MPT_DTYPE_I64:
    return nullptr;
  }
  std::string name = mpt_dtype_name(dtype);
  return invalid(caller,
                 (name.empty() ? "unknown dtype " + std::to_string(dtype)
                               : "dtype " + name) +
                     ": all-reduces take F32, F16, BF16, I32 or I64");
}

} // namespace

extern "C" {

void mpt_comm_options_init(mpt_comm_options_t *options) {
  if (!options)
    return;
  options->device = MPT_DEVICE_CPU;
  options->timeout_seconds = 600.0;
}

mpt_status_t mpt_comm_init(const mpt_comm_options_t *options, mpt_comm_t *out) {
  static const char *kCaller = "mpt_comm_init";
  MPT_RETURN_IF_ERROR(checkNotNull(kCaller, {{"comm", out}}));
  *out = nullptr;
  mpt_comm_options_t chosen;
  mpt_comm_options_init(&chosen);
  if (options)
    chosen = *options;
  MPT_RETURN_IF_ERROR(checkDevice(kCaller, "device", chosen.device));
  if (!(chosen.timeout_seconds > 0) || !std::isfinite(chosen.timeout_seconds))
    return invalid(kCaller,
                   "timeout_seconds must be finite and positive, got " +
                       formatNumber(chosen.timeout_seconds));
  return guarded(kCaller, [&]() -> mpt_status_t {
    auto comm = std::make_unique<mpt_comm_s>();
    MPT_RETURN_IF_ERROR(prefixed(
        kCaller, createHostTransport(chosen.timeout_seconds, comm->host)));
    if (chosen.device == MPT_DEVICE_CUDA)
      MPT_RETURN_IF_ERROR(prefixed(
          kCaller, createDeviceTransport(*comm->host, chosen.timeout_seconds,
                                         comm->device)));
    *out = comm.release();
    return nullptr;
  });
}

void mpt_comm_free(mpt_comm_t comm) { delete comm; }

int mpt_comm_rank(mpt_comm_t comm) { return comm ? comm->host->rank() : 0; }

int mpt_comm_size(mpt_comm_t comm) { return comm ? comm->host->size() : 0; }

const char *mpt_comm_transport(mpt_comm_t comm) {
  return comm ? comm->host->name() : "";
}

mpt_status_t mpt_comm_all_reduce(mpt_comm_t comm, mpt_device_t memory,
                                 void *buffer, int64_t count, mpt_dtype_t dtype,
                                 mpt_reduce_op_t op) {
  static const char *kCaller = "mpt_comm_all_reduce";
  MPT_RETURN_IF_ERROR(
      checkNotNull(kCaller, {{"comm", comm}, {"buffer", buffer}}));
  MPT_RETURN_IF_ERROR(checkDevice(kCaller, "memory", memory));
  if (count < 0 || count > INT_MAX)
    return invalid(kCaller, "count must lie in [0, 2^31 - 1], got " +
                                std::to_string(count));
  MPT_RETURN_IF_ERROR(checkReduction(kCaller, dtype, op));
  if (memory == MPT_DEVICE_CPU)
    return guarded(kCaller, [&] {
      return prefixed(kCaller, comm->host->allReduce(buffer, count, dtype, op));
    });
  if (!comm->device)
    return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                      std::string(kCaller) +
                          ": CUDA memory needs a communicator initialized "
                          "for the CUDA device (options.device "
                          "MPT_DEVICE_CUDA)");
  return guarded(kCaller, [&] {
    return prefixed(kCaller, comm->device->allReduce(buffer, count, dtype, op));
  });
}

mpt_status_t mpt_comm_broadcast(mpt_comm_t comm, void *data, size_t bytes,
                                int root) {
  static const char *kCaller = "mpt_comm_broadcast";
  MPT_RETURN_IF_ERROR(checkNotNull(kCaller, {{"comm", comm}, {"data", data}}));
  if (bytes > size_t(INT_MAX))
    return invalid(kCaller, "bytes must be at most 2^31 - 1, got " +
                                std::to_string(bytes));
  int size = comm->host->size();
  if (root < 0 || root >= size)
    return invalid(kCaller, "root " + std::to_string(root) +
                                " is not a rank: there are " +
                                std::to_string(size));
  return guarded(kCaller, [&] {
    return prefixed(kCaller, comm->host->broadcast(data, bytes, root));
  });
}

mpt_status_t mpt_comm_barrier(mpt_comm_t comm) {
  static const char *kCaller = "mpt_comm_barrier";
  MPT_RETURN_IF_ERROR(checkNotNull(kCaller, {{"comm", comm}}));
  return guarded(kCaller,
                 [&] { return prefixed(kCaller, comm->host->barrier()); });
}

mpt_status_t mpt_comm_check_same(mpt_comm_t comm, const void *data,
                                 size_t bytes, const char *what) {
  static const char *kCaller = "mpt_comm_check_same";
  MPT_RETURN_IF_ERROR(
      checkNotNull(kCaller, {{"comm", comm}, {"data", data}, {"what", what}}));
  return guarded(kCaller, [&]() -> mpt_status_t {
    uint64_t mine = llvm::xxh3_64bits(
        llvm::ArrayRef(static_cast<const uint8_t *>(data), bytes));
    std::vector<uint64_t> hashes(comm->host->size());
    MPT_RETURN_IF_ERROR(prefixed(
        kCaller, comm->host->allGather(&mine, sizeof(mine), hashes.data())));
    // The ranks of each hash, in the order of their first rank.
    std::vector<std::pair<uint64_t, std::vector<int>>> groups;
    for (int rank = 0; rank < int(hashes.size()); ++rank) {
      auto group = std::find_if(groups.begin(), groups.end(), [&](auto &g) {
        return g.first == hashes[rank];
      });
      if (group == groups.end())
        groups.push_back({hashes[rank], {rank}});
      else
        group->second.push_back(rank);
    }
    if (groups.size() == 1)
      return nullptr;
    std::string holders;
    for (const auto &[hash, ranks] : groups)
      holders += (holders.empty() ? "" : ", ") + describeRanks(ranks) +
                 (ranks.size() == 1 ? " has " : " have ") +
                 llvm::utohexstr(hash, /*LowerCase=*/true, /*Width=*/16);
    return makeStatus(
        MPT_STATUS_FAILED_PRECONDITION,
        std::string(kCaller) + ": " + what +
            " differs between the ranks (64-bit hashes: " + holders + ")");
  });
}

} // extern "C"
