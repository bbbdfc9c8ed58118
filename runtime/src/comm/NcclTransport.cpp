//===- NcclTransport.cpp - all-reduces of CUDA memory over NCCL -*- C++ -*-===//
//
// NCCL is loaded with dlopen, like the CUDA driver (cuda/Driver.cpp), so that
// no build needs it; the few types and functions used here are declared as
// nccl.h declares them (NCCL 2.10 and later, which have bf16). The ranks
// agree over the host transport: whether every rank can start NCCL, then
// rank 0's unique id. Collectives are enqueued on the runtime's one stream,
// after the steps queued there.
//
//===----------------------------------------------------------------------===//

#include "comm/Transport.h"

#include "CudaRuntime.h"
#include "Driver.h"
#include "api/Status.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

using namespace mpt::runtime::api;
using namespace mpt::runtime::comm;

namespace {

using ncclComm_t = struct ncclComm *;
enum ncclResult_t : int { ncclSuccess = 0 };
enum ncclDataType_t : int {
  ncclInt32 = 2,
  ncclInt64 = 4,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclBfloat16 = 9,
};
enum ncclRedOp_t : int { ncclSum = 0, ncclMax = 2 };
struct ncclUniqueId {
  char internal[128];
};

#define MPT_NCCL_FUNCTIONS(X)                                                  \
  X(ncclGetVersion, ncclResult_t(int *))                                       \
  X(ncclGetErrorString, const char *(ncclResult_t))                            \
  X(ncclGetUniqueId, ncclResult_t(ncclUniqueId *))                             \
  X(ncclCommInitRank, ncclResult_t(ncclComm_t *, int, ncclUniqueId, int))      \
  X(ncclAllReduce, ncclResult_t(const void *, void *, size_t, ncclDataType_t,  \
                                ncclRedOp_t, ncclComm_t, CUstream))            \
  X(ncclCommDestroy, ncclResult_t(ncclComm_t))

struct Nccl {
#define MPT_DECLARE(name, type) std::add_pointer_t<type> name = nullptr;
  MPT_NCCL_FUNCTIONS(MPT_DECLARE)
#undef MPT_DECLARE
};

/// NCCL_VERSION(2, 10, 0): the first with bf16.
constexpr int kOldestVersion = 21000;

/// Loads NCCL; an empty string on success, else why not.
std::string load(Nccl &nccl) {
  const char *library = std::getenv("MPT_NCCL_LIBRARY");
  if (!library || !*library)
    library = "libnccl.so.2";
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return std::string("NCCL unavailable: cannot load ") + library + " (" +
           dlerror() +
           "); NCCL ships on PyPI as nvidia-nccl-cu13: put its lib directory "
           "on LD_LIBRARY_PATH or set MPT_NCCL_LIBRARY to the library, or "
           "train on the CPU";
#define MPT_RESOLVE(name, type)                                                \
  nccl.name = reinterpret_cast<decltype(nccl.name)>(dlsym(handle, #name));     \
  if (!nccl.name)                                                              \
    return std::string("NCCL unavailable: ") + library + " has no " #name;
  MPT_NCCL_FUNCTIONS(MPT_RESOLVE)
#undef MPT_RESOLVE
  int version = 0;
  if (nccl.ncclGetVersion(&version) != ncclSuccess || version < kOldestVersion)
    return std::string("NCCL unavailable: ") + library + " is NCCL " +
           std::to_string(version / 10000) + "." +
           std::to_string(version / 100 % 100) + "." +
           std::to_string(version % 100) +
           "; f16 and bf16 collectives need NCCL 2.10 or later";
  return {};
}

/// The loaded NCCL, or null with why not in `error`.
const Nccl *nccl(std::string &error) {
  static Nccl loaded;
  static std::once_flag once;
  static std::string loadError;
  std::call_once(once, [] { loadError = load(loaded); });
  error = loadError;
  return loadError.empty() ? &loaded : nullptr;
}

std::string ncclError(const Nccl &api, const char *call, ncclResult_t result) {
  return std::string(call) + " failed: " + api.ncclGetErrorString(result);
}

class NcclTransport final : public DeviceTransport {
public:
  NcclTransport(const Nccl &api, ncclComm_t comm) : api(api), comm(comm) {}
  ~NcclTransport() override { api.ncclCommDestroy(comm); }

  mpt_status_t allReduce(void *buffer, int64_t count, mpt_dtype_t dtype,
                         mpt_reduce_op_t op) override {
    std::string what = describeAllReduce(count, dtype, op);
    // A thread that did not start the driver has no current context yet.
    mpt::cuda::Driver *driver = mpt::cuda::driver();
    if (!driver)
      return makeStatus(MPT_STATUS_INTERNAL,
                        what + ": " + mpt::cuda::takeError());
    if (ncclResult_t result = api.ncclAllReduce(
            buffer, buffer, size_t(count), toNcclType(dtype),
            op == MPT_REDUCE_SUM ? ncclSum : ncclMax, comm, driver->stream);
        result != ncclSuccess)
      return makeStatus(MPT_STATUS_INTERNAL,
                        what + ": " + ncclError(api, "ncclAllReduce", result));
    return nullptr;
  }

private:
  static ncclDataType_t toNcclType(mpt_dtype_t dtype) {
    switch (dtype) {
    case MPT_DTYPE_F16:
      return ncclFloat16;
    case MPT_DTYPE_BF16:
      return ncclBfloat16;
    case MPT_DTYPE_I32:
      return ncclInt32;
    case MPT_DTYPE_I64:
      return ncclInt64;
    default: // F32: the C API admits no other dtype
      return ncclFloat32;
    }
  }

  const Nccl &api;
  ncclComm_t comm;
};

} // namespace

mpt_status_t mpt::runtime::comm::createDeviceTransport(
    HostTransport &host, std::unique_ptr<DeviceTransport> &out) {
  std::string error;
  const Nccl *api = nccl(error);
  if (api) {
    // The communicator takes the driver's errors itself, as a backend does.
    mpt::cuda::driveFromBackend();
    error = mpt::cuda::initialize();
  }
  // Every rank learns which ranks cannot start NCCL before any of them
  // waits in NCCL's initialization for the others.
  int32_t ready = error.empty();
  std::vector<int32_t> readiness(host.size());
  MPT_RETURN_IF_ERROR(host.allGather(&ready, sizeof(ready), readiness.data()));
  if (!error.empty())
    return makeStatus(MPT_STATUS_FAILED_PRECONDITION, error);
  std::vector<int> unready;
  for (int rank = 0; rank < host.size(); ++rank)
    if (!readiness[rank])
      unready.push_back(rank);
  if (!unready.empty())
    return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                      "NCCL cannot start on " + describeRanks(unready) +
                          ", which say why");

  struct {
    ncclUniqueId id;
    ncclResult_t result;
  } start = {};
  if (host.rank() == 0)
    start.result = api->ncclGetUniqueId(&start.id);
  MPT_RETURN_IF_ERROR(host.broadcast(&start, sizeof(start), 0));
  if (start.result != ncclSuccess)
    return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                      "on rank 0: " +
                          ncclError(*api, "ncclGetUniqueId", start.result));
  ncclComm_t comm = nullptr;
  if (ncclResult_t result =
          api->ncclCommInitRank(&comm, host.size(), start.id, host.rank());
      result != ncclSuccess)
    return makeStatus(
        MPT_STATUS_FAILED_PRECONDITION,
        ncclError(*api, "ncclCommInitRank", result) +
            " (NCCL needs a GPU per rank: each rank takes the device of its "
            "rank on its host, or MPT_CUDA_DEVICE; a host needs as many GPUs "
            "as ranks)");
  out = std::make_unique<NcclTransport>(*api, comm);
  return nullptr;
}
