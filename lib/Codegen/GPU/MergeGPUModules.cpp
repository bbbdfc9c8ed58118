//===- MergeGPUModules.cpp - mpt-merge-gpu-modules --------------*- C++ -*-===//

#include "mpt/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mpt {
#define GEN_PASS_DEF_MPTMERGEGPUMODULES
#include "mpt/Codegen/GPU/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

struct MPTMergeGPUModulesPass
    : public mpt::impl::MPTMergeGPUModulesBase<MPTMergeGPUModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto modules = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
    if (modules.size() < 2)
      return;
    gpu::GPUModuleOp target = modules.front();
    SymbolTable targetSymbols(target);
    // (module, kernel) -> the kernel's name in the merged module: outlining
    // names every module uniquely, so a module's name names its kernel.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> renamed;
    for (gpu::GPUModuleOp source : llvm::drop_begin(modules)) {
      auto kernels = llvm::to_vector(source.getOps<gpu::GPUFuncOp>());
      for (gpu::GPUFuncOp kernel : kernels) {
        StringAttr oldName = kernel.getNameAttr();
        auto newName = StringAttr::get(
            &getContext(), kernels.size() == 1
                               ? source.getName()
                               : source.getName() + "_" + oldName.getValue());
        if (targetSymbols.lookup(newName)) {
          kernel.emitOpError("would be named ")
              << newName << ", which " << target.getName()
              << " has already; cannot merge GPU modules";
          return signalPassFailure();
        }
        kernel->remove();
        kernel.setName(newName);
        targetSymbols.insert(kernel);
        renamed[{source.getNameAttr(), oldName}] = newName;
      }
      if (!source.getBody()->without_terminator().empty()) {
        source.emitOpError("holds more than kernels; cannot merge it");
        return signalPassFailure();
      }
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it =
          renamed.find({launch.getKernelModuleName(), launch.getKernelName()});
      if (it == renamed.end())
        return;
      launch.setKernelAttr(SymbolRefAttr::get(
          target.getNameAttr(), {FlatSymbolRefAttr::get(it->second)}));
    });
    for (gpu::GPUModuleOp source : llvm::drop_begin(modules))
      source.erase();
  }
};

} // namespace
