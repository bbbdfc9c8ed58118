//===- NcclTransport.cpp - all-reduces of CUDA memory over NCCL -*- C++ -*-===//
//
// NCCL is loaded with dlopen, like the CUDA driver (cuda/Driver.cpp), so that
// no build needs it; the few types and functions used here are declared in
// comm/Nccl.h. The ranks agree over the host transport: whether every rank
// can start NCCL, then rank 0's unique id. Collectives are enqueued on the
// runtime's one stream, after the steps queued there.
//
// A peer that dies or hangs leaves NCCL's kernels waiting on the GPU, and
// every host wait on the stream with them. So the transport watches the
// stream (cuda::StreamWatchdog): while it lives, those waits poll, and it
// ends them on an asynchronous NCCL error or after the communicator's
// timeout, aborting the communicator so that its kernels return.
//
//===----------------------------------------------------------------------===//

#include "comm/Nccl.h"
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
using namespace mpt::nccl;
using namespace mpt::runtime::comm;

namespace {

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
const Nccl *loadedNccl(std::string &error) {
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

class NcclTransport final : public DeviceTransport,
                            private mpt::cuda::StreamWatchdog {
public:
  NcclTransport(const Nccl &api, ncclComm_t comm, double timeoutSeconds)
      : api(api), comm(comm), timeoutSeconds(timeoutSeconds) {
    mpt::cuda::watchStream(*this);
  }
  ~NcclTransport() override {
    // Destroying the communicator waits for its collectives in flight: a
    // watched wait first, which aborts it if they cannot complete.
    if (mpt::cuda::Driver *driver = mpt::cuda::driver(); driver && !aborted())
      mpt::cuda::synchronize(driver->stream,
                             "waiting for the all-reduces on the GPU before "
                             "freeing the communicator");
    mpt::cuda::unwatchStream(*this);
    if (!aborted())
      api.ncclCommDestroy(comm);
  }

  mpt_status_t allReduce(void *buffer, int64_t count, mpt_dtype_t dtype,
                         mpt_reduce_op_t op) override {
    std::string what = describeAllReduce(count, dtype, op);
    // Not while another thread's wait aborts the communicator.
    std::lock_guard<std::mutex> lock(mutex);
    if (!abortReason.empty())
      return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                        what +
                            ": the communicator was aborted: " + abortReason);
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
  std::string poll(double waitedSeconds) override {
    std::lock_guard<std::mutex> lock(mutex);
    if (abortReason.empty()) {
      ncclResult_t state = ncclSuccess;
      if (ncclResult_t result = api.ncclCommGetAsyncError(comm, &state);
          result != ncclSuccess)
        state = result;
      if (state != ncclSuccess && state != ncclInProgress)
        abort(std::string("NCCL reports an asynchronous error of the "
                          "communicator: ") +
              api.ncclGetErrorString(state));
      else if (waitedSeconds > timeoutSeconds)
        abort("the communicator's all-reduces did not complete within " +
              formatNumber(timeoutSeconds) +
              " s (the communicator's timeout): a rank hangs, died, or makes "
              "different collective calls");
      else
        return {};
    }
    return abortReason + "; the communicator was aborted and is no longer "
                         "usable";
  }

  /// Makes NCCL's kernels return, so that the stream drains; `why` says
  /// what made it necessary. The caller holds `mutex`.
  void abort(std::string why) {
    api.ncclCommAbort(comm);
    abortReason = std::move(why);
  }

  bool aborted() {
    std::lock_guard<std::mutex> lock(mutex);
    return !abortReason.empty();
  }

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
  double timeoutSeconds;
  /// The waits on the stream, which may abort the communicator, may come
  /// from another thread than the all-reduces.
  std::mutex mutex;
  /// Why the communicator was aborted; empty while it is usable.
  std::string abortReason;
};

} // namespace

mpt_status_t mpt::runtime::comm::createDeviceTransport(
    HostTransport &host, double timeoutSeconds,
    std::unique_ptr<DeviceTransport> &out) {
  std::string error;
  const Nccl *api = loadedNccl(error);
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
  out = std::make_unique<NcclTransport>(*api, comm, timeoutSeconds);
  return nullptr;
}
