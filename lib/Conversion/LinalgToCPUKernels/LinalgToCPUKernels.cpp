//===- LinalgToCPUKernels.cpp - mpt-convert-linalg-to-cpu-kernels ---------===//
//
// Generic loops are correct but an order of magnitude slower than a tuned
// sgemm on the products that dominate a training step, so bufferized matmuls
// and convolutions become calls into the runtime's BLAS-backed kernels.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mpt/Contract/Contract.h"
#include "mpt/Conversion/LibraryCalls.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_MPTCONVERTLINALGTOCPUKERNELS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// The kernel that writes the product of kernel `name` rounded to `rounded`:
/// it rounds each block while it is in cache, and the f32 product and the
/// loop that rounded it go.
static std::string roundedKernelName(StringRef name, Type rounded) {
  return (name + mpt::contract::kernel::RoundedInfix +
          mpt::libraryTypeName(rounded))
      .str();
}

/// linalg.conv_2d_nchw_fchw, whose strides and dilations the kernel takes as
/// arguments; the op's body is fixed (widen, multiply, accumulate into the
/// init), so the element types decide everything else.
struct Conv2DToKernelCall : public OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<mpt::LibraryOperands> operands =
        mpt::matchLibraryOperands(op, rewriter);
    if (failed(operands))
      return failure();
    auto [input, filter, output] = *operands;
    StringRef typeName = mpt::libraryTypeName(
        cast<MemRefType>(input.getType()).getElementType());
    auto strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
    auto dilations = llvm::to_vector(op.getDilations().getValues<int64_t>());
    std::string name = (mpt::contract::kernel::Conv2DPrefix + typeName).str();
    mpt::replaceWithLibraryCall(
        rewriter, op, name, {input, filter, output},
        {strides[0], strides[1], dilations[0], dilations[1]},
        [&](Type rounded) { return roundedKernelName(name, rounded); });
    return success();
  }
};

/// A memref.copy with a strided side becomes linalg.copy, lowered to loops
/// that LLVM vectorizes: memref.copy lowers to the runner utility memrefCopy,
/// which walks such copies element by element with index arithmetic (the
/// padded inputs of convolutions and pooling are copied this way). Copies
/// between contiguous memrefs stay: memrefCopy does those with memcpy.
struct StridedCopyToLinalg : public OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::CopyOp op,
                                PatternRewriter &rewriter) const override {
    auto source = dyn_cast<MemRefType>(op.getSource().getType());
    auto target = dyn_cast<MemRefType>(op.getTarget().getType());
    if (!source || !target)
      return rewriter.notifyMatchFailure(op, "not between ranked memrefs");
    if (source.getLayout().isIdentity() && target.getLayout().isIdentity())
      return rewriter.notifyMatchFailure(op, "contiguous: memcpy is faster");
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(),
                                                op.getTarget());
    return success();
  }
};

struct MPTConvertLinalgToCPUKernels
    : public mpt::impl::MPTConvertLinalgToCPUKernelsBase<
          MPTConvertLinalgToCPUKernels> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    mpt::populateGemmToLibraryCallPatterns(
        patterns, mpt::contract::kernel::MatmulPrefix,
        [](StringRef name, Type, Type rounded) {
          return roundedKernelName(name, rounded);
        });
    patterns.add<Conv2DToKernelCall, StridedCopyToLinalg>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
