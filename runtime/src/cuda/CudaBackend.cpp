//===- CudaBackend.cpp - compiled steps on an NVIDIA GPU --------*- C++ -*-===//
//
// Session state lives in device memory for the whole session: the runtime
// allocates every argument and result here once, and a step passes device
// addresses straight to the compiled host code, which launches kernels and
// cuBLASLt GEMMs on the runtime's one stream. Only the batch is copied in
// per step; state is copied out only when the session reads it.
//
// Ran on an H200 (runtime/src/cuda/README.md). Without a GPU, everything up
// to starting the driver (lowering, JIT, linking the host code against the
// mgpu* symbols) runs and is tested.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"

#include "../JitModule.h"
#include "../JitSymbols.h"
#include "CudaRuntime.h"
#include "Driver.h"
#include "KernelTimes.h"
#include "mpt/Contract/Contract.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <unordered_map>

using namespace mlir;

namespace mpt::runtime {
namespace {

/// Lowered modules record their signature in this constant C string.
constexpr const char *kSignatureSymbol = mpt::contract::symbol::Signature;

/// The driver calls below cannot report failures through the Backend
/// interface; a failure stays recorded in the CUDA layer (see takeError) and
/// the next run reports it.
class CudaBackend : public Backend {
public:
  CudaBackend(std::unique_ptr<ExecutionEngine> jit, bool captureGraphs,
              cuda::Driver &driver)
      : jit(std::move(jit)), captureGraphs(captureGraphs), driver(driver) {}
  ~CudaBackend() override {
    // Profiling output; nobody is left to return a failure to.
    if (cuda::kernelTimesEnabled() && !cuda::writeKernelTimes())
      std::fprintf(stderr, "mpt: %s\n", cuda::takeError().c_str());
    for (CUevent event : spareEvents)
      driver.cuEventDestroy(event);
    for (auto &[fence, event] : pendingEvents)
      driver.cuEventDestroy(event);
    forgetGraphs();
  }

  void *allocate(size_t bytes) override {
    CUdeviceptr pointer = 0;
    // cuMemAlloc rejects zero bytes; an empty tensor still gets an address.
    bytes = std::max<size_t>(bytes, 1);
    if (!cuda::check(driver.cuMemAlloc(&pointer, bytes), "cuMemAlloc")) {
      // The runtime reports the failed allocation itself.
      cuda::takeError();
      return nullptr;
    }
    cuda::check(driver.cuMemsetD8Async(pointer, 0, bytes, driver.stream),
                "cuMemsetD8Async");
    return reinterpret_cast<void *>(pointer);
  }

  void deallocate(void *buffer) override {
    // Work queued on the stream may still use the buffer: if it cannot be
    // waited for, the buffer is leaked rather than freed under it.
    if (cuda::synchronize(driver.stream,
                          "waiting for the GPU's queued work before freeing "
                          "device memory"))
      cuda::check(driver.cuMemFree(reinterpret_cast<CUdeviceptr>(buffer)),
                  "cuMemFree");
  }

  // Pageable host memory is staged before the call returns, so the caller
  // may reuse `host` at once; page-locked memory (allocateHost) is read while
  // the stream runs. Either way the copy stays ordered with the steps.
  void copyToDevice(void *device, const void *host, size_t bytes) override {
    cuda::check(driver.cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(device),
                                         host, bytes, driver.stream),
                "cuMemcpyHtoDAsync");
  }

  void copyToHost(void *host, const void *device, size_t bytes) override {
    auto source = reinterpret_cast<CUdeviceptr>(device);
    if (cuda::check(
            driver.cuMemcpyDtoHAsync(host, source, bytes, driver.stream),
            "cuMemcpyDtoHAsync"))
      cuda::synchronize(driver.stream,
                        "waiting for a copy from the GPU to the host");
  }

  void *allocateHost(size_t bytes) override {
    void *host = nullptr;
    if (!cuda::check(driver.cuMemHostAlloc(&host, std::max<size_t>(bytes, 1),
                                           /*Flags=*/0),
                     "cuMemHostAlloc")) {
      cuda::takeError();
      return nullptr;
    }
    std::memset(host, 0, bytes);
    return host;
  }

  void freeHost(void *host) override {
    // A queued copy may still use it: leaked if it cannot be waited for.
    if (cuda::synchronize(driver.stream,
                          "waiting for the GPU's queued work before freeing "
                          "page-locked host memory"))
      cuda::check(driver.cuMemFreeHost(host), "cuMemFreeHost");
  }

  void copyToHostAsync(void *host, const void *device, size_t bytes) override {
    cuda::check(driver.cuMemcpyDtoHAsync(host,
                                         reinterpret_cast<CUdeviceptr>(device),
                                         bytes, driver.stream),
                "cuMemcpyDtoHAsync");
  }

  // Events are reused: a step takes a few fences, and creating an event per
  // fence would cost a driver call each.
  uint64_t fence() override {
    CUevent event = nullptr;
    if (!spareEvents.empty()) {
      event = spareEvents.back();
      spareEvents.pop_back();
    } else if (!cuda::check(
                   driver.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
                   "cuEventCreate")) {
      return 0; // recorded; wait(0) reports it
    }
    cuda::check(driver.cuEventRecord(event, driver.stream), "cuEventRecord");
    pendingEvents.emplace(++lastFence, event);
    return lastFence;
  }

  bool wait(uint64_t fence, std::string &error) override {
    if (auto pending = pendingEvents.find(fence);
        pending != pendingEvents.end()) {
      cuda::synchronize(pending->second,
                        "waiting for the steps and copies queued on the GPU");
      spareEvents.push_back(pending->second);
      pendingEvents.erase(pending);
    }
    error = cuda::takeError();
    return error.empty();
  }

  bool run(const std::string &function,
           const std::vector<DeviceTensor> &tensors,
           std::string &error) override {
    std::string earlier = cuda::takeError();
    if (!earlier.empty()) {
      error = "an earlier CUDA call of this session failed: " + earlier;
      return false;
    }
    // Kernel times bracket each launch with events of their own.
    if (!captureGraphs || cuda::kernelTimesEnabled())
      return launch(function, tensors, error);
    // The graph bakes in every kernel's arguments, and those follow from the
    // buffers alone: compiled host code never reads device memory.
    GraphKey key{function, {}};
    for (const DeviceTensor &tensor : tensors)
      key.second.push_back(tensor.data);
    // Sessions come and go; their buffers bound how many graphs are kept.
    if (!graphs.count(key) && graphs.size() >= kMaxGraphs)
      forgetGraphs();
    Graph &graph = graphs[key];
    if (graph.exec)
      return replay(graph, error);
    // The first run with these buffers makes every cuBLASLt plan, loads
    // every kernel and fills the block cache, so that capturing the second
    // one records only launches on blocks the cache already holds.
    if (!graph.warmedUp) {
      graph.warmedUp = true;
      return launch(function, tensors, error);
    }
    return capture(function, tensors, graph, error) && replay(graph, error);
  }
  StepMemory lastRunMemory() const override { return memory; }

private:
  /// The CUDA graph of an entry point on one set of buffers (each session
  /// of the program has its own).
  struct Graph {
    bool warmedUp = false; // it ran once uncaptured
    CUgraphExec exec = nullptr;
    StepMemory memory; // what the captured run allocated
  };
  using GraphKey = std::pair<std::string, std::vector<void *>>;
  static constexpr size_t kMaxGraphs = 16;

  void forgetGraphs() {
    for (auto &[key, graph] : graphs)
      if (graph.exec)
        cuda::check(driver.cuGraphExecDestroy(graph.exec),
                    "cuGraphExecDestroy");
    graphs.clear();
  }

  /// Launches the step's kernels and GEMMs one by one.
  bool launch(const std::string &function,
              const std::vector<DeviceTensor> &tensors, std::string &error) {
    StepMemoryCount count(memory);
    if (!invokeEntryPoint(*jit, function, tensors, error))
      return false;
    error = cuda::takeError();
    return error.empty();
  }

  /// Records one run of `function` on the stream into `graph` instead of
  /// running it. Capturing in thread-local mode makes the driver refuse
  /// what a graph cannot replay (allocating, waiting for the stream) from
  /// this thread, so a step that would do either fails here, having run
  /// nothing.
  bool capture(const std::string &function,
               const std::vector<DeviceTensor> &tensors, Graph &graph,
               std::string &error) {
    if (!cuda::check(driver.cuStreamBeginCapture(
                         driver.stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                     "cuStreamBeginCapture")) {
      error = cuda::takeError();
      return false;
    }
    bool invoked;
    {
      StepMemoryCount count(graph.memory);
      invoked = invokeEntryPoint(*jit, function, tensors, error);
    }
    CUgraph captured = nullptr;
    cuda::check(driver.cuStreamEndCapture(driver.stream, &captured),
                "cuStreamEndCapture");
    // A call refused during the capture is the first error; ending it then
    // only says the capture was invalidated.
    std::string refused = cuda::takeError();
    CUgraphExec exec = nullptr;
    if (captured && refused.empty())
      cuda::check(
          driver.cuGraphInstantiateWithFlags(&exec, captured, /*flags=*/0),
          "cuGraphInstantiate");
    if (captured)
      cuda::check(driver.cuGraphDestroy(captured), "cuGraphDestroy");
    if (refused.empty())
      refused = cuda::takeError();
    if (invoked && refused.empty()) {
      graph.exec = exec;
      return true;
    }
    if (exec)
      driver.cuGraphExecDestroy(exec);
    if (invoked)
      error = "capturing '" + function + "' as a CUDA graph failed, so it " +
              "did not run: " + refused +
              "; compile with cuda_graphs = 0 (mpt-run --cuda-graphs=false) " +
              "to launch its kernels one by one";
    return false;
  }

  /// Runs `graph` with one launch on the stream.
  bool replay(const Graph &graph, std::string &error) {
    memory = graph.memory;
    cuda::check(driver.cuGraphLaunch(graph.exec, driver.stream),
                "cuGraphLaunch");
    error = cuda::takeError();
    return error.empty();
  }

  std::unique_ptr<ExecutionEngine> jit;
  bool captureGraphs;
  std::map<GraphKey, Graph> graphs;
  StepMemory memory;
  cuda::Driver &driver;
  uint64_t lastFence = 0;
  std::unordered_map<uint64_t, CUevent> pendingEvents;
  std::vector<CUevent> spareEvents;
};

} // namespace

std::unique_ptr<Backend> createCudaBackend(ModuleOp module,
                                           std::string &signatureJson,
                                           std::string &error,
                                           bool &deviceUnavailable,
                                           bool captureGraphs) {
  deviceUnavailable = false;
  cuda::driveFromBackend();
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // Host code only launches kernels and library calls.
  ExecutionEngineOptions engineOptions;
  auto transformer = makeOptimizingTransformer(2, 0, nullptr);
  engineOptions.transformer = transformer;
  auto symbols = [](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (const cuda::Symbol &symbol : cuda::symbols())
      bindJitSymbol(symbols, interner, symbol.name, symbol.address);
    return symbols;
  };
  std::unique_ptr<ExecutionEngine> jit =
      createJit(module, engineOptions, symbols, error);
  if (!jit)
    return nullptr;
  // Looking a symbol up links the host code, so a call the runtime does not
  // implement fails here, before the driver is needed.
  llvm::Expected<void *> signature = jit->lookup(kSignatureSymbol);
  if (!signature) {
    error = std::string("the lowered module has no '") + kSignatureSymbol +
            "' or does not link against the CUDA runtime: " +
            llvm::toString(signature.takeError());
    return nullptr;
  }
  std::string unavailable = cuda::initialize();
  if (!unavailable.empty()) {
    error = unavailable;
    deviceUnavailable = true;
    return nullptr;
  }
  // Global constructors load the fatbin.
  jit->initialize();
  std::string loadError = cuda::takeError();
  if (!loadError.empty()) {
    error = "cannot load the step's GPU kernels: " + loadError;
    return nullptr;
  }
  signatureJson = static_cast<const char *>(*signature);
  return std::make_unique<CudaBackend>(std::move(jit), captureGraphs,
                                       *cuda::driver());
}

} // namespace mpt::runtime
