//===- MemRefToGPUMemory.cpp - mpt-convert-memref-to-gpu-memory -----------===//
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
#define GEN_PASS_DEF_MPTCONVERTMEMREFTOGPUMEMORY
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Whether `op` runs on the host: outside kernels and GPU modules.
static bool isHostOp(Operation *op) {
  return !op->getParentOfType<gpu::LaunchOp>() &&
         !op->getParentOfType<gpu::GPUModuleOp>();
}

struct MPTConvertMemRefToGPUMemoryPass
    : public mpt::impl::MPTConvertMemRefToGPUMemoryBase<
          MPTConvertMemRefToGPUMemoryPass> {
  using Base::Base;

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
            alloc.getDynamicSizes(), alloc.getSymbolOperands(),
            bool(hostShared));
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        createDealloc(rewriter, loc, dealloc.getMemref());
        rewriter.eraseOp(dealloc);
      } else if (hostShared && isa<memref::CopyOp>(op)) {
        // Managed memory: the host copies, after the wait that
        // gpu-async-region puts before host side effects.
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        auto contiguous = [](Value value) {
          return cast<MemRefType>(value.getType()).getLayout().isIdentity();
        };
        if (!contiguous(copy.getSource()) || !contiguous(copy.getTarget())) {
          copy.emitOpError("copies a strided view on the host; "
                           "mpt-convert-linalg-to-gpu-loops turns such copies "
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
        if (hostShared)
          memref::CopyOp::create(rewriter, loc, global, device.getMemref());
        else
          gpu::MemcpyOp::create(rewriter, loc, Type(), ValueRange{},
                                device.getMemref(), global);
        Block *block = global->getBlock();
        rewriter.setInsertionPoint(block->getTerminator());
        createDealloc(rewriter, loc, device.getMemref());
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

  /// Frees `memref`. With `host-shared` this pass runs after gpu-async-region
  /// (async allocations of managed memory do not lower), but gpu-to-llvm
  /// lowers only async frees: a free between two waits.
  void createDealloc(RewriterBase &rewriter, Location loc, Value memref) {
    if (!hostShared) {
      gpu::DeallocOp::create(rewriter, loc, Type(), ValueRange{}, memref);
      return;
    }
    Type token = gpu::AsyncTokenType::get(rewriter.getContext());
    Value ready =
        gpu::WaitOp::create(rewriter, loc, token, ValueRange{}).getAsyncToken();
    Value freed = gpu::DeallocOp::create(rewriter, loc, token, ready, memref)
                      .getAsyncToken();
    gpu::WaitOp::create(rewriter, loc, Type(), freed);
  }
};

} // namespace
