//===- TrainStep.cpp - training-step conventions ---------------*- C++ -*-===//
//
// Verifies the discardable attributes of the mpt dialect. A function marked
// `mpt.train_step` is one training step: every argument is a parameter, state
// or data, and every result is the next value of a parameter or state argument,
// or a named metric. The runtime threads state through these attributes alone,
// so a wrong signature is rejected here rather than at run time.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/MPTDialect.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Dialect/MPT/IR/TrainStep.h"

using namespace mlir;
using namespace mpt;

static constexpr StringLiteral kArgRoles[] = {MPTDialect::kParamAttrName,
                                              MPTDialect::kStateAttrName,
                                              MPTDialect::kDataAttrName};

/// The value returned as result `index` of a single-block `function`, or null
/// when the body does not end in a return of every result (the terminator's
/// own verifier reports that).
static Value getReturnedValue(FunctionOpInterface function, unsigned index) {
  Region &body = function.getFunctionBody();
  if (!body.hasOneBlock() || body.front().empty())
    return {};
  Operation *terminator = &body.front().back();
  if (!terminator->hasTrait<mlir::OpTrait::ReturnLike>() ||
      terminator->getNumOperands() != function.getNumResults())
    return {};
  return terminator->getOperand(index);
}

/// For the updated state produced by an optimizer or a batch norm, the operand
/// holding its previous value; null for any other value.
static Value getUpdateSource(Value updated) {
  auto result = dyn_cast<OpResult>(stripFloatCasts(updated));
  if (!result)
    return {};
  Operation *op = result.getOwner();
  unsigned number = result.getResultNumber();
  if (auto optimizer = dyn_cast<OptimizerOpInterface>(op)) {
    if (number == 0)
      return optimizer.getParam();
    return optimizer.getOptimizerState()[number - 1];
  }
  if (auto batchNorm = dyn_cast<BatchNormOp>(op)) {
    if (result == batchNorm.getNewRunningMean())
      return batchNorm.getRunningMean();
    if (result == batchNorm.getNewRunningVar())
      return batchNorm.getRunningVar();
  }
  return {};
}

/// Argument and result attributes only mean something on a training step
/// (and, for data and state_of, on an evaluation step).
static LogicalResult verifyOnTrainStep(Operation *op, NamedAttribute attribute,
                                       StringRef position) {
  StringRef name = attribute.getName().getValue();
  bool onEvalStep = op->hasAttr(MPTDialect::kEvalStepAttrName);
  if (name == MPTDialect::kStateOfAttrName) {
    if (onEvalStep)
      return success();
    return op->emitOpError("'") << name << "' on " << position
                                << " requires the function to be marked '"
                                << MPTDialect::kEvalStepAttrName << "'";
  }
  if (op->hasAttr(MPTDialect::kTrainStepAttrName) ||
      (onEvalStep && name == MPTDialect::kDataAttrName))
    return success();
  return op->emitOpError("'") << name << "' on " << position
                              << " requires the function to be marked '"
                              << MPTDialect::kTrainStepAttrName << "'";
}

/// Argument indices are i64, as `mpt.next = 3` parses.
static bool isArgumentIndex(Attribute attribute) {
  auto index = dyn_cast<IntegerAttr>(attribute);
  return index && index.getType().isSignlessInteger(64);
}

static LogicalResult verifyArgAttr(Operation *op, unsigned argIndex,
                                   NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  std::string position = "argument #" + std::to_string(argIndex);
  if (name == MPTDialect::kInitAttrName) {
    auto init = dyn_cast<DenseElementsAttr>(attribute.getValue());
    Type argType = cast<FunctionOpInterface>(op).getArgumentTypes()[argIndex];
    if (!init || init.getType() != argType)
      return op->emitError("'")
             << name << "' on " << position
             << " must be a dense elements attribute of the argument type "
             << argType;
  } else if (name == MPTDialect::kWorkingCopyOfAttrName ||
             name == MPTDialect::kStateOfAttrName) {
    if (!isArgumentIndex(attribute.getValue()))
      return op->emitError("'")
             << name << "' on " << position << " must be an i64 argument index";
  } else if (name == MPTDialect::kOptimizerAttrName) {
    if (!isa<DictionaryAttr>(attribute.getValue()) ||
        !cast<FunctionOpInterface>(op).getArgAttr(argIndex,
                                                  MPTDialect::kParamAttrName))
      return op->emitError("'")
             << name << "' on " << position
             << " must be a dictionary on an 'mpt.param' argument";
    if (!op->hasAttr(MPTDialect::kOptimizerAttrName))
      return op->emitError("'") << name << "' on " << position
                                << " requires the function to have '"
                                << MPTDialect::kOptimizerAttrName << "'";
  } else if (llvm::is_contained(kArgRoles, name)) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError("'")
             << name << "' on " << position << " must be a unit attribute";
  } else if (name == kFrozenAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()) ||
        !cast<FunctionOpInterface>(op).getArgAttr(argIndex,
                                                  MPTDialect::kParamAttrName))
      return op->emitError("'")
             << name << "' on " << position
             << " must be a unit attribute on an 'mpt.param' argument";
  } else {
    return op->emitError("unknown mpt argument attribute '")
           << name << "' on " << position;
  }
  return verifyOnTrainStep(op, attribute, position);
}

static LogicalResult verifyResultAttr(Operation *op, unsigned resultIndex,
                                      NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  std::string position = "result #" + std::to_string(resultIndex);
  if (name == MPTDialect::kNextAttrName) {
    if (!isArgumentIndex(attribute.getValue()))
      return op->emitError("'")
             << name << "' on " << position << " must be an i64 argument index";
  } else if (name == MPTDialect::kMetricAttrName) {
    auto metric = dyn_cast<StringAttr>(attribute.getValue());
    if (!metric || metric.getValue().empty())
      return op->emitError("'")
             << name << "' on " << position << " must be a non-empty string";
  } else {
    return op->emitError("unknown mpt result attribute '")
           << name << "' on " << position;
  }
  return verifyOnTrainStep(op, attribute, position);
}

/// Runs the attribute checks first, so that a malformed attribute is reported
/// as such rather than as a missing role.
static LogicalResult verifyConventionAttrs(FunctionOpInterface function) {
  auto isOurs = [](NamedAttribute attribute) {
    return attribute.getName().getValue().starts_with("mpt.");
  };
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
    for (NamedAttribute attribute : function.getArgAttrs(i))
      if (isOurs(attribute) && failed(verifyArgAttr(function, i, attribute)))
        return failure();
  for (unsigned r = 0, e = function.getNumResults(); r < e; ++r)
    for (NamedAttribute attribute : function.getResultAttrs(r))
      if (isOurs(attribute) && failed(verifyResultAttr(function, r, attribute)))
        return failure();
  return success();
}

/// The first function marked `marker` next to `function`, if it comes before
/// `function`.
static Operation *findEarlierMarked(Operation *function, StringRef marker) {
  Block *block = function->getBlock();
  if (!block)
    return nullptr;
  for (Operation &sibling : *block) {
    if (&sibling == function)
      return nullptr;
    if (sibling.hasAttr(marker))
      return &sibling;
  }
  return nullptr;
}

/// The runtime runs one training step and at most one evaluation step per
/// module; a second one is reported on itself, naming the first.
static LogicalResult verifyUniqueMarker(FunctionOpInterface function,
                                        StringRef marker) {
  Operation *first = findEarlierMarked(function, marker);
  if (!first)
    return success();
  auto firstName =
      first->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
  return function.emitOpError("is a second '")
         << marker << "' function in the module (the first is @"
         << (firstName ? firstName.getValue() : StringRef("<unnamed>"))
         << "); a module holds one training step and at most one evaluation "
            "step";
}

/// Every argument has exactly one role (kArgRoles); returns them.
static FailureOr<SmallVector<StringRef>>
verifyArgumentRoles(FunctionOpInterface function) {
  unsigned numArgs = function.getNumArguments();
  SmallVector<StringRef> roles(numArgs);
  for (unsigned i = 0; i < numArgs; ++i) {
    for (StringRef role : kArgRoles) {
      if (!function.getArgAttr(i, role))
        continue;
      if (!roles[i].empty())
        return function.emitOpError("argument #")
               << i << " has more than one role ('" << roles[i] << "' and '"
               << role << "')";
      roles[i] = role;
    }
    if (roles[i].empty())
      return function.emitOpError("argument #")
             << i << " has no role: mark it '" << MPTDialect::kParamAttrName
             << "', '" << MPTDialect::kStateAttrName << "' or '"
             << MPTDialect::kDataAttrName << "'";
  }
  return roles;
}

/// A metric is a rank-0 tensor, and no other result reports it.
static LogicalResult verifyMetricResult(FunctionOpInterface function,
                                        unsigned r, StringAttr metric,
                                        llvm::StringMap<unsigned> &metrics) {
  Type resultType = function.getResultTypes()[r];
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!type || type.getRank() != 0)
    return function.emitOpError("metric '")
           << metric.getValue() << "' (result #" << r
           << ") must be a rank-0 tensor, got " << resultType;
  auto [it, inserted] = metrics.try_emplace(metric.getValue(), r);
  if (!inserted)
    return function.emitOpError("metric '")
           << metric.getValue() << "' is returned by both result #"
           << it->second << " and result #" << r;
  return success();
}

/// A carried result replaces a parameter or state argument of its type that
/// no other result carries; records it in `carriedBy`.
static LogicalResult verifyCarriedResult(FunctionOpInterface function,
                                         unsigned r, int64_t index,
                                         ArrayRef<StringRef> roles,
                                         MutableArrayRef<int64_t> carriedBy) {
  unsigned numArgs = function.getNumArguments();
  ArrayRef<Type> argTypes = function.getArgumentTypes();
  Type resultType = function.getResultTypes()[r];
  if (index < 0 || index >= numArgs)
    return function.emitOpError("result #")
           << r << " has '" << MPTDialect::kNextAttrName << " = " << index
           << "' out of range for " << numArgs << " arguments";
  if (roles[index] == MPTDialect::kDataAttrName)
    return function.emitOpError("result #")
           << r << " carries data argument #" << index << "; only '"
           << MPTDialect::kParamAttrName << "' and '"
           << MPTDialect::kStateAttrName << "' arguments are carried";
  if (resultType != argTypes[index])
    return function.emitOpError("result #")
           << r << " has type " << resultType << " but replaces argument #"
           << index << " of type " << argTypes[index];
  if (isFrozenParameter(function, index))
    return function.emitOpError("result #")
           << r << " carries argument #" << index << ", which is '"
           << kFrozenAttrName << "': a frozen parameter keeps its value";
  if (carriedBy[index] >= 0)
    return function.emitOpError("argument #")
           << index << " is carried by both result #" << carriedBy[index]
           << " and result #" << r;
  carriedBy[index] = r;
  return success();
}

/// Every result is either carried into an argument or a metric; returns, for
/// each argument, the result that carries it (-1 for none).
static FailureOr<SmallVector<int64_t>>
verifyResultRoles(FunctionOpInterface function, ArrayRef<StringRef> roles) {
  SmallVector<int64_t> carriedBy(function.getNumArguments(), -1);
  llvm::StringMap<unsigned> metrics;
  for (unsigned r = 0, e = function.getNumResults(); r < e; ++r) {
    auto next =
        function.getResultAttrOfType<IntegerAttr>(r, MPTDialect::kNextAttrName);
    auto metric = function.getResultAttrOfType<StringAttr>(
        r, MPTDialect::kMetricAttrName);
    if (next && metric)
      return function.emitOpError("result #")
             << r << " is both '" << MPTDialect::kNextAttrName << "' and '"
             << MPTDialect::kMetricAttrName << "'";
    if (!next && !metric)
      return function.emitOpError("result #")
             << r << " has no role: mark it '" << MPTDialect::kNextAttrName
             << " = <argument index>' or '" << MPTDialect::kMetricAttrName
             << " = \"<name>\"'";
    if (failed(metric ? verifyMetricResult(function, r, metric, metrics)
                      : verifyCarriedResult(function, r, next.getInt(), roles,
                                            carriedBy)))
      return failure();
  }
  return carriedBy;
}

/// Only state has an initializer, and a working copy is state of its master
/// parameter's shape.
static LogicalResult verifyStateAttrs(FunctionOpInterface function,
                                      ArrayRef<StringRef> roles) {
  unsigned numArgs = function.getNumArguments();
  ArrayRef<Type> argTypes = function.getArgumentTypes();
  for (unsigned i = 0; i < numArgs; ++i) {
    if (function.getArgAttr(i, MPTDialect::kInitAttrName) &&
        roles[i] != MPTDialect::kStateAttrName)
      return function.emitOpError("argument #")
             << i << " has '" << MPTDialect::kInitAttrName << "' but is not '"
             << MPTDialect::kStateAttrName << "'";
    auto copyOf = function.getArgAttrOfType<IntegerAttr>(
        i, MPTDialect::kWorkingCopyOfAttrName);
    if (!copyOf)
      continue;
    int64_t master = copyOf.getInt();
    if (roles[i] != MPTDialect::kStateAttrName || master < 0 ||
        master >= numArgs || roles[master] != MPTDialect::kParamAttrName)
      return function.emitOpError("argument #")
             << i << " has '" << MPTDialect::kWorkingCopyOfAttrName << " = "
             << master
             << "' but only a state argument can be the working copy of a "
                "parameter argument";
    auto copyType = dyn_cast<ShapedType>(argTypes[i]);
    auto masterType = dyn_cast<ShapedType>(argTypes[master]);
    if (!copyType || !masterType ||
        copyType.getShape() != masterType.getShape())
      return function.emitOpError("working copy argument #")
             << i << " of type " << argTypes[i]
             << " does not have the shape of parameter #" << master << " ("
             << argTypes[master] << ")";
  }
  return success();
}

/// A carried value that an update op produces must be the update of the
/// argument it replaces (or of the master it is the working copy of):
/// returning another parameter's update, the wrong one of two same-typed
/// states, or a parameter unchanged would train silently wrong.
static LogicalResult verifyCarriedUpdates(
    FunctionOpInterface function,
    const llvm::SmallDenseMap<Value, unsigned> &optimizerCount) {
  for (unsigned r = 0, e = function.getNumResults(); r < e; ++r) {
    auto next =
        function.getResultAttrOfType<IntegerAttr>(r, MPTDialect::kNextAttrName);
    if (!next)
      continue;
    int64_t index = next.getInt();
    Value updated = getReturnedValue(function, r);
    if (!updated)
      continue;
    if (updated == function.getArgument(index) &&
        optimizerCount.lookup(updated) > 0)
      return function.emitOpError("result #")
             << r << " returns argument #" << index
             << " unchanged although an optimizer updates it";
    Value source = getUpdateSource(updated);
    if (!source)
      continue;
    auto sourceArg = dyn_cast<BlockArgument>(stripFloatCasts(source));
    auto copyOf = function.getArgAttrOfType<IntegerAttr>(
        index, MPTDialect::kWorkingCopyOfAttrName);
    if (sourceArg && sourceArg.getOwner()->getParentOp() == function &&
        (sourceArg.getArgNumber() == index ||
         (copyOf && sourceArg.getArgNumber() == copyOf.getInt())))
      continue;
    return function.emitOpError("result #")
           << r << " replaces argument #" << next.getInt()
           << " but returns an update of "
           << (sourceArg
                   ? "argument #" + std::to_string(sourceArg.getArgNumber())
                   : std::string("a value that is not an argument"));
  }
  return success();
}

/// Every parameter and state argument is carried, and every parameter is
/// updated by exactly one optimizer (a forward-only step gets its parameter
/// updates from mpt-autodiff), but frozen parameters, which neither are.
static LogicalResult verifyEveryStateCarried(
    FunctionOpInterface function, ArrayRef<StringRef> roles,
    ArrayRef<int64_t> carriedBy,
    const llvm::SmallDenseMap<Value, unsigned> &optimizerCount) {
  bool forwardOnly = function->hasAttr(MPTDialect::kOptimizerAttrName);
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i) {
    if (isFrozenParameter(function, i)) {
      if (optimizerCount.lookup(function.getArgument(i)))
        return function.emitOpError("argument #")
               << i << " is '" << kFrozenAttrName
               << "' but an optimizer updates it";
      continue;
    }
    if (roles[i] == MPTDialect::kDataAttrName ||
        (forwardOnly && roles[i] == MPTDialect::kParamAttrName))
      continue;
    if (carriedBy[i] < 0)
      return function.emitOpError("'")
             << roles[i] << "' argument #" << i
             << " is never carried: no result has '"
             << MPTDialect::kNextAttrName << " = " << i << "'";
    if (roles[i] == MPTDialect::kParamAttrName &&
        optimizerCount.lookup(function.getArgument(i)) == 0)
      return function.emitOpError("'") << roles[i] << "' argument #" << i
                                       << " is not updated by any optimizer";
    if (optimizerCount.lookup(function.getArgument(i)) > 1)
      return function.emitOpError("'")
             << roles[i] << "' argument #" << i
             << " is updated by more than one optimizer";
  }
  return success();
}

static LogicalResult verifyTrainStep(FunctionOpInterface function) {
  if (failed(verifyConventionAttrs(function)) ||
      failed(verifyUniqueMarker(function, MPTDialect::kTrainStepAttrName)))
    return failure();
  if (function.isExternal())
    return function.emitOpError("marked '")
           << MPTDialect::kTrainStepAttrName << "' must have a body";
  FailureOr<SmallVector<StringRef>> roles = verifyArgumentRoles(function);
  if (failed(roles))
    return failure();
  FailureOr<SmallVector<int64_t>> carriedBy =
      verifyResultRoles(function, *roles);
  if (failed(carriedBy) || failed(verifyStateAttrs(function, *roles)))
    return failure();
  llvm::SmallDenseMap<Value, unsigned> optimizerCount;
  // Through casts: an f16 parameter updated in f32 is still updated.
  function->walk([&](OptimizerOpInterface optimizer) {
    ++optimizerCount[stripFloatCasts(optimizer.getParam())];
  });
  if (failed(verifyCarriedUpdates(function, optimizerCount)))
    return failure();
  return verifyEveryStateCarried(function, *roles, *carriedBy, optimizerCount);
}

static LogicalResult verifyEvalStep(FunctionOpInterface function) {
  if (failed(verifyConventionAttrs(function)) ||
      failed(verifyUniqueMarker(function, MPTDialect::kEvalStepAttrName)))
    return failure();
  // The training step whose state this function reads, when the module has
  // one; a second training step is reported on itself.
  FunctionOpInterface trainStep;
  if (Block *block = function->getBlock())
    for (Operation &sibling : *block)
      if (sibling.hasAttr(MPTDialect::kTrainStepAttrName)) {
        trainStep = dyn_cast<FunctionOpInterface>(&sibling);
        break;
      }
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i) {
    bool isData = bool(function.getArgAttr(i, MPTDialect::kDataAttrName));
    auto stateOf =
        function.getArgAttrOfType<IntegerAttr>(i, MPTDialect::kStateOfAttrName);
    if (isData == bool(stateOf))
      return function.emitOpError("argument #")
             << i << " must be either '" << MPTDialect::kDataAttrName
             << "' or '" << MPTDialect::kStateOfAttrName
             << " = <training-step argument>'";
    if (!stateOf || !trainStep)
      continue;
    int64_t index = stateOf.getInt();
    if (index < 0 || index >= trainStep.getNumArguments() ||
        trainStep.getArgAttr(index, MPTDialect::kDataAttrName))
      return function.emitOpError("argument #")
             << i << " reads training-step argument #" << index
             << ", which is not a parameter or state argument";
    Type expected = trainStep.getArgumentTypes()[index];
    if (function.getArgumentTypes()[i] != expected)
      return function.emitOpError("argument #")
             << i << " has type " << function.getArgumentTypes()[i]
             << " but training-step argument #" << index << " has type "
             << expected;
  }
  return success();
}

LogicalResult MPTDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == kEvalStepAttrName) {
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!function || !isa<UnitAttr>(attribute.getValue()))
      return op->emitError("'")
             << name << "' must be a unit attribute on a function";
    return verifyEvalStep(function);
  }
  if (name == kTrainStepAttrName) {
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!function || !isa<UnitAttr>(attribute.getValue()))
      return op->emitError("'")
             << name << "' must be a unit attribute on a function";
    return verifyTrainStep(function);
  }
  if (name == kOptimizerAttrName || name == kClipGradNormAttrName) {
    if (!isa<FunctionOpInterface>(op) || !op->hasAttr(kTrainStepAttrName))
      return op->emitError("'") << name << "' requires a function marked '"
                                << kTrainStepAttrName << "'";
    if (name == kClipGradNormAttrName) {
      auto maxNorm = dyn_cast<FloatAttr>(attribute.getValue());
      if (!maxNorm || !(maxNorm.getValueAsDouble() > 0.0))
        return op->emitError("'") << name << "' must be a positive float, got "
                                  << attribute.getValue();
      if (!op->hasAttr(kOptimizerAttrName))
        return op->emitError("'")
               << name << "' requires '" << kOptimizerAttrName << "'";
      return success();
    }
    auto spec = dyn_cast<DictionaryAttr>(attribute.getValue());
    if (!spec || !spec.getAs<StringAttr>("kind"))
      return op->emitError("'")
             << name
             << "' must be a dictionary with a string 'kind' (sgd, adam or "
                "adamw), got "
             << attribute.getValue();
    return success();
  }
  if (name == kPrecisionAttrName) {
    if (!isa<PrecisionClassAttr>(attribute.getValue()))
      return op->emitError("'")
             << name << "' must be a #mpt.precision<...> attribute, got "
             << attribute.getValue();
    if (!isa<PrecisionPolicyOpInterface>(op))
      return op->emitError("'")
             << name << "' pins the precision of a compute op, but '"
             << op->getName() << "' has no precision policy";
    return success();
  }
  if (name == kCarriedInPlaceAttrName) {
    auto function = dyn_cast<FunctionOpInterface>(op);
    auto carried = dyn_cast<DenseI64ArrayAttr>(attribute.getValue());
    if (!function || !carried ||
        carried.size() != int64_t(function.getNumResults()))
      return op->emitError("'") << name
                                << "' must be an array of i64 with one entry "
                                   "per result of a function";
    for (int64_t index : carried.asArrayRef())
      if (index < -1 || index >= int64_t(function.getNumArguments()))
        return op->emitError("'")
               << name << "' names argument " << index << " of a function with "
               << function.getNumArguments() << " arguments";
    return success();
  }
  if (name == kSegmentEndAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()) || isa<FunctionOpInterface>(op) ||
        op->getNumResults() == 0)
      return op->emitError("'") << name
                                << "' must be a unit attribute on an op with "
                                   "results (the end of a forward segment)";
    return success();
  }
  if (name == kSignatureAttrName) {
    if (!isa<ModuleOp>(op) || !isa<StringAttr>(attribute.getValue()))
      return op->emitError("'")
             << name << "' must be a string attribute on a module";
    return success();
  }
  return op->emitError("unknown mpt attribute '")
         << name << "' on an operation";
}

/// Marked functions check all their argument and result attributes first
/// (verifyConventionAttrs); only unmarked ones are checked attribute by
/// attribute, where every mpt attribute is an error.
static bool checksItsOwnAttrs(Operation *op) {
  return op->hasAttr(MPTDialect::kTrainStepAttrName) ||
         op->hasAttr(MPTDialect::kEvalStepAttrName);
}

LogicalResult MPTDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                   unsigned argIndex,
                                                   NamedAttribute attribute) {
  if (checksItsOwnAttrs(op))
    return success();
  return verifyArgAttr(op, argIndex, attribute);
}

LogicalResult MPTDialect::verifyRegionResultAttribute(
    Operation *op, unsigned, unsigned resultIndex, NamedAttribute attribute) {
  if (checksItsOwnAttrs(op))
    return success();
  return verifyResultAttr(op, resultIndex, attribute);
}
