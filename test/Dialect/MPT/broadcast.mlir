// RUN: mpt-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: mpt-opt %s -split-input-file -verify-diagnostics --canonicalize | FileCheck %s --check-prefix=FOLD

// CHECK-LABEL: func.func @broadcast
// CHECK: mpt.broadcast %{{.*}} [0] : tensor<49x64xf32> -> tensor<8x49x64xf32>
// CHECK: mpt.broadcast %{{.*}} [0, 2] : tensor<3xf16> -> tensor<2x3x4xf16>
// CHECK: mpt.broadcast %{{.*}} [0, 1] : tensor<f32> -> tensor<2x3xf32>
// An empty broadcast folds away.
// FOLD-LABEL: func.func @broadcast
// FOLD-NOT: mpt.broadcast %{{.*}} [] :
// FOLD: return %{{.*}}, %{{.*}}, %{{.*}}, %arg0
func.func @broadcast(%pos: tensor<49x64xf32>, %v: tensor<3xf16>, %s: tensor<f32>)
    -> (tensor<8x49x64xf32>, tensor<2x3x4xf16>, tensor<2x3xf32>, tensor<49x64xf32>) {
  %a = mpt.broadcast %pos [0] : tensor<49x64xf32> -> tensor<8x49x64xf32>
  %b = mpt.broadcast %v [0, 2] : tensor<3xf16> -> tensor<2x3x4xf16>
  %c = mpt.broadcast %s [0, 1] : tensor<f32> -> tensor<2x3xf32>
  %d = mpt.broadcast %pos [] : tensor<49x64xf32> -> tensor<49x64xf32>
  return %a, %b, %c, %d : tensor<8x49x64xf32>, tensor<2x3x4xf16>, tensor<2x3xf32>, tensor<49x64xf32>
}

// -----

func.func @broadcast_rank(%x: tensor<3xf32>) -> tensor<2x3x4xf32> {
  // expected-error @below {{'mpt.broadcast' op expected result rank 2 (input rank 1 plus 1 new dims), got 3}}
  %y = mpt.broadcast %x [0] : tensor<3xf32> -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

func.func @broadcast_dims_order(%x: tensor<3xf32>) -> tensor<2x3x4xf32> {
  // expected-error @below {{'mpt.broadcast' op expected dims to be strictly increasing in [0, 3), got [2, 0]}}
  %y = mpt.broadcast %x [2, 0] : tensor<3xf32> -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

func.func @broadcast_dims_range(%x: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{'mpt.broadcast' op expected dims to be strictly increasing in [0, 2), got [2]}}
  %y = mpt.broadcast %x [2] : tensor<3xf32> -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

func.func @broadcast_shape(%x: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{'mpt.broadcast' op expected the result without dims to have the input shape 3, got 4}}
  %y = mpt.broadcast %x [0] : tensor<3xf32> -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

func.func @broadcast_element_type(%x: tensor<3xf16>) -> tensor<2x3xf32> {
  // expected-error @below {{'mpt.broadcast' op expected input and result element types to match, got 'f16' and 'f32'}}
  %y = mpt.broadcast %x [0] : tensor<3xf16> -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
