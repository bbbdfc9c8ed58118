//===- LinalgToCUDALibraryCalls.cpp - GEMMs and convolutions ----*- C++ -*-===//
//
// Generated kernels cannot match cuBLASLt's tensor-core GEMMs, so matmuls and
// convolutions (as implicit GEMMs) become calls into the runtime, which runs
// them with cuBLASLt in the operands' own type and f32 accumulation.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mpt/Conversion/LibraryCalls.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_MPTCONVERTLINALGTOCUDALIBRARYCALLS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// A contiguous copy of `value` (itself when it already has the identity
/// layout): collapse_shape and reinterpret_cast below need one. Buffers are
/// freed by the deallocation pipeline that runs after this pass.
static Value contiguous(RewriterBase &rewriter, Location loc, Value value) {
  auto type = cast<MemRefType>(value.getType());
  if (type.getLayout().isIdentity())
    return value;
  auto copy = memref::AllocOp::create(
      rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()));
  linalg::CopyOp::create(rewriter, loc, ValueRange{value},
                         ValueRange{copy.getResult()});
  return copy;
}

/// conv_2d_nchw_fchw as an implicit GEMM: im2col into columns[n, c, kh, kw,
/// oh, ow] (a linalg.generic, so a generated kernel), then a batch_matmul
/// output[n] (F x OH·OW) += filter (F x C·KH·KW) · columns[n], which the
/// matmul pattern turns into a GEMM call.
struct ConvToIm2colGemm : public OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<mpt::LibraryOperands> operands =
        mpt::matchLibraryOperands(op, rewriter);
    if (failed(operands))
      return failure();
    auto [input, filter, output] = *operands;
    auto inputType = cast<MemRefType>(input.getType());
    auto filterType = cast<MemRefType>(filter.getType());
    auto outputType = cast<MemRefType>(output.getType());
    if (!inputType.hasStaticShape() || !filterType.hasStaticShape() ||
        !outputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    if (!outputType.getLayout().isIdentity())
      return rewriter.notifyMatchFailure(op, "output is not contiguous");

    Location loc = op.getLoc();
    int64_t n = inputType.getDimSize(0), c = inputType.getDimSize(1);
    int64_t f = filterType.getDimSize(0), kh = filterType.getDimSize(2),
            kw = filterType.getDimSize(3);
    int64_t oh = outputType.getDimSize(2), ow = outputType.getDimSize(3);
    auto strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
    auto dilations = llvm::to_vector(op.getDilations().getValues<int64_t>());
    Type elementType = inputType.getElementType();

    rewriter.setInsertionPoint(op);
    auto columns = memref::AllocOp::create(
        rewriter, loc, MemRefType::get({n, c, kh, kw, oh, ow}, elementType));
    MLIRContext *ctx = getContext();
    AffineExpr dn, dc, dkh, dkw, doh, dow;
    bindDims(ctx, dn, dc, dkh, dkw, doh, dow);
    auto inputMap =
        AffineMap::get(6, 0,
                       {dn, dc, doh * strides[0] + dkh * dilations[0],
                        dow * strides[1] + dkw * dilations[1]},
                       ctx);
    auto identity = AffineMap::getMultiDimIdentityMap(6, ctx);
    linalg::GenericOp::create(
        rewriter, loc, ValueRange{input}, ValueRange{columns},
        ArrayRef<AffineMap>{inputMap, identity},
        SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
        [](OpBuilder &b, Location nestedLoc, ValueRange args) {
          linalg::YieldOp::create(b, nestedLoc, args[0]);
        });

    auto columnsView = memref::CollapseShapeOp::create(
        rewriter, loc, columns,
        ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
    auto outputView = memref::CollapseShapeOp::create(
        rewriter, loc, output,
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    // The filter repeats over the batch: batch stride 0.
    Value filterBase = contiguous(rewriter, loc, filter);
    int64_t depth = c * kh * kw;
    auto filterView = memref::ReinterpretCastOp::create(
        rewriter, loc,
        MemRefType::get({n, f, depth}, elementType,
                        StridedLayoutAttr::get(ctx, 0, {0, depth, 1})),
        filterBase, /*offset=*/0, /*sizes=*/ArrayRef<int64_t>{n, f, depth},
        /*strides=*/ArrayRef<int64_t>{0, depth, 1});
    rewriter.replaceOpWithNewOp<linalg::BatchMatmulOp>(
        op, ValueRange{filterView, columnsView}, ValueRange{outputView});
    return success();
  }
};

struct MPTConvertLinalgToCUDALibraryCallsPass
    : public mpt::impl::MPTConvertLinalgToCUDALibraryCallsBase<
          MPTConvertLinalgToCUDALibraryCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    mpt::populateConvolutionToIm2colPatterns(patterns);
    if (!im2colOnly)
      mpt::populateLinalgToCUDALibraryCallsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mpt::populateLinalgToCUDALibraryCallsPatterns(
    RewritePatternSet &patterns) {
  // cuBLASLt rounds the f32 product once as it writes it, as the rounding
  // generic did: no f32 product in memory, and no kernel.
  populateGemmToLibraryCallPatterns(
      patterns, "mpt_cuda_matmul_",
      [](StringRef name, Type input, Type rounded) {
        return rounded == input ? (name + "_rounded").str() : std::string();
      });
}

void mpt::populateConvolutionToIm2colPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvToIm2colGemm>(patterns.getContext());
}
