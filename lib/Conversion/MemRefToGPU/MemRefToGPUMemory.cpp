//===- MemRefToGPUMemory.cpp - convert-memref-to-gpu-memory -----*- C++ -*-===//
//
// Kernels dereference device pointers only, and no upstream pass moves a
// host function's buffers to the device: this one does, and rejects host
// code that would dereference them.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mpt {
#define GEN_PASS_DEF_CONVERTMEMREFTOGPUMEMORY
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Whether `op` runs on the host: outside kernels and GPU modules.
static bool isHostOp(Operation *op) {
  return !op->getParentOfType<gpu::LaunchOp>() &&
         !op->getParentOfType<gpu::GPUModuleOp>();
}

struct ConvertMemRefToGPUMemoryPass
    : public mpt::impl::ConvertMemRefToGPUMemoryBase<
          ConvertMemRefToGPUMemoryPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    WalkResult result = getOperation().walk([&](Operation *op) {
      if (!isHostOp(op))
        return WalkResult::advance();
      rewriter.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        rewriter.replaceOpWithNewOp<gpu::AllocOp>(
            alloc, alloc.getType(), /*asyncToken=*/Type(), ValueRange{},
            alloc.getDynamicSizes(), alloc.getSymbolOperands());
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
            dealloc, /*asyncToken=*/Type(), ValueRange{}, dealloc.getMemref());
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        auto contiguous = [](Value value) {
          return cast<MemRefType>(value.getType()).getLayout().isIdentity();
        };
        if (!contiguous(copy.getSource()) || !contiguous(copy.getTarget())) {
          copy.emitOpError("copies a strided view on the host; "
                           "convert-linalg-to-gpu-loops turns such copies "
                           "into kernels and must run first");
          return WalkResult::interrupt();
        }
        rewriter.replaceOpWithNewOp<gpu::MemcpyOp>(
            copy, /*asyncToken=*/Type(), ValueRange{}, copy.getTarget(),
            copy.getSource());
      } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        // A constant lives in host memory: give the kernels a device copy
        // for the duration of the function.
        auto type = cast<MemRefType>(global.getType());
        rewriter.setInsertionPointAfter(global);
        auto device =
            gpu::AllocOp::create(rewriter, loc, type, Type(), ValueRange{},
                                 ValueRange{}, ValueRange{});
        rewriter.replaceAllUsesWith(global.getResult(), device.getMemref());
        gpu::MemcpyOp::create(rewriter, loc, Type(), ValueRange{},
                              device.getMemref(), global);
        Block *block = global->getBlock();
        rewriter.setInsertionPoint(block->getTerminator());
        gpu::DeallocOp::create(rewriter, loc, Type(), ValueRange{},
                               device.getMemref());
      } else if (isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp>(
                     op)) {
        op->emitOpError("reads or writes a buffer element on the host; in "
                        "the CUDA lowering buffers live in device memory, so "
                        "only kernels may access them");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
