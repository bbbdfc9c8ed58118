// RUN: mpt-opt %s | mpt-opt | FileCheck %s
// Two dropouts of one value with the same counter, seed and stream are the
// same mask (the backward relies on it), so CSE may merge them; the counter
// is optional before mpt-autodiff gives it.
// RUN: mpt-opt %s --cse | FileCheck %s --check-prefix=CSE

// CHECK-LABEL: func.func @dropout
// CHECK: mpt.dropout %arg0 {p = 1.000000e-01 : f64} : tensor<4x8xf32>
// CHECK: mpt.dropout %arg1, %arg2 {p = 5.000000e-01 : f64, seed = 7 : i64, stream = 3 : i64} : tensor<4x8xbf16>
// CHECK: mpt.dropout %arg1, %arg2 {p = 5.000000e-01 : f64, seed = 7 : i64, stream = 3 : i64} : tensor<4x8xbf16>
// CSE-LABEL: func.func @dropout
// CSE-COUNT-2: mpt.dropout
// CSE-NOT: mpt.dropout
func.func @dropout(%x: tensor<4x8xf32>, %h: tensor<4x8xbf16>, %counter: tensor<i64>)
    -> (tensor<4x8xf32>, tensor<4x8xbf16>, tensor<4x8xbf16>) {
  %a = mpt.dropout %x {p = 0.1 : f64} : tensor<4x8xf32>
  %b = mpt.dropout %h, %counter {p = 0.5 : f64, seed = 7, stream = 3} : tensor<4x8xbf16>
  %c = mpt.dropout %h, %counter {p = 0.5 : f64, seed = 7, stream = 3} : tensor<4x8xbf16>
  return %a, %b, %c : tensor<4x8xf32>, tensor<4x8xbf16>, tensor<4x8xbf16>
}
