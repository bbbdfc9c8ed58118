//===- Utils.cpp - helpers shared by the mixed-precision passes -----------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include "llvm/ADT/SetVector.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

using namespace mlir;

namespace mpt {

Type getElementType(Value value) {
  return getElementTypeOrSelf(value.getType());
}

RankedTensorType withElementType(Type type, Type elementType) {
  return cast<RankedTensorType>(type).clone(elementType);
}

Value createFloatCast(OpBuilder &builder, Location loc, Value value,
                      Type elementType) {
  auto from = cast<FloatType>(getElementType(value));
  auto to = cast<FloatType>(elementType);
  if (from == to)
    return value;
  if (from.getWidth() == to.getWidth())
    value = createFloatCast(builder, loc, value, builder.getF32Type());
  Type resultType = withElementType(value.getType(), to);
  if (cast<FloatType>(getElementType(value)).getWidth() < to.getWidth())
    return arith::ExtFOp::create(builder, loc, resultType, value);
  return arith::TruncFOp::create(builder, loc, resultType, value);
}

void eraseDeadCasts(func::FuncOp function) {
  auto isDeadCast = [](Operation *op) {
    return isa<arith::ExtFOp, arith::TruncFOp>(op) && op->use_empty();
  };
  // One walk; a cast whose last reader was a dead cast is erased right after.
  SmallVector<Operation *> worklist;
  function.walk([&](Operation *op) {
    if (isDeadCast(op))
      worklist.push_back(op);
  });
  while (!worklist.empty()) {
    Operation *cast = worklist.pop_back_val();
    Operation *source = cast->getOperand(0).getDefiningOp();
    cast->erase();
    if (source && isDeadCast(source))
      worklist.push_back(source);
  }
}

SmallVector<Value> findGradientRoots(func::FuncOp function) {
  llvm::SetVector<Value> roots;
  function.walk([&](OptimizerOpInterface optimizer) {
    Value gradient = optimizer.getGrad();
    while (true) {
      gradient = stripFloatCasts(gradient);
      if (auto unscale = gradient.getDefiningOp<UnscaleOp>()) {
        gradient = unscale.getGrad();
        continue;
      }
      auto clip = gradient.getDefiningOp<ClipGradNormOp>();
      if (!clip || gradient == clip.getNorm())
        break;
      gradient = clip.getGrads()[cast<OpResult>(gradient).getResultNumber()];
    }
    roots.insert(gradient);
  });
  return roots.takeVector();
}

std::optional<int64_t> staticTensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !tensor.getElementType().isIntOrFloat())
    return std::nullopt;
  return tensor.getNumElements() *
         llvm::divideCeil(tensor.getElementTypeBitWidth(), 8);
}

bool isUpdateOp(Operation *op) {
  return isa<OptimizerOpInterface, LRScheduleOp, UnscaleOp, AllFiniteOp,
             GradientStatsOp, UpdateLossScaleOp, ClipGradNormOp,
             arith::SelectOp, tensor::ExtractOp>(op);
}

llvm::SmallBitVector getScaledOperands(Operation *op,
                                       const llvm::DenseSet<Value> &scaled) {
  llvm::SmallBitVector scaledOperands(op->getNumOperands());
  for (OpOperand &operand : op->getOpOperands())
    if (scaled.contains(operand.get()))
      scaledOperands.set(operand.getOperandNumber());
  return scaledOperands;
}

/// Whether `value` is a constant zero, or a loop-carried value that starts at
/// a constant zero.
static bool isZeroOrAccumulatorFromZero(Value value) {
  if (auto iterArg = dyn_cast<BlockArgument>(value))
    if (auto loop = dyn_cast<LoopLikeOpInterface>(
            iterArg.getParentBlock()->getParentOp()))
      if (OpOperand *init = loop.getTiedLoopInit(iterArg))
        value = init->get();
  return matchPattern(value, m_AnyZeroFloat());
}

bool propagatesScale(Operation *op,
                     const llvm::SmallBitVector &scaledOperands) {
  auto equivariant = dyn_cast<ScaleEquivariantOpInterface>(op);
  if (!equivariant)
    return false;
  if (equivariant.isScaleEquivariantIn(scaledOperands))
    return true;
  // Zero is itself multiplied by any factor: a scaled gradient broadcast
  // by adding it to zeros, or summed into an accumulator that starts at
  // zero, stays scaled.
  llvm::SmallBitVector withZeros = scaledOperands;
  for (OpOperand &operand : op->getOpOperands())
    if (isZeroOrAccumulatorFromZero(operand.get()))
      withZeros.set(operand.getOperandNumber());
  return withZeros != scaledOperands &&
         equivariant.isScaleEquivariantIn(withZeros);
}

llvm::MapVector<Value, SmallVector<OpOperand *>>
findScaleBoundary(LossGradOp seed) {
  llvm::MapVector<Value, SmallVector<OpOperand *>> boundary;
  llvm::DenseSet<Value> scaled = {seed.getSeed()};
  for (Operation &op : llvm::make_range(std::next(seed->getIterator()),
                                        seed->getBlock()->end())) {
    // Nested regions (scf.if, loops) are outside the slice: an unscaled value
    // defined before them is what their ops read.
    op.walk([&](Operation *nested) {
      if (nested == &op)
        return;
      for (OpOperand &use : nested->getOpOperands())
        if (scaled.contains(use.get()))
          boundary[use.get()].push_back(&use);
    });
    llvm::SmallBitVector scaledOperands = getScaledOperands(&op, scaled);
    if (scaledOperands.none())
      continue;
    if (op.getNumRegions() == 0 && propagatesScale(&op, scaledOperands)) {
      for (Value result : op.getResults())
        if (isFloatTensor(result.getType()))
          scaled.insert(result);
      continue;
    }
    for (unsigned index : scaledOperands.set_bits())
      boundary[op.getOperand(index)].push_back(&op.getOpOperand(index));
  }
  return boundary;
}

bool isTrainStep(func::FuncOp function) {
  return function->hasAttr(MPTDialect::kTrainStepAttrName);
}

FailureOr<LossGradOp> findBackwardSeed(func::FuncOp function, StringRef pass) {
  SmallVector<LossGradOp> seeds;
  function.walk([&](LossGradOp seed) { seeds.push_back(seed); });
  if (seeds.size() == 1)
    return seeds.front();
  function.emitError(pass)
      << ": expected exactly one mpt.loss_grad (the backward seed) in a "
         "training step, found "
      << seeds.size();
  return failure();
}

FailureOr<SmallVector<func::CallOp>> callsOf(func::FuncOp function,
                                             ModuleOp module, StringRef change,
                                             StringRef consequence) {
  std::optional<SymbolTable::UseRange> uses = function.getSymbolUses(module);
  if (!uses)
    return function.emitOpError("has uses that are not calls; ") << consequence;
  SmallVector<func::CallOp> calls;
  for (SymbolTable::SymbolUse use : *uses) {
    auto call = dyn_cast<func::CallOp>(use.getUser());
    if (!call)
      return use.getUser()->emitOpError("uses @")
             << function.getSymName() << ", whose " << change
             << ", other than by a call";
    calls.push_back(call);
  }
  return calls;
}

StringRef getArgumentRole(func::FuncOp function, unsigned index) {
  for (StringRef role : {MPTDialect::kParamAttrName, MPTDialect::kStateAttrName,
                         MPTDialect::kDataAttrName})
    if (function.getArgAttr(index, role))
      return role;
  return {};
}

std::string describeArgument(BlockArgument arg) {
  std::string position = "argument #" + std::to_string(arg.getArgNumber());
  if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
    return "'" + name.getName().str() + "' (" + position + ")";
  return position;
}

func::ReturnOp getReturn(func::FuncOp function) {
  return cast<func::ReturnOp>(function.getBody().back().getTerminator());
}

void updateFunctionType(func::FuncOp function) {
  function.setType(FunctionType::get(
      function.getContext(), function.getBody().front().getArgumentTypes(),
      getReturn(function).getOperandTypes()));
}

/// Retypes `arg` to `elementType`, and the `mpt.init` in its attributes
/// `argAttrs` along, so the initial value keeps matching the argument.
/// Readers see the old type through one cast at entry, except casts back to
/// the new type, which read the argument itself.
static void retypeArgument(BlockArgument arg, DictionaryAttr &argAttrs,
                           Type elementType) {
  Type oldElementType = getElementType(arg);
  arg.setType(withElementType(arg.getType(), elementType));
  if (auto init = dyn_cast_if_present<DenseFPElementsAttr>(
          argAttrs ? argAttrs.get(MPTDialect::kInitAttrName) : Attribute())) {
    const llvm::fltSemantics &semantics =
        cast<FloatType>(elementType).getFloatSemantics();
    NamedAttrList attrs(argAttrs);
    attrs.set(MPTDialect::kInitAttrName,
              init.mapValues(elementType, [&](const APFloat &value) {
                APFloat converted = value;
                bool losesInfo;
                converted.convert(semantics, APFloat::rmNearestTiesToEven,
                                  &losesInfo);
                return converted.bitcastToAPInt();
              }));
    argAttrs = attrs.getDictionary(arg.getContext());
  }

  OpBuilder builder = OpBuilder::atBlockBegin(arg.getOwner());
  Value view = createFloatCast(builder, arg.getLoc(), arg, oldElementType);
  arg.replaceAllUsesExcept(view, view.getDefiningOp());
  for (Operation *user : llvm::make_early_inc_range(view.getUsers())) {
    if (user->getNumResults() == 1 &&
        isa<arith::ExtFOp, arith::TruncFOp>(user) &&
        user->getResult(0).getType() == arg.getType()) {
      user->getResult(0).replaceAllUsesWith(arg);
      user->erase();
    }
  }
  if (view.use_empty())
    view.getDefiningOp()->erase();
}

void CarriedArgumentPromoter::collectSignatures() {
  function.getAllArgAttrs(argAttrs);
  for (unsigned r = 0, e = function.getNumResults(); r < e; ++r)
    if (auto next = function.getResultAttrOfType<IntegerAttr>(
            r, MPTDialect::kNextAttrName))
      carriers.try_emplace(next.getInt(), r);

  auto module = function->getParentOfType<ModuleOp>();
  if (!module)
    return;
  for (auto evalStep : module.getOps<func::FuncOp>()) {
    if (!evalStep->hasAttr(MPTDialect::kEvalStepAttrName) ||
        evalStep.isExternal())
      continue;
    EvalStep &step = evalSteps.emplace_back();
    step.function = evalStep;
    evalStep.getAllArgAttrs(step.argAttrs);
    for (unsigned i = 0, e = evalStep.getNumArguments(); i < e; ++i)
      if (auto stateOf = evalStep.getArgAttrOfType<IntegerAttr>(
              i, MPTDialect::kStateOfAttrName))
        step.readers[stateOf.getInt()].push_back(i);
  }
}

void CarriedArgumentPromoter::promote(unsigned argIndex, Type elementType) {
  if (!promoted)
    collectSignatures();
  promoted = true;
  BlockArgument arg = function.getArgument(argIndex);
  retypeArgument(arg, argAttrs[argIndex], elementType);
  if (auto carrier = carriers.find(argIndex); carrier != carriers.end()) {
    func::ReturnOp ret = getReturn(function);
    Value carried = ret.getOperand(carrier->second);
    // Returning a value truncated from the new type returns the original.
    Value widened = stripFloatCasts(carried);
    if (widened.getType() != arg.getType()) {
      OpBuilder builder(ret);
      widened = createFloatCast(builder, ret.getLoc(), carried, elementType);
    }
    ret.setOperand(carrier->second, widened);
  }

  // Evaluation steps read this argument's buffer as it is stored.
  for (EvalStep &step : evalSteps)
    for (unsigned i : step.readers.lookup(argIndex))
      retypeArgument(step.function.getArgument(i), step.argAttrs[i],
                     elementType);
}

void CarriedArgumentPromoter::finish() {
  if (!promoted)
    return;
  updateFunctionType(function);
  function.setAllArgAttrs(argAttrs);
  for (EvalStep &step : evalSteps) {
    updateFunctionType(step.function);
    step.function.setAllArgAttrs(step.argAttrs);
  }
}

BlockArgument appendArgument(func::FuncOp function, Type type,
                             ArrayRef<NamedAttribute> attrs) {
  unsigned index = function.getNumArguments();
  (void)function.insertArgument(
      index, type, DictionaryAttr::get(function.getContext(), attrs),
      function.getLoc());
  return function.getArgument(index);
}

void appendResult(func::FuncOp function, Value value,
                  ArrayRef<NamedAttribute> attrs) {
  unsigned index = function.getNumResults();
  (void)function.insertResult(
      index, value.getType(),
      DictionaryAttr::get(function.getContext(), attrs));
  func::ReturnOp ret = getReturn(function);
  ret->insertOperands(ret->getNumOperands(), value);
}

} // namespace mpt
