//===- DistinctResults.cpp - mpt-distinct-results ---------------*- C++ -*-===//
//
// Gives every returned tensor its own value before bufferization.
// buffer-results-to-out-params replaces the allocation of each returned buffer
// with the caller's out-parameter; one allocation returned as two results
// would have to become two out-parameters, and the pass crashes on it.
// Returned arguments and constants need nothing: they are copied into their
// out-parameter.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "llvm/ADT/DenseSet.h"

namespace mpt {
#define GEN_PASS_DEF_MPTDISTINCTRESULTS
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct DistinctResults
    : public mpt::impl::MPTDistinctResultsBase<DistinctResults> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void DistinctResults::runOnOperation() {
  getOperation().walk([](func::ReturnOp ret) {
    llvm::SmallDenseSet<Value> returned;
    OpBuilder builder(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      Value value = operand.get();
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type || returned.insert(value).second)
        continue;
      operand.set(bufferization::AllocTensorOp::create(
          builder, ret.getLoc(), type, /*dynamicSizes=*/ValueRange(),
          /*copy=*/value));
    }
  });
}
