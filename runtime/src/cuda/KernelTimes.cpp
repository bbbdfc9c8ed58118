//===- KernelTimes.cpp - GPU time of each launch ----------------*- C++ -*-===//

#include "KernelTimes.h"

#include "Driver.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

using namespace mpt::cuda;

namespace {

struct Launch {
  std::string name;
  CUevent start = nullptr, end = nullptr;
};

struct Recorder {
  std::mutex mutex;
  std::vector<Launch> launches;
  size_t written = 0; // launches written by earlier calls
};

Recorder &recorder() {
  static Recorder instance;
  return instance;
}

const char *timesPath() {
  static const char *path = std::getenv("MPT_CUDA_KERNEL_TIMES");
  return path && *path ? path : nullptr;
}

CUevent recordEvent(Driver &d) {
  CUevent event = nullptr;
  if (!check(d.cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate"))
    return nullptr;
  if (!check(d.cuEventRecord(event, d.stream), "cuEventRecord")) {
    d.cuEventDestroy(event);
    return nullptr;
  }
  return event;
}

} // namespace

bool mpt::cuda::kernelTimesEnabled() { return timesPath() != nullptr; }

void mpt::cuda::beginKernelTime(std::string name) {
  Driver *d = driver();
  if (!d)
    return;
  Recorder &r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.launches.push_back({std::move(name), recordEvent(*d), nullptr});
}

void mpt::cuda::endKernelTime() {
  Driver *d = driver();
  if (!d)
    return;
  Recorder &r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.launches.empty() && !r.launches.back().end)
    r.launches.back().end = recordEvent(*d);
}

bool mpt::cuda::writeKernelTimes() {
  Driver *d = driver();
  const char *path = timesPath();
  Recorder &r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!d || !path || r.launches.empty())
    return true;
  bool first = r.written == 0;
  FILE *file = std::fopen(path, first ? "w" : "a");
  if (!file) {
    recordError(std::string("MPT_CUDA_KERNEL_TIMES: cannot write ") + path);
    return false;
  }
  if (first)
    std::fputs("launch,name,microseconds\n", file);
  bool ok = true;
  for (Launch &launch : r.launches) {
    float milliseconds = -1.0f;
    if (launch.start && launch.end &&
        synchronize(launch.end, "waiting for a timed kernel") &&
        check(d->cuEventElapsedTime(&milliseconds, launch.start, launch.end),
              "cuEventElapsedTime"))
      std::fprintf(file, "%zu,%s,%.3f\n", r.written, launch.name.c_str(),
                   milliseconds * 1e3);
    else
      ok = false;
    ++r.written;
    for (CUevent event : {launch.start, launch.end})
      if (event)
        d->cuEventDestroy(event);
  }
  r.launches.clear();
  std::fclose(file);
  return ok;
}
