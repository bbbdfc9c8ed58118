//===- Mgpu.cpp - the mgpu* functions gpu-to-llvm emits ---------*- C++ -*-===//
//
// Debian ships no libmlir_cuda_runtime, so the runtime implements the host
// ABI that MLIR 22's gpu-to-llvm lowers gpu.launch_func, gpu.alloc and
// gpu.memcpy to (signatures as emitted, see shared/notes/cuda-facts.md), on
// the driver loaded by Driver.cpp. Every stream a step asks for is the
// runtime's one stream: launches, copies and cuBLASLt calls stay ordered
// without host waits.
//
//===----------------------------------------------------------------------===//

#include "../StepMemory.h"
#include "Driver.h"
#include "KernelTimes.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

using namespace mpt::cuda;
using mpt::runtime::countingStepMemory;
using mpt::runtime::StepBufferKind;
using mpt::runtime::StepMemory;

namespace {

/// Device blocks that compiled code freed, by size, for later allocations of
/// the same size: a step's temporaries come back every step, and cuMemFree
/// would also wait for the device. Every use of a block is ordered on the
/// runtime's one stream, so a block freed at one point of the stream may
/// serve any later launch or copy. Blocks go back to the driver only when
/// the process ends.
class BlockCache {
public:
  CUdeviceptr take(uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    auto block = freeBySize.find(bytes);
    if (block == freeBySize.end())
      return 0;
    CUdeviceptr pointer = block->second;
    freeBySize.erase(block);
    handOut(pointer, bytes);
    return pointer;
  }
  void track(CUdeviceptr pointer, uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    handOut(pointer, bytes);
  }
  /// False for a block this cache did not hand out (a managed one).
  bool give(CUdeviceptr pointer) {
    std::lock_guard<std::mutex> lock(mutex);
    auto block = handedOut.find(pointer);
    if (block == handedOut.end())
      return false;
    auto [bytes, memory] = block->second;
    if (memory)
      memory->freed(StepBufferKind::Workspace, int64_t(bytes));
    freeBySize.emplace(bytes, pointer);
    handedOut.erase(block);
    return true;
  }

private:
  /// Counts the block in the step that runs on this thread, if any: the
  /// device's lowering does not tag what a buffer holds, so all of it is
  /// workspace.
  void handOut(CUdeviceptr pointer, uint64_t bytes) {
    StepMemory *memory = countingStepMemory;
    if (memory)
      memory->allocated(StepBufferKind::Workspace, int64_t(bytes));
    handedOut[pointer] = {bytes, memory};
  }

  std::mutex mutex;
  std::unordered_map<CUdeviceptr, std::pair<uint64_t, StepMemory *>> handedOut;
  std::unordered_multimap<uint64_t, CUdeviceptr> freeBySize;
};

BlockCache blockCache;

/// Compiled code looks every kernel up before each launch; the driver's
/// lookup costs more than this map, and hundreds of launches per step pay it.
class FunctionCache {
public:
  CUfunction find(CUmodule module, const char *name) {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = functions.find({module, name});
    return found == functions.end() ? nullptr : found->second;
  }
  void add(CUmodule module, const char *name, CUfunction function) {
    std::lock_guard<std::mutex> lock(mutex);
    functions[{module, name}] = function;
    names.insert_or_assign(function, name);
  }
  /// The name `function` was looked up by.
  std::string nameOf(CUfunction function) {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = names.find(function);
    return found == names.end() ? "?" : found->second;
  }
  void forget(CUmodule module) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto entry = functions.begin(); entry != functions.end();) {
      if (entry->first.first != module) {
        ++entry;
        continue;
      }
      names.erase(entry->second);
      entry = functions.erase(entry);
    }
  }

private:
  struct KeyHash {
    size_t operator()(const std::pair<CUmodule, const char *> &key) const {
      return std::hash<const void *>()(key.first) ^
             (std::hash<const void *>()(key.second) << 1);
    }
  };
  std::mutex mutex;
  // The name is a constant of the compiled module, so its address is a key.
  std::unordered_map<std::pair<CUmodule, const char *>, CUfunction, KeyHash>
      functions;
  std::unordered_map<CUfunction, std::string> names;
};

FunctionCache functionCache;

} // namespace

extern "C" {

CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  Driver *d = driver();
  CUmodule module = nullptr;
  if (d)
    check(d->cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

CUmodule mgpuModuleLoadJIT(void *ptx, int optLevel) {
  Driver *d = driver();
  CUmodule module = nullptr;
  if (!d)
    return nullptr;
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  check(d->cuModuleLoadDataEx(&module, ptx, 1, options, values),
        "cuModuleLoadDataEx (PTX JIT)");
  return module;
}

void mgpuModuleUnload(CUmodule module) {
  functionCache.forget(module);
  if (Driver *d = driver(); d && module)
    check(d->cuModuleUnload(module), "cuModuleUnload");
}

CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  if (CUfunction cached = functionCache.find(module, name))
    return cached;
  Driver *d = driver();
  CUfunction function = nullptr;
  if (d && module &&
      check(d->cuModuleGetFunction(&function, module, name),
            "cuModuleGetFunction"))
    functionCache.add(module, name, function);
  return function;
}

void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, CUstream stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  Driver *d = driver();
  if (!d || !function)
    return; // the failure that got us here is recorded
  bool timed = kernelTimesEnabled();
  if (timed)
    beginKernelTime(functionCache.nameOf(function));
  check(d->cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                          smem, stream, params, extra),
        "cuLaunchKernel");
  if (timed)
    endKernelTime();
}

CUstream mgpuStreamCreate() {
  Driver *d = driver();
  return d ? d->stream : nullptr;
}

void mgpuStreamDestroy(CUstream) {
  // The runtime's stream lives for the whole session.
}

void mgpuStreamSynchronize(CUstream stream) {
  if (drivenFromBackend())
    return; // see driveFromBackend
  if (driver())
    synchronize(stream, "waiting for the stream (mgpuStreamSynchronize)");
}

void *mgpuMemAlloc(uint64_t bytes, CUstream /*stream*/, bool hostShared) {
  Driver *d = driver();
  CUdeviceptr pointer = 0;
  if (!d || bytes == 0)
    return nullptr;
  if (hostShared) {
    // Host code may read these: never cached with device-only blocks.
    check(d->cuMemAllocManaged(&pointer, bytes, CU_MEM_ATTACH_GLOBAL),
          "cuMemAllocManaged");
    return reinterpret_cast<void *>(pointer);
  }
  pointer = blockCache.take(bytes);
  if (!pointer && check(d->cuMemAlloc(&pointer, bytes), "cuMemAlloc"))
    blockCache.track(pointer, bytes);
  return reinterpret_cast<void *>(pointer);
}

void mgpuMemFree(void *pointer, CUstream /*stream*/) {
  auto block = reinterpret_cast<CUdeviceptr>(pointer);
  if (!block || blockCache.give(block))
    return;
  if (Driver *d = driver())
    check(d->cuMemFree(block), "cuMemFree");
}

void mgpuMemcpy(void *dst, void *src, size_t bytes, CUstream stream) {
  if (Driver *d = driver())
    check(d->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                           reinterpret_cast<CUdeviceptr>(src), bytes, stream),
          "cuMemcpyAsync");
}

/// The descriptor layout of a ranked memref: base, aligned, offset,
/// sizes[rank], strides[rank].
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementBytes) {
  Driver *d = driver();
  if (!d)
    return;
  auto *fields = static_cast<char **>(descriptor);
  char *aligned = fields[1];
  auto *ints = reinterpret_cast<int64_t *>(fields + 2);
  int64_t offset = ints[0], elements = 1;
  for (int64_t i = 0; i < rank; ++i)
    elements *= ints[1 + i];
  check(d->cuMemHostRegister(aligned + offset * elementBytes,
                             elements * elementBytes, /*Flags=*/0),
        "cuMemHostRegister");
}

} // extern "C"
