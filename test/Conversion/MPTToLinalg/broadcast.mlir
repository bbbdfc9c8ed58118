// RUN: mpt-opt %s --mpt-convert-to-linalg | FileCheck %s

// mpt.broadcast is linalg.broadcast: the same added dimensions.

// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME:    %[[POS:.*]]: tensor<3x4xf16>
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x3x5x4xf16>
// CHECK:         %[[B:.*]] = linalg.broadcast ins(%[[POS]] : tensor<3x4xf16>) outs(%[[INIT]] : tensor<2x3x5x4xf16>) dimensions = [0, 2]
// CHECK:         return %[[B]]
func.func @broadcast(%pos: tensor<3x4xf16>) -> tensor<2x3x5x4xf16> {
  %b = mpt.broadcast %pos [0, 2] : tensor<3x4xf16> -> tensor<2x3x5x4xf16>
  return %b : tensor<2x3x5x4xf16>
}
