//===- RoundDataInCaller.cpp - mpt-round-data-in-caller ---------*- C++ -*-===//
//
// A step that only rounds its batch leaves the rounding to whoever supplies
// the batch: the runtime rounds it on the host while staging it, where it
// costs no extra pass over the data, instead of in a kernel of its own.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mpt {
#define GEN_PASS_DEF_MPTROUNDDATAINCALLER
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct RoundDataInCaller
    : public mpt::impl::MPTRoundDataInCallerBase<RoundDataInCaller> {
  using Base::Base;
  void runOnOperation() override;
};

/// The element type every use of `argument` rounds it to, or null if some
/// use does something else (or there is none). A micro-batch slice of it
/// (mpt-accumulate-gradients) counts as the argument when every use of the
/// slice rounds it.
Type roundedElementType(BlockArgument argument) {
  Type rounded;
  SmallVector<Operation *> users(argument.getUsers());
  while (!users.empty()) {
    Operation *user = users.pop_back_val();
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
        slice && slice.getSource() == argument) {
      if (slice->use_empty())
        return nullptr;
      llvm::append_range(users, slice->getUsers());
      continue;
    }
    auto truncf = dyn_cast<arith::TruncFOp>(user);
    // Fast-math flags allow no other result than exact rounding; a
    // rounding mode other than the default would be another conversion.
    if (!truncf || truncf.getRoundingmodeAttr() ||
        (rounded && getElementType(truncf) != rounded))
      return nullptr;
    rounded = getElementType(truncf);
  }
  return rounded;
}
} // namespace

void RoundDataInCaller::runOnOperation() {
  ModuleOp module = getOperation();
  for (auto function : module.getOps<func::FuncOp>()) {
    if (!function->hasAttr(MPTDialect::kTrainStepAttrName) &&
        !function->hasAttr(MPTDialect::kEvalStepAttrName))
      continue;
    if (function.isExternal())
      continue;
    SmallVector<std::pair<unsigned, Type>> narrowed;
    for (BlockArgument argument : function.getArguments())
      if (function.getArgAttr(argument.getArgNumber(),
                              MPTDialect::kDataAttrName))
        if (Type elementType = roundedElementType(argument))
          narrowed.emplace_back(
              argument.getArgNumber(),
              withElementType(argument.getType(), elementType));
    if (narrowed.empty())
      continue;

    FailureOr<SmallVector<func::CallOp>> calls =
        callsOf(function, module, "data inputs its callers round",
                "its data inputs cannot be rounded by its callers");
    if (failed(calls))
      return signalPassFailure();
    for (func::CallOp call : *calls) {
      OpBuilder builder(call);
      for (auto [index, type] : narrowed)
        call->setOperand(index,
                         arith::TruncFOp::create(builder, call.getLoc(), type,
                                                 call->getOperand(index)));
    }

    SmallVector<Type> inputs(function.getArgumentTypes());
    for (auto [index, type] : narrowed) {
      BlockArgument argument = function.getArgument(index);
      argument.setType(type);
      auto dropRounding = [](Operation *truncf, Value rounded) {
        truncf->getResult(0).replaceAllUsesWith(rounded);
        truncf->erase();
      };
      for (Operation *user : llvm::make_early_inc_range(argument.getUsers())) {
        auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
        if (!slice) {
          dropRounding(user, argument);
          continue;
        }
        slice.getResult().setType(
            withElementType(slice.getType(), getElementType(argument)));
        for (Operation *truncf : llvm::make_early_inc_range(slice->getUsers()))
          dropRounding(truncf, slice);
      }
      inputs[index] = type;
    }
    function.setFunctionType(FunctionType::get(
        &getContext(), inputs, function.getFunctionType().getResults()));
  }
}
