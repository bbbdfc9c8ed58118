//===- NameStateUpdateKernels.cpp - mpt-name-state-update-kernels ---------===//
//
// Outlined kernels are numbered in launch order, which says nothing about
// what they do. A profile of the update phase needs to find the kernels that
// write the step's state: they write an argument whose incoming value the
// step reads.
//
//===----------------------------------------------------------------------===//

#include "mpt/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mpt {
#define GEN_PASS_DEF_MPTNAMESTATEUPDATEKERNELS
#include "mpt/Codegen/GPU/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// The argument of `function` that `memref` views, or null.
BlockArgument argumentViewed(func::FuncOp function, Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  auto argument = dyn_cast<BlockArgument>(memref);
  return argument && argument.getOwner() == &function.front() ? argument
                                                              : nullptr;
}

/// The arguments of `function` that `launch` loads and stores.
void accessesOf(func::FuncOp function, gpu::LaunchOp launch,
                llvm::SmallDenseSet<BlockArgument> &loaded,
                llvm::SmallDenseSet<BlockArgument> &stored) {
  launch.getBody().walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      if (BlockArgument argument = argumentViewed(function, load.getMemRef()))
        loaded.insert(argument);
    if (auto store = dyn_cast<memref::StoreOp>(op))
      if (BlockArgument argument = argumentViewed(function, store.getMemRef()))
        stored.insert(argument);
  });
}

struct MPTNameStateUpdateKernelsPass
    : public mpt::impl::MPTNameStateUpdateKernelsBase<
          MPTNameStateUpdateKernelsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    auto name = FlatSymbolRefAttr::get(
        &getContext(), (function.getSymName() + "_update").str());
    // State comes in with a value the step reads: its first use reads it. A
    // result (an out-parameter) is first written: a metric's reduction loads
    // and stores it too, but after a kernel that fills it.
    llvm::SmallDenseSet<BlockArgument> state, results;
    function.walk<WalkOrder::PreOrder>([&](Operation *op) {
      auto launch = dyn_cast<gpu::LaunchOp>(op);
      if (!launch) {
        // A copy writes its target; any other use (a library call) is
        // taken as a read.
        auto copy = dyn_cast<gpu::MemcpyOp>(op);
        for (Value operand : op->getOperands()) {
          BlockArgument argument = argumentViewed(function, operand);
          if (!argument || state.contains(argument) ||
              results.contains(argument))
            continue;
          if (copy && operand == copy.getDst())
            results.insert(argument);
          else
            state.insert(argument);
        }
        return WalkResult::advance();
      }
      llvm::SmallDenseSet<BlockArgument> loaded, stored;
      accessesOf(function, launch, loaded, stored);
      for (BlockArgument argument : stored)
        if (!state.contains(argument) && !loaded.contains(argument))
          results.insert(argument);
      for (BlockArgument argument : loaded)
        if (!results.contains(argument))
          state.insert(argument);
      if (!launch.getFunctionAttr() &&
          llvm::any_of(stored, [&](BlockArgument argument) {
            return state.contains(argument);
          }))
        launch.setFunctionAttr(name);
      return WalkResult::skip();
    });
  }
};

} // namespace
