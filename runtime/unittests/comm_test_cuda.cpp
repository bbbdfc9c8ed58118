//===- comm_test_cuda.cpp - device memory for comm_test.c -------*- C++ -*-===//

#include "comm_test_cuda.h"

#include "CudaRuntime.h"
#include "Driver.h"

#include <cstdio>
#include <string>

using namespace mpt::cuda;

namespace {

/// The driver, or null after printing why not.
Driver *loadedDriver() {
  Driver *loaded = driver();
  if (!loaded)
    std::printf("FAIL: %s\n", takeError().c_str());
  return loaded;
}

/// Prints and is false unless `result` is a success.
bool succeeded(CUresult result, const char *what) {
  if (check(result, what))
    return true;
  std::printf("FAIL: %s\n", takeError().c_str());
  return false;
}

} // namespace

void *deviceCopyOf(const void *host, size_t bytes) {
  Driver *d = loadedDriver();
  CUdeviceptr device = 0;
  if (!d || !succeeded(d->cuMemAlloc(&device, bytes), "cuMemAlloc") ||
      !succeeded(d->cuMemcpyHtoDAsync(device, host, bytes, d->stream),
                 "cuMemcpyHtoDAsync"))
    return nullptr;
  return reinterpret_cast<void *>(device);
}

int copyFromDevice(void *host, const void *device, size_t bytes) {
  Driver *d = loadedDriver();
  if (!d || !succeeded(d->cuMemcpyDtoHAsync(
                           host, reinterpret_cast<CUdeviceptr>(device), bytes,
                           d->stream),
                       "cuMemcpyDtoHAsync"))
    return 0;
  if (const char *error = streamWaitError()) {
    std::printf("FAIL: %s\n", error);
    return 0;
  }
  return 1;
}

const char *streamWaitError() {
  static std::string error;
  Driver *d = driver();
  if (d && synchronize(d->stream, "waiting for the stream"))
    return nullptr;
  error = takeError();
  return error.c_str();
}

void freeDeviceCopy(void *device) {
  if (Driver *d = loadedDriver())
    d->cuMemFree(reinterpret_cast<CUdeviceptr>(device));
}
