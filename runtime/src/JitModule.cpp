//===- JitModule.cpp - lowered modules JIT-compiled -------------*- C++ -*-===//

#include "JitModule.h"
#include "PackedArguments.h"
#include "comm/StepCollectives.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Instructions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"

namespace mpt::runtime {

std::unique_ptr<llvm::Module> translateForJit(mlir::Operation *module,
                                              llvm::LLVMContext &context,
                                              CpuIsa isa) {
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return nullptr;
  llvm::SmallVector<llvm::Function *> inlined;
  for (llvm::Function &wrapper : *llvmModule) {
    llvm::StringRef name = wrapper.getName();
    if (wrapper.isDeclaration() || !name.consume_front("_mlir_ciface_"))
      continue;
    llvm::Function *callee = llvmModule->getFunction(name);
    if (!callee || callee->isDeclaration() || !callee->hasOneUse())
      continue;
    auto *call = llvm::dyn_cast<llvm::CallInst>(callee->user_back());
    if (!call || call->getFunction() != &wrapper)
      continue;
    llvm::InlineFunctionInfo info;
    if (llvm::InlineFunction(*call, info).isSuccess())
      inlined.push_back(callee);
  }
  for (llvm::Function *callee : inlined)
    callee->eraseFromParent();
  // The function's own target overrides the JIT's host machine in both the
  // vectorizers' cost models and code generation; tuning stays the host's.
  if (const char *cpu = jitTargetCpu(isa)) {
    for (llvm::Function &function : *llvmModule) {
      if (function.isDeclaration())
        continue;
      function.addFnAttr("target-cpu", cpu);
      function.addFnAttr("target-features", "");
      function.addFnAttr("tune-cpu", llvm::sys::getHostCPUName());
    }
  }
  return llvmModule;
}

/// translateForJit under MPT_MAX_CPU_ISA, for ExecutionEngine's module
/// builder.
static std::unique_ptr<llvm::Module>
translateForJitUnderMaxCpuIsa(mlir::Operation *module,
                              llvm::LLVMContext &context) {
  return translateForJit(module, context, maxCpuIsa());
}

std::unique_ptr<mlir::ExecutionEngine>
createJit(mlir::ModuleOp module, mlir::ExecutionEngineOptions options,
          llvm::function_ref<llvm::orc::SymbolMap(llvm::orc::MangleAndInterner)>
              symbols,
          std::string &error) {
  options.llvmModuleBuilder = translateForJitUnderMaxCpuIsa;
  options.enableGDBNotificationListener = false;
  auto jit = mlir::ExecutionEngine::create(module, options);
  if (!jit) {
    error = "JIT compilation failed: " + llvm::toString(jit.takeError());
    return nullptr;
  }
  // Data-parallel steps of either device all-reduce through the runtime.
  (*jit)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map = symbols(interner);
    bindStepCollectives(map, interner);
    return map;
  });
  return std::move(*jit);
}

bool invokeEntryPoint(mlir::ExecutionEngine &jit, const std::string &function,
                      const std::vector<DeviceTensor> &tensors,
                      std::string &error) {
  PackedArguments arguments(tensors);
  llvm::Error result =
      jit.invokePacked("_mlir_ciface_" + function, arguments.get());
  if (result) {
    error = llvm::toString(std::move(result));
    return false;
  }
  return true;
}

} // namespace mpt::runtime
