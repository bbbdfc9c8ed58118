//===- WidenMatmulOperands.cpp - mpt-widen-matmul-operands ------*- C++ -*-===//
//
// Where the CPU has no GEMM for a 16-bit float type (f16 everywhere mpt runs;
// bf16 without AVX512-BF16), the runtime's matmul kernel widens both operands
// to f32 on every call: a pass of its own over each operand, repeated for
// every product that reads the same tensor (a weight in the forward and the
// backward). Widened in the IR instead, the widening is one elementwise op per
// tensor, which fusion merges into the op that computes the tensor when the
// products are its only readers.
//
//===----------------------------------------------------------------------===//

#include "mpt/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mpt {
#define GEN_PASS_DEF_MPTWIDENMATMULOPERANDS
#include "mpt/Codegen/CPU/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// An f32 copy of the 16-bit tensor `half`, made once, right after `half` is
/// defined (so that it dominates every product that reads `half`, in any
/// region), and shared by those products.
Value widened(RewriterBase &rewriter, Value half,
              DenseMap<Value, Value> &widenedTensors) {
  auto [entry, inserted] = widenedTensors.try_emplace(half);
  if (!inserted)
    return entry->second;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointAfterValue(half);
  Location loc = half.getLoc();
  auto type = cast<RankedTensorType>(half.getType());
  Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                        rewriter.getF32Type());
  AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  entry->second = linalg::GenericOp::create(
                      rewriter, loc, empty.getType(), half, empty,
                      ArrayRef<AffineMap>{identity, identity}, parallel,
                      [](OpBuilder &b, Location l, ValueRange args) {
                        linalg::YieldOp::create(
                            b, l,
                            arith::ExtFOp::create(b, l, b.getF32Type(), args[0])
                                .getResult());
                      })
                      .getResult(0);
  return entry->second;
}

/// `op` with f32 copies of its inputs: the same product, since the op widens
/// each element exactly to f32 before multiplying.
template <typename OpTy>
void widenOperands(RewriterBase &rewriter, OpTy op,
                   DenseMap<Value, Value> &widenedTensors) {
  SmallVector<Value> inputs =
      llvm::map_to_vector(op.getDpsInputs(), [&](Value input) {
        return widened(rewriter, input, widenedTensors);
      });
  rewriter.setInsertionPoint(op);
  Value init = op.getDpsInits()[0];
  auto product = OpTy::create(rewriter, op.getLoc(), init.getType(), inputs,
                              ValueRange{init});
  product.setIndexingMapsAttr(op.getIndexingMaps());
  rewriter.replaceOp(op, product->getResults());
}

struct MPTWidenMatmulOperands
    : public mpt::impl::MPTWidenMatmulOperandsBase<MPTWidenMatmulOperands> {
  using Base::Base;

  /// A product on tensors whose inputs are both of a type to widen and whose
  /// accumulator is f32.
  bool isToWiden(linalg::LinalgOp op) const {
    auto elementType = [](Value value) -> Type {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      return type ? type.getElementType() : Type();
    };
    Type inputType = elementType(op.getDpsInputs()[0]);
    bool widenType = (f16 && inputType && inputType.isF16()) ||
                     (bf16 && inputType && inputType.isBF16());
    return op.hasPureTensorSemantics() && widenType &&
           elementType(op.getDpsInputs()[1]) == inputType &&
           elementType(op.getDpsInits()[0]).isF32();
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> products;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) && isToWiden(op))
        products.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    DenseMap<Value, Value> widenedTensors;
    for (linalg::LinalgOp op : products) {
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation()))
        widenOperands(rewriter, matmul, widenedTensors);
      else
        widenOperands(rewriter, cast<linalg::BatchMatmulOp>(op.getOperation()),
                      widenedTensors);
    }
  }
};
} // namespace
