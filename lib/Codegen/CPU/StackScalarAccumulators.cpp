//===- StackScalarAccumulators.cpp - mpt-stack-scalar-accumulators -------===//
//
// A reduction into a 0-d memref that may alias other memory keeps its
// accumulator in memory, one load and store per element. A stack slot that
// nothing else can reach lets LLVM keep it in a register and vectorize the
// reduction.
//
//===----------------------------------------------------------------------===//

#include "mpt/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mpt {
#define GEN_PASS_DEF_MPTSTACKSCALARACCUMULATORS
#include "mpt/Codegen/CPU/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

struct MPTStackScalarAccumulators
    : public mpt::impl::MPTStackScalarAccumulatorsBase<
          MPTStackScalarAccumulators> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([](linalg::LinalgOp op) {
      if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() == 0)
        return;
      for (OpOperand &init : op.getDpsInitsMutable()) {
        auto type = dyn_cast<MemRefType>(init.get().getType());
        // An op that also reads the accumulator through another operand
        // would read the stale memref while the slot changes.
        if (!type || type.getRank() != 0 ||
            isa_and_present<memref::AllocaOp>(init.get().getDefiningOp()) ||
            llvm::count(op->getOperands(), init.get()) > 1)
          continue;
        Location loc = op.getLoc();
        OpBuilder builder(op);
        Value accumulator = init.get();
        Value slot = memref::AllocaOp::create(
            builder, loc, MemRefType::get({}, type.getElementType()));
        memref::StoreOp::create(
            builder, loc, memref::LoadOp::create(builder, loc, accumulator),
            slot);
        init.set(slot);
        builder.setInsertionPointAfter(op);
        memref::StoreOp::create(builder, loc,
                                memref::LoadOp::create(builder, loc, slot),
                                accumulator);
      }
    });
  }
};
} // namespace
