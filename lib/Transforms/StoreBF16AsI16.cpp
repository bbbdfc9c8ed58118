//===- StoreBF16AsI16.cpp - mpt-store-bf16-as-i16 ---------------*- C++ -*-===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_MPTSTOREBF16ASI16
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// The i16 type of the same shape as a bf16 scalar or vector, or null.
Type bitsTypeOf(Type type) {
  auto i16 = IntegerType::get(type.getContext(), 16);
  if (type.isBF16())
    return i16;
  if (auto vector = dyn_cast<VectorType>(type);
      vector && vector.getElementType().isBF16())
    return vector.clone(i16);
  return nullptr;
}

/// The bits of a bf16 value that is a bitcast from them or a constant, or
/// null.
Value bitsOf(PatternRewriter &rewriter, Value value) {
  Type bitsType = bitsTypeOf(value.getType());
  if (auto cast = value.getDefiningOp<LLVM::BitcastOp>())
    if (cast.getArg().getType() == bitsType)
      return cast.getArg();
  auto constant = value.getDefiningOp<LLVM::ConstantOp>();
  if (!constant)
    return nullptr;
  Attribute bits;
  if (auto scalar = dyn_cast<FloatAttr>(constant.getValue()))
    bits = IntegerAttr::get(bitsType, scalar.getValue().bitcastToAPInt());
  else if (auto elements = dyn_cast<DenseFPElementsAttr>(constant.getValue()))
    bits = elements.bitcast(cast<VectorType>(bitsType).getElementType());
  if (!bits)
    return nullptr;
  rewriter.setInsertionPoint(constant);
  return LLVM::ConstantOp::create(rewriter, constant.getLoc(), bitsType,
                                  cast<TypedAttr>(bits));
}

struct StoreBits : OpRewritePattern<LLVM::StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::StoreOp store,
                                PatternRewriter &rewriter) const override {
    if (!bitsTypeOf(store.getValue().getType()))
      return failure();
    Value bits = bitsOf(rewriter, store.getValue());
    if (!bits)
      return failure();
    rewriter.modifyOpInPlace(store,
                             [&] { store.getValueMutable().assign(bits); });
    return success();
  }
};

/// load bf16 -> bitcast(load i16), with the load's attributes.
struct LoadBits : OpRewritePattern<LLVM::LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::LoadOp load,
                                PatternRewriter &rewriter) const override {
    Type bitsType = bitsTypeOf(load.getType());
    if (!bitsType)
      return failure();
    Operation *bitsLoad = rewriter.clone(*load);
    bitsLoad->getResult(0).setType(bitsType);
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(load, load.getType(),
                                                 bitsLoad->getResult(0));
    return success();
  }
};

struct SelectBits : OpRewritePattern<LLVM::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::SelectOp select,
                                PatternRewriter &rewriter) const override {
    Type bitsType = bitsTypeOf(select.getType());
    if (!bitsType)
      return failure();
    Location loc = select.getLoc();
    auto asBits = [&](Value value) -> Value {
      if (Value bits = bitsOf(rewriter, value))
        return bits;
      rewriter.setInsertionPoint(select);
      return LLVM::BitcastOp::create(rewriter, loc, bitsType, value);
    };
    Value trueBits = asBits(select.getTrueValue());
    Value falseBits = asBits(select.getFalseValue());
    rewriter.setInsertionPoint(select);
    Value bits = LLVM::SelectOp::create(rewriter, loc, select.getCondition(),
                                        trueBits, falseBits);
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(select, select.getType(),
                                                 bits);
    return success();
  }
};

struct StoreBF16AsI16
    : public mpt::impl::MPTStoreBF16AsI16Base<StoreBF16AsI16> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LoadBits, StoreBits, SelectBits>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
