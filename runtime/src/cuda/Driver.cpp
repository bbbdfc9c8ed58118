//===- Driver.cpp - CUDA driver API loaded with dlopen ----------*- C++ -*-===//

#include "Driver.h"
#include "CudaRuntime.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace mpt::cuda {

static std::mutex errorMutex;
static std::string pendingError;
static std::atomic<bool> backendDriven{false};

void recordError(std::string message) {
  std::lock_guard<std::mutex> lock(errorMutex);
  if (!pendingError.empty())
    return;
  // Compiled code calling the mgpu* functions directly (mlir-runner) has no
  // backend to take the error: say it once on stderr too.
  static bool printed = false;
  if (!backendDriven && !printed) {
    std::fprintf(stderr, "mpt CUDA runtime: %s\n", message.c_str());
    printed = true;
  }
  pendingError = std::move(message);
}

void driveFromBackend() { backendDriven = true; }

bool drivenFromBackend() { return backendDriven; }

std::string takeError() {
  std::lock_guard<std::mutex> lock(errorMutex);
  return std::exchange(pendingError, std::string());
}

/// "<name> (<description>)" of a driver result, as far as the driver can
/// name it.
static std::string describe(const Driver &d, CUresult result) {
  const char *name = nullptr, *description = nullptr;
  if (d.cuGetErrorName)
    d.cuGetErrorName(result, &name);
  if (d.cuGetErrorString)
    d.cuGetErrorString(result, &description);
  std::string text = name ? name : "CUresult " + std::to_string(result);
  if (description)
    text += std::string(" (") + description + ")";
  return text;
}

/// The ordinal of the device this process uses: $MPT_CUDA_DEVICE, else the
/// process's rank on its host as the launcher numbers it (MPICH's hydra,
/// Open MPI, Slurm), so that data-parallel ranks on a host with several
/// GPUs take one each (NCCL refuses two ranks on one GPU), else 0. Empty
/// `error` on success.
static int chooseDevice(int count, std::string &error) {
  if (const char *chosen = std::getenv("MPT_CUDA_DEVICE")) {
    char *end = nullptr;
    long ordinal = std::strtol(chosen, &end, 10);
    if (!*chosen || *end || ordinal < 0 || ordinal >= count)
      error = std::string("CUDA backend unavailable: MPT_CUDA_DEVICE=") +
              chosen + " is not a device of the " + std::to_string(count) +
              " the driver sees (0 to " + std::to_string(count - 1) + ")";
    return int(ordinal);
  }
  for (const char *variable :
       {"MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"})
    if (const char *localRank = std::getenv(variable))
      return std::atoi(localRank) % count;
  return 0;
}

/// Loads and initializes the driver once; an empty string on success.
static std::string load(Driver &d) {
  const char *library = std::getenv("MPT_CUDA_DRIVER_LIBRARY");
  if (!library || !*library)
    library = "libcuda.so.1";
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return std::string("CUDA backend unavailable: cannot load the NVIDIA "
                       "driver library ") +
           library + " (" + dlerror() +
           "); install the NVIDIA driver or run on the CPU backend";
#define MPT_RESOLVE(name, symbol)                                              \
  d.name = reinterpret_cast<decltype(d.name)>(dlsym(handle, symbol));          \
  if (!d.name)                                                                 \
    return std::string("CUDA backend unavailable: the driver library ") +      \
           library + " has no " symbol "; the driver is too old";
  MPT_CUDA_DRIVER_FUNCTIONS(MPT_RESOLVE)
#undef MPT_RESOLVE

  CUresult result = d.cuInit(0);
  if (result == CUDA_ERROR_STUB_LIBRARY)
    return std::string("CUDA backend unavailable: ") + library +
           " is the CUDA toolkit's stub library, not a driver; install the "
           "NVIDIA driver";
  if (result != CUDA_SUCCESS)
    return "CUDA backend unavailable: cuInit failed: " + describe(d, result);
  int count = 0;
  result = d.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS)
    return "CUDA backend unavailable: cuDeviceGetCount failed: " +
           describe(d, result);
  if (count == 0)
    return "CUDA backend unavailable: the driver sees no CUDA device";
  std::string error;
  int ordinal = chooseDevice(count, error);
  if (!error.empty())
    return error;
  CUcontext context;
  if ((result = d.cuDeviceGet(&d.device, ordinal)) != CUDA_SUCCESS ||
      (result = d.cuDevicePrimaryCtxRetain(&context, d.device)) !=
          CUDA_SUCCESS ||
      (result = d.cuCtxSetCurrent(context)) != CUDA_SUCCESS ||
      (result = d.cuStreamCreate(&d.stream, CU_STREAM_NON_BLOCKING)) !=
          CUDA_SUCCESS)
    return "CUDA backend unavailable: cannot set up device " +
           std::to_string(ordinal) + ": " + describe(d, result);
  return {};
}

static Driver theDriver;
static std::once_flag loadOnce;
static std::string loadError;

Driver *driver() {
  std::call_once(loadOnce, [] { loadError = load(theDriver); });
  if (!loadError.empty()) {
    recordError(loadError);
    return nullptr;
  }
  // A thread that did not load the driver has no current context yet.
  static thread_local bool current = false;
  if (!current) {
    CUcontext context;
    if (!check(theDriver.cuDevicePrimaryCtxRetain(&context, theDriver.device),
               "cuDevicePrimaryCtxRetain") ||
        !check(theDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent"))
      return nullptr;
    current = true;
  }
  return &theDriver;
}

bool check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return true;
  recordError(std::string(what) + " failed: " + describe(theDriver, result));
  return false;
}

static std::mutex watchdogMutex;
static std::vector<StreamWatchdog *> watchdogs;

void watchStream(StreamWatchdog &watchdog) {
  std::lock_guard<std::mutex> lock(watchdogMutex);
  watchdogs.push_back(&watchdog);
}

void unwatchStream(StreamWatchdog &watchdog) {
  std::lock_guard<std::mutex> lock(watchdogMutex);
  watchdogs.erase(std::remove(watchdogs.begin(), watchdogs.end(), &watchdog),
                  watchdogs.end());
}

/// Blocks in `block` when no watchdog watches; else polls `query` until it
/// stops answering CUDA_ERROR_NOT_READY or a watchdog ends the wait. The
/// GPU (and NCCL's proxy thread) make the progress, so the host sleeps
/// between looks, leaving its core to that thread; 100 us is little against
/// a step.
template <typename Query, typename Block>
static bool waitFor(Query query, const char *queryCall, Block block,
                    const char *blockCall, const char *what) {
  bool watched;
  {
    std::lock_guard<std::mutex> lock(watchdogMutex);
    watched = !watchdogs.empty();
  }
  if (!watched)
    return check(block(), blockCall);
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  for (;;) {
    CUresult result = query();
    if (result != CUDA_ERROR_NOT_READY)
      return check(result, queryCall);
    double waited = std::chrono::duration<double>(Clock::now() - start).count();
    std::string stopped;
    {
      std::lock_guard<std::mutex> lock(watchdogMutex);
      for (StreamWatchdog *watchdog : watchdogs)
        if (stopped = watchdog->poll(waited); !stopped.empty())
          break;
    }
    if (!stopped.empty()) {
      recordError(std::string(what) + ": " + stopped);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

bool synchronize(CUstream stream, const char *what) {
  return waitFor([&] { return theDriver.cuStreamQuery(stream); },
                 "cuStreamQuery",
                 [&] { return theDriver.cuStreamSynchronize(stream); },
                 "cuStreamSynchronize", what);
}

bool synchronize(CUevent event, const char *what) {
  return waitFor([&] { return theDriver.cuEventQuery(event); }, "cuEventQuery",
                 [&] { return theDriver.cuEventSynchronize(event); },
                 "cuEventSynchronize", what);
}

std::string initialize() {
  if (driver())
    return {};
  return takeError();
}

} // namespace mpt::cuda
