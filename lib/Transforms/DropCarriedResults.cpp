//===- DropCarriedResults.cpp - mpt-drop-carried-results --------*- C++ -*-===//
//
// The second half of mpt-carry-state-in-place: once bufferized, a carried
// result is its argument's buffer, which the caller already holds, so it
// leaves the signature. The runtime's calling convention (signature format 2)
// depends on exactly these results being gone, so any other outcome is an
// error rather than a silently different signature.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "Utils.h"

#include "llvm/ADT/BitVector.h"

namespace mpt {
#define GEN_PASS_DEF_MPTDROPCARRIEDRESULTS
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct DropCarriedResults
    : public mpt::impl::MPTDropCarriedResultsBase<DropCarriedResults> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void DropCarriedResults::runOnOperation() {
  ModuleOp module = getOperation();
  for (auto function : module.getOps<func::FuncOp>()) {
    auto carried = function->getAttrOfType<DenseI64ArrayAttr>(
        MPTDialect::kCarriedInPlaceAttrName);
    if (!carried)
      continue;
    function->removeAttr(MPTDialect::kCarriedInPlaceAttrName);
    if (!function.getBody().hasOneBlock()) {
      function.emitError("mpt-drop-carried-results: expected a function with "
                         "one block");
      return signalPassFailure();
    }
    auto ret = cast<func::ReturnOp>(function.front().getTerminator());
    llvm::BitVector dropped(ret->getNumOperands());
    for (auto [r, argument] : llvm::enumerate(carried.asArrayRef())) {
      if (argument < 0)
        continue;
      auto returned = dyn_cast<BlockArgument>(ret.getOperand(r));
      if (!isa<BaseMemRefType>(ret.getOperand(r).getType()) || !returned ||
          returned.getOwner() != &function.front() ||
          returned.getArgNumber() != argument) {
        ret.emitOpError("result #")
            << r << " carries argument #" << argument
            << " but was not bufferized into its buffer";
        return signalPassFailure();
      }
      dropped.set(r);
    }
    if (dropped.none())
      continue;

    FailureOr<SmallVector<func::CallOp>> calls =
        callsOf(function, module, "carried results are dropped",
                "its carried results cannot be dropped");
    if (failed(calls))
      return signalPassFailure();
    for (func::CallOp call : *calls) {
      OpBuilder builder(call);
      SmallVector<Type> kept;
      for (auto [r, type] : llvm::enumerate(call.getResultTypes()))
        if (!dropped.test(r))
          kept.push_back(type);
      auto newCall = func::CallOp::create(
          builder, call.getLoc(), call.getCallee(), kept, call.getOperands());
      unsigned next = 0;
      for (auto [r, result] : llvm::enumerate(call.getResults()))
        result.replaceAllUsesWith(dropped.test(r) ? call.getOperand(carried[r])
                                                  : newCall.getResult(next++));
      call.erase();
    }
    ret->eraseOperands(dropped);
    (void)function.eraseResults(dropped);
  }
}
