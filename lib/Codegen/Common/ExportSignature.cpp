//===- ExportSignature.cpp - the step's signature for the runtime ---------===//
//
// Describes the training step (and eval step) as JSON: names, roles, dtypes,
// shapes, initializers, carried results, metrics and class counts. The runtime
// reads only this, from the lowered module, and never inspects the step.
//
//===----------------------------------------------------------------------===//

#include "mpt/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/JSON.h"

#include "mpt/Contract/Contract.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include <cmath>
#include <limits>

namespace mpt {
#define GEN_PASS_DEF_MPTEXPORTSIGNATURE
#include "mpt/Codegen/Common/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;
namespace key = mpt::contract::key;

namespace {

constexpr llvm::StringLiteral kSignatureGlobalName =
    contract::symbol::Signature;

/// The dtype names of safetensors, which the runtime and checkpoints share.
std::optional<StringRef> dtypeName(Type type) {
  namespace dtype = contract::dtype;
  if (type.isF32())
    return StringRef(dtype::F32);
  if (type.isF16())
    return StringRef(dtype::F16);
  if (type.isBF16())
    return StringRef(dtype::BF16);
  if (type.isSignlessInteger(64))
    return StringRef(dtype::I64);
  if (type.isSignlessInteger(32))
    return StringRef(dtype::I32);
  if (type.isSignlessInteger(1))
    return StringRef(dtype::Bool);
  return std::nullopt;
}

/// {"dtype": ..., "shape": [...]}, or an error at `where` naming `what`.
FailureOr<llvm::json::Object> describeTensor(Operation *where, Type type,
                                             const Twine &what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<StringRef> dtype =
      tensor ? dtypeName(tensor.getElementType()) : std::nullopt;
  if (!tensor || !tensor.hasStaticShape() || !dtype)
    return where->emitError("the runtime holds statically shaped tensors of "
                            "f32, f16, bf16, i64, i32 or i1; ")
           << what << " has type " << type;
  llvm::json::Array shape;
  for (int64_t dim : tensor.getShape())
    shape.push_back(dim);
  return llvm::json::Object{{key::Dtype, *dtype},
                            {key::Shape, std::move(shape)}};
}

/// Readers of `value`, looking through the casts mixed precision inserts.
SmallVector<OpOperand *> usesThroughCasts(Value value) {
  SmallVector<OpOperand *> uses;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    for (OpOperand &use : current.getUses()) {
      if (isa<arith::ExtFOp, arith::TruncFOp>(use.getOwner()))
        worklist.push_back(use.getOwner()->getResult(0));
      else
        uses.push_back(&use);
    }
  }
  return uses;
}

/// The ops computed from the loss seed: the backward pass and the update.
llvm::DenseSet<Operation *> backwardOps(func::FuncOp function) {
  llvm::DenseSet<Operation *> ops;
  SmallVector<Value> worklist;
  function.walk([&](LossGradOp seed) { worklist.push_back(seed.getSeed()); });
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      // An op nested in a region (scf.if) makes its enclosing op backward too.
      for (Operation *op = user; op && op != function; op = op->getParentOp())
        if (ops.insert(op).second)
          llvm::append_range(worklist, op->getResults());
    }
  }
  return ops;
}

/// PyTorch's fan_in of the weight of a forward matmul or convolution: the
/// number of inputs each output sums over (nn.Linear: in_features;
/// nn.Conv2d: C_in/groups*kh*kw, the filter's dim 1 times its window).
std::optional<int64_t> forwardFanIn(Operation *op) {
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
    return lhs.getDimSize(lhs.getRank() - (matmul.getTransposeA() ? 2 : 1));
  }
  if (auto conv = dyn_cast<Conv2DOp>(op)) {
    auto filter = cast<RankedTensorType>(conv.getRhs().getType());
    return filter.getDimSize(1) * filter.getDimSize(2) * filter.getDimSize(3);
  }
  return std::nullopt;
}

/// The fan-in of a weight from its forward use, never from the backward
/// (where dX = dY*W^T reads it transposed). A weight no forward matmul or
/// convolution reads gets PyTorch's rule for an (out, in, ...) tensor.
int64_t weightFanIn(ArrayRef<Value> weight,
                    const llvm::DenseSet<Operation *> &backward) {
  for (Value value : weight)
    for (OpOperand *use : usesThroughCasts(value))
      if (!backward.contains(use->getOwner()))
        if (std::optional<int64_t> fanIn = forwardFanIn(use->getOwner()))
          return *fanIn;
  auto type = cast<RankedTensorType>(weight.front().getType());
  int64_t fanIn = 1;
  for (int64_t d = 1; d < type.getRank(); ++d)
    fanIn *= type.getDimSize(d);
  return fanIn;
}

llvm::json::Object uniformInit(int64_t fanIn) {
  return llvm::json::Object{
      {key::Kind, contract::init::Uniform},
      {key::FanIn, fanIn},
      {key::Bound, 1.0 / std::sqrt(double(std::max<int64_t>(fanIn, 1)))}};
}

llvm::json::Object constantInit(StringRef kind) {
  return llvm::json::Object{{key::Kind, kind}};
}

/// PyTorch's initializers by role: embedding tables standard normal,
/// Kaiming-uniform weights (bound 1/sqrt(fan_in)), biases uniform in the bound
/// of their layer's weight, normalization scales one and shifts zero.
/// `values` is the parameter and its low-precision working copies, which the
/// compute reads instead.
llvm::json::Object paramInit(ArrayRef<Value> values,
                             const llvm::DenseSet<Operation *> &backward) {
  for (Value value : values)
    for (OpOperand *use : usesThroughCasts(value))
      if (isa<EmbeddingOp>(use->getOwner()) &&
          use->getOperandNumber() == EmbeddingOp::odsIndex_table)
        return constantInit(contract::init::Normal);
  if (cast<RankedTensorType>(values.front().getType()).getRank() >= 2)
    return uniformInit(weightFanIn(values, backward));
  for (Value value : values) {
    for (OpOperand *use : usesThroughCasts(value)) {
      Operation *user = use->getOwner();
      unsigned index = use->getOperandNumber();
      if (isa<BatchNormOp, BatchNormInferenceOp, LayerNormOp>(user) &&
          (index == 1 || index == 2))
        return constantInit(index == 1 ? contract::init::Ones
                                       : contract::init::Zeros);
      auto biasAdd = dyn_cast<BiasAddOp>(user);
      if (!biasAdd || index != 1 || backward.contains(biasAdd))
        continue;
      Operation *layer = stripFloatCasts(biasAdd.getInput()).getDefiningOp();
      if (std::optional<int64_t> fanIn =
              layer ? forwardFanIn(layer) : std::nullopt)
        return uniformInit(*fanIn);
    }
  }
  return constantInit(contract::init::Zeros);
}

/// State without an mpt.init starts at zero, except batch-norm running
/// variances, which start at one as in PyTorch.
llvm::json::Object stateInit(Value state) {
  for (OpOperand *use : usesThroughCasts(state))
    if (isa<BatchNormOp>(use->getOwner()) &&
        use->getOperandNumber() == BatchNormOp::odsIndex_running_var)
      return constantInit(contract::init::Ones);
  return constantInit(contract::init::Zeros);
}

/// The largest count a step counter may hold where it is loaded: 2^53, the
/// largest integer every JSON reader holds exactly, and still 2^63 - 2^53
/// steps short of overflowing.
constexpr int64_t kMaxStepCount = int64_t(1) << 53;

template <typename T> llvm::json::Object domain(T min, T max) {
  return llvm::json::Object{{key::Min, min}, {key::Max, max}};
}

/// The values the step keeps the state `arg` in, where it bounds them: a
/// dynamic loss scale in its [min_scale, max_scale], a static one positive
/// and finite, and step counts (the scale's growth tracker, integer
/// optimizer state such as Adam's step, the dropout counter, a schedule's
/// count) from zero. A value outside them breaks the step: a nan scale skips
/// every step, a negative step count gives nan weights.
std::optional<llvm::json::Object> stateDomain(BlockArgument arg) {
  std::optional<llvm::json::Object> staticScale;
  for (Operation *user : arg.getUsers()) {
    if (auto update = dyn_cast<UpdateLossScaleOp>(user)) {
      if (update.getGrowthTracker() == arg)
        return domain<int64_t>(0, kMaxStepCount);
      return domain<double>(update.getMinScale().convertToFloat(),
                            update.getMaxScale().convertToFloat());
    }
    if (auto seed = dyn_cast<LossGradOp>(user); seed && seed.getScale() == arg)
      staticScale = domain<double>(std::numeric_limits<float>::denorm_min(),
                                   std::numeric_limits<float>::max());
    if (auto dropout = dyn_cast<DropoutOp>(user);
        dropout && dropout.getCounter() == arg)
      return domain<int64_t>(0, kMaxStepCount);
    auto optimizer = dyn_cast<OptimizerOpInterface>(user);
    if ((optimizer && getElementTypeOrSelf(arg.getType()).isInteger() &&
         llvm::is_contained(optimizer.getOptimizerState(), arg)) ||
        isa<LRScheduleOp>(user))
      return domain<int64_t>(0, kMaxStepCount);
  }
  return staticScale;
}

/// The `mpt.init` of argument #`index` named `name`, or an error for a value
/// JSON cannot hold (inf or nan).
FailureOr<llvm::json::Object> valueInit(func::FuncOp train, unsigned index,
                                        StringRef name,
                                        DenseElementsAttr init) {
  // A splat is written once and the runtime repeats it: the zero optimizer
  // state mpt-autodiff creates would otherwise spell out every element.
  int64_t count = init.isSplat() ? 1 : init.getNumElements();
  llvm::json::Array values;
  if (isa<FloatType>(init.getElementType())) {
    for (APFloat value :
         llvm::make_range(init.value_begin<APFloat>(),
                          std::next(init.value_begin<APFloat>(), count))) {
      if (!value.isFinite())
        return train.emitError("argument #")
               << index << " ('" << name
               << "') has a non-finite mpt.init value ("
               << value.convertToDouble()
               << "); the runtime starts state at finite values only";
      values.push_back(value.convertToDouble());
    }
  } else {
    for (APInt value :
         llvm::make_range(init.value_begin<APInt>(),
                          std::next(init.value_begin<APInt>(), count)))
      values.push_back(value.getBitWidth() == 1 ? int64_t(value.getBoolValue())
                                                : value.getSExtValue());
  }
  return llvm::json::Object{{key::Kind, contract::init::Value},
                            {key::Values, std::move(values)}};
}

/// The source name of an argument, which the parser front end attaches as a
/// NameLoc.
std::optional<std::string> sourceName(BlockArgument arg) {
  if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
    return name.getName().str();
  return std::nullopt;
}

/// The uses that read data argument `arg`. A step that accumulates gradients
/// reads the data of each micro-batch through a slice.
SmallVector<OpOperand *> dataReads(BlockArgument arg) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : arg.getUses()) {
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(use.getOwner()))
      for (OpOperand &sliceUse : slice.getResult().getUses())
        uses.push_back(&sliceUse);
    else
      uses.push_back(&use);
  }
  return uses;
}

/// The one count that the uses of data argument `arg` give it through
/// `countOf` (0 for a use that gives none), 0 if none does: `noun` and
/// `unit` say what it counts in the error when two differ.
FailureOr<int64_t>
agreedCount(func::FuncOp function, BlockArgument arg, StringRef noun,
            StringRef unit, llvm::function_ref<int64_t(OpOperand &)> countOf) {
  int64_t count = 0;
  for (OpOperand *use : dataReads(arg)) {
    int64_t useCount = countOf(*use);
    if (!useCount)
      continue;
    if (count && count != useCount)
      return function.emitError("data argument #")
             << arg.getArgNumber() << " is read as " << noun << " of " << count
             << " and of " << useCount << " " << unit;
    count = useCount;
  }
  return count;
}

/// What a loss that reads `use` as its labels compares them with: its
/// logits (null for any other use) and the label it ignores, if any.
struct LabelRead {
  Value logits;
  std::optional<int64_t> ignored;
};

LabelRead labelRead(OpOperand &use) {
  if (auto loss = dyn_cast<SoftmaxCrossEntropyOp>(use.getOwner());
      loss && use.get() == loss.getLabels())
    return {loss.getLogits(), loss.getIgnoreIndex()};
  if (auto grad = dyn_cast<SoftmaxCrossEntropyGradOp>(use.getOwner());
      grad && use.get() == grad.getLabels())
    return {grad.getLogits(), grad.getIgnoreIndex()};
  return {};
}

/// The class count of a data argument that a loss reads as labels: the width
/// of the logits it is compared against.
FailureOr<int64_t> labelClasses(func::FuncOp train, BlockArgument arg) {
  return agreedCount(train, arg, "labels", "classes", [](OpOperand &use) {
    Value logits = labelRead(use).logits;
    if (!logits)
      return int64_t(0);
    auto type = cast<RankedTensorType>(logits.getType());
    return type.getDimSize(type.getRank() - 1);
  });
}

/// The label that the losses reading data argument `arg` as labels ignore
/// (their ignore_index), if they do; the runtime lets the argument hold it.
FailureOr<std::optional<int64_t>> ignoredLabel(func::FuncOp train,
                                               BlockArgument arg) {
  std::optional<LabelRead> agreed;
  for (OpOperand *use : dataReads(arg)) {
    LabelRead read = labelRead(*use);
    if (!read.logits)
      continue;
    if (agreed && agreed->ignored != read.ignored)
      return train.emitError("data argument #")
             << arg.getArgNumber()
             << " is read as labels by losses that ignore different labels";
    agreed = read;
  }
  return agreed ? agreed->ignored : std::nullopt;
}

/// The row count of the table that an embedding looks a data argument up in
/// as ids.
FailureOr<int64_t> tableRows(func::FuncOp function, BlockArgument arg) {
  return agreedCount(function, arg, "ids", "table rows", [](OpOperand &use) {
    if (auto lookup = dyn_cast<EmbeddingOp>(use.getOwner());
        lookup && use.get() == lookup.getIds())
      return lookup.getTable().getType().getDimSize(0);
    if (auto grad = dyn_cast<EmbeddingGradOp>(use.getOwner());
        grad && use.get() == grad.getIds())
      return grad.getType().getDimSize(0);
    return int64_t(0);
  });
}

/// Records on `info` the table rows that data argument `arg` indexes, if an
/// embedding reads it as ids.
LogicalResult describeIds(func::FuncOp function, BlockArgument arg,
                          llvm::json::Object &info) {
  FailureOr<int64_t> rows = tableRows(function, arg);
  if (failed(rows))
    return failure();
  if (*rows)
    info.insert({key::TableRows, *rows});
  return success();
}

/// The integer attribute `name` of argument #`index`, if it has one.
std::optional<int64_t> intArgAttr(func::FuncOp function, unsigned index,
                                  StringRef name) {
  if (auto attr = function.getArgAttrOfType<IntegerAttr>(index, name))
    return attr.getInt();
  return std::nullopt;
}

/// Optimizer state arguments of the training step: the parameter each one
/// belongs to and its key in the optimizer's state.
using OptimizerStateOf =
    llvm::DenseMap<unsigned, std::pair<unsigned, StringRef>>;
OptimizerStateOf findOptimizerState(func::FuncOp train) {
  OptimizerStateOf optimizerStateOf;
  train.walk([&](OptimizerOpInterface optimizer) {
    auto param = dyn_cast<BlockArgument>(optimizer.getParam());
    if (!param || param.getOwner() != &train.getBody().front())
      return;
    for (auto [state, key] : llvm::zip_equal(
             optimizer.getOptimizerState(), optimizer.getOptimizerStateNames()))
      if (auto arg = dyn_cast<BlockArgument>(state);
          arg && arg.getOwner() == param.getOwner())
        optimizerStateOf.try_emplace(arg.getArgNumber(), param.getArgNumber(),
                                     key);
  });
  return optimizerStateOf;
}

/// The name of every argument of the training step: the source's, then what
/// the rewrite added the argument for; an error if two are the same.
LogicalResult nameArguments(func::FuncOp train,
                            std::vector<std::string> &names) {
  auto ret = cast<func::ReturnOp>(train.getBody().back().getTerminator());
  unsigned numArgs = train.getNumArguments();
  names.assign(numArgs, "");
  for (BlockArgument arg : train.getArguments())
    if (std::optional<std::string> name = sourceName(arg))
      names[arg.getArgNumber()] = *name;
  // The loss scale is the state its metric returns.
  for (unsigned r = 0, e = train.getNumResults(); r < e; ++r) {
    auto metric =
        train.getResultAttrOfType<StringAttr>(r, MPTDialect::kMetricAttrName);
    if (metric && metric.getValue() == contract::metric::LossScale)
      if (auto arg = dyn_cast<BlockArgument>(ret.getOperand(r));
          arg && names[arg.getArgNumber()].empty())
        names[arg.getArgNumber()] = contract::metric::LossScale;
  }
  // Optimizer state is named after its parameter, as PyTorch's state_dict
  // keys it: `<param>.exp_avg`.
  OptimizerStateOf optimizerStateOf = findOptimizerState(train);
  auto workingCopyOf = [&](unsigned i) {
    return intArgAttr(train, i, MPTDialect::kWorkingCopyOfAttrName);
  };
  for (unsigned i = 0; i < numArgs; ++i) {
    if (!names[i].empty() || optimizerStateOf.contains(i) || workingCopyOf(i))
      continue;
    Type element = getElementTypeOrSelf(train.getArgument(i).getType());
    if (element.isSignlessInteger(64) &&
        train.getArgAttr(i, MPTDialect::kInitAttrName))
      names[i] = contract::name::GrowthTracker;
    else
      names[i] = "arg" + std::to_string(i);
  }
  for (unsigned i = 0; i < numArgs; ++i) {
    if (!names[i].empty())
      continue;
    if (auto it = optimizerStateOf.find(i); it != optimizerStateOf.end())
      names[i] = (names[it->second.first] + "." + it->second.second).str();
    else
      names[i] = names[*workingCopyOf(i)] + contract::name::WorkingCopySuffix;
  }
  llvm::StringMap<unsigned> seen;
  for (unsigned i = 0; i < numArgs; ++i)
    if (auto [it, inserted] = seen.try_emplace(names[i], i); !inserted)
      return train.emitError("arguments #")
             << it->second << " and #" << i << " are both named '" << names[i]
             << "'";
  return success();
}

/// The initializer of the parameter or state argument `arg`.
FailureOr<llvm::json::Object>
argumentInit(func::FuncOp train, BlockArgument arg, StringRef name,
             bool isParam, const llvm::DenseSet<Operation *> &backward) {
  unsigned index = arg.getArgNumber();
  if (auto init = train.getArgAttrOfType<DenseElementsAttr>(
          index, MPTDialect::kInitAttrName))
    return valueInit(train, index, name, init);
  if (intArgAttr(train, index, MPTDialect::kWorkingCopyOfAttrName))
    return constantInit(contract::init::Copy);
  if (!isParam)
    return stateInit(arg);
  SmallVector<Value> values{arg};
  for (unsigned other = 0, e = train.getNumArguments(); other < e; ++other)
    if (intArgAttr(train, other, MPTDialect::kWorkingCopyOfAttrName) ==
        int64_t(index))
      values.push_back(train.getArgument(other));
  return paramInit(values, backward);
}

/// One argument of the training step: its tensor, name and role, and the
/// class count of labels or the initializer of parameters and state.
FailureOr<llvm::json::Object>
describeTrainArgument(func::FuncOp train, BlockArgument arg, StringRef name,
                      const llvm::DenseSet<Operation *> &backward,
                      const OptimizerStateOf &optimizerStateOf,
                      int64_t &classes) {
  unsigned index = arg.getArgNumber();
  FailureOr<llvm::json::Object> info = describeTensor(
      train, arg.getType(), "argument #" + std::to_string(index));
  if (failed(info))
    return failure();
  info->insert({key::Name, name});
  bool isParam = bool(train.getArgAttr(index, MPTDialect::kParamAttrName));
  if (!isParam && !train.getArgAttr(index, MPTDialect::kStateAttrName)) {
    info->insert({key::Role, contract::role::Data});
    FailureOr<int64_t> labelCount = labelClasses(train, arg);
    FailureOr<std::optional<int64_t>> ignored = ignoredLabel(train, arg);
    if (failed(labelCount) || failed(ignored) ||
        failed(describeIds(train, arg, *info)))
      return failure();
    if (*labelCount) {
      info->insert({key::Classes, *labelCount});
      classes = *labelCount;
    }
    if (*ignored)
      info->insert({key::IgnoredLabel, **ignored});
    return info;
  }
  info->insert(
      {key::Role, isParam ? contract::role::Param : contract::role::State});
  if (std::optional<int64_t> master =
          intArgAttr(train, index, MPTDialect::kWorkingCopyOfAttrName))
    info->insert({key::WorkingCopyOf, *master});
  if (auto owner = optimizerStateOf.find(index);
      owner != optimizerStateOf.end())
    info->insert({key::OptimizerStateOf, owner->second.first});
  if (std::optional<llvm::json::Object> bounds = stateDomain(arg))
    info->insert({key::Domain, std::move(*bounds)});
  FailureOr<llvm::json::Object> init =
      argumentInit(train, arg, name, isParam, backward);
  if (failed(init))
    return failure();
  info->insert({key::Init, std::move(*init)});
  return info;
}

struct MPTExportSignature
    : public mpt::impl::MPTExportSignatureBase<MPTExportSignature> {
  void runOnOperation() override;

  FailureOr<llvm::json::Object> describeTrain(func::FuncOp train,
                                              std::vector<std::string> &names,
                                              int64_t &classes);
  FailureOr<llvm::json::Object>
  describeEval(func::FuncOp eval, func::FuncOp train,
               const std::vector<std::string> &trainNames, int64_t classes);
};

FailureOr<llvm::json::Object> MPTExportSignature::describeTrain(
    func::FuncOp train, std::vector<std::string> &names, int64_t &classes) {
  if (failed(nameArguments(train, names)))
    return failure();
  llvm::DenseSet<Operation *> backward = backwardOps(train);
  OptimizerStateOf optimizerStateOf = findOptimizerState(train);
  llvm::json::Array arguments;
  classes = 0;
  for (BlockArgument arg : train.getArguments()) {
    FailureOr<llvm::json::Object> info =
        describeTrainArgument(train, arg, names[arg.getArgNumber()], backward,
                              optimizerStateOf, classes);
    if (failed(info))
      return failure();
    arguments.push_back(std::move(*info));
  }

  llvm::json::Array results;
  for (unsigned r = 0, e = train.getNumResults(); r < e; ++r) {
    FailureOr<llvm::json::Object> info = describeTensor(
        train, train.getResultTypes()[r], "result #" + std::to_string(r));
    if (failed(info))
      return failure();
    if (auto next = train.getResultAttrOfType<IntegerAttr>(
            r, MPTDialect::kNextAttrName))
      info->insert({key::Next, next.getInt()});
    if (auto metric = train.getResultAttrOfType<StringAttr>(
            r, MPTDialect::kMetricAttrName))
      info->insert({key::Metric, metric.getValue()});
    results.push_back(std::move(*info));
  }
  return llvm::json::Object{{key::Function, train.getSymName()},
                            {key::Arguments, std::move(arguments)},
                            {key::Results, std::move(results)}};
}

FailureOr<llvm::json::Object>
MPTExportSignature::describeEval(func::FuncOp eval, func::FuncOp train,
                                 const std::vector<std::string> &trainNames,
                                 int64_t classes) {
  llvm::json::Array arguments;
  for (BlockArgument arg : eval.getArguments()) {
    unsigned index = arg.getArgNumber();
    FailureOr<llvm::json::Object> info = describeTensor(
        eval, arg.getType(), "eval argument #" + std::to_string(index));
    if (failed(info))
      return failure();
    if (auto stateOf = eval.getArgAttrOfType<IntegerAttr>(
            index, MPTDialect::kStateOfAttrName)) {
      info->insert({key::StateOf, stateOf.getInt()});
      info->insert({key::Name, trainNames[stateOf.getInt()]});
      info->insert({key::Role, contract::role::State});
    } else {
      std::string name =
          sourceName(arg).value_or("input" + std::to_string(index));
      info->insert({key::Name, name});
      info->insert({key::Role, contract::role::Data});
      if (failed(describeIds(eval, arg, *info)))
        return failure();
    }
    arguments.push_back(std::move(*info));
  }
  llvm::json::Array results;
  for (unsigned r = 0, e = eval.getNumResults(); r < e; ++r) {
    Type type = eval.getResultTypes()[r];
    FailureOr<llvm::json::Object> info =
        describeTensor(eval, type, "eval result #" + std::to_string(r));
    if (failed(info))
      return failure();
    // The eval step's one result is the logits of the loss's classes.
    if (e == 1) {
      auto logits = cast<RankedTensorType>(type);
      int64_t width = logits.getDimSize(logits.getRank() - 1);
      if (classes && (logits.getRank() != 2 || width != classes))
        return eval.emitError("the eval step returns ")
               << type << ", but the loss of @" << train.getSymName() << " has "
               << classes << " classes: logits must be (batch, " << classes
               << ")";
    }
    info->insert({key::Name, e == 1 ? std::string(contract::name::Logits)
                                    : "result" + std::to_string(r)});
    results.push_back(std::move(*info));
  }
  return llvm::json::Object{{key::Function, eval.getSymName()},
                            {key::Arguments, std::move(arguments)},
                            {key::Results, std::move(results)}};
}

void MPTExportSignature::runOnOperation() {
  ModuleOp module = getOperation();
  // The verifier allows one step of each kind per module.
  func::FuncOp train, eval;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function->hasAttr(MPTDialect::kTrainStepAttrName))
      train = function;
    if (function->hasAttr(MPTDialect::kEvalStepAttrName))
      eval = function;
  }
  if (!train)
    return;

  std::vector<std::string> names;
  int64_t classes = 0;
  FailureOr<llvm::json::Object> trainInfo =
      describeTrain(train, names, classes);
  if (failed(trainInfo))
    return signalPassFailure();
  llvm::json::Object signature{{key::Format, contract::format::Signature},
                               {key::Train, std::move(*trainInfo)}};
  if (eval) {
    FailureOr<llvm::json::Object> evalInfo =
        describeEval(eval, train, names, classes);
    if (failed(evalInfo))
      return signalPassFailure();
    signature.insert({key::Eval, std::move(*evalInfo)});
  }

  std::string json;
  llvm::raw_string_ostream(json) << llvm::json::Value(std::move(signature));
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  module->setAttr(MPTDialect::kSignatureAttrName, builder.getStringAttr(json));
  if (auto old = module.lookupSymbol<LLVM::GlobalOp>(kSignatureGlobalName))
    old.erase();
  // NUL-terminated, so the runtime reads it as a C string.
  json.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(builder.getI8Type(), json.size());
  LLVM::GlobalOp::create(builder, module.getLoc(), type, /*isConstant=*/true,
                         LLVM::Linkage::External, kSignatureGlobalName,
                         builder.getStringAttr(json));
}

} // namespace
