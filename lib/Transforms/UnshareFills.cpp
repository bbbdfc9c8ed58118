//===- UnshareFills.cpp - mpt-unshare-fills ---------------------*- C++ -*-===//
//
// A fill shared by several writers (matmul accumulators and reduction
// results that CSE merged) bufferizes to one filled buffer plus a copy of it
// per writer but one. Filling again costs a write where the copy costs a read
// and a write, and needs no buffer kept alive until the last writer.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mpt {
#define GEN_PASS_DEF_MPTUNSHAREFILLS
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct UnshareFills : public mpt::impl::MPTUnshareFillsBase<UnshareFills> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void UnshareFills::runOnOperation() {
  SmallVector<linalg::FillOp> fills;
  getOperation().walk([&](linalg::FillOp fill) {
    if (fill.hasPureTensorSemantics() && !fill->getResult(0).hasOneUse())
      fills.push_back(fill);
  });
  for (linalg::FillOp fill : fills) {
    Value filled = fill->getResult(0);
    auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
    SmallVector<OpOperand *> uses = llvm::map_to_vector(
        filled.getUses(), [](OpOperand &use) { return &use; });
    Block *block = fill->getBlock();
    if (llvm::any_of(uses, [&](OpOperand *use) {
          return use->getOwner()->getBlock() != block;
        }))
      continue;
    // The first user in the block keeps the original fill.
    llvm::sort(uses, [](OpOperand *lhs, OpOperand *rhs) {
      return lhs->getOwner()->isBeforeInBlock(rhs->getOwner());
    });
    for (OpOperand *use : llvm::drop_begin(uses)) {
      OpBuilder builder(use->getOwner());
      IRMapping mapping;
      if (empty)
        mapping.map(empty.getResult(), builder.clone(*empty)->getResult(0));
      use->set(builder.clone(*fill, mapping)->getResult(0));
    }
  }
  // An empty tensor shared by several writers bufferizes to one buffer,
  // allocated before the first and reused by the others once it is dead: a
  // forward buffer then stays allocated until the backward writes into it.
  // Each writer gets its own, made where it writes.
  SmallVector<tensor::EmptyOp> empties;
  getOperation().walk([&](tensor::EmptyOp empty) {
    if (!empty->getResult(0).hasOneUse() && !empty->use_empty())
      empties.push_back(empty);
  });
  for (tensor::EmptyOp empty : empties) {
    for (OpOperand &use : llvm::make_early_inc_range(empty->getUses())) {
      OpBuilder builder(use.getOwner());
      use.set(builder.clone(*empty)->getResult(0));
    }
    empty->erase();
  }
}
