//===- MPTDialect.cpp - mpt dialect -----------------------------*- C++ -*-===//

#include "mpt/Dialect/MPT/IR/MPTDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

using namespace mlir;
using namespace mpt;

#include "mpt/Dialect/MPT/IR/MPTEnums.cpp.inc"
#include "mpt/Dialect/MPT/IR/MPTOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mpt/Dialect/MPT/IR/MPTAttrs.cpp.inc"

void MPTDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mpt/Dialect/MPT/IR/MPTOps.cpp.inc"
      >();
  registerAttributes();
}

void MPTDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mpt/Dialect/MPT/IR/MPTAttrs.cpp.inc"
      >();
}
