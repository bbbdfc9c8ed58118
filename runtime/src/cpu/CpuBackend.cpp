//===- CpuBackend.cpp - JIT-compiled steps on the host ----------*- C++ -*-===//

#include "CpuBackend.h"

#include "../JitModule.h"
#include "../JitSymbols.h"
#include "CpuIsa.h"
#include "CpuKernels.h"
#include "OptimizeModule.h"
#include "StepAllocator.h"
#include "mpt/Contract/Contract.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;

namespace mpt::runtime {
namespace {

/// Lowered modules record their signature in this constant C string.
constexpr const char *kSignatureSymbol = mpt::contract::symbol::Signature;

class CpuBackend : public Backend {
public:
  explicit CpuBackend(std::unique_ptr<ExecutionEngine> jit)
      : jit(std::move(jit)) {}
  ~CpuBackend() override { releaseStepBlocks(); }

  // 64-byte aligned: vectorized compiled code may assume alignment.
  void *allocate(size_t bytes) override {
    size_t rounded = ((bytes + 63) / 64) * 64 + 64;
    void *buffer = std::aligned_alloc(64, rounded);
    if (buffer)
      std::memset(buffer, 0, rounded);
    return buffer;
  }
  void deallocate(void *buffer) override { std::free(buffer); }
  void copyToDevice(void *device, const void *host, size_t bytes) override {
    std::memcpy(device, host, bytes);
  }
  void *hostWritable(void *buffer) override { return buffer; }
  void copyToHost(void *host, const void *device, size_t bytes) override {
    std::memcpy(host, device, bytes);
  }

  bool run(const std::string &function,
           const std::vector<DeviceTensor> &tensors,
           std::string &error) override {
    StepMemoryCount count(memory);
    return invokeEntryPoint(*jit, function, tensors, error);
  }
  StepMemory lastRunMemory() const override { return memory; }

private:
  std::unique_ptr<ExecutionEngine> jit;
  StepMemory memory;
};

} // namespace

std::unique_ptr<Backend> createCpuBackend(ModuleOp module,
                                          std::string &signatureJson,
                                          std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutionEngineOptions engineOptions;
  // LLVM's vectorizers size vectors by the target: without the host machine
  // they see no vector registers and leave every loop scalar.
  auto hostMachineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!hostMachineBuilder) {
    error = "cannot describe the host CPU: " +
            llvm::toString(hostMachineBuilder.takeError());
    return nullptr;
  }
  hostMachineBuilder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto hostMachine = hostMachineBuilder->createTargetMachine();
  if (!hostMachine) {
    error = "cannot target the host CPU: " +
            llvm::toString(hostMachine.takeError());
    return nullptr;
  }
  auto transformer =
      makeOptimizingTransformer(hostMachine->get(), !hasF16Arithmetic());
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  // MPT_PERF=1 writes jit-<pid>.dump for `perf inject --jit`: profiles then
  // name the compiled step.
  engineOptions.enablePerfNotificationListener = getenv("MPT_PERF") != nullptr;
  auto symbols = [](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (const CpuKernel &kernel : cpuKernels())
      bindJitSymbol(symbols, interner, kernel.name, kernel.address);
    // The step's buffers come back every step: reuse them (StepAllocator.h).
    bindJitSymbol(symbols, interner, "malloc",
                  reinterpret_cast<const void *>(&stepMalloc));
    bindJitSymbol(symbols, interner, "aligned_alloc",
                  reinterpret_cast<const void *>(&stepAlignedAlloc));
    // Allocations the lowering tagged with what they hold.
    auto bindTaggedAlloc = [&](const char *buffer, const void *function) {
      bindJitSymbol(symbols, interner,
                    std::string(mpt::contract::kernel::StepAllocPrefix) +
                        buffer,
                    function);
    };
    bindTaggedAlloc(mpt::contract::buffer::Activations,
                    reinterpret_cast<const void *>(
                        &stepAlignedAllocAs<StepBufferKind::Activations>));
    bindTaggedAlloc(mpt::contract::buffer::Gradients,
                    reinterpret_cast<const void *>(
                        &stepAlignedAllocAs<StepBufferKind::Gradients>));
    bindTaggedAlloc(mpt::contract::buffer::WorkingCopies,
                    reinterpret_cast<const void *>(
                        &stepAlignedAllocAs<StepBufferKind::WorkingCopies>));
    bindJitSymbol(symbols, interner, "free",
                  reinterpret_cast<const void *>(&stepFree));
    // Copies between non-contiguous memrefs lower to this runner utility.
    bindJitSymbol(symbols, interner, "memrefCopy",
                  reinterpret_cast<const void *>(&memrefCopy));
    return symbols;
  };
  std::unique_ptr<ExecutionEngine> jit =
      createJit(module, engineOptions, symbols, error);
  if (!jit)
    return nullptr;
  jit->initialize();
  llvm::Expected<void *> signature = jit->lookup(kSignatureSymbol);
  if (!signature) {
    error = std::string("the lowered module has no '") + kSignatureSymbol +
            "' (mpt-export-signature did not run): " +
            llvm::toString(signature.takeError());
    return nullptr;
  }
  signatureJson = static_cast<const char *>(*signature);
  return std::make_unique<CpuBackend>(std::move(jit));
}

} // namespace mpt::runtime
