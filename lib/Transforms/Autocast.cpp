//===- Autocast.cpp - mpt-autocast ------------------------------*- C++ -*-===//
//
// Paints a function in one forward sweep: every op with a precision policy
// gets the operand types its class asks for, and its results take that type.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include "Utils.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt {
#define GEN_PASS_DEF_MPTAUTOCAST
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {

/// Inserts casts next to the values they convert, once per value and type.
class CastCache {
public:
  /// `value` converted to `elementType`, for a reader at `user`.
  Value get(Value value, Type elementType, Operation *user) {
    if (getElementType(value) == elementType)
      return value;
    // A value that is itself a cast of a value of the wanted type: read the
    // source instead of casting back and forth.
    if (Operation *def = value.getDefiningOp();
        isa_and_nonnull<arith::ExtFOp, arith::TruncFOp>(def) &&
        getElementType(def->getOperand(0)) == elementType)
      return def->getOperand(0);
    Type wanted = withElementType(value.getType(), elementType);
    auto [it, inserted] = casts.try_emplace({value, wanted});
    if (!inserted)
      return it->second;
    if (Value existing = findExistingCast(value, wanted, user))
      return it->second = existing;

    OpBuilder builder(value.getContext());
    if (auto arg = dyn_cast<BlockArgument>(value);
        arg && lastEntryCast && lastEntryCast->getBlock() == arg.getOwner())
      builder.setInsertionPointAfter(lastEntryCast);
    else
      builder.setInsertionPointAfterValue(value);
    Value cast = createFloatCast(builder, value.getLoc(), value, elementType);
    if (isa<BlockArgument>(value))
      lastEntryCast = cast.getDefiningOp();
    return it->second = cast;
  }

private:
  /// A cast of `value` to `type` already in the IR before `user`, so that
  /// running the pass again adds nothing.
  static Value findExistingCast(Value value, Type type, Operation *user) {
    for (Operation *candidate : value.getUsers())
      if (isa<arith::ExtFOp, arith::TruncFOp>(candidate) &&
          candidate->getResult(0).getType() == type &&
          candidate->getBlock() == user->getBlock() &&
          candidate->isBeforeInBlock(user))
        return candidate->getResult(0);
    return {};
  }

  DenseMap<std::pair<Value, Type>, Value> casts;
  Operation *lastEntryCast = nullptr;
};

/// Float tensors with at least one dimension. Scalars (losses, seeds, loss
/// scales) keep their type: they cost nothing and several ops require f32.
bool isCastableTensor(Type type) {
  return isFloatTensor(type) && cast<RankedTensorType>(type).getRank() > 0;
}

struct Autocast : public mpt::impl::MPTAutocastBase<Autocast> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override;
  void runOnOperation() override;

private:
  LogicalResult collectOverrides();
  PrecisionClass classify(PrecisionPolicyOpInterface op) const;
  Type chooseElementType(PrecisionClass precisionClass,
                         ArrayRef<Type> operandTypes) const;

  Type compute;
  llvm::StringMap<PrecisionClass> overrides;
};

} // namespace

LogicalResult Autocast::collectOverrides() {
  MLIRContext *context = &getContext();
  std::pair<const ListOption<std::string> *, PrecisionClass> lists[] = {
      {std::addressof(lowerOps), PrecisionClass::Lower},
      {std::addressof(fp32Ops), PrecisionClass::FP32},
      {std::addressof(promoteOps), PrecisionClass::Promote},
      {std::addressof(followOps), PrecisionClass::Follow}};
  for (auto [list, precisionClass] : lists) {
    for (const std::string &name : *list) {
      std::optional<RegisteredOperationName> opName =
          RegisteredOperationName::lookup(name, context);
      if (!opName || !opName->hasInterface<PrecisionPolicyOpInterface>())
        return getOperation().emitError("mpt-autocast: '")
               << name << "' in " << list->getArgStr()
               << " is not an op with a precision policy";
      auto [it, inserted] = overrides.try_emplace(name, precisionClass);
      if (!inserted && it->second != precisionClass)
        return getOperation().emitError("mpt-autocast: '")
               << name << "' is listed in more than one class";
    }
  }
  return success();
}

PrecisionClass Autocast::classify(PrecisionPolicyOpInterface op) const {
  if (op->hasAttr(MPTDialect::kPrecisionAttrName))
    return op.getPrecisionClass();
  auto it = overrides.find(op->getName().getStringRef());
  if (it != overrides.end())
    return it->second;
  return op.getDefaultPrecisionClass();
}

Type Autocast::chooseElementType(PrecisionClass precisionClass,
                                 ArrayRef<Type> operandTypes) const {
  Type f32 = Float32Type::get(compute.getContext());
  auto allEqual = [](ArrayRef<Type> types) {
    return llvm::all_equal(types) ? types.front() : Type();
  };
  switch (precisionClass) {
  case PrecisionClass::Lower:
    return compute;
  case PrecisionClass::FP32:
    return f32;
  case PrecisionClass::Promote: {
    // The widest input; f16 and bf16 together only fit in f32.
    Type common = allEqual(operandTypes);
    return common ? common : f32;
  }
  case PrecisionClass::Follow: {
    SmallVector<Type> low =
        llvm::filter_to_vector(operandTypes, [](Type t) { return !t.isF32(); });
    if (low.empty())
      return f32;
    Type common = allEqual(low);
    return common ? common : f32;
  }
  }
  llvm_unreachable("unknown precision class");
}

LogicalResult Autocast::initialize(MLIRContext *context) {
  Builder builder(context);
  switch (computeType) {
  case ComputeType::F32:
    compute = builder.getF32Type();
    break;
  case ComputeType::F16:
    compute = builder.getF16Type();
    break;
  case ComputeType::BF16:
    compute = builder.getBF16Type();
    break;
  }
  return success();
}

void Autocast::runOnOperation() {
  func::FuncOp function = getOperation();
  if (failed(collectOverrides()))
    return signalPassFailure();
  if (compute.isF32() || function.isExternal())
    return;
  if (!function.getBody().hasOneBlock()) {
    function.emitError("mpt-autocast: expected a function with one block");
    return signalPassFailure();
  }

  CastCache casts;
  // Original types of retyped values, restored for readers without a policy.
  DenseMap<Value, Type> originalTypes;
  auto restoreOriginalType = [&](OpOperand &operand) {
    auto it = originalTypes.find(operand.get());
    if (it != originalTypes.end())
      operand.set(casts.get(operand.get(), getElementTypeOrSelf(it->second),
                            operand.getOwner()));
  };
  Block &body = function.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(body)) {
    auto policy = dyn_cast<PrecisionPolicyOpInterface>(&op);
    SmallVector<unsigned> precisionOperands;
    SmallVector<Type> operandTypes;
    // Readers nested in regions see the types the values were written with.
    op.walk([&](Operation *nested) {
      if (nested != &op)
        for (OpOperand &operand : nested->getOpOperands())
          restoreOriginalType(operand);
    });
    for (OpOperand &operand : op.getOpOperands()) {
      unsigned index = operand.getOperandNumber();
      if (!policy || !policy.isPrecisionOperand(index) ||
          !isCastableTensor(operand.get().getType())) {
        restoreOriginalType(operand);
        continue;
      }
      precisionOperands.push_back(index);
      operandTypes.push_back(getElementType(operand.get()));
    }
    if (precisionOperands.empty())
      continue;

    Type target = chooseElementType(classify(policy), operandTypes);
    for (unsigned index : precisionOperands)
      op.setOperand(index, casts.get(op.getOperand(index), target, &op));
    for (OpResult result : op.getResults()) {
      if (!policy.isPrecisionResult(result.getResultNumber()) ||
          !isCastableTensor(result.getType()) ||
          getElementType(result) == target)
        continue;
      originalTypes.try_emplace(result, result.getType());
      result.setType(withElementType(result.getType(), target));
    }
  }
}
