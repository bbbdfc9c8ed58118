// Found by fuzz/mpt-fuzz: upstream MLIR 22's custom parser of the linalg
// named ops takes `<1>` after `linalg.conv_2d` as the op's properties, and
// parseCommonStructuredOpParts (mlir/lib/Dialect/Linalg/IR/LinalgOps.cpp)
// then does `NamedAttrList attrs = llvm::cast<DictionaryAttr>(
// result.propertiesAttr)` on that IntegerAttr: the cast is unchecked in a
// release build, and NamedAttrList::push_back reads the integer's storage as
// a dictionary's and dies with SIGSEGV (in NamedAttribute::operator<).
// mpt-opt registers every upstream dialect, as mlir-opt does, and crashes
// with it; mpt-run parses only the dialects of a training step and reports
// the op (upstream-linalg-conv-parse-mpt-run.mlir). Expected: a parse error.
// Remove the XFAIL when upstream checks the properties' kind.
// XFAIL: *
// RUN: not mpt-opt %s 2>&1 | FileCheck %s
// CHECK: error:
func.func @f(%x: memref<1x2x5x5xf16>, %w: memref<3x2x3x3xf16>, %y: memref<1x3x3x3xf32>) {
  linalg.conv_2d<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x2x5x5xf16>, memref<3x2x3x3xf16>) outs(%y : memref<1x3x3x3xf32>)
  return
}
