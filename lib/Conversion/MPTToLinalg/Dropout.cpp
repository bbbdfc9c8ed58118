//===- Dropout.cpp - mpt.dropout as one linalg.generic --------------------===//
//
// One elementwise linalg.generic that recomputes each element's mask from its
// row-major index (linalg.index) and the step's counter, by the formula of
// DropoutOp's description: no mask is stored, and the mask depends on no
// thread schedule, tiling or device. The hash constants of the seed and
// stream are emitted as arith ops on constants, which folding reduces.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace mpt;
using namespace mpt::detail;

namespace {

/// splitmix64's increment, the 64-bit golden ratio.
constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

/// i64 arithmetic modulo 2^64 for the splitmix64 hash.
struct SplitMix64 {
  OpBuilder &b;
  Location loc;

  Value constant(uint64_t value) const {
    return intConstant(b, loc, b.getI64Type(), static_cast<int64_t>(value));
  }
  /// splitmix64's output for state `base` after `offset + 1` increments.
  Value output(Value base, Value offset) const {
    Value count = arith::AddIOp::create(b, loc, offset, constant(1));
    Value step = arith::MulIOp::create(b, loc, count, constant(kGolden));
    return mix(arith::AddIOp::create(b, loc, base, step));
  }
  /// splitmix64's finalizer.
  Value mix(Value z) const {
    z = arith::MulIOp::create(b, loc, xorShift(z, 30),
                              constant(0xBF58476D1CE4E5B9ULL));
    z = arith::MulIOp::create(b, loc, xorShift(z, 27),
                              constant(0x94D049BB133111EBULL));
    return xorShift(z, 31);
  }

private:
  Value xorShift(Value z, uint64_t shift) const {
    return arith::XOrIOp::create(
        b, loc, z, arith::ShRUIOp::create(b, loc, z, constant(shift)));
  }
};

/// The row-major index of the current element of a linalg.generic over
/// `shape`, as i64.
Value linearIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  Value index = intConstant(b, loc, b.getIndexType(), 0);
  for (auto [dim, size] : llvm::enumerate(shape)) {
    Value scaled = arith::MulIOp::create(
        b, loc, index, intConstant(b, loc, b.getIndexType(), size));
    index = arith::AddIOp::create(b, loc, scaled,
                                  linalg::IndexOp::create(b, loc, dim));
  }
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

struct DropoutLowering : OpConversionPattern<DropoutOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!adaptor.getCounter())
      return op.emitOpError(
          "has no counter operand: run mpt-autodiff on the forward-only step, "
          "or pass the step's dropout counter (an i64 state argument)");
    double p = op.getP().convertToDouble();
    // floor(p * 2^64) < 2^64 for p < 1: u >= it with probability 1 - p.
    auto dropBelow = static_cast<uint64_t>(std::ldexp(p, 64));
    // PyTorch's dropout divides by 1 - p in the tensor's (f32) type.
    float scale = 1.0f / static_cast<float>(1.0 - p);
    RankedTensorType type = op.getType();
    ArrayRef<int64_t> shape = type.getShape();
    uint64_t seed = op.getSeed(), stream = op.getStream();
    Value result = buildElementwise(
        rewriter, op.getLoc(), shape,
        ValueRange{adaptor.getInput(), adaptor.getCounter()},
        {rewriter.getMultiDimIdentityMap(shape.size()),
         projectionMap(getContext(), shape.size(), {})},
        type.getElementType(),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          SplitMix64 hash{b, l};
          Value streamKey =
              hash.output(hash.constant(seed), hash.constant(stream));
          Value key = hash.output(streamKey, args[1]);
          Value bits = hash.output(key, linearIndex(b, l, shape));
          Value keep = arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge,
                                             bits, hash.constant(dropBelow));
          Type elementType = args[0].getType();
          Value scaled =
              arith::MulFOp::create(b, l, toF32(b, l, args[0]),
                                    floatConstant(b, l, b.getF32Type(), scale));
          return {arith::SelectOp::create(
              b, l, keep, castScalar(b, l, scaled, elementType),
              floatConstant(b, l, elementType, 0.0))};
        })[0];
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mpt::detail::populateDropoutPatterns(RewritePatternSet &patterns) {
  patterns.add<DropoutLowering>(patterns.getContext());
}
