//===- OptimizeModule.h - LLVM optimization of CPU steps --------*- C++ -*-===//
//
// LLVM's -O3 pipeline for the JIT-compiled steps, with one pass of mpt's own
// at its end for CPUs without AVX-512 (WidenHalfSelectsPass).
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_CPU_OPTIMIZEMODULE_H
#define MPT_RUNTIME_CPU_OPTIMIZEMODULE_H

#include "llvm/IR/PassManager.h"

#include <functional>

namespace llvm {
class Error;
class Module;
class TargetMachine;
} // namespace llvm

namespace mpt::runtime {

/// Undoes InstCombine's narrowing of f16 vector code that mpt computes in f32
/// (compute-f16-in-f32): `fcmp (fpext a), (fpext b)` becomes an f16 compare,
/// and `select c, (fpext a), (fpext b)` an f16 select extended after it. x86
/// without AVX512-FP16 promotes the compare back to f32, so a running maximum
/// (max pooling, and its gradient) went to f16 and back after every
/// candidate, and on AVX2 its compare masks were packed to 16-bit lanes for
/// each select. This pass compares f16 vectors as f32 again and moves the
/// extension of a select that is read as f32 onto its operands, link by link
/// along a chain of selects.
struct WidenHalfSelectsPass : llvm::PassInfoMixin<WidenHalfSelectsPass> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses);
};

/// The ExecutionEngine's module transformer: LLVM's -O3 pipeline for
/// `targetMachine`, then WidenHalfSelectsPass if `widenHalfSelects`.
std::function<llvm::Error(llvm::Module *)>
makeOptimizingTransformer(llvm::TargetMachine *targetMachine,
                          bool widenHalfSelects);

} // namespace mpt::runtime

#endif // MPT_RUNTIME_CPU_OPTIMIZEMODULE_H
