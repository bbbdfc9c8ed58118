//===- FoldRoundedCompares.cpp - mpt-fold-rounded-compares ------*- C++ -*-===//
//
// A ReLU or its gradient on a value computed in f32 and rounded to f16 or
// bf16 (a batch norm's output recomputed inside a fused loop) compares the
// rounded value with zero. Where f16 or bf16 has no arithmetic, the rounding
// and the widening back for the compare cost more than the rest of the loop;
// the bf16 rounding alone is about ten integer instructions per vector.
// Rounding to nearest even is monotonic, so the compare can read the f32 value
// against the f32 boundary between the constant and its neighbour instead.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_MPTFOLDROUNDEDCOMPARES
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// A truncf that rounds to nearest even (the default mode).
arith::TruncFOp getNearestEvenTruncF(Value value) {
  auto trunc = value.getDefiningOp<arith::TruncFOp>();
  if (!trunc ||
      trunc.getRoundingmode().value_or(arith::RoundingMode::to_nearest_even) !=
          arith::RoundingMode::to_nearest_even)
    return nullptr;
  return trunc;
}

/// The predicate that compares with the operands swapped.
arith::CmpFPredicate swapOperands(arith::CmpFPredicate predicate) {
  using P = arith::CmpFPredicate;
  switch (predicate) {
  case P::OGT:
    return P::OLT;
  case P::OGE:
    return P::OLE;
  case P::OLT:
    return P::OGT;
  case P::OLE:
    return P::OGE;
  case P::UGT:
    return P::ULT;
  case P::UGE:
    return P::ULE;
  case P::ULT:
    return P::UGT;
  case P::ULE:
    return P::UGE;
  default:
    return predicate;
  }
}

/// For `truncf(x) pred c` (pred an ordering, c a finite constant of the narrow
/// type whose neighbours are finite too), the predicate and the constant of
/// the wide type b with `x pred' b` equal to it for every x, NaN included.
/// b is the midpoint between c and its neighbour on the side the predicate
/// looks at: values beyond it round away from c, values short of it to c, and
/// b itself to whichever of the two is even. Everything is exact: the
/// midpoint of two adjacent narrow values has one bit more than they do.
std::optional<std::pair<arith::CmpFPredicate, APFloat>>
foldedCompare(arith::CmpFPredicate predicate, const APFloat &constant,
              const llvm::fltSemantics &wide) {
  using P = arith::CmpFPredicate;
  bool greater, strict, ordered;
  switch (predicate) {
  case P::OGT:
  case P::UGT:
    greater = true, strict = true;
    break;
  case P::OGE:
  case P::UGE:
    greater = true, strict = false;
    break;
  case P::OLT:
  case P::ULT:
    greater = false, strict = true;
    break;
  case P::OLE:
  case P::ULE:
    greater = false, strict = false;
    break;
  default:
    return std::nullopt;
  }
  ordered = predicate == P::OGT || predicate == P::OGE || predicate == P::OLT ||
            predicate == P::OLE;
  if (!constant.isFinite())
    return std::nullopt;
  // x > c and x <= c (not x > c) look above c; x >= c and x < c below it.
  bool above = greater == strict;
  APFloat neighbour = constant;
  if (neighbour.next(/*nextDown=*/!above) != APFloat::opOK ||
      !neighbour.isFinite())
    return std::nullopt;
  bool losesInfo = false;
  APFloat boundary = constant, wideNeighbour = neighbour;
  if (boundary.convert(wide, APFloat::rmNearestTiesToEven, &losesInfo) !=
          APFloat::opOK ||
      losesInfo ||
      wideNeighbour.convert(wide, APFloat::rmNearestTiesToEven, &losesInfo) !=
          APFloat::opOK ||
      losesInfo)
    return std::nullopt;
  // c + (n - c) / 2: the sum c + n could overflow.
  if (wideNeighbour.subtract(boundary, APFloat::rmNearestTiesToEven) !=
          APFloat::opOK ||
      wideNeighbour.divide(APFloat(wide, 2), APFloat::rmNearestTiesToEven) !=
          APFloat::opOK ||
      boundary.add(wideNeighbour, APFloat::rmNearestTiesToEven) !=
          APFloat::opOK)
    return std::nullopt;
  APFloat rounded = boundary;
  rounded.convert(constant.getSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
  bool boundaryRoundsToConstant =
      rounded.compare(constant) == APFloat::cmpEqual;
  // Above c, round(x) > c holds past b where b rounds to c, and from b on
  // where it does not; below c, round(x) < c likewise. <= and >= are their
  // complements (up to NaN, which the ordered or unordered form carries over).
  bool includesBoundary =
      strict ? !boundaryRoundsToConstant : boundaryRoundsToConstant;
  P folded;
  if (greater)
    folded = includesBoundary ? (ordered ? P::OGE : P::UGE)
                              : (ordered ? P::OGT : P::UGT);
  else
    folded = includesBoundary ? (ordered ? P::OLE : P::ULE)
                              : (ordered ? P::OLT : P::ULT);
  return std::make_pair(folded, boundary);
}

/// The splat or scalar float constant `value` is, if any.
std::optional<APFloat> getFloatConstant(Value value) {
  APFloat constant(0.0);
  if (!matchPattern(value, m_ConstantFloat(&constant)))
    return std::nullopt;
  return constant;
}

/// cmpf(pred, truncf(x), c) -> cmpf(pred', x, b) (and with the constant
/// first), by foldedCompare.
struct CompareBeforeRounding : public OpRewritePattern<arith::CmpFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::CmpFOp compare,
                                PatternRewriter &rewriter) const override {
    arith::CmpFPredicate predicate = compare.getPredicate();
    Value rounded = compare.getLhs(), other = compare.getRhs();
    if (!getNearestEvenTruncF(rounded)) {
      std::swap(rounded, other);
      predicate = swapOperands(predicate);
    }
    arith::TruncFOp trunc = getNearestEvenTruncF(rounded);
    std::optional<APFloat> constant = getFloatConstant(other);
    if (!trunc || !constant)
      return rewriter.notifyMatchFailure(compare,
                                         "not a rounded value and a constant");
    Type wideType = trunc.getIn().getType();
    auto wideElement = cast<FloatType>(getElementTypeOrSelf(wideType));
    std::optional<std::pair<arith::CmpFPredicate, APFloat>> folded =
        foldedCompare(predicate, *constant, wideElement.getFloatSemantics());
    if (!folded)
      return rewriter.notifyMatchFailure(
          compare, "not an ordering against a constant inside the range");
    TypedAttr boundary = rewriter.getFloatAttr(wideElement, folded->second);
    if (auto shaped = dyn_cast<ShapedType>(wideType))
      boundary = SplatElementsAttr::get(shaped, boundary);
    Value wideBoundary =
        arith::ConstantOp::create(rewriter, compare.getLoc(), boundary);
    rewriter.replaceOpWithNewOp<arith::CmpFOp>(
        compare, arith::CmpFPredicateAttr::get(getContext(), folded->first),
        trunc.getIn(), wideBoundary, compare.getFastmathAttr());
    return success();
  }
};

/// select(c, truncf(x), k) -> truncf(select(c, x, extf(k))) (and with the
/// operands the other way) for a constant k, when nothing else reads the
/// rounded value: rounding an exactly widened constant gives it back, so the
/// select moves to the wide side, where (with f16 or bf16 computed in f32) it
/// needs no mask narrowed to 16-bit lanes.
struct SelectBeforeRounding : public OpRewritePattern<arith::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SelectOp select,
                                PatternRewriter &rewriter) const override {
    Value trueValue = select.getTrueValue(),
          falseValue = select.getFalseValue();
    bool roundedIsTrue = getNearestEvenTruncF(trueValue) != nullptr;
    arith::TruncFOp trunc =
        getNearestEvenTruncF(roundedIsTrue ? trueValue : falseValue);
    std::optional<APFloat> constant =
        getFloatConstant(roundedIsTrue ? falseValue : trueValue);
    if (!trunc || !constant || constant->isNaN() ||
        !trunc.getResult().hasOneUse())
      return rewriter.notifyMatchFailure(
          select, "not a rounded value used once and a constant");
    Location loc = select.getLoc();
    Value wideConstant =
        arith::ExtFOp::create(rewriter, loc, trunc.getIn().getType(),
                              roundedIsTrue ? falseValue : trueValue);
    Value wideSelect =
        arith::SelectOp::create(rewriter, loc, select.getCondition(),
                                roundedIsTrue ? trunc.getIn() : wideConstant,
                                roundedIsTrue ? wideConstant : trunc.getIn());
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(select, select.getType(),
                                                 wideSelect);
    return success();
  }
};

struct FoldRoundedCompares
    : public mpt::impl::MPTFoldRoundedComparesBase<FoldRoundedCompares> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    mpt::populateFoldRoundedComparePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mpt::populateFoldRoundedComparePatterns(RewritePatternSet &patterns) {
  patterns.add<CompareBeforeRounding, SelectBeforeRounding>(
      patterns.getContext());
}
