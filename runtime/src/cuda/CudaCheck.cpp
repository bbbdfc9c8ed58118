//===- CudaCheck.cpp - can the CUDA backend start here? ---------*- C++ -*-===//
//
// Prints the device the CUDA backend would use, or the reason it cannot
// start (no driver library, the toolkit's stub, no device), and exits 1 in
// that case. Also checks that an mgpu* call made without a usable driver
// fails with the same recorded message instead of crashing.
//
//===----------------------------------------------------------------------===//

#include "CudaRuntime.h"
#include "Driver.h"

#include <cstdio>

extern "C" void *mgpuStreamCreate();

int main() {
  std::string error = mpt::cuda::initialize();
  if (error.empty()) {
    std::printf("CUDA backend ready: device %d\n",
                int(mpt::cuda::driver()->device));
    return 0;
  }
  std::fprintf(stderr, "error: %s\n", error.c_str());
  // What a compiled step would hit: its first mgpu* call records the error.
  void *stream = mgpuStreamCreate();
  std::string recorded = mpt::cuda::takeError();
  std::fprintf(stderr, "mgpuStreamCreate: %s, recorded: %s\n",
               stream ? "non-null" : "null", recorded.c_str());
  return 1;
}
