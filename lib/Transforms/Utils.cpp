//===- Utils.cpp - helpers shared by the mixed-precision passes -----------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/SetVector.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

using namespace mlir;

namespace mpt {

Type parseFloatType(MLIRContext *context, StringRef name) {
  Builder builder(context);
  return llvm::StringSwitch<Type>(name)
      .Case("f16", builder.getF16Type())
      .Case("bf16", builder.getBF16Type())
      .Case("f32", builder.getF32Type())
      .Default(Type());
}

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
  bool erased = true;
  while (erased) {
    erased = false;
    function.walk([&](Operation *op) {
      if (isa<arith::ExtFOp, arith::TruncFOp>(op) && op->use_empty()) {
        op->erase();
        erased = true;
      }
    });
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

bool isTrainStep(func::FuncOp function) {
  return function->hasAttr(MPTDialect::kTrainStepAttrName);
}

StringRef getArgumentRole(func::FuncOp function, unsigned index) {
  for (StringRef role : {MPTDialect::kParamAttrName, MPTDialect::kStateAttrName,
                         MPTDialect::kDataAttrName})
    if (function.getArgAttr(index, role))
      return role;
  return {};
}

std::optional<unsigned> getCarryingResult(func::FuncOp function,
                                          unsigned argIndex) {
  for (unsigned r = 0, e = function.getNumResults(); r < e; ++r)
    if (auto next = function.getResultAttrOfType<IntegerAttr>(
            r, MPTDialect::kNextAttrName))
      if (next.getInt() == argIndex)
        return r;
  return std::nullopt;
}

func::ReturnOp getReturn(func::FuncOp function) {
  return cast<func::ReturnOp>(function.getBody().back().getTerminator());
}

void updateFunctionType(func::FuncOp function) {
  function.setType(FunctionType::get(
      function.getContext(), function.getBody().front().getArgumentTypes(),
      getReturn(function).getOperandTypes()));
}

/// Retypes argument `argIndex` to `elementType`. Readers see the old type
/// through one cast at entry, except casts back to the new type, which read
/// the argument itself. An `mpt.init` is converted along, so the initial value
/// keeps matching the argument.
static void retypeArgument(func::FuncOp function, unsigned argIndex,
                           Type elementType) {
  BlockArgument arg = function.getArgument(argIndex);
  Type oldElementType = getElementType(arg);
  arg.setType(withElementType(arg.getType(), elementType));
  if (auto init = function.getArgAttrOfType<DenseFPElementsAttr>(
          argIndex, MPTDialect::kInitAttrName)) {
    const llvm::fltSemantics &semantics =
        cast<FloatType>(elementType).getFloatSemantics();
    function.setArgAttr(argIndex, MPTDialect::kInitAttrName,
                        init.mapValues(elementType, [&](const APFloat &value) {
                          APFloat converted = value;
                          bool losesInfo;
                          converted.convert(semantics,
                                            APFloat::rmNearestTiesToEven,
                                            &losesInfo);
                          return converted.bitcastToAPInt();
                        }));
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

void promoteCarriedArgument(func::FuncOp function, unsigned argIndex,
                            Type elementType) {
  retypeArgument(function, argIndex, elementType);
  BlockArgument arg = function.getArgument(argIndex);
  if (std::optional<unsigned> carrier = getCarryingResult(function, argIndex)) {
    func::ReturnOp ret = getReturn(function);
    Value carried = ret.getOperand(*carrier);
    // Returning a value truncated from the new type returns the original.
    Value widened = stripFloatCasts(carried);
    if (widened.getType() != arg.getType()) {
      OpBuilder builder(ret);
      widened = createFloatCast(builder, ret.getLoc(), carried, elementType);
    }
    ret.setOperand(*carrier, widened);
  }
  updateFunctionType(function);

  // Evaluation steps read this argument's buffer as it is stored.
  auto module = function->getParentOfType<ModuleOp>();
  if (!module)
    return;
  for (auto evalStep : module.getOps<func::FuncOp>()) {
    if (!evalStep->hasAttr(MPTDialect::kEvalStepAttrName) ||
        evalStep.isExternal())
      continue;
    for (unsigned i = 0, e = evalStep.getNumArguments(); i < e; ++i)
      if (auto stateOf = evalStep.getArgAttrOfType<IntegerAttr>(
              i, MPTDialect::kStateOfAttrName);
          stateOf && stateOf.getInt() == argIndex)
        retypeArgument(evalStep, i, elementType);
    updateFunctionType(evalStep);
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
