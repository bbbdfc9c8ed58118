//===- MPTDialect.cpp - mpt dialect -----------------------------*- C++ -*-===//

#include "mpt/Dialect/MPT/IR/MPTDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

void mpt::registerTrainingStepDialects(DialectRegistry &registry) {
  registry.insert<MPTDialect, func::FuncDialect, arith::ArithDialect,
                  math::MathDialect, tensor::TensorDialect, scf::SCFDialect>();
  registerPrecisionPolicyExternalModels(registry);
}

bool mpt::nestsTooDeepToParse(llvm::StringRef source) {
  unsigned depth = 0;
  for (size_t i = 0, e = source.size(); i < e; ++i) {
    char c = source[i];
    if (c == '"') {
      // Skip the literal, honouring backslash escapes.
      for (++i; i < e && source[i] != '"'; ++i)
        if (source[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < e && source[i + 1] == '/') {
      i = source.find('\n', i);
      if (i == llvm::StringRef::npos)
        return false;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxSourceNesting)
        return true;
    } else if ((c == ')' || c == ']' || c == '}' ||
                (c == '>' && (i == 0 || source[i - 1] != '-'))) &&
               depth > 0) {
      --depth;
    }
  }
  return false;
}
