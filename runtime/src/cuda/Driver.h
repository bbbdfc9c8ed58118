//===- Driver.h - CUDA driver API loaded with dlopen ------------*- C++ -*-===//

#ifndef MPT_RUNTIME_CUDA_DRIVER_H
#define MPT_RUNTIME_CUDA_DRIVER_H

#include <cuda.h>

#include <string>

namespace mpt::cuda {

/// The driver functions the runtime uses, resolved from the loaded library.
struct Driver {
#define MPT_CUDA_DRIVER_FUNCTIONS(X)                                           \
  X(cuInit, "cuInit")                                                          \
  X(cuDriverGetVersion, "cuDriverGetVersion")                                  \
  X(cuDeviceGetCount, "cuDeviceGetCount")                                      \
  X(cuDeviceGet, "cuDeviceGet")                                                \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")                      \
  X(cuCtxSetCurrent, "cuCtxSetCurrent")                                        \
  X(cuGetErrorName, "cuGetErrorName")                                          \
  X(cuGetErrorString, "cuGetErrorString")                                      \
  X(cuModuleLoadData, "cuModuleLoadData")                                      \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx")                                  \
  X(cuModuleUnload, "cuModuleUnload")                                          \
  X(cuModuleGetFunction, "cuModuleGetFunction")                                \
  X(cuLaunchKernel, "cuLaunchKernel")                                          \
  X(cuStreamCreate, "cuStreamCreate")                                          \
  X(cuStreamSynchronize, "cuStreamSynchronize")                                \
  X(cuStreamQuery, "cuStreamQuery")                                            \
  X(cuStreamDestroy, "cuStreamDestroy_v2")                                     \
  X(cuMemAlloc, "cuMemAlloc_v2")                                               \
  X(cuMemAllocManaged, "cuMemAllocManaged")                                    \
  X(cuMemFree, "cuMemFree_v2")                                                 \
  X(cuMemcpyAsync, "cuMemcpyAsync")                                            \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")                                 \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")                                 \
  X(cuMemsetD8Async, "cuMemsetD8Async")                                        \
  X(cuMemHostRegister, "cuMemHostRegister_v2")                                 \
  X(cuMemHostAlloc, "cuMemHostAlloc")                                          \
  X(cuMemFreeHost, "cuMemFreeHost")                                            \
  X(cuEventCreate, "cuEventCreate")                                            \
  X(cuEventRecord, "cuEventRecord")                                            \
  X(cuEventSynchronize, "cuEventSynchronize")                                  \
  X(cuEventQuery, "cuEventQuery")                                              \
  X(cuEventElapsedTime, "cuEventElapsedTime_v2")                               \
  X(cuEventDestroy, "cuEventDestroy_v2")                                       \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2")                           \
  X(cuStreamEndCapture, "cuStreamEndCapture")                                  \
  X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags")                \
  X(cuGraphLaunch, "cuGraphLaunch")                                            \
  X(cuGraphExecDestroy, "cuGraphExecDestroy")                                  \
  X(cuGraphDestroy, "cuGraphDestroy")
#define MPT_DECLARE(name, symbol) decltype(&::name) name = nullptr;
  MPT_CUDA_DRIVER_FUNCTIONS(MPT_DECLARE)
#undef MPT_DECLARE

  /// The one stream every launch, copy and GEMM of a step runs on, so they
  /// are ordered without host synchronization between them.
  CUstream stream = nullptr;
  /// The device this process runs on (chooseDevice in Driver.cpp).
  CUdevice device = 0;
};

/// The loaded driver with a current context, or nullptr after recording
/// why not (see takeError); initializes on first use.
Driver *driver();

/// True once a runtime backend drives compiled code (driveFromBackend).
bool drivenFromBackend();

/// Records `message` as the pending error unless one is pending already.
void recordError(std::string message);

/// Checks a driver result: true on success, else records "<what>: <name>
/// (<description>)" and returns false.
bool check(CUresult result, const char *what);

/// Watches the host's waits on the stream while it holds work that other
/// processes take part in (NCCL's collectives), which a peer that died or
/// hangs would keep from ever completing.
class StreamWatchdog {
public:
  virtual ~StreamWatchdog() = default;
  /// Called while a wait has lasted `waitedSeconds`: empty while the queued
  /// work may still complete, else why it cannot, once the watchdog has made
  /// that work return so that the stream drains.
  virtual std::string poll(double waitedSeconds) = 0;
};

/// While a watchdog is registered, every host wait on the stream polls the
/// driver and asks the watchdogs each round; without one, waits block in
/// the driver.
void watchStream(StreamWatchdog &watchdog);
void unwatchStream(StreamWatchdog &watchdog);

/// Wait for the work queued on `stream`, or before `event`; false after
/// recording why not: a driver error, or "<what>: <why>" when a watchdog
/// ends the wait (`what` names what was waited for).
bool synchronize(CUstream stream, const char *what);
bool synchronize(CUevent event, const char *what);

} // namespace mpt::cuda

#endif // MPT_RUNTIME_CUDA_DRIVER_H
