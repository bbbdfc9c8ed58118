//===- Autodiff.cpp - mpt-autodiff ------------------------------*- C++ -*-===//
//
// Reverse-mode differentiation of a forward-only training step, in the manner
// of JAX's transpose rules: the forward ops stay as written, the backward is
// appended after them, one rule per op (DifferentiableOpInterface), gradients
// of values with several uses summed, then the optimizer update.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

#include "Utils.h"
#include "mpt/Contract/Contract.h"
#include "mpt/Dialect/MPT/IR/LRSchedule.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Dialect/MPT/IR/TrainStep.h"

namespace mpt {
#define GEN_PASS_DEF_MPTAUTODIFF
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct Autodiff : public mpt::impl::MPTAutodiffBase<Autodiff> {
  using Base::Base;

  // The rules of arith and math ops are external models: bring them along
  // wherever the pass runs (mpt-opt, the runtime's pipeline).
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerDifferentiableExternalModels(registry);
  }

  void runOnOperation() override;
};

/// The gradients of a step, accumulated while walking it in reverse.
class GradientMap {
public:
  explicit GradientMap(OpBuilder &builder) : builder(builder) {}

  Value lookup(Value value) const { return gradients.lookup(value); }

  /// Adds `gradient` to the gradient of `value`: a value used more than once
  /// receives the sum of the gradients of its uses.
  void accumulate(Value value, Value gradient) {
    Value &sum = gradients[value];
    sum = sum ? arith::AddFOp::create(builder, gradient.getLoc(), sum, gradient)
                    .getResult()
              : gradient;
  }

private:
  OpBuilder &builder;
  DenseMap<Value, Value> gradients;
};
} // namespace

static Value zerosLike(OpBuilder &builder, Location loc, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return arith::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(tensor,
                             builder.getZeroAttr(tensor.getElementType())));
}

/// The values that depend on a parameter (forward), so that gradients flow
/// only where some parameter can receive them.
static DenseSet<Value> findActiveValues(Block &body,
                                        ArrayRef<BlockArgument> params) {
  DenseSet<Value> active(params.begin(), params.end());
  for (Operation &op : body.without_terminator())
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); }))
      active.insert(op.result_begin(), op.result_end());
  return active;
}

/// Emits the backward pass of the ops before the terminator of `body`, seeded
/// at `loss`, after them.
static LogicalResult buildBackward(Block &body, Value loss,
                                   const DenseSet<Value> &active,
                                   OpBuilder &builder, GradientMap &gradients) {
  SmallVector<Operation *> forward = llvm::map_to_vector(
      body.without_terminator(), [](Operation &op) { return &op; });
  gradients.accumulate(loss, LossGradOp::create(builder, loss.getLoc(), loss,
                                                /*scale=*/Value(),
                                                /*world_size=*/nullptr,
                                                /*micro_batches=*/nullptr));
  for (Operation *op : llvm::reverse(forward)) {
    if (llvm::none_of(op->getResults(),
                      [&](Value r) { return bool(gradients.lookup(r)); }))
      continue;
    if (llvm::none_of(op->getOperands(), [&](Value v) {
          return active.contains(v) && isFloatTensor(v.getType());
        }))
      continue;
    auto differentiable = dyn_cast<DifferentiableOpInterface>(op);
    if (!differentiable)
      return op->emitOpError("has a gradient but no differentiation rule: '")
             << op->getName()
             << "' does not implement DifferentiableOpInterface";
    SmallVector<Value> resultGrads;
    for (OpResult result : op->getResults()) {
      Value grad = gradients.lookup(result);
      if (!differentiable.isDifferentiableResult(result.getResultNumber())) {
        if (grad)
          return op->emitOpError("result #")
                 << result.getResultNumber()
                 << " reaches the loss but carries no gradient";
        resultGrads.push_back(Value());
        continue;
      }
      resultGrads.push_back(
          grad ? grad : zerosLike(builder, op->getLoc(), result.getType()));
    }
    SmallVector<Value> operandGrads;
    if (failed(differentiable.buildOperandGradients(builder, resultGrads,
                                                    operandGrads)))
      return op->emitOpError("failed to build its gradient");
    assert(operandGrads.size() == op->getNumOperands() &&
           "a rule returns one gradient per operand");
    for (OpOperand &operand : op->getOpOperands()) {
      Value grad = operandGrads[operand.getOperandNumber()];
      if (grad &&
          differentiable.isDifferentiableOperand(operand.getOperandNumber()) &&
          active.contains(operand.get()))
        gradients.accumulate(operand.get(), grad);
    }
  }
  return success();
}

namespace {
/// What one optimizer op needs: its name, attributes and state types, and
/// the value its float state starts from.
struct OptimizerSpec {
  OperationName name;
  SmallVector<NamedAttribute> attributes;
  SmallVector<Type> stateTypes;
  double floatStateInit = 0.0;
  /// The `lr_schedule`, if any, and the rate it starts from, unrounded.
  DictionaryAttr schedule = {};
  double baseLr = 0.0;
};
} // namespace

/// The state `kind` keeps per parameter of `paramType`: buffers shaped like
/// it and step counts; RMSprop's optional buffers also as operand segments.
static void addOptimizerState(OptimizerSpec &spec, StringRef kind,
                              Type paramType, bool hasMomentum, bool centered) {
  Builder builder(paramType.getContext());
  Type stepType = RankedTensorType::get({}, builder.getI64Type());
  if (kind == "sgd") {
    if (hasMomentum)
      spec.stateTypes.push_back(paramType);
    spec.attributes.push_back(builder.getNamedAttr(
        SGDOp::getOperandSegmentSizesAttrName(spec.name),
        builder.getDenseI32ArrayAttr(
            {1, 1, hasMomentum, static_cast<bool>(spec.schedule)})));
  } else if (kind == "rmsprop") {
    spec.stateTypes.append(1 + hasMomentum + centered, paramType);
    spec.attributes.push_back(builder.getNamedAttr(
        RMSpropOp::getOperandSegmentSizesAttrName(spec.name),
        builder.getDenseI32ArrayAttr({1, 1, 1, hasMomentum, centered,
                                      static_cast<bool>(spec.schedule)})));
  } else if (kind == "adagrad") {
    spec.stateTypes = {paramType, stepType};
  } else if (kind == "adadelta") {
    spec.stateTypes = {paramType, paramType};
  } else {
    spec.stateTypes = {paramType, paramType, stepType};
  }
}

/// The key of `mpt.optimizer` that gives a learning-rate schedule.
static constexpr StringLiteral kLRScheduleKey = "lr_schedule";

/// The `lr_schedule` `value` for the parameter `where` names, checked;
/// `groupLrOverride` says that the parameter gives its own `lr` but takes the
/// step's schedule.
static FailureOr<DictionaryAttr> getSchedule(func::FuncOp function,
                                             StringRef where, Attribute value,
                                             bool groupLrOverride) {
  auto fail = [&] {
    return function.emitOpError("optimizer of ") << where << ": ";
  };
  auto schedule = dyn_cast<DictionaryAttr>(value);
  if (!schedule)
    return fail() << "option '" << kLRScheduleKey
                  << "' must be a dictionary, got " << value;
  FailureOr<LRSchedule> parsed = LRSchedule::parse(schedule, fail);
  if (failed(parsed))
    return failure();
  // A table gives absolute rates, which no other base rate can rescale.
  if (groupLrOverride && parsed->kind == LRSchedule::Kind::Table)
    return fail() << "its own 'lr' does not apply to the step's 'table' "
                     "schedule; give it its own '"
                  << kLRScheduleKey << "'";
  return schedule;
}

/// The optimizer ops' on/off options, their unit attributes; every other
/// option is an f32 number.
static bool isSwitchOption(StringRef key) {
  return key == "nesterov" || key == "centered";
}

/// The attribute of `AttrSizedOperandSegments` ops, which no option may set.
static constexpr StringLiteral kOperandSegmentSizesName = "operandSegmentSizes";

/// The function's optimizer spec with the parameter's overrides, checked
/// against the optimizer op it names.
static FailureOr<OptimizerSpec> getOptimizerSpec(func::FuncOp function,
                                                 BlockArgument param) {
  MLIRContext *context = function.getContext();
  NamedAttrList entries(
      function->getAttrOfType<DictionaryAttr>(MPTDialect::kOptimizerAttrName));
  auto overrides = function.getArgAttrOfType<DictionaryAttr>(
      param.getArgNumber(), MPTDialect::kOptimizerAttrName);
  if (overrides)
    for (NamedAttribute entry : overrides)
      entries.set(entry.getName(), entry.getValue());

  auto kind = dyn_cast_or_null<StringAttr>(entries.get("kind"));
  std::string where =
      "parameter argument #" + std::to_string(param.getArgNumber());
  if (!kind || !llvm::is_contained(
                   {"sgd", "adam", "adamw", "rmsprop", "adagrad", "adadelta"},
                   kind.getValue()))
    return function.emitOpError("optimizer of ")
           << where << " has kind " << entries.get("kind")
           << "; expected \"sgd\", \"adam\", \"adamw\", \"rmsprop\", "
              "\"adagrad\" or \"adadelta\"";
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup("mpt." + kind.getValue().str(), context);
  assert(name && "the mpt optimizers are registered");

  OptimizerSpec spec{*name, {}, {}};
  Builder builder(context);
  bool hasMomentum = false, centered = false;
  // Adagrad's initial_accumulator_value is not an attribute of the op but the
  // value its sum starts from.
  StringRef initKey = kind.getValue() == "adagrad"
                          ? StringRef("initial_accumulator_value")
                          : StringRef();
  for (NamedAttribute entry : entries) {
    StringRef key = entry.getName().getValue();
    if (key == "kind")
      continue;
    if (key == kLRScheduleKey) {
      FailureOr<DictionaryAttr> schedule = getSchedule(
          function, where, entry.getValue(),
          overrides && overrides.get("lr") && !overrides.get(kLRScheduleKey));
      if (failed(schedule))
        return failure();
      spec.schedule = *schedule;
      continue;
    }
    // The operand segment sizes follow from the state, not from an option.
    if (key != initKey &&
        (key == kOperandSegmentSizesName ||
         !llvm::is_contained(name->getAttributeNames(), entry.getName())))
      return function.emitOpError("optimizer of ")
             << where << ": '" << name->getStringRef() << "' has no option '"
             << key << "'";
    Attribute value = entry.getValue();
    if (isSwitchOption(key)) {
      auto flag = dyn_cast<BoolAttr>(value);
      if (!flag && !isa<UnitAttr>(value))
        return function.emitOpError("optimizer of ")
               << where << ": option '" << key
               << "' must be true or false, got " << value;
      if (flag && !flag.getValue())
        continue;
      if (key == "centered")
        centered = true;
      spec.attributes.emplace_back(entry.getName(), builder.getUnitAttr());
      continue;
    }
    // Hyperparameters are f32; a plain `0.9` parses as f64 and `0` as i64.
    std::optional<double> number;
    if (auto real = dyn_cast<FloatAttr>(value))
      number = real.getValueAsDouble();
    else if (auto integer = dyn_cast<IntegerAttr>(value);
             integer && !integer.getType().isInteger(1))
      number = static_cast<double>(integer.getInt());
    if (!number)
      return function.emitOpError("optimizer of ")
             << where << ": option '" << key << "' must be a number, got "
             << value;
    // The schedule scales the rate as given, not its f32 rounding.
    if (key == "lr")
      spec.baseLr = *number;
    value = builder.getF32FloatAttr(*number);
    if (key == initKey) {
      spec.floatStateInit = cast<FloatAttr>(value).getValueAsDouble();
      if (!(spec.floatStateInit >= 0.0))
        return function.emitOpError("optimizer of ")
               << where << ": option '" << key << "' must be non-negative, got "
               << spec.floatStateInit;
      continue;
    }
    if (key == "momentum")
      hasMomentum = cast<FloatAttr>(value).getValueAsDouble() != 0.0;
    spec.attributes.emplace_back(entry.getName(), value);
  }
  // An op's default rate is not a rate the user chose to schedule.
  if (spec.schedule && !entries.get("lr"))
    return function.emitOpError("optimizer of ")
           << where << ": '" << kLRScheduleKey
           << "' needs 'lr', the base rate it schedules";
  addOptimizerState(spec, kind.getValue(), param.getType(), hasMomentum,
                    centered);
  return spec;
}

/// The loss a forward-only step differentiates: its result marked
/// `mpt.metric = "loss"`, an f32 scalar.
static FailureOr<Value> findLoss(func::FuncOp function, func::ReturnOp ret) {
  std::optional<unsigned> lossIndex;
  for (unsigned r = 0, e = function.getNumResults(); r < e; ++r) {
    auto metric = function.getResultAttrOfType<StringAttr>(
        r, MPTDialect::kMetricAttrName);
    if (metric && metric.getValue() == contract::metric::Loss)
      lossIndex = r;
  }
  if (!lossIndex)
    return function.emitOpError("has '")
           << MPTDialect::kOptimizerAttrName
           << "' but no result marked 'mpt.metric = \"loss\"' to differentiate";
  Value loss = ret.getOperand(*lossIndex);
  auto lossType = dyn_cast<RankedTensorType>(loss.getType());
  if (!lossType || lossType.getRank() != 0 ||
      !lossType.getElementType().isF32())
    return function.emitOpError("loss (result #")
           << *lossIndex << ") must be an f32 scalar, tensor<f32>, got "
           << loss.getType();
  return loss;
}

/// The parameters mpt-autodiff trains, all but the frozen ones; none may be
/// carried already, since it creates the update of every one.
static FailureOr<SmallVector<BlockArgument>> findParams(func::FuncOp function) {
  SmallVector<BlockArgument> params;
  for (BlockArgument arg : function.getArguments())
    if (function.getArgAttr(arg.getArgNumber(), MPTDialect::kParamAttrName) &&
        !isFrozenParameter(function, arg.getArgNumber()))
      params.push_back(arg);
  for (unsigned r = 0, e = function.getNumResults(); r < e; ++r) {
    auto next =
        function.getResultAttrOfType<IntegerAttr>(r, MPTDialect::kNextAttrName);
    if (next && function.getArgAttr(next.getInt(), MPTDialect::kParamAttrName))
      return function.emitOpError("result #")
             << r << " carries parameter argument #" << next.getInt()
             << "; in a forward-only step mpt-autodiff creates the update of "
                "every parameter";
  }
  return params;
}

/// Each parameter's gradient; every parameter must reach the loss.
static FailureOr<SmallVector<Value>>
collectParamGradients(func::FuncOp function, ArrayRef<BlockArgument> params,
                      const GradientMap &gradients) {
  SmallVector<Value> paramGrads;
  for (BlockArgument param : params) {
    Value grad = gradients.lookup(param);
    if (!grad)
      return emitError(param.getLoc(), "parameter ")
             << describeArgument(param) << " of '" << function.getSymName()
             << "' does not reach the loss, so it would never be trained; "
                "mark it '"
             << kFrozenAttrName << "' (beside '" << MPTDialect::kParamAttrName
             << "') to keep it fixed, or remove it";
    paramGrads.push_back(grad);
  }
  return paramGrads;
}

/// The attributes of a new optimizer state argument: state, and `floatInit`
/// to start from for a float one.
static DictionaryAttr optimizerStateAttrs(Builder &builder, Type stateType,
                                          double floatInit) {
  NamedAttrList attrs;
  attrs.append(MPTDialect::kStateAttrName, builder.getUnitAttr());
  // Step counters start at zero by default: the runtime takes an i64
  // state with `mpt.init` for the loss-scale growth tracker.
  if (isFloatTensor(stateType)) {
    auto stateTensor = cast<RankedTensorType>(stateType);
    attrs.append(
        MPTDialect::kInitAttrName,
        DenseElementsAttr::get(
            stateTensor,
            builder.getFloatAttr(stateTensor.getElementType(), floatInit)));
  }
  return attrs.getDictionary(builder.getContext());
}

/// Appends each parameter's optimizer state as new arguments, all inserted at
/// once (inserting them one by one rebuilds the signature each time), and
/// returns the parameters' optimizer specs.
static FailureOr<SmallVector<OptimizerSpec>>
addOptimizerStateArguments(func::FuncOp function,
                           ArrayRef<BlockArgument> params, Builder &builder) {
  SmallVector<OptimizerSpec> specs;
  SmallVector<Type> stateTypes;
  SmallVector<DictionaryAttr> stateAttrs;
  SmallVector<Location> stateLocs;
  for (BlockArgument param : params) {
    FailureOr<OptimizerSpec> spec = getOptimizerSpec(function, param);
    if (failed(spec))
      return failure();
    for (Type stateType : spec->stateTypes) {
      // The state is declared where its parameter is, but does not take the
      // parameter's source name: mpt-export-signature names it after the
      // optimizer state it is (`<param>.exp_avg`).
      Location stateLoc = param.getLoc();
      if (auto name = dyn_cast<NameLoc>(stateLoc))
        stateLoc = name.getChildLoc();
      stateTypes.push_back(stateType);
      stateAttrs.push_back(
          optimizerStateAttrs(builder, stateType, spec->floatStateInit));
      stateLocs.push_back(stateLoc);
    }
    specs.push_back(std::move(*spec));
  }
  SmallVector<unsigned> stateIndices(stateTypes.size(),
                                     function.getNumArguments());
  if (failed(function.insertArguments(stateIndices, stateTypes, stateAttrs,
                                      stateLocs)))
    return failure();
  return specs;
}

namespace {
/// The results a step gains, with their attributes.
struct NewResults {
  SmallVector<Value> values;
  SmallVector<DictionaryAttr> attrs;
};
} // namespace

/// Records `updated` as a result carried into argument #`argIndex`.
static void carry(Builder &builder, NewResults &results, Value updated,
                  unsigned argIndex) {
  results.values.push_back(updated);
  results.attrs.push_back(builder.getDictionaryAttr(builder.getNamedAttr(
      MPTDialect::kNextAttrName, builder.getI64IntegerAttr(argIndex))));
}

/// Where any parameter's optimizer has a schedule: a new state argument that
/// counts applied steps (a skipped step leaves it, as all state, unchanged),
/// one `mpt.lr_schedule` per distinct schedule and base rate, the counter's
/// update, and the first parameter's rate as the metric "lr". Returns each
/// spec's rate, null for a constant one.
static FailureOr<SmallVector<Value>>
buildLRSchedules(func::FuncOp function, OpBuilder &builder,
                 ArrayRef<OptimizerSpec> specs, NewResults &results) {
  SmallVector<Value> rates(specs.size());
  if (llvm::none_of(specs, [](const OptimizerSpec &spec) {
        return static_cast<bool>(spec.schedule);
      }))
    return rates;
  MLIRContext *context = function.getContext();
  Location loc = function.getLoc();
  unsigned counterIndex = function.getNumArguments();
  if (failed(function.insertArgument(
          counterIndex, RankedTensorType::get({}, builder.getI64Type()),
          builder.getDictionaryAttr(builder.getNamedAttr(
              MPTDialect::kStateAttrName, builder.getUnitAttr())),
          NameLoc::get(StringAttr::get(context, contract::name::LRScheduleStep),
                       loc))))
    return failure();
  Value counter = function.getArgument(counterIndex);
  llvm::SmallDenseMap<std::pair<Attribute, Attribute>, Value> built;
  Value nextCount;
  for (auto [spec, rate] : llvm::zip_equal(specs, rates)) {
    if (!spec.schedule)
      continue;
    FloatAttr base = builder.getF64FloatAttr(spec.baseLr);
    Value &lr = built[{base, spec.schedule}];
    if (!lr) {
      auto schedule =
          LRScheduleOp::create(builder, loc, counter, base, spec.schedule);
      if (failed(verify(schedule)))
        return failure();
      lr = schedule.getLr();
      if (!nextCount)
        nextCount = schedule.getUpdatedStep();
    }
    rate = lr;
  }
  carry(builder, results, nextCount, counterIndex);
  if (rates.front()) {
    results.values.push_back(rates.front());
    results.attrs.push_back(builder.getDictionaryAttr(
        builder.getNamedAttr(MPTDialect::kMetricAttrName,
                             builder.getStringAttr(contract::metric::LR))));
  }
  return rates;
}

/// Creates one optimizer op per parameter, reading the state arguments from
/// `firstState` on and the scheduled rate where there is one, and records
/// its updates as results carried into the parameter and its state.
static LogicalResult buildOptimizerUpdates(
    func::FuncOp function, OpBuilder &builder, ArrayRef<BlockArgument> params,
    ArrayRef<Value> paramGrads, ArrayRef<OptimizerSpec> specs,
    ArrayRef<Value> scheduledRates, unsigned firstState, NewResults &results) {
  Location loc = function.getLoc();
  unsigned nextState = firstState;
  for (auto [param, grad, spec, rate] :
       llvm::zip_equal(params, paramGrads, specs, scheduledRates)) {
    SmallVector<Value> operands = {param, grad};
    for (unsigned i = 0, e = spec.stateTypes.size(); i < e; ++i)
      operands.push_back(function.getArgument(nextState++));
    if (rate)
      operands.push_back(rate);
    OperationState state(loc, spec.name);
    state.addOperands(operands);
    state.addTypes(param.getType());
    state.addTypes(spec.stateTypes);
    state.addAttributes(spec.attributes);
    auto optimizer = cast<OptimizerOpInterface>(builder.create(state));
    if (failed(verify(optimizer)))
      return failure();
    carry(builder, results, optimizer.getUpdatedParam(), param.getArgNumber());
    for (auto [stateArg, updated] :
         llvm::zip_equal(optimizer.getOptimizerState(),
                         optimizer.getUpdatedOptimizerState()))
      carry(builder, results, updated,
            cast<BlockArgument>(stateArg).getArgNumber());
  }
  return success();
}

/// With `mpt.clip_grad_norm`, clips `paramGrads` in place by their global
/// norm and returns that norm.
static std::optional<Value> clipGradients(func::FuncOp function,
                                          OpBuilder &builder,
                                          MutableArrayRef<Value> paramGrads) {
  auto maxNorm =
      function->getAttrOfType<FloatAttr>(MPTDialect::kClipGradNormAttrName);
  if (!maxNorm)
    return std::nullopt;
  auto clip = ClipGradNormOp::create(
      builder, function.getLoc(), ValueRange(paramGrads).getTypes(),
      RankedTensorType::get({}, builder.getF32Type()), paramGrads,
      builder.getF32FloatAttr(maxNorm.getValueAsDouble()));
  llvm::copy(clip.getClipped(), paramGrads.begin());
  return clip.getNorm();
}

static LogicalResult appendResults(func::FuncOp function, func::ReturnOp ret,
                                   const NewResults &results) {
  SmallVector<unsigned> resultIndices(results.values.size(),
                                      function.getNumResults());
  if (failed(function.insertResults(
          resultIndices, ValueRange(results.values).getTypes(), results.attrs)))
    return failure();
  ret->insertOperands(ret->getNumOperands(), results.values);
  return success();
}

/// Drops the optimizer attributes the step no longer needs, with one new
/// argument attribute list, not one per parameter.
static void removeOptimizerAttrs(func::FuncOp function,
                                 ArrayRef<BlockArgument> params) {
  function->removeAttr(MPTDialect::kOptimizerAttrName);
  function->removeAttr(MPTDialect::kClipGradNormAttrName);
  SmallVector<DictionaryAttr> argAttrs;
  function.getAllArgAttrs(argAttrs);
  for (BlockArgument param : params) {
    NamedAttrList attrs(argAttrs[param.getArgNumber()]);
    if (attrs.erase(MPTDialect::kOptimizerAttrName))
      argAttrs[param.getArgNumber()] =
          attrs.getDictionary(function.getContext());
  }
  function.setAllArgAttrs(argAttrs);
}

/// Rules build every operand gradient; those of data and constants are dead.
/// Users come after their operands, so one reverse sweep over the ops between
/// `lastForward` and `ret` removes whole chains.
static void eraseDeadGradients(Operation *lastForward, Operation *ret) {
  SmallVector<Operation *> backward = llvm::map_to_vector(
      llvm::make_range(std::next(lastForward->getIterator()),
                       ret->getIterator()),
      [](Operation &op) { return &op; });
  for (Operation *op : llvm::reverse(backward))
    if (isOpTriviallyDead(op))
      op->erase();
}

/// Gives the dropouts of the step that have no counter the step's dropout
/// counter, a new i64 state argument starting at zero, and numbers their
/// streams in program order so that no two share a mask. Their gradients,
/// built after this, regenerate the masks from it. Returns the counter, if
/// any dropout needed one.
static std::optional<BlockArgument> addDropoutCounter(func::FuncOp function) {
  SmallVector<DropoutOp> dropouts;
  function.walk([&](DropoutOp dropout) {
    if (!dropout.getCounter())
      dropouts.push_back(dropout);
  });
  if (dropouts.empty())
    return std::nullopt;
  Builder builder(function.getContext());
  BlockArgument counter =
      appendArgument(function, RankedTensorType::get({}, builder.getI64Type()),
                     {builder.getNamedAttr(MPTDialect::kStateAttrName,
                                           builder.getUnitAttr())});
  // The runtime and checkpoints know the argument by this name.
  counter.setLoc(
      NameLoc::get(builder.getStringAttr(contract::name::DropoutCounter),
                   function.getLoc()));
  for (auto [stream, dropout] : llvm::enumerate(dropouts)) {
    dropout.getCounterMutable().assign(counter);
    dropout.setStream(stream);
  }
  return counter;
}

/// Carries `counter` + 1 into `counter`: the next step draws new masks. A
/// skipped step keeps it, as mpt-loss-scaling keeps every carried state.
static void advanceDropoutCounter(func::FuncOp function, OpBuilder &builder,
                                  BlockArgument counter) {
  Location loc = function.getLoc();
  Value one = arith::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(cast<RankedTensorType>(counter.getType()),
                             builder.getI64IntegerAttr(1)));
  appendResult(function, arith::AddIOp::create(builder, loc, counter, one),
               {builder.getNamedAttr(
                   MPTDialect::kNextAttrName,
                   builder.getI64IntegerAttr(counter.getArgNumber()))});
}

/// A step with `mpt.optimizer` is forward-only: one block, no gradient seed
/// or optimizer of its own.
static LogicalResult verifyForwardOnly(func::FuncOp function) {
  if (!function.getBody().hasOneBlock())
    return function.emitOpError("forward-only step must have one block");
  Block &body = function.getBody().front();
  auto backwardOp = llvm::find_if(body, [](Operation &op) {
    return isa<LossGradOp, OptimizerOpInterface>(op);
  });
  if (backwardOp != body.end())
    return backwardOp->emitOpError("in a step with '")
           << MPTDialect::kOptimizerAttrName
           << "': the step already has a backward pass or optimizer; remove "
              "either the attribute or the hand-written update";
  return success();
}

void Autodiff::runOnOperation() {
  func::FuncOp function = getOperation();
  if (!function->hasAttr(MPTDialect::kOptimizerAttrName))
    return;
  auto fail = [&]() { signalPassFailure(); };
  if (failed(verifyForwardOnly(function)))
    return fail();
  Block &body = function.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  FailureOr<Value> loss = findLoss(function, ret);
  if (failed(loss))
    return fail();
  FailureOr<SmallVector<BlockArgument>> params = findParams(function);
  if (failed(params))
    return fail();
  Operation *lastForward = ret->getPrevNode();
  if (!lastForward) {
    function.emitOpError("forward-only step has no ops to differentiate");
    return fail();
  }

  std::optional<BlockArgument> dropoutCounter = addDropoutCounter(function);
  OpBuilder builder(ret);
  GradientMap gradients(builder);
  DenseSet<Value> active = findActiveValues(body, *params);
  if (failed(buildBackward(body, *loss, active, builder, gradients)))
    return fail();
  FailureOr<SmallVector<Value>> paramGrads =
      collectParamGradients(function, *params, gradients);
  if (failed(paramGrads))
    return fail();
  std::optional<Value> gradNorm = clipGradients(function, builder, *paramGrads);

  unsigned firstState = function.getNumArguments();
  FailureOr<SmallVector<OptimizerSpec>> specs =
      addOptimizerStateArguments(function, *params, builder);
  if (failed(specs))
    return fail();
  NewResults results;
  FailureOr<SmallVector<Value>> scheduledRates =
      buildLRSchedules(function, builder, *specs, results);
  if (failed(scheduledRates) ||
      failed(buildOptimizerUpdates(function, builder, *params, *paramGrads,
                                   *specs, *scheduledRates, firstState,
                                   results)))
    return fail();
  if (gradNorm) {
    results.values.push_back(*gradNorm);
    results.attrs.push_back(builder.getDictionaryAttr(builder.getNamedAttr(
        MPTDialect::kMetricAttrName,
        builder.getStringAttr(contract::metric::GradNorm))));
  }
  if (failed(appendResults(function, ret, results)))
    return fail();
  if (dropoutCounter)
    advanceDropoutCounter(function, builder, *dropoutCounter);
  removeOptimizerAttrs(function, *params);
  eraseDeadGradients(lastForward, ret);
}
