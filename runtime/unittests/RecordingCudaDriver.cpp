//===- RecordingCudaDriver.cpp - a CUDA driver that records calls -*- C++
//-*-===//
//
// Stands in for libcuda.so.1 ($MPT_CUDA_DRIVER_LIBRARY), cuBLASLt
// ($MPT_CUBLASLT_LIBRARY) and NCCL ($MPT_NCCL_LIBRARY) on machines without a
// GPU, so that the runtime's CUDA backend runs end to end and the tests can
// check what it asks the driver to do: which calls each step makes, and what
// it captures into CUDA graphs. Device memory is host memory and copies are
// done, but kernels and GEMMs do not run, so results are meaningless; the
// calls are the point.
//
// Stream capture follows the driver's thread-local mode: while capturing,
// launches, copies and GEMMs become nodes of the graph instead of running,
// and the calls the driver refuses during a capture (allocating, freeing,
// waiting for a stream or an event) fail with
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidate it.
//
// $MPT_RECORDING_CUDA_LOG names the file each call is written to, one line
// each ("> " before the calls made while capturing).
// $MPT_RECORDING_CUDA_UNCAPTURABLE=cublasLtMatmul makes that call fail
// during a capture, as a library that cannot be captured would.
//
// NCCL has one rank, whose all-reduces leave the buffer as it is. It lives
// in this library because a peer's failure shows in the driver: with
// $MPT_RECORDING_NCCL_PEER=hang (a peer that never arrives) or =fail (one
// that died), the stream's work never completes after the first all-reduce,
// as NCCL's kernels would wait on the GPU, until the communicator is
// aborted: queries answer CUDA_ERROR_NOT_READY and synchronizing blocks.
// With =fail, ncclCommGetAsyncError reports ncclRemoteError meanwhile.
// Queries that answer CUDA_ERROR_NOT_READY are not logged (a polling wait
// makes thousands).
//
//===----------------------------------------------------------------------===//

#include "comm/Nccl.h"

#include <cublasLt.h>
#include <cuda.h>

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>

using namespace mpt::nccl;

namespace {

std::recursive_mutex mutex;

struct Capture {
  bool active = false;
  bool invalidated = false;
  int nodes = 0;
};
Capture capture;

/// A graph is only its node count: replaying it runs nothing.
struct Graph {
  int nodes;
};

FILE *log() {
  static FILE *file = [] {
    const char *path = std::getenv("MPT_RECORDING_CUDA_LOG");
    return path && *path ? std::fopen(path, "w") : nullptr;
  }();
  return file;
}

void record(const char *format, ...) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  FILE *file = log();
  if (!file)
    return;
  if (capture.active)
    std::fputs("> ", file);
  va_list arguments;
  va_start(arguments, format);
  std::vfprintf(file, format, arguments);
  va_end(arguments);
  std::fputc('\n', file);
  std::fflush(file);
}

/// A call the driver refuses while this thread captures: it invalidates the
/// capture.
CUresult refusedWhileCapturing(const char *call) {
  if (!capture.active)
    return CUDA_SUCCESS;
  record("%s refused: the stream is capturing", call);
  capture.invalidated = true;
  return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}

/// A launch, copy or GEMM on the stream: a node while capturing, else run.
bool enqueue() {
  if (!capture.active)
    return true;
  ++capture.nodes;
  return false;
}

bool uncapturable(const char *call) {
  const char *name = std::getenv("MPT_RECORDING_CUDA_UNCAPTURABLE");
  return capture.active && name && std::strcmp(name, call) == 0;
}

/// Device memory is host memory, aligned as the driver aligns its blocks
/// (cuBLASLt plans depend on the alignment); zero bytes still get an address.
void *hostBlock(size_t bytes) {
  constexpr size_t alignment = 256;
  size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void *block = std::aligned_alloc(alignment, rounded ? rounded : alignment);
  std::memset(block, 0, rounded ? rounded : alignment);
  return block;
}

std::unordered_map<CUfunction, std::string> functionNames;

/// $MPT_RECORDING_NCCL_PEER: "hang" or "fail" (see the top of the file).
const char *peerFailure() {
  const char *peer = std::getenv("MPT_RECORDING_NCCL_PEER");
  return peer && *peer ? peer : nullptr;
}

/// The stream's work waits for a peer that does not come.
std::atomic<bool> stalled{false};

/// What synchronizing does while stalled: waits until the communicator is
/// aborted.
void blockWhileStalled() {
  while (stalled)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

/// A query's answer: not ready while stalled, else logged as `call`.
CUresult query(const char *call) {
  if (stalled)
    return CUDA_ERROR_NOT_READY;
  record("%s", call);
  return CUDA_SUCCESS;
}

} // namespace

extern "C" {

CUresult cuInit(unsigned int) {
  record("cuInit");
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *version) {
  *version = 13000;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  static int theContext;
  *context = reinterpret_cast<CUcontext>(&theContext);
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }

CUresult cuGetErrorName(CUresult result, const char **name) {
  switch (result) {
  case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
    *name = "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED";
    break;
  case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED:
    *name = "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED";
    break;
  case CUDA_ERROR_ILLEGAL_STATE:
    *name = "CUDA_ERROR_ILLEGAL_STATE";
    break;
  case CUDA_ERROR_NOT_READY:
    *name = "CUDA_ERROR_NOT_READY";
    break;
  default:
    *name = "CUDA_ERROR_UNKNOWN";
  }
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult, const char **description) {
  *description = "recorded by the recording CUDA driver";
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *module, const void *) {
  static int theModule;
  record("cuModuleLoadData");
  *module = reinterpret_cast<CUmodule>(&theModule);
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int,
                            CUjit_option *, void **) {
  return cuModuleLoadData(module, image);
}

CUresult cuModuleUnload(CUmodule) { return CUDA_SUCCESS; }

CUresult cuModuleGetFunction(CUfunction *function, CUmodule, const char *name) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  record("cuModuleGetFunction %s", name);
  // A fresh byte is the handle; the map names it for the log.
  auto *handle = reinterpret_cast<CUfunction>(new char);
  functionNames[handle] = name;
  *function = handle;
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction function, unsigned, unsigned, unsigned,
                        unsigned, unsigned, unsigned, unsigned, CUstream,
                        void **, void **) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  record("cuLaunchKernel %s", functionNames[function].c_str());
  enqueue();
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  static int theStream;
  *stream = reinterpret_cast<CUstream>(&theStream);
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream) {
  blockWhileStalled();
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (CUresult refused = refusedWhileCapturing("cuStreamSynchronize"))
    return refused;
  record("cuStreamSynchronize");
  return CUDA_SUCCESS;
}

CUresult cuStreamQuery(CUstream) { return query("cuStreamQuery"); }

CUresult cuStreamDestroy(CUstream) { return CUDA_SUCCESS; }

CUresult cuMemAlloc(CUdeviceptr *pointer, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (CUresult refused = refusedWhileCapturing("cuMemAlloc"))
    return refused;
  record("cuMemAlloc %zu", bytes);
  *pointer = reinterpret_cast<CUdeviceptr>(hostBlock(bytes));
  return CUDA_SUCCESS;
}

CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t bytes, unsigned int) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (CUresult refused = refusedWhileCapturing("cuMemAllocManaged"))
    return refused;
  record("cuMemAllocManaged %zu", bytes);
  *pointer = reinterpret_cast<CUdeviceptr>(hostBlock(bytes));
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr pointer) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (CUresult refused = refusedWhileCapturing("cuMemFree"))
    return refused;
  record("cuMemFree");
  std::free(reinterpret_cast<void *>(pointer));
  return CUDA_SUCCESS;
}

CUresult cuMemcpyAsync(CUdeviceptr destination, CUdeviceptr source,
                       size_t bytes, CUstream) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  record("cuMemcpyAsync %zu", bytes);
  if (enqueue())
    std::memmove(reinterpret_cast<void *>(destination),
                 reinterpret_cast<void *>(source), bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr destination, const void *source,
                           size_t bytes, CUstream) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  record("cuMemcpyHtoDAsync %zu", bytes);
  if (enqueue())
    std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync(void *destination, CUdeviceptr source, size_t bytes,
                           CUstream) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  record("cuMemcpyDtoHAsync %zu", bytes);
  if (enqueue())
    std::memcpy(destination, reinterpret_cast<void *>(source), bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr pointer, unsigned char value, size_t bytes,
                         CUstream) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  record("cuMemsetD8Async %zu", bytes);
  if (enqueue())
    std::memset(reinterpret_cast<void *>(pointer), value, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemHostRegister(void *, size_t bytes, unsigned int) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (CUresult refused = refusedWhileCapturing("cuMemHostRegister"))
    return refused;
  record("cuMemHostRegister %zu", bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemHostAlloc(void **pointer, size_t bytes, unsigned int) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (CUresult refused = refusedWhileCapturing("cuMemHostAlloc"))
    return refused;
  record("cuMemHostAlloc %zu", bytes);
  *pointer = hostBlock(bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void *pointer) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (CUresult refused = refusedWhileCapturing("cuMemFreeHost"))
    return refused;
  record("cuMemFreeHost");
  std::free(pointer);
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *event, unsigned int) {
  record("cuEventCreate");
  *event = reinterpret_cast<CUevent>(new char);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent, CUstream) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  record("cuEventRecord");
  enqueue();
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent) {
  blockWhileStalled();
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (CUresult refused = refusedWhileCapturing("cuEventSynchronize"))
    return refused;
  record("cuEventSynchronize");
  return CUDA_SUCCESS;
}

CUresult cuEventQuery(CUevent) { return query("cuEventQuery"); }

CUresult cuEventElapsedTime(float *milliseconds, CUevent, CUevent) {
  *milliseconds = 0;
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent event) {
  delete reinterpret_cast<char *>(event);
  return CUDA_SUCCESS;
}

CUresult cuStreamBeginCapture(CUstream, CUstreamCaptureMode mode) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (capture.active)
    return CUDA_ERROR_ILLEGAL_STATE;
  record("cuStreamBeginCapture %s", mode == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
                                        ? "thread-local"
                                        : "other");
  capture = Capture{true, false, 0};
  return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream, CUgraph *graph) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (!capture.active)
    return CUDA_ERROR_ILLEGAL_STATE;
  Capture ended = capture;
  capture = Capture{};
  record("cuStreamEndCapture %d nodes%s", ended.nodes,
         ended.invalidated ? ", invalidated" : "");
  if (ended.invalidated) {
    *graph = nullptr;
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  *graph = reinterpret_cast<CUgraph>(new Graph{ended.nodes});
  return CUDA_SUCCESS;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph,
                                     unsigned long long) {
  auto *captured = reinterpret_cast<Graph *>(graph);
  record("cuGraphInstantiate %d nodes", captured->nodes);
  *exec = reinterpret_cast<CUgraphExec>(new Graph(*captured));
  return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream) {
  record("cuGraphLaunch %d nodes", reinterpret_cast<Graph *>(exec)->nodes);
  return CUDA_SUCCESS;
}

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  record("cuGraphExecDestroy");
  delete reinterpret_cast<Graph *>(exec);
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph graph) {
  delete reinterpret_cast<Graph *>(graph);
  return CUDA_SUCCESS;
}

} // extern "C"

/// An opaque cuBLASLt handle: a byte of its own.
template <typename Handle> static cublasStatus_t newHandle(Handle *handle) {
  *handle = reinterpret_cast<Handle>(new char);
  return CUBLAS_STATUS_SUCCESS;
}

template <typename Handle> static cublasStatus_t deleteHandle(Handle handle) {
  delete reinterpret_cast<char *>(handle);
  return CUBLAS_STATUS_SUCCESS;
}

// cuBLASLt: descriptors are opaque handles; only the GEMM is recorded.
extern "C" {

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle) {
  return newHandle(handle);
}

const char *cublasLtGetStatusString(cublasStatus_t status) {
  return status == CUBLAS_STATUS_NOT_SUPPORTED ? "CUBLAS_STATUS_NOT_SUPPORTED"
                                               : "CUBLAS_STATUS_SUCCESS";
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc,
                                        cublasComputeType_t, cudaDataType_t) {
  return newHandle(desc);
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  return deleteHandle(desc);
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t,
                                              cublasLtMatmulDescAttributes_t,
                                              const void *, size_t) {
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout,
                                          cudaDataType, uint64_t, uint64_t,
                                          int64_t) {
  return newHandle(layout);
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  return deleteHandle(layout);
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t,
                                                cublasLtMatrixLayoutAttribute_t,
                                                const void *, size_t) {
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *preference) {
  return newHandle(preference);
}

cublasStatus_t
cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t preference) {
  return deleteHandle(preference);
}

cublasStatus_t
cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t,
                                     cublasLtMatmulPreferenceAttributes_t,
                                     const void *, size_t) {
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
    cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
    cublasLtMatmulPreference_t, int requested,
    cublasLtMatmulHeuristicResult_t results[], int *found) {
  record("cublasLtMatmulAlgoGetHeuristic");
  std::memset(results, 0, sizeof(*results) * requested);
  *found = 1;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *,
               const void *, cublasLtMatrixLayout_t, const void *,
               cublasLtMatrixLayout_t, const void *, const void *,
               cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
               const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (uncapturable("cublasLtMatmul")) {
    record("cublasLtMatmul refused: cannot be captured");
    capture.invalidated = true;
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  record("cublasLtMatmul");
  enqueue();
  return CUBLAS_STATUS_SUCCESS;
}

} // extern "C"

// NCCL at one rank.
extern "C" {

ncclResult_t ncclGetVersion(int *version) {
  *version = 22800; // 2.28.0
  return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result) {
  // NCCL's own strings.
  switch (result) {
  case ncclSuccess:
    return "no error";
  case ncclInvalidArgument:
    return "invalid argument (run with NCCL_DEBUG=WARN for details)";
  case ncclRemoteError:
    return "remote process exited or there was a network error";
  default:
    return "unknown result code";
  }
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  record("ncclGetUniqueId");
  std::memset(id, 0, sizeof(*id));
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int ranks, ncclUniqueId,
                              int rank) {
  record("ncclCommInitRank rank %d of %d", rank, ranks);
  if (ranks != 1)
    return ncclInvalidArgument;
  *comm = reinterpret_cast<ncclComm_t>(new char);
  return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *send, void *receive, size_t count,
                           ncclDataType_t type, ncclRedOp_t op, ncclComm_t,
                           CUstream) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  record("ncclAllReduce %zu elements, type %d, op %d", count, int(type),
         int(op));
  if (send != receive)
    return ncclInvalidArgument; // the runtime reduces in place
  if (peerFailure())
    stalled = true;
  return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t *state) {
  const char *peer = peerFailure();
  *state = stalled && peer && std::strcmp(peer, "fail") == 0 ? ncclRemoteError
                                                             : ncclSuccess;
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  record("ncclCommAbort");
  stalled = false;
  delete reinterpret_cast<char *>(comm);
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  record("ncclCommDestroy");
  delete reinterpret_cast<char *>(comm);
  return ncclSuccess;
}

} // extern "C"

// The functions above have the types the transport resolves them as.
#define MPT_CHECK_TYPE(name, type)                                             \
  static_assert(std::is_same_v<decltype(name), type>);
MPT_NCCL_FUNCTIONS(MPT_CHECK_TYPE)
#undef MPT_CHECK_TYPE
