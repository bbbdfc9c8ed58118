//===- LinalgToCUDALibraryCalls.cpp - GEMMs and convolutions ----*- C++ -*-===//
//
// Generated kernels cannot match cuBLASLt's tensor-core GEMMs, so matmuls and
// convolutions (as implicit GEMMs) become calls into the runtime, which runs
// them with cuBLASLt in the operands' own type and f32 accumulation.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_CONVERTLINALGTOCUDALIBRARYCALLS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Whether `map` selects exactly the loop dimensions `dims`, in order.
static bool selects(AffineMap map, ArrayRef<unsigned> dims) {
  if (map.getNumResults() != dims.size())
    return false;
  for (auto [expr, dim] : llvm::zip(map.getResults(), dims)) {
    auto dimExpr = dyn_cast<AffineDimExpr>(expr);
    if (!dimExpr || dimExpr.getPosition() != dim)
      return false;
  }
  return true;
}

/// The type suffix of the runtime's GEMM entry points, empty if there is
/// none for `type`.
static StringRef gemmTypeName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  return {};
}

/// Same rank and element type, dynamic sizes, strides and offset: one entry
/// point serves every shape and layout.
static MemRefType dynamicStridedType(MemRefType type) {
  int64_t rank = type.getRank();
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  return MemRefType::get(
      dynamic, type.getElementType(),
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, dynamic));
}

/// Calls `mpt_cuda_matmul_<type>_<rank>d(a, b, c, transposeA, transposeB)`,
/// declared on first use with a C interface (memrefs travel as descriptors).
static void createGemmCall(RewriterBase &rewriter, Location loc, Value a,
                           Value b, Value c, bool transposeA, bool transposeB) {
  auto aType = cast<MemRefType>(a.getType());
  std::string name =
      ("mpt_cuda_matmul_" + gemmTypeName(aType.getElementType()) + "_" +
       std::to_string(aType.getRank()) + "d")
          .str();
  SmallVector<Value> operands;
  for (Value memref : {a, b, c})
    operands.push_back(memref::CastOp::create(
        rewriter, loc, dynamicStridedType(cast<MemRefType>(memref.getType())),
        memref));
  for (bool transpose : {transposeA, transposeB})
    operands.push_back(
        arith::ConstantIntOp::create(rewriter, loc, transpose, /*width=*/64));

  auto module =
      rewriter.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (!callee) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    callee = func::FuncOp::create(
        rewriter, loc, name,
        rewriter.getFunctionType(ValueRange(operands).getTypes(), {}));
    callee.setPrivate();
    callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    rewriter.getUnitAttr());
  }
  func::CallOp::create(rewriter, loc, callee, operands);
}

/// Whether the inputs are one GEMM type and the accumulator is f32: what
/// convert-mpt-to-linalg writes, and what cuBLASLt's COMPUTE_32F computes.
static bool hasGemmTypes(Value a, Value b, Value c) {
  Type aType = cast<MemRefType>(a.getType()).getElementType();
  Type bType = cast<MemRefType>(b.getType()).getElementType();
  Type cType = cast<MemRefType>(c.getType()).getElementType();
  return !gemmTypeName(aType).empty() && aType == bType && cType.isF32();
}

static bool hasStridedMemRefOperands(linalg::LinalgOp op) {
  return op.hasPureBufferSemantics() &&
         llvm::all_of(op->getOperandTypes(), [](Type type) {
           return cast<MemRefType>(type).isStrided();
         });
}

template <typename OpTy>
struct MatmulToGemmCall : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!hasStridedMemRefOperands(op))
      return rewriter.notifyMatchFailure(op, "not on strided memrefs");
    Value a = op.getDpsInputOperand(0)->get();
    Value b = op.getDpsInputOperand(1)->get();
    Value c = op.getDpsInitOperand(0)->get();
    if (!hasGemmTypes(a, b, c))
      return rewriter.notifyMatchFailure(op, "unsupported element types");

    // Loop dimensions (m, n, k), after the batch dimension if batched.
    constexpr bool batched = std::is_same_v<OpTy, linalg::BatchMatmulOp>;
    unsigned m = batched ? 1 : 0, n = m + 1, k = m + 2;
    auto withBatch = [&](std::initializer_list<unsigned> dims) {
      SmallVector<unsigned> all;
      if (batched)
        all.push_back(0);
      all.append(dims);
      return all;
    };
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    if (!selects(maps[2], withBatch({m, n})))
      return rewriter.notifyMatchFailure(op, "unsupported output map");
    bool transposeA, transposeB;
    if (selects(maps[0], withBatch({m, k})))
      transposeA = false;
    else if (selects(maps[0], withBatch({k, m})))
      transposeA = true;
    else
      return rewriter.notifyMatchFailure(op, "unsupported lhs map");
    if (selects(maps[1], withBatch({k, n})))
      transposeB = false;
    else if (selects(maps[1], withBatch({n, k})))
      transposeB = true;
    else
      return rewriter.notifyMatchFailure(op, "unsupported rhs map");

    rewriter.setInsertionPoint(op);
    createGemmCall(rewriter, op.getLoc(), a, b, c, transposeA, transposeB);
    rewriter.eraseOp(op);
    return success();
  }
};

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
    if (!hasStridedMemRefOperands(op))
      return rewriter.notifyMatchFailure(op, "not on strided memrefs");
    Value input = op.getDpsInputOperand(0)->get();
    Value filter = op.getDpsInputOperand(1)->get();
    Value output = op.getDpsInitOperand(0)->get();
    if (!hasGemmTypes(input, filter, output))
      return rewriter.notifyMatchFailure(op, "unsupported element types");
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

struct ConvertLinalgToCUDALibraryCallsPass
    : public mpt::impl::ConvertLinalgToCUDALibraryCallsBase<
          ConvertLinalgToCUDALibraryCallsPass> {
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
  patterns.add<MatmulToGemmCall<linalg::MatmulOp>,
               MatmulToGemmCall<linalg::BatchMatmulOp>>(patterns.getContext());
}

void mpt::populateConvolutionToIm2colPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvToIm2colGemm>(patterns.getContext());
}
