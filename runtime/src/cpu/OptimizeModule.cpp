//===- OptimizeModule.cpp - LLVM optimization of CPU steps ------*- C++ -*-===//

#include "OptimizeModule.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Error.h"

using namespace llvm;

namespace mpt::runtime {
namespace {

/// Whether `ext` extends a vector select of f16 values to f32.
bool extendsHalfSelect(const FPExtInst *ext) {
  auto *select = dyn_cast<SelectInst>(ext->getOperand(0));
  return select && select->getType()->isVectorTy() &&
         select->getCondition()->getType()->isVectorTy() &&
         select->getType()->getScalarType()->isHalfTy() &&
         ext->getType()->getScalarType()->isFloatTy();
}

} // namespace

PreservedAnalyses WidenHalfSelectsPass::run(Function &function,
                                            FunctionAnalysisManager &) {
  SmallVector<FCmpInst *> compares;
  SmallVector<FPExtInst *> worklist;
  for (Instruction &instruction : instructions(function)) {
    if (auto *compare = dyn_cast<FCmpInst>(&instruction)) {
      Type *type = compare->getOperand(0)->getType();
      if (type->isVectorTy() && type->getScalarType()->isHalfTy())
        compares.push_back(compare);
    } else if (auto *ext = dyn_cast<FPExtInst>(&instruction)) {
      if (extendsHalfSelect(ext))
        worklist.push_back(ext);
    }
  }
  if (compares.empty() && worklist.empty())
    return PreservedAnalyses::all();
  // f16 compares as f32 ones, as the backend would promote them: their
  // operands' extensions are then visible to the selects below.
  for (FCmpInst *compare : compares) {
    IRBuilder<> builder(compare);
    auto *type = cast<VectorType>(compare->getOperand(0)->getType());
    Type *wide = VectorType::get(builder.getFloatTy(), type);
    SmallVector<Value *, 2> operands;
    for (Value *operand : compare->operands()) {
      Value *extended = builder.CreateFPExt(operand, wide);
      if (auto *ext = dyn_cast<FPExtInst>(extended))
        if (extendsHalfSelect(ext))
          worklist.push_back(ext);
      operands.push_back(extended);
    }
    Value *replacement =
        builder.CreateFCmp(compare->getPredicate(), operands[0], operands[1]);
    if (auto *wideCompare = dyn_cast<FCmpInst>(replacement))
      wideCompare->copyFastMathFlags(compare);
    compare->replaceAllUsesWith(replacement);
    compare->eraseFromParent();
  }
  while (!worklist.empty()) {
    FPExtInst *ext = worklist.pop_back_val();
    auto *select = cast<SelectInst>(ext->getOperand(0));
    IRBuilder<> builder(ext);
    auto extend = [&](Value *value) {
      Value *wide = builder.CreateFPExt(value, ext->getType());
      // A chain of selects (a running maximum) widens link by link.
      if (auto *wideExt = dyn_cast<FPExtInst>(wide))
        if (extendsHalfSelect(wideExt))
          worklist.push_back(wideExt);
      return wide;
    };
    Value *trueValue = extend(select->getTrueValue());
    Value *falseValue = extend(select->getFalseValue());
    ext->replaceAllUsesWith(
        builder.CreateSelect(select->getCondition(), trueValue, falseValue));
    ext->eraseFromParent();
    if (select->use_empty())
      select->eraseFromParent();
  }
  PreservedAnalyses preserved;
  preserved.preserveSet<CFGAnalyses>();
  return preserved;
}

std::function<Error(Module *)>
makeOptimizingTransformer(TargetMachine *targetMachine, bool widenHalfSelects) {
  return [targetMachine, widenHalfSelects](Module *module) -> Error {
    LoopAnalysisManager loops;
    FunctionAnalysisManager functions;
    CGSCCAnalysisManager cgscc;
    ModuleAnalysisManager modules;
    PipelineTuningOptions tuning;
    tuning.LoopUnrolling = true;
    tuning.LoopInterleaving = true;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    PassBuilder builder(targetMachine, tuning);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(cgscc);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, cgscc, modules);
    if (widenHalfSelects)
      builder.registerOptimizerLastEPCallback(
          [](ModulePassManager &passes, OptimizationLevel, ThinOrFullLTOPhase) {
            passes.addPass(
                createModuleToFunctionPassAdaptor(WidenHalfSelectsPass()));
          });
    ModulePassManager passes =
        builder.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
    passes.run(*module, modules);
    return Error::success();
  };
}

} // namespace mpt::runtime
