//===- StepAllocationTags.cpp - what a step's buffers hold ------*- C++ -*-===//
//
// The runtime counts the bytes a CPU step allocates for itself by what they
// hold (runtime/src/StepMemory.h). Only the mpt ops say that: a gradient, a
// working copy, an activation. mpt-mark-buffer-contents records it in each
// op's location, which conversions and bufferization pass on to the ops and
// buffer allocations they make from it, and mpt-tag-step-allocations, on the
// LLVM dialect, calls the runtime's allocation function for that kind
// instead of aligned_alloc.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

#include "Utils.h"
#include "mpt/Contract/Contract.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt {
#define GEN_PASS_DEF_MPTMARKBUFFERCONTENTS
#define GEN_PASS_DEF_MPTTAGSTEPALLOCATIONS
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

/// Location metadata naming what the op's results hold: this prefix, then a
/// name of Contract.def's `buffer` group.
static constexpr llvm::StringLiteral kHoldsPrefix = "mpt.holds.";

namespace {
struct MarkBufferContents
    : public mpt::impl::MPTMarkBufferContentsBase<MarkBufferContents> {
  using Base::Base;
  void runOnOperation() override;
};

struct TagStepAllocations
    : public mpt::impl::MPTTagStepAllocationsBase<TagStepAllocations> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// Whether `op` rounds a parameter to its working copy.
static bool isWorkingCopy(Operation *op, func::FuncOp function) {
  if (!isa<arith::TruncFOp>(op))
    return false;
  auto param = dyn_cast<BlockArgument>(stripFloatCasts(op->getResult(0)));
  return param && param.getOwner() == &function.getBody().front() &&
         getArgumentRole(function, param.getArgNumber()) ==
             MPTDialect::kParamAttrName;
}

/// The ops that compute the gradients optimizers read: where the backward
/// produces each one, then the casts, unscaling and clipping on its way.
static llvm::DenseSet<Operation *> gradientOps(func::FuncOp function) {
  llvm::DenseSet<Operation *> ops;
  for (Value root : findGradientRoots(function))
    if (Operation *producer = root.getDefiningOp())
      ops.insert(producer);
  function.walk([&](OptimizerOpInterface optimizer) {
    for (Value gradient = optimizer.getGrad();
         Operation *op = gradient.getDefiningOp();) {
      if (!isa<arith::TruncFOp, arith::ExtFOp, UnscaleOp, ClipGradNormOp>(op))
        break;
      ops.insert(op);
      gradient = op->getOperand(0);
    }
  });
  return ops;
}

void MarkBufferContents::runOnOperation() {
  func::FuncOp function = getOperation();
  if (!isTrainStep(function))
    return;
  llvm::DenseSet<Operation *> gradients = gradientOps(function);
  MLIRContext *context = &getContext();
  function.walk([&](Operation *op) {
    if (op == function.getOperation() || op->getNumResults() == 0)
      return;
    StringRef holds;
    if (gradients.contains(op))
      holds = contract::buffer::Gradients;
    else if (isWorkingCopy(op, function))
      holds = contract::buffer::WorkingCopies;
    else if (!isUpdateOp(op))
      holds = contract::buffer::Activations;
    else
      return;
    op->setLoc(
        FusedLoc::get(context, {op->getLoc()},
                      StringAttr::get(context, (kHoldsPrefix + holds).str())));
  });
}

/// What the location of an allocation says its buffer holds, or "".
static StringRef holdsOf(Location loc) {
  StringRef holds;
  loc->walk([&](Location inner) {
    auto fused = dyn_cast<FusedLoc>(inner);
    auto metadata =
        fused ? dyn_cast_or_null<StringAttr>(fused.getMetadata()) : nullptr;
    if (!metadata || !metadata.getValue().starts_with(kHoldsPrefix))
      return WalkResult::advance();
    holds = metadata.getValue().drop_front(kHoldsPrefix.size());
    return WalkResult::interrupt();
  });
  return holds;
}

void TagStepAllocations::runOnOperation() {
  ModuleOp module = getOperation();
  auto alignedAlloc = module.lookupSymbol<LLVM::LLVMFuncOp>("aligned_alloc");
  if (!alignedAlloc)
    return;
  OpBuilder builder(module.getBodyRegion());
  // The tagged functions allocate as aligned_alloc does; the noalias result
  // keeps LLVM's knowledge that each buffer is an object of its own.
  auto declare = [&](StringRef holds) {
    std::string name = (contract::kernel::StepAllocPrefix + holds).str();
    if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      return existing;
    builder.setInsertionPoint(alignedAlloc);
    auto function = LLVM::LLVMFuncOp::create(
        builder, alignedAlloc.getLoc(), name, alignedAlloc.getFunctionType());
    function.setResultAttr(0, LLVM::LLVMDialect::getNoAliasAttrName(),
                           builder.getUnitAttr());
    return function;
  };
  module.walk([&](LLVM::CallOp call) {
    if (call.getCallee() != alignedAlloc.getSymName())
      return;
    StringRef holds = holdsOf(call.getLoc());
    if (!holds.empty())
      call.setCallee(declare(holds).getSymName());
  });
}
