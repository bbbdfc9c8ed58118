//===- JitModule.cpp - LLVM IR of a lowered module for the JIT --*- C++ -*-===//

#include "JitModule.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Cloning.h"

namespace mpt::runtime {

std::unique_ptr<llvm::Module> translateForJit(mlir::Operation *module,
                                              llvm::LLVMContext &context) {
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
  return llvmModule;
}

} // namespace mpt::runtime
