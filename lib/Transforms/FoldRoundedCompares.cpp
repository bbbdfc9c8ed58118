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

/// An ordering predicate of cmpf taken apart: > or <, strict or not, and
/// false (ordered) or true (unordered) where an operand is NaN.
struct Ordering {
  bool greater, strict, ordered;
};

std::optional<Ordering> getOrdering(arith::CmpFPredicate predicate) {
  using P = arith::CmpFPredicate;
  switch (predicate) {
  case P::OGT:
  case P::UGT:
    return Ordering{true, true, predicate == P::OGT};
  case P::OGE:
  case P::UGE:
    return Ordering{true, false, predicate == P::OGE};
  case P::OLT:
  case P::ULT:
    return Ordering{false, true, predicate == P::OLT};
  case P::OLE:
  case P::ULE:
    return Ordering{false, false, predicate == P::OLE};
  default:
    return std::nullopt;
  }
}

arith::CmpFPredicate getPredicate(Ordering ordering) {
  using P = arith::CmpFPredicate;
  if (ordering.greater)
    return ordering.strict ? (ordering.ordered ? P::OGT : P::UGT)
                           : (ordering.ordered ? P::OGE : P::UGE);
  return ordering.strict ? (ordering.ordered ? P::OLT : P::ULT)
                         : (ordering.ordered ? P::OLE : P::ULE);
}

/// For `truncf(x) ordering c` (c a finite constant of the narrow type whose
/// neighbours are finite too), the ordering and the constant of the wide type
/// b with `x ordering' b` equal to it for every x, NaN included.
/// b is the midpoint between c and its neighbour on the side the ordering
/// looks at: values beyond it round away from c, values short of it to c, and
/// b itself to whichever of the two is even. Everything is exact: the
/// midpoint of two adjacent narrow values has one bit more than they do.
std::optional<std::pair<Ordering, APFloat>>
foldedCompare(Ordering ordering, const APFloat &constant,
              const llvm::fltSemantics &wide) {
  if (!constant.isFinite())
    return std::nullopt;
  // x > c and x <= c (not x > c) look above c; x >= c and x < c below it.
  bool above = ordering.greater == ordering.strict;
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
      ordering.strict ? !boundaryRoundsToConstant : boundaryRoundsToConstant;
  return std::make_pair(
      Ordering{ordering.greater, !includesBoundary, ordering.ordered},
      boundary);
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
    std::optional<Ordering> ordering = getOrdering(compare.getPredicate());
    Value rounded = compare.getLhs(), other = compare.getRhs();
    if (ordering && !getNearestEvenTruncF(rounded)) {
      // c pred truncf(x) is truncf(x) pred' c with > and < exchanged.
      std::swap(rounded, other);
      ordering->greater = !ordering->greater;
    }
    arith::TruncFOp trunc = getNearestEvenTruncF(rounded);
    std::optional<APFloat> constant = getFloatConstant(other);
    if (!ordering || !trunc || !constant)
      return rewriter.notifyMatchFailure(
          compare, "not an ordering of a rounded value and a constant");
    Type wideType = trunc.getIn().getType();
    auto wideElement = cast<FloatType>(getElementTypeOrSelf(wideType));
    std::optional<std::pair<Ordering, APFloat>> folded =
        foldedCompare(*ordering, *constant, wideElement.getFloatSemantics());
    if (!folded)
      return rewriter.notifyMatchFailure(
          compare, "a constant whose neighbour is not finite");
    TypedAttr boundary = rewriter.getFloatAttr(wideElement, folded->second);
    if (auto shaped = dyn_cast<ShapedType>(wideType))
      boundary = SplatElementsAttr::get(shaped, boundary);
    Value wideBoundary =
        arith::ConstantOp::create(rewriter, compare.getLoc(), boundary);
    rewriter.replaceOpWithNewOp<arith::CmpFOp>(
        compare,
        arith::CmpFPredicateAttr::get(getContext(),
                                      getPredicate(folded->first)),
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
