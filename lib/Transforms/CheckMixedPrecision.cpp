//===- CheckMixedPrecision.cpp - mpt-check-mixed-precision ------*- C++ -*-===//
//
// Catches, at compile time, the mistakes that otherwise show up as a model
// that silently trains worse: clipping scaled gradients, low-precision
// optimizer state or running statistics, and updates without an f32 master.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

#include "Utils.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt {
#define GEN_PASS_DEF_MPTCHECKMIXEDPRECISION
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct CheckMixedPrecision
    : public mpt::impl::MPTCheckMixedPrecisionBase<CheckMixedPrecision> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

static bool isLowPrecision(Value value) {
  Type element = getElementType(value);
  return isa<FloatType>(element) && !element.isF32() && !element.isF64();
}

/// Readers of scaled values that are meant to see the scale.
static bool readsScaleOnPurpose(Operation *op) {
  return isa<UnscaleOp, AllFiniteOp, GradientStatsOp>(op);
}

/// Readers of scaled values that the pass reports with their own message, or
/// that pass them on to their parent (scf.yield) or their regions (loops).
static bool isReportedOrForwarding(Operation *op) {
  return isa<OptimizerOpInterface, ClipGradNormOp, LoopLikeOpInterface>(op) ||
         op->hasTrait<mlir::OpTrait::ReturnLike>();
}

/// Values still multiplied by the loss scale: everything computed from a
/// scaled seed through ops that are scale-equivariant in it, through the
/// results and loop-carried values of regions (scf.if, scf.for), up to
/// mpt.unscale. Readers that break the scale are reported, not followed.
static llvm::DenseSet<Value> findScaledValues(func::FuncOp function) {
  llvm::DenseSet<Value> scaled;
  auto mark = [&](Value value, bool &changed) {
    if (isFloatTensor(value.getType()) && scaled.insert(value).second)
      changed = true;
  };
  // Loops carry values around, so iterate until nothing changes.
  bool changed = true;
  while (changed) {
    changed = false;
    function.walk([&](Operation *op) {
      if (auto seed = dyn_cast<LossGradOp>(op)) {
        if (seed.getScale())
          mark(seed.getSeed(), changed);
        return;
      }
      llvm::SmallBitVector scaledOperands = getScaledOperands(op, scaled);
      if (scaledOperands.none())
        return;
      if (auto loop = dyn_cast<LoopLikeOpInterface>(op))
        for (auto [index, init] : llvm::enumerate(loop.getInits()))
          if (scaled.contains(init)) {
            mark(loop.getRegionIterArgs()[index], changed);
            if (index < op->getNumResults())
              mark(op->getResult(index), changed);
          }
      if (op->hasTrait<mlir::OpTrait::ReturnLike>() &&
          !isa<func::FuncOp>(op->getParentOp())) {
        Operation *parent = op->getParentOp();
        for (unsigned index : scaledOperands.set_bits()) {
          if (index < parent->getNumResults())
            mark(parent->getResult(index), changed);
          if (auto loop = dyn_cast<LoopLikeOpInterface>(parent))
            if (index < loop.getRegionIterArgs().size())
              mark(loop.getRegionIterArgs()[index], changed);
        }
        return;
      }
      if (propagatesScale(op, scaledOperands))
        for (Value result : op->getResults())
          mark(result, changed);
    });
  }
  return scaled;
}

/// Ops that compare a value with a threshold or clamp it.
static bool isThresholding(Operation *op) {
  return isa<arith::CmpFOp, arith::SelectOp, arith::MaximumFOp,
             arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp>(op);
}

/// Reports readers that mix a scaled value with unscaled ones, or compute
/// something that does not scale with it.
static bool checkScaleBoundary(Operation *op,
                               const llvm::DenseSet<Value> &scaled) {
  if (readsScaleOnPurpose(op) || isReportedOrForwarding(op))
    return false;
  llvm::SmallBitVector scaledOperands = getScaledOperands(op, scaled);
  if (scaledOperands.none() || propagatesScale(op, scaledOperands))
    return false;
  unsigned index = scaledOperands.find_first();
  if (isThresholding(op)) {
    op->emitError("clips or thresholds operand #")
        << index
        << ", which is still multiplied by the loss scale: the threshold is "
           "off by the scale; unscale it first (mpt.unscale)";
  } else {
    op->emitError("reads operand #")
        << index
        << ", which is still multiplied by the loss scale, in a way that does "
           "not scale with it (e.g. adds an unscaled value such as weight "
           "decay or an accumulation buffer); unscale it first (mpt.unscale)";
  }
  return true;
}

/// Whether `a` and `b` are the same value or equal constants.
static bool isSameFactor(Value a, Value b) {
  Attribute lhs, rhs;
  return a == b || (matchPattern(a, m_Constant(&lhs)) &&
                    matchPattern(b, m_Constant(&rhs)) && lhs == rhs);
}

/// Whether `user`, a product or quotient of the seed, is the chain rule of a
/// product or quotient the loss is computed through (0.5 * CE, CE + 0.3 *
/// CE_aux): mpt-autodiff multiplies the seed by the same factor the forward
/// pass multiplied by, or divides it by the same divisor.
static bool isChainRuleOfLoss(Operation *user, LossGradOp seed) {
  Value seedValue = seed.getSeed();
  auto quotient = dyn_cast<arith::DivFOp>(user);
  if (quotient && quotient.getLhs() != seedValue)
    return false;
  Value factor = user->getOperand(user->getOperand(0) == seedValue ? 1 : 0);
  SmallVector<Operation *> worklist;
  llvm::DenseSet<Operation *> visited;
  if (Operation *lossOp = seed.getLoss().getDefiningOp())
    worklist.push_back(lossOp);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!visited.insert(op).second)
      continue;
    if (quotient) {
      if (auto forward = dyn_cast<arith::DivFOp>(op);
          forward && isSameFactor(forward.getRhs(), factor))
        return true;
    } else if (isa<arith::MulFOp>(op) &&
               llvm::any_of(op->getOperands(), [&](Value operand) {
                 return isSameFactor(operand, factor);
               })) {
      return true;
    }
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        worklist.push_back(producer);
  }
  return false;
}

/// Multiplying the unscaled seed by hand scales every gradient without the
/// loss-scaling state: no unscaling, no skipped steps.
static bool checkHandScaling(LossGradOp seed) {
  if (seed.getScale())
    return false;
  // A loss multiplied by a constant above 1 may be a weighted loss, or loss
  // scaling by hand: only warn.
  if (auto product = seed.getLoss().getDefiningOp<arith::MulFOp>())
    for (Value factor : product->getOperands()) {
      DenseFPElementsAttr constant;
      if (!matchPattern(factor, m_Constant(&constant)) || !constant.isSplat() ||
          constant.getSplatValue<APFloat>().convertToDouble() <= 1.0)
        continue;
      SmallString<16> text;
      constant.getSplatValue<APFloat>().toString(text);
      product.emitWarning("multiplies the loss by ")
          << text
          << " before mpt.loss_grad: if this scales the loss by hand, the "
             "gradients stay multiplied by it and non-finite steps are not "
             "skipped; give mpt.loss_grad a `scale` operand "
             "(mpt-loss-scaling) instead";
    }
  bool reported = false;
  for (Operation *user : seed.getSeed().getUsers()) {
    if (!isa<arith::MulFOp, arith::DivFOp>(user) ||
        isChainRuleOfLoss(user, seed))
      continue;
    user->emitError("scales the backward seed by hand: gradients stay "
                    "multiplied by the factor, and non-finite steps are not "
                    "skipped; give mpt.loss_grad a `scale` operand "
                    "(mpt-loss-scaling) instead");
    reported = true;
  }
  return reported;
}

/// The value that `returned` updates `previous` with: casts and the select
/// of skipped steps (select(finite, updated, previous)) looked through.
static Value getUpdate(Value returned, Value previous) {
  while (true) {
    returned = stripFloatCasts(returned);
    auto select = returned.getDefiningOp<arith::SelectOp>();
    if (!select || stripFloatCasts(select.getFalseValue()) != previous)
      return returned;
    returned = select.getTrueValue();
  }
}

/// Whether `value` is computed from `arg` by ops other than optimizers and
/// batch norm, which are checked on their own.
static bool isComputedFrom(Value value, BlockArgument arg) {
  SmallVector<Value> worklist = {value};
  llvm::DenseSet<Value> visited;
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    if (current == arg)
      return true;
    Operation *op = current.getDefiningOp();
    if (!op || !visited.insert(current).second ||
        isa<OptimizerOpInterface, BatchNormOp>(op))
      continue;
    llvm::append_range(worklist, op->getOperands());
  }
  return false;
}

/// State carried in f16/bf16 from one step to the next and updated by
/// arithmetic written by hand (a running mean, a momentum buffer) loses every
/// update smaller than half its spacing.
static bool checkHandUpdatedState(func::FuncOp function) {
  if (function.isExternal())
    return false;
  func::ReturnOp ret = getReturn(function);
  bool reported = false;
  for (unsigned r = 0, e = function.getNumResults(); r < e; ++r) {
    auto next =
        function.getResultAttrOfType<IntegerAttr>(r, MPTDialect::kNextAttrName);
    if (!next || next.getInt() < 0 ||
        next.getInt() >= function.getNumArguments())
      continue;
    BlockArgument previous = function.getArgument(next.getInt());
    if (!isFloatTensor(previous.getType()))
      continue;
    // Promoting the state to f32 (mpt-norm-stats-fp32) does not promote the
    // arithmetic that updates it: the update itself must be f32.
    Value update = getUpdate(ret.getOperand(r), previous);
    Operation *updater = update.getDefiningOp();
    Value lowPrecision = isLowPrecision(previous) ? previous : update;
    if (!updater || update == previous || !isLowPrecision(lowPrecision) ||
        !isComputedFrom(update, previous))
      continue;
    updater->emitError("updates state ")
        << describeArgument(previous) << " (result #" << r << ") by hand in "
        << getElementType(lowPrecision)
        << ": running statistics and buffers accumulated in low precision "
           "lose every update smaller than half their spacing; keep the "
           "state in f32";
    reported = true;
  }
  return reported;
}

/// Clipping by a norm computed on scaled gradients clips at the wrong
/// threshold.
static bool checkScaledClipping(ClipGradNormOp clip,
                                const llvm::DenseSet<Value> &scaled) {
  bool reported = false;
  for (auto [index, grad] : llvm::enumerate(clip.getGrads()))
    if (scaled.contains(grad)) {
      clip.emitError("clips gradient #")
          << index
          << " while it is still multiplied by the loss scale: the norm "
             "and max_norm are off by the scale; unscale the gradient "
             "first (mpt.unscale)";
      reported = true;
    }
  return reported;
}

/// An optimizer must update an f32 master with an unscaled gradient and keep
/// its state in f32.
static bool checkOptimizer(OptimizerOpInterface optimizer,
                           const llvm::DenseSet<Value> &scaled) {
  bool reported = false;
  if (scaled.contains(optimizer.getGrad())) {
    optimizer.emitError("updates from a gradient that is still multiplied "
                        "by the loss scale; unscale it first "
                        "(mpt.unscale)");
    reported = true;
  }
  if (isLowPrecision(optimizer.getParam()) ||
      isLowPrecision(stripFloatCasts(optimizer.getParam()))) {
    optimizer.emitError("updates a parameter of type ")
        << stripFloatCasts(optimizer.getParam()).getType()
        << " without an f32 master: small updates round away; keep the "
           "parameter in f32 (mpt-master-weights)";
    reported = true;
  }
  for (auto [index, state] : llvm::enumerate(optimizer.getOptimizerState())) {
    if (!isa<FloatType>(getElementType(state)) ||
        (!isLowPrecision(state) && !isLowPrecision(stripFloatCasts(state))))
      continue;
    optimizer.emitError("keeps optimizer state #")
        << index << " in " << getElementType(stripFloatCasts(state))
        << "; optimizer state must be f32";
    reported = true;
  }
  return reported;
}

/// Batch norm's running statistics accumulate: they must be f32.
static bool checkRunningStatistics(BatchNormOp batchNorm) {
  for (Value stat : {batchNorm.getRunningMean(), batchNorm.getRunningVar()})
    if (isLowPrecision(stat) || isLowPrecision(stripFloatCasts(stat))) {
      batchNorm.emitError("keeps running statistics in ")
          << getElementType(stripFloatCasts(stat))
          << "; they must be f32 (mpt-norm-stats-fp32)";
      return true;
    }
  return false;
}

/// Tells where an op that would run in low precision runs in f32 in a
/// low-precision graph: a remark where it is pinned there, else a warning.
static void noteF32Compute(Operation *op, bool lowPrecisionGraph) {
  auto policy = dyn_cast<PrecisionPolicyOpInterface>(op);
  if (!policy || policy.getDefaultPrecisionClass() != PrecisionClass::Lower ||
      !lowPrecisionGraph || isLowPrecision(op->getOperand(0)))
    return;
  if (policy.getPrecisionClass() == PrecisionClass::FP32)
    op->emitRemark("pinned to f32: runs without low-precision tensor "
                   "cores");
  else if (op->hasAttr(MPTDialect::kPrecisionAttrName))
    op->emitRemark("pinned to ")
        << stringifyPrecisionClass(policy.getPrecisionClass())
        << ", which keeps it in f32 here: it runs without low-precision "
           "tensor cores";
  else
    op->emitWarning("runs in f32 in a low-precision graph although "
                    "nothing pins it there");
}

/// The step's results are read unscaled.
static bool checkScaledResults(func::ReturnOp ret,
                               const llvm::DenseSet<Value> &scaled) {
  bool reported = false;
  for (auto [index, value] : llvm::enumerate(ret.getOperands()))
    if (scaled.contains(value)) {
      ret.emitError("returns result #")
          << index
          << " while it is still multiplied by the loss scale; unscale "
             "it first (mpt.unscale)";
      reported = true;
    }
  return reported;
}

void CheckMixedPrecision::runOnOperation() {
  func::FuncOp function = getOperation();
  if (function.isExternal())
    return;
  bool failedCheck = false;
  llvm::DenseSet<Value> scaled = findScaledValues(function);
  bool lowPrecisionGraph = false, usesBF16 = false;
  function.walk([&](Operation *op) {
    for (Value result : op->getResults()) {
      lowPrecisionGraph |=
          isFloatTensor(result.getType()) && isLowPrecision(result);
      usesBF16 |= getElementTypeOrSelf(result.getType()).isBF16();
    }
  });

  failedCheck |= checkHandUpdatedState(function);
  function.walk([&](Operation *op) {
    failedCheck |= checkScaleBoundary(op, scaled);
    if (auto seed = dyn_cast<LossGradOp>(op))
      failedCheck |= checkHandScaling(seed);
    if (auto clip = dyn_cast<ClipGradNormOp>(op))
      failedCheck |= checkScaledClipping(clip, scaled);
    if (auto optimizer = dyn_cast<OptimizerOpInterface>(op))
      failedCheck |= checkOptimizer(optimizer, scaled);
    if (auto batchNorm = dyn_cast<BatchNormOp>(op))
      failedCheck |= checkRunningStatistics(batchNorm);
    noteF32Compute(op, lowPrecisionGraph);
    if (auto ret = dyn_cast<func::ReturnOp>(op))
      failedCheck |= checkScaledResults(ret, scaled);
    if (auto seed = dyn_cast<LossGradOp>(op);
        seed && seed.getScale() && usesBF16)
      seed.emitWarning("loss scaling a bf16 graph: bf16 has the exponent range "
                       "of f32 and rarely needs a loss scale");
  });
  if (failedCheck)
    signalPassFailure();
}
