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
        The optimizer state read by the update. By convention the operands are the parameter,
        its gradient, then the state.
      }], "::mlir::OperandRange", "getOptimizerState", (ins), [{}], [{
        return $_op->getOperands().drop_front(2);
      }]>,
    InterfaceMethod<[{
        The updated optimizer state, in the order of getOptimizerState(). By convention the
        results are the updated parameter, then the state.
      }], "::mlir::ResultRange", "getUpdatedOptimizerState", (ins), [{}], [{
        return $_op->getResults().drop_front(1);
      }]>,
  ];
}

#endif // MPT_DIALECT_MPT_IR_MPTINTERFACES_TD
