//===- WriteLoopCarriedInPlace.cpp - mpt-write-loop-carried-in-place ------===//
//
// A loop that yields a value computed into a new tensor bufferizes to a new
// buffer per iteration. Computing it into the iteration argument instead
// lets the loop run in one buffer.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mpt {
#define GEN_PASS_DEF_MPTWRITELOOPCARRIEDINPLACE
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct WriteLoopCarriedInPlace
    : public mpt::impl::MPTWriteLoopCarriedInPlaceBase<
          WriteLoopCarriedInPlace> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void WriteLoopCarriedInPlace::runOnOperation() {
  getOperation().walk([](scf::ForOp loop) {
    for (auto [iterArg, yielded] :
         llvm::zip_equal(loop.getRegionIterArgs(), loop.getYieldedValues())) {
      auto result = dyn_cast<OpResult>(yielded);
      auto generic = result ? dyn_cast<linalg::GenericOp>(result.getOwner())
                            : linalg::GenericOp();
      if (!generic || generic->getParentOp() != loop ||
          !generic.hasPureTensorSemantics() ||
          iterArg.getType() != result.getType())
        continue;
      OpOperand *init = generic.getDpsInitOperand(result.getResultNumber());
      // Only an output the op never reads can be any tensor of its shape.
      if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
          generic.payloadUsesValueFromOperand(init))
        continue;
      init->set(iterArg);
    }
  });
}
