//===- PrecisionReport.cpp - mpt-precision-report ---------------*- C++ -*-===//
//
// The textbook memory formula of mixed precision (low-precision weights, f32
// masters, gradients, f32 optimizer state, activations), computed on the real
// graph, with op and cast counts.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

#include "Utils.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt {
#define GEN_PASS_DEF_MPTPRECISIONREPORT
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct PrecisionReport
    : public mpt::impl::MPTPrecisionReportBase<PrecisionReport> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

static int64_t bytesOf(Type type) {
  return staticTensorBytes(type).value_or(0);
}

template <typename Range> static int64_t totalBytes(const Range &values) {
  int64_t total = 0;
  for (Value value : values)
    total += bytesOf(value.getType());
  return total;
}

/// Bytes of activations and backward intermediates live at once, at the worst
/// point of the step, with each value freed after its last reader. A reshape
/// is a view of its operand's buffer, as bufferization makes it: it adds no
/// bytes and keeps the operand's buffer alive while it is read. Constants
/// take no bytes of the step's.
static int64_t peakActivationBytes(Block &block) {
  DenseMap<Operation *, unsigned> position;
  for (auto [index, op] : llvm::enumerate(block))
    position[&op] = index;
  DenseMap<Value, Value> bufferOf;
  auto buffer = [&](Value value) {
    Value viewed = bufferOf.lookup(value);
    return viewed ? viewed : value;
  };
  DenseMap<Value, unsigned> lastUse;
  for (auto [index, op] : llvm::enumerate(block))
    for (Value result : op.getResults()) {
      if (isa<ReshapeOp>(op))
        bufferOf[result] = buffer(op.getOperand(0));
      unsigned &last = lastUse[buffer(result)];
      last = std::max(last, static_cast<unsigned>(index));
      for (Operation *user : result.getUsers())
        if (Operation *ancestor = block.findAncestorOpInBlock(*user))
          last = std::max(last, position[ancestor]);
    }
  std::vector<int64_t> freedAfter(block.getOperations().size() + 1, 0);
  int64_t live = 0, peak = 0;
  for (auto [index, op] : llvm::enumerate(block)) {
    for (Value result : op.getResults()) {
      if (isUpdateOp(&op))
        break;
      // A view: its bytes are its operand's. A constant is a global or, a
      // splat, a scalar in its readers: no buffer of the step's.
      if (isa<ReshapeOp>(op) || op.hasTrait<mlir::OpTrait::ConstantLike>())
        continue;
      live += bytesOf(result.getType());
      freedAfter[lastUse[result]] += bytesOf(result.getType());
    }
    peak = std::max(peak, live);
    live -= freedAfter[index];
  }
  return peak;
}

/// The element type an op with a precision policy computes in: that of its
/// first float tensor result, else operand, that the policy governs.
static Type computeType(PrecisionPolicyOpInterface policy) {
  Operation *op = policy;
  for (OpResult result : op->getResults())
    if (policy.isPrecisionResult(result.getResultNumber()) &&
        isFloatTensor(result.getType()))
      return getElementType(result);
  for (OpOperand &operand : op->getOpOperands())
    if (policy.isPrecisionOperand(operand.getOperandNumber()) &&
        isFloatTensor(operand.get().getType()))
      return getElementType(operand.get());
  return {};
}

namespace {
/// What one walk over a step counts: ops by precision class and compute type,
/// casts, and the values of each kind of state.
struct StepCensus {
  explicit StepCensus(func::FuncOp function) : function(function) {
    function.walk([&](Operation *op) { count(op); });
    countParams();
  }

  void count(Operation *op) {
    if (isa<arith::TruncFOp>(op))
      ++truncs;
    if (isa<arith::ExtFOp>(op))
      ++exts;
    if (isa<arith::TruncFOp>(op) &&
        isa<BlockArgument>(stripFloatCasts(op->getResult(0))))
      if (getArgumentRole(function,
                          cast<BlockArgument>(stripFloatCasts(op->getResult(0)))
                              .getArgNumber()) == MPTDialect::kParamAttrName)
        lowWeights.insert(op->getResult(0));
    if (auto policy = dyn_cast<PrecisionPolicyOpInterface>(op)) {
      ++byClass[stringifyPrecisionClass(policy.getPrecisionClass())];
      if (Type runsIn = computeType(policy)) {
        std::string name;
        llvm::raw_string_ostream(name) << runsIn;
        ++byType[name];
      }
    }
    if (auto optimizer = dyn_cast<OptimizerOpInterface>(op))
      for (Value state : optimizer.getOptimizerState())
        optimizerState.insert(stripFloatCasts(state));
    if (auto batchNorm = dyn_cast<BatchNormOp>(op)) {
      normStats.insert(stripFloatCasts(batchNorm.getRunningMean()));
      normStats.insert(stripFloatCasts(batchNorm.getRunningVar()));
    }
    if (auto seed = dyn_cast<LossGradOp>(op); seed && seed.getScale())
      scaleState.insert(seed.getScale());
    if (auto update = dyn_cast<UpdateLossScaleOp>(op)) {
      scaleState.insert(update.getScale());
      scaleState.insert(update.getGrowthTracker());
    }
  }

  /// f32 parameters are masters; the others, and working copies, are
  /// low-precision weights.
  void countParams() {
    for (BlockArgument arg : function.getArguments()) {
      unsigned index = arg.getArgNumber();
      if (getArgumentRole(function, index) == MPTDialect::kParamAttrName) {
        if (getElementType(arg).isF32())
          weightsF32 += bytesOf(arg.getType());
        else
          lowWeights.insert(arg);
      }
      if (function.getArgAttr(index, MPTDialect::kWorkingCopyOfAttrName))
        lowWeights.insert(arg);
    }
  }

  func::FuncOp function;
  llvm::StringMap<int64_t> byClass, byType;
  int64_t truncs = 0, exts = 0, weightsF32 = 0;
  llvm::SetVector<Value> lowWeights, optimizerState, normStats, scaleState;
};
} // namespace

static llvm::json::Object analyze(func::FuncOp function) {
  StepCensus census(function);
  auto toObject = [](const llvm::StringMap<int64_t> &counts) {
    llvm::json::Object object;
    for (const auto &entry : counts)
      object[entry.getKey().str()] = entry.getValue();
    return object;
  };
  llvm::json::Object bytes{
      {"weights_f32", census.weightsF32},
      {"weights_low_precision", totalBytes(census.lowWeights)},
      {"gradients", totalBytes(findGradientRoots(function))},
      {"optimizer_state", totalBytes(census.optimizerState)},
      {"norm_statistics", totalBytes(census.normStats)},
      {"loss_scale_state", totalBytes(census.scaleState)},
      {"activations_peak", peakActivationBytes(function.getBody().front())},
  };
  int64_t total = 0;
  for (const auto &entry : bytes)
    total += *entry.getSecond().getAsInteger();
  bytes["total"] = total;
  return llvm::json::Object{
      {"ops_by_class", toObject(census.byClass)},
      {"ops_by_type", toObject(census.byType)},
      {"casts", llvm::json::Object{{"truncf", census.truncs},
                                   {"extf", census.exts},
                                   {"total", census.truncs + census.exts}}},
      {"bytes", std::move(bytes)},
  };
}

void PrecisionReport::runOnOperation() {
  ModuleOp module = getOperation();
  llvm::json::Object snapshot;
  for (auto function : module.getOps<func::FuncOp>())
    if (isTrainStep(function) && !function.isExternal())
      snapshot[function.getSymName().str()] = analyze(function);

  if (output == "-") {
    llvm::outs() << llvm::formatv(
        "{0:2}\n",
        llvm::json::Value(llvm::json::Object{{stage, std::move(snapshot)}}));
    return;
  }

  // Later stages add to the report that the first stage started.
  llvm::json::Object report;
  if (stage != "fp32") {
    if (auto buffer = llvm::MemoryBuffer::getFile(output)) {
      llvm::Expected<llvm::json::Value> existing =
          llvm::json::parse((*buffer)->getBuffer());
      if (!existing || !existing->getAsObject()) {
        llvm::consumeError(existing.takeError());
        module.emitError("mpt-precision-report: '")
            << output << "' exists but is not a JSON object report";
        return signalPassFailure();
      }
      report = std::move(*existing->getAsObject());
    }
  }
  report[stage] = std::move(snapshot);

  std::string message;
  auto file = openOutputFile(output, &message);
  if (!file) {
    module.emitError("mpt-precision-report: cannot write '")
        << output << "': " << message;
    return signalPassFailure();
  }
  file->os() << llvm::formatv("{0:2}\n", llvm::json::Value(std::move(report)));
  file->keep();
}
