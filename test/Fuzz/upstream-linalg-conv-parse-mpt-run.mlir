// Found by fuzz/mpt-fuzz: this malformed linalg.conv_2d crashes upstream
// MLIR 22's linalg parser (upstream-linalg-conv-parse-mpt-opt.mlir). mpt-run
// parses only the dialects a training step may contain (mpt, func, arith,
// math, tensor, scf), so the linalg op is an error naming it and the file,
// and linalg's parser is never reached.
// RUN: not mpt-run %s 2>&1 | FileCheck %s -DFILE=%s
// CHECK: mpt-run: error: [[FILE]]:[[@LINE+2]]:3: error: Dialect `linalg' not found for custom op 'linalg.conv_2d'
func.func @f(%x: memref<1x2x5x5xf16>, %w: memref<3x2x3x3xf16>, %y: memref<1x3x3x3xf32>) {
  linalg.conv_2d<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x2x5x5xf16>, memref<3x2x3x3xf16>) outs(%y : memref<1x3x3x3xf32>)
  return
}
