//===- FreeAfterLastUse.cpp - mpt-free-after-last-use -----------*- C++ -*-===//
//
// Ownership-based buffer deallocation frees a block's buffers at the block's
// end: in a training step, every activation would stay allocated until the
// optimizer has run, and the step's peak would be the sum of all its buffers.
// Freeing each one after its last use gives the peak of the buffers live at
// once, as the caching allocator that serves the step allows.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mpt {
#define GEN_PASS_DEF_MPTFREEAFTERLASTUSE
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct FreeAfterLastUse
    : public mpt::impl::MPTFreeAfterLastUseBase<FreeAfterLastUse> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// The last op of `dealloc`'s block that uses the freed buffer or one of its
/// aliases, directly or inside its regions; null if none does.
static Operation *findLastUse(memref::DeallocOp dealloc,
                              BufferViewFlowAnalysis &aliases) {
  Block *block = dealloc->getBlock();
  Operation *last = nullptr;
  for (Value alias : aliases.resolve(dealloc.getMemref()))
    for (Operation *user : alias.getUsers()) {
      if (user == dealloc)
        continue;
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (ancestor && (!last || last->isBeforeInBlock(ancestor)))
        last = ancestor;
    }
  return last;
}

void FreeAfterLastUse::runOnOperation() {
  BufferViewFlowAnalysis aliases(getOperation());
  // Only buffers allocated in the dealloc's own block: their aliases cannot
  // be used before the allocation nor in another iteration of an enclosing
  // loop.
  SmallVector<memref::DeallocOp> deallocs;
  getOperation().walk([&](memref::DeallocOp dealloc) {
    auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>();
    if (alloc && alloc->getBlock() == dealloc->getBlock())
      deallocs.push_back(dealloc);
  });
  for (memref::DeallocOp dealloc : deallocs)
    if (Operation *lastUse = findLastUse(dealloc, aliases))
      dealloc->moveAfter(lastUse);
}
