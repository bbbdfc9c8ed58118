//===- MPTAttrs.td - mpt attributes -----------------------*- tablegen -*-===//

#ifndef MPT_DIALECT_MPT_IR_MPTATTRS_TD
#define MPT_DIALECT_MPT_IR_MPTATTRS_TD

include "mpt/Dialect/MPT/IR/MPTDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def MPT_PrecisionClass : I32EnumAttr<"PrecisionClass",
    "the precision an op runs in under mixed precision", [
      I32EnumAttrCase<"Lower", 0, "lower">,
      I32EnumAttrCase<"FP32", 1, "fp32">,
      I32EnumAttrCase<"Promote", 2, "promote">,
      I32EnumAttrCase<"Follow", 3, "follow">
    ]> {
  let cppNamespace = "::mpt";
  let genSpecializedAttr = 0;
  let description = [{
    - `lower`: runs in the compute type (f16/bf16) and accumulates in f32 (matmul, conv).
    - `fp32`: runs in f32 whatever its inputs (losses, softmax, exp/log, statistics, reductions,
      optimizer updates).
    - `promote`: runs in the widest of its input types (add, mul, select).
    - `follow`: keeps whatever precision flows in (relu, bias add, reshape, pooling).
  }];
}

def MPT_PrecisionClassAttr : EnumAttr<MPT_Dialect, MPT_PrecisionClass, "precision"> {
  let assemblyFormat = "`<` $value `>`";
}

def MPT_ReduceKind : I32EnumAttr<"ReduceKind",
    "how an all-reduce combines the ranks' values", [
      I32EnumAttrCase<"Sum", 0, "sum">,
      I32EnumAttrCase<"Max", 1, "max">
    ]> {
  let cppNamespace = "::mpt";
}

#endif // MPT_DIALECT_MPT_IR_MPTATTRS_TD
