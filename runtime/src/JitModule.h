//===- JitModule.h - lowered modules JIT-compiled ---------------*- C++ -*-===//
//
// How both backends JIT-compile a lowered module (its LLVM IR, and the
// ExecutionEngine that compiles it) and call its entry points.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_JITMODULE_H
#define MPT_RUNTIME_JITMODULE_H

#include "Backend.h"
#include "cpu/CpuIsa.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <string>
#include <vector>

namespace mpt::runtime {

/// Translates a lowered module to LLVM IR, with each function `f` that has a
/// C interface `_mlir_ciface_f` inlined into it and removed.
///
/// The runtime calls only the C interfaces. `f` itself takes every field of
/// every memref descriptor as its own argument: the ViT's step has over 1000,
/// most passed on the stack, and LLVM's DAG combiner merges such a block of
/// stores in quadratic time (18 of the 33 s the ViT took to compile on a
/// Sapphire Rapids Xeon). ExecutionEngine would also wrap `f` in a packed
/// function making the same call.
///
/// Under a limited `isa` (CpuIsa.h), every function targets that level.
std::unique_ptr<llvm::Module> translateForJit(mlir::Operation *module,
                                              llvm::LLVMContext &context,
                                              CpuIsa isa);

/// JIT-compiles the lowered `module` with `options` (the backend's
/// optimization) and the LLVM IR of translateForJit under MPT_MAX_CPU_ISA,
/// and links the functions of this process that `symbols` binds, and the
/// step collectives (comm/StepCollectives.h); null with
/// `error` on failure.
std::unique_ptr<mlir::ExecutionEngine>
createJit(mlir::ModuleOp module, mlir::ExecutionEngineOptions options,
          llvm::function_ref<llvm::orc::SymbolMap(llvm::orc::MangleAndInterner)>
              symbols,
          std::string &error);

/// Runs the C interface of the entry point `function` on `tensors`, one
/// memref descriptor each; false with `error` on failure.
bool invokeEntryPoint(mlir::ExecutionEngine &jit, const std::string &function,
                      const std::vector<DeviceTensor> &tensors,
                      std::string &error);

} // namespace mpt::runtime

#endif // MPT_RUNTIME_JITMODULE_H
