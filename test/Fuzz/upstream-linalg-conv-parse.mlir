// Found by fuzz/mpt-fuzz: upstream MLIR 22's parser of linalg.conv_2d
// dereferences a bad pointer on this input (mlir-opt crashes too), and
// mpt-opt and mpt-run, which register every upstream dialect, die with
// SIGSEGV. Expected: a parse error. mpt-run could avoid the class by
// registering only the dialects a training step uses. Remove the XFAIL when
// fixed.
// XFAIL: *
// RUN: not mpt-opt %s 2>&1 | FileCheck %s
// RUN: not mpt-run %s 2>&1 | FileCheck %s
// CHECK: error:
func.func @f(%x: memref<1x2x5x5xf16>, %w: memref<3x2x3x3xf16>, %y: memref<1x3x3x3xf32>) {
  linalg.conv_2d<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x2x5x5xf16>, memref<3x2x3x3xf16>) outs(%y : memref<1x3x3x3xf32>)
  return
}
