//===- MPTInterfaces.td - mpt op interfaces ---------------*- tablegen -*-===//

#ifndef MPT_DIALECT_MPT_IR_MPTINTERFACES_TD
#define MPT_DIALECT_MPT_IR_MPTINTERFACES_TD

include "mlir/IR/OpBase.td"

def PrecisionPolicyOpInterface : OpInterface<"PrecisionPolicyOpInterface"> {
  let cppNamespace = "::mpt";
  let description = [{
    Answers, for one op, in which precision it should run under mixed precision, and which of
    its operands take part in that decision. Operands that do not (integer labels, normalization
    statistics, optimizer state) keep their own type whatever the class says.
  }];
  let methods = [
    InterfaceMethod<[{
        The precision class of this op by its kind, ignoring any pin. mpt ops take it from
        their precision-class trait.
      }], "::mpt::PrecisionClass", "getDefaultPrecisionClass", (ins), [{}], [{
        return ConcreteOp::kDefaultPrecisionClass;
      }]>,
    InterfaceMethod<[{
        Whether operand `index` is cast to the precision the op runs in. By default every
        floating-point tensor operand is.
      }], "bool", "isPrecisionOperand", (ins "unsigned":$index), [{}], [{
        return ::mpt::isFloatTensor($_op->getOperand(index).getType());
      }]>,
    InterfaceMethod<[{
        Whether result `index` takes the precision the op runs in. By default every
        floating-point tensor result does.
      }], "bool", "isPrecisionResult", (ins "unsigned":$index), [{}], [{
        return ::mpt::isFloatTensor($_op->getResult(index).getType());
      }]>,
  ];
  let extraClassDeclaration = [{
    /// The class this op runs in: the `mpt.precision` pin when present, else the default.
    ::mpt::PrecisionClass getPrecisionClass();
  }];
}

def OptimizerOpInterface : OpInterface<"OptimizerOpInterface"> {
  let cppNamespace = "::mpt";
  let description = [{
    An optimizer update: reads a parameter, its gradient and optimizer state, and produces the
    updated parameter and state. Mixed-precision passes use it to find masters, gradients and
    optimizer state without knowing the optimizer.
  }];
  let methods = [
    InterfaceMethod<"The parameter being updated.", "::mlir::Value", "getParam">,
    InterfaceMethod<"The gradient of the parameter.", "::mlir::Value", "getGrad">,
    InterfaceMethod<"The updated parameter.", "::mlir::Value", "getUpdatedParam">,
    InterfaceMethod<[{
        The learning rate of this step as a 0-d f32 tensor (an `mpt.lr_schedule` result), or
        null where the op's `lr` attribute is the learning rate.
      }], "::mlir::Value", "getScheduledLr", (ins), [{}], [{
        return {};
      }]>,
    InterfaceMethod<[{
        The optimizer state read by the update. By convention the operands are the parameter,
        its gradient, the state, then the scheduled learning rate if any.
      }], "::mlir::OperandRange", "getOptimizerState", (ins), [{}], [{
        return $_op->getOperands().drop_front(2).drop_back($_op.getScheduledLr() ? 1 : 0);
      }]>,
    InterfaceMethod<[{
        The updated optimizer state, in the order of getOptimizerState(). By convention the
        results are the updated parameter, then the state.
      }], "::mlir::ResultRange", "getUpdatedOptimizerState", (ins), [{}], [{
        return $_op->getResults().drop_front(1);
      }]>,
    InterfaceMethod<[{
        The name of each optimizer state operand, in the order of getOptimizerState(): the key
        PyTorch's optimizer `state_dict` gives it (`momentum_buffer`, `exp_avg`, ...), so that
        state created for a parameter can be named `<param>.<key>` in checkpoints.
      }], "::llvm::SmallVector<::llvm::StringRef>", "getOptimizerStateNames">,
  ];
}

def ScaleEquivariantOpInterface : OpInterface<"ScaleEquivariantOpInterface"> {
  let cppNamespace = "::mpt";
  let description = [{
    An op whose results scale with some of its operands: multiplying exactly a given set of
    operands by one positive factor multiplies every floating-point result by that factor.
    Loss scaling relies on it: a gradient multiplied by the loss scale S stays multiplied by
    S through such an op (the backward `*_grad` ops in their incoming gradient, a matmul in
    either factor, a sum of two scaled values, reshapes and casts), so the op stays in the
    scaled backward slice. Anywhere else (adding a scaled value to an unscaled one,
    comparing it with a threshold, an optimizer, a return) the value must be unscaled first.
  }];
  let methods = [
    InterfaceMethod<[{
        Whether multiplying exactly the operands set in `scaledOperands` (one bit per
        operand) by one positive factor multiplies every floating-point result by it. By
        default only the first operand alone does: the incoming gradient of a `*_grad` op,
        the input of a shape op.
      }], "bool", "isScaleEquivariantIn",
      (ins "const ::llvm::SmallBitVector &":$scaledOperands), [{}], [{
        return ::mpt::scalesWithFirstOperand(scaledOperands);
      }]>,
  ];
}

def DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mpt";
  let description = [{
    The reverse-mode rule of an op, used by `mpt-autodiff`: given the gradients of the loss with
    respect to the op's results, builds the gradients with respect to its operands (a
    vector-Jacobian product), emitting the op's `*_grad` ops. Operands that take no gradient
    (integer labels, running statistics) and results that carry none (saved statistics, updated
    running statistics) say so; a gradient never flows through them.
  }];
  let methods = [
    InterfaceMethod<[{
        Whether operand `index` takes a gradient. By default every floating-point tensor
        operand does.
      }], "bool", "isDifferentiableOperand", (ins "unsigned":$index), [{}], [{
        return ::mpt::isFloatTensor($_op->getOperand(index).getType());
      }]>,
    InterfaceMethod<[{
        Whether a gradient may flow back through result `index`. By default every
        floating-point tensor result lets it.
      }], "bool", "isDifferentiableResult", (ins "unsigned":$index), [{}], [{
        return ::mpt::isFloatTensor($_op->getResult(index).getType());
      }]>,
    InterfaceMethod<[{
        Builds the operand gradients at the builder's insertion point. `resultGradients` has
        one entry per result: the gradient of every differentiable result (the caller passes
        zeros for one that does not reach the loss), null for the others. On success
        `operandGradients` holds one entry per operand, with the operand's type, null for the
        operands that take no gradient.
      }], "::mlir::LogicalResult", "buildOperandGradients",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ArrayRef<::mlir::Value>":$resultGradients,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGradients)>,
  ];
}

#endif // MPT_DIALECT_MPT_IR_MPTINTERFACES_TD
