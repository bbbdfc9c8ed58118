//===- LinalgToCPUKernels.cpp - convert-linalg-to-cpu-kernels ---*- C++ -*-===//
//
// Generic loops are correct but an order of magnitude slower than a tuned
// sgemm on the products that dominate a training step, so bufferized matmuls
// and convolutions become calls into the runtime's BLAS-backed kernels.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_CONVERTLINALGTOCPUKERNELS
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

static StringRef kernelTypeName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  return {};
}

/// A memref type of the same rank and element type with dynamic sizes,
/// strides and offset: one kernel signature serves every shape and layout.
static MemRefType dynamicStridedType(MemRefType type) {
  int64_t rank = type.getRank();
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  return MemRefType::get(
      dynamic, type.getElementType(),
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, dynamic));
}

/// Replaces `op` by a call to the runtime kernel `name` with `memrefs`, cast
/// to dynamic strided layouts, then `scalars` as i64. The kernel is declared
/// on first use, with a C interface so that memrefs travel as descriptors.
static void replaceWithKernelCall(PatternRewriter &rewriter, Operation *op,
                                  StringRef name, ValueRange memrefs,
                                  ArrayRef<int64_t> scalars) {
  Location loc = op->getLoc();
  SmallVector<Value> operands;
  for (Value memref : memrefs)
    operands.push_back(memref::CastOp::create(
        rewriter, loc, dynamicStridedType(cast<MemRefType>(memref.getType())),
        memref));
  for (int64_t scalar : scalars)
    operands.push_back(
        arith::ConstantIntOp::create(rewriter, loc, scalar, /*width=*/64));

  auto module = op->getParentOfType<ModuleOp>();
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
  rewriter.eraseOp(op);
}

/// Whether every operand of `op` is a strided memref, which the kernels'
/// descriptors can describe (a memref.cast to a strided layout needs one).
static bool hasStridedMemRefOperands(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return false;
  return llvm::all_of(op->getOperandTypes(), [](Type type) {
    return cast<MemRefType>(type).isStrided();
  });
}

template <typename OpTy>
struct MatmulToKernelCall : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!hasStridedMemRefOperands(op))
      return rewriter.notifyMatchFailure(op, "not on strided memrefs");
    Value a = op.getDpsInputOperand(0)->get();
    Value b = op.getDpsInputOperand(1)->get();
    Value c = op.getDpsInitOperand(0)->get();
    auto aType = cast<MemRefType>(a.getType());
    auto bType = cast<MemRefType>(b.getType());
    auto cType = cast<MemRefType>(c.getType());
    StringRef typeName = kernelTypeName(aType.getElementType());
    if (typeName.empty() || aType.getElementType() != bType.getElementType() ||
        !cType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "unsupported element types");

    // Loop dimensions: (m, n, k), with a leading batch dimension if batched.
    bool batched = std::is_same_v<OpTy, linalg::BatchMatmulOp>;
    unsigned first = batched ? 1 : 0, m = first, n = first + 1, k = first + 2;
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
    int64_t transposeA, transposeB;
    if (selects(maps[0], withBatch({m, k})))
      transposeA = 0;
    else if (selects(maps[0], withBatch({k, m})))
      transposeA = 1;
    else
      return rewriter.notifyMatchFailure(op, "unsupported lhs map");
    if (selects(maps[1], withBatch({k, n})))
      transposeB = 0;
    else if (selects(maps[1], withBatch({n, k})))
      transposeB = 1;
    else
      return rewriter.notifyMatchFailure(op, "unsupported rhs map");

    std::string name = ("mpt_cpu_matmul_" + typeName + "_" +
                        std::to_string(aType.getRank()) + "d")
                           .str();
    replaceWithKernelCall(rewriter, op, name, {a, b, c},
                          {transposeA, transposeB});
    return success();
  }
};

/// linalg.conv_2d_nchw_fchw, whose strides and dilations the kernel takes as
/// arguments; the op's body is fixed (widen, multiply, accumulate into the
/// init), so the element types decide everything else.
struct Conv2DToKernelCall : public OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasStridedMemRefOperands(op))
      return rewriter.notifyMatchFailure(op, "not on strided memrefs");
    Value input = op.getDpsInputOperand(0)->get();
    Value filter = op.getDpsInputOperand(1)->get();
    Value output = op.getDpsInitOperand(0)->get();
    Type inputElement = cast<MemRefType>(input.getType()).getElementType();
    StringRef typeName = kernelTypeName(inputElement);
    if (typeName.empty() ||
        cast<MemRefType>(filter.getType()).getElementType() != inputElement ||
        !cast<MemRefType>(output.getType()).getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "unsupported element types");

    auto strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
    auto dilations = llvm::to_vector(op.getDilations().getValues<int64_t>());
    replaceWithKernelCall(rewriter, op, ("mpt_cpu_conv2d_" + typeName).str(),
                          {input, filter, output},
                          {strides[0], strides[1], dilations[0], dilations[1]});
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

struct ConvertLinalgToCPUKernels
    : public mpt::impl::ConvertLinalgToCPUKernelsBase<
          ConvertLinalgToCPUKernels> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MatmulToKernelCall<linalg::MatmulOp>,
                 MatmulToKernelCall<linalg::BatchMatmulOp>, Conv2DToKernelCall,
                 StridedCopyToLinalg>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
