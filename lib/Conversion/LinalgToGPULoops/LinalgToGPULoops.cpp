//===- LinalgToGPULoops.cpp - mpt-convert-linalg-to-gpu-loops ---*- C++ -*-===//
//
// Every generated GPU kernel is first an scf.parallel nest with
// #gpu.loop_dim_map attributes: plain SCF that also runs on the CPU, so the
// kernels' arithmetic is tested in CI without a GPU, and that
// convert-parallel-loops-to-gpu maps to gpu.launch without further choices.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "GPULoops.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

namespace mpt {
#define GEN_PASS_DEF_MPTCONVERTLINALGTOGPULOOPS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt::gpuloops;

/// Each copy between strided views, which is no contiguous memcpy, as a
/// linalg.copy: a copy kernel.
static void copyStridedViewsInKernels(IRRewriter &rewriter, ModuleOp module) {
  SmallVector<memref::CopyOp> stridedCopies;
  module.walk([&](memref::CopyOp copy) {
    auto contiguous = [](Value value) {
      return cast<MemRefType>(value.getType()).getLayout().isIdentity();
    };
    if (!contiguous(copy.getSource()) || !contiguous(copy.getTarget()))
      stridedCopies.push_back(copy);
  });
  for (memref::CopyOp copy : stridedCopies) {
    rewriter.setInsertionPoint(copy);
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(
        copy, ValueRange{copy.getSource()}, ValueRange{copy.getTarget()});
  }
}

/// Every matmul and batch matmul as sequential loops.
static LogicalResult lowerGemmsToLoops(IRRewriter &rewriter, ModuleOp module) {
  SmallVector<linalg::LinalgOp> gemms;
  module.walk([&](linalg::LinalgOp op) {
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
      gemms.push_back(op);
  });
  for (linalg::LinalgOp op : gemms) {
    rewriter.setInsertionPoint(op);
    if (failed(linalg::linalgOpToLoops(rewriter, op)))
      return op.emitOpError("cannot be lowered to loops");
    rewriter.eraseOp(op);
  }
  return success();
}

/// Sums written one dimension at a time, each chain as one reduction again.
static void mergeAllSumLevels(IRRewriter &rewriter, ModuleOp module) {
  for (bool merged = true; merged;) {
    merged = false;
    SmallVector<linalg::GenericOp> sums;
    module.walk([&](linalg::GenericOp op) { sums.push_back(op); });
    for (linalg::GenericOp op : sums)
      if (mergeSumLevels(rewriter, op)) {
        merged = true;
        break;
      }
  }
}

/// Named ops (fill, copy, transpose, matmuls left to generated code, ...) as
/// the generics with a known body that they are.
static LogicalResult generalizeNamedOps(IRRewriter &rewriter, ModuleOp module) {
  SmallVector<linalg::LinalgOp> named;
  module.walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp>(op))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    if (failed(linalg::generalizeNamedOp(rewriter, op)))
      return op.emitOpError("cannot be generalized into a linalg.generic for "
                            "the GPU loop lowering");
  }
  return success();
}

namespace {

struct MPTConvertLinalgToGPULoopsPass
    : public mpt::impl::MPTConvertLinalgToGPULoopsBase<
          MPTConvertLinalgToGPULoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());
    copyStridedViewsInKernels(rewriter, module);
    if (gemmsAsLoops && failed(lowerGemmsToLoops(rewriter, module)))
      return signalPassFailure();
    mergeAllSumLevels(rewriter, module);
    absorbedBy = absorbNeighbours(module, maxThreadReduction);
    if (failed(generalizeNamedOps(rewriter, module)))
      return signalPassFailure();
    llvm::SmallPtrSet<Operation *, 8> absorbedGenerics;
    for (auto &[op, absorbed] : absorbedBy) {
      for (auto &[output, epilogue] : absorbed.epilogues)
        absorbedGenerics.insert(epilogue.op);
      if (absorbed.prologue)
        absorbedGenerics.insert(absorbed.prologue->op);
    }
    SmallVector<linalg::GenericOp> generics;
    module.walk([&](linalg::GenericOp op) {
      if (!absorbedGenerics.contains(op))
        generics.push_back(op);
    });
    for (linalg::GenericOp op : generics)
      if (failed(lowerGeneric(op)))
        return signalPassFailure();
    SmallVector<scf::ForallOp> foralls;
    module.walk([&](scf::ForallOp op) { foralls.push_back(op); });
    for (scf::ForallOp op : foralls) {
      OpBuilder b(op);
      if (failed(lowerForallPerThread(b, op, blockSize)))
        return signalPassFailure();
    }
  }

  /// Lowers `op` by the kernel family its iteration space calls for, and
  /// erases it, its prologue and epilogue, the host loads only they read and
  /// the buffers only the epilogue read.
  LogicalResult lowerGeneric(linalg::GenericOp op) {
    if (!op.hasPureBufferSemantics())
      return op.emitOpError("must be on memrefs (bufferize before "
                            "mpt-convert-linalg-to-gpu-loops)");
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ShapedType::isDynamicShape(ranges))
      return op.emitOpError("has dynamic loop bounds; the GPU lowering needs "
                            "static shapes");
    OpBuilder b(op);
    IterationSpace space = getIterationSpace(op, ranges);
    const AbsorbedOps &absorbed = absorbedBy[op];
    LogicalResult lowered = success();
    switch (chooseKernelFamily(op, space, maxThreadReduction)) {
    case KernelFamily::PerThread:
      lowerPerThread(b, op, ranges, space, absorbed, blockSize);
      break;
    case KernelFamily::ColumnReduction:
      lowered = lowerColumnReduction(b, op, ranges, space, absorbed, blockSize,
                                     minBlocks);
      break;
    case KernelFamily::RowReduction:
      lowered = lowerRowReduction(b, op, ranges, space, absorbed, blockSize,
                                  minBlocks);
      break;
    }
    if (failed(lowered))
      return failure();
    SmallVector<Value> operands = op->getOperands();
    for (auto &[output, value] : absorbed.fillValues)
      if (value)
        operands.push_back(value);
    SmallVector<Value> unwritten;
    for (auto &[output, epilogue] : absorbed.epilogues) {
      llvm::append_range(operands, epilogue.op->getOperands());
      if (!epilogue.keepOutput)
        unwritten.push_back(epilogue.input->get());
      epilogue.op->erase();
    }
    if (absorbed.prologue) {
      llvm::append_range(operands, absorbed.prologue->op->getOperands());
      absorbed.prologue->op->erase();
    }
    op.erase();
    for (Value operand : operands)
      if (auto hostLoad = operand.getDefiningOp<memref::LoadOp>())
        if (hostLoad->use_empty())
          hostLoad.erase();
    for (Value buffer : unwritten) {
      for (Operation *dealloc : llvm::make_early_inc_range(buffer.getUsers()))
        dealloc->erase();
      buffer.getDefiningOp()->erase();
    }
    return success();
  }

  llvm::DenseMap<Operation *, AbsorbedOps> absorbedBy;
};

} // namespace
