// RUN: mpt-opt %s -canonicalize -split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @reshape_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: mpt.reshape
// CHECK: return %[[X]] : tensor<4x8xf32>
func.func @reshape_same_type(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func @reshape_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>)
// CHECK-NEXT: %[[R:.*]] = mpt.reshape %[[X]] : tensor<4x8xf16> -> tensor<2x16xf16>
// CHECK-NOT: mpt.reshape
// CHECK-NEXT: return %[[R]] : tensor<2x16xf16>
func.func @reshape_reshape(%x: tensor<4x8xf16>) -> tensor<2x16xf16> {
  %0 = mpt.reshape %x : tensor<4x8xf16> -> tensor<32xf16>
  %1 = mpt.reshape %0 : tensor<32xf16> -> tensor<2x16xf16>
  return %1 : tensor<2x16xf16>
}

// -----

// A chain of three reshapes becomes one.
// CHECK-LABEL: func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = mpt.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x6xf32>
func.func @reshape_chain(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = mpt.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %1 = mpt.reshape %0 : tensor<24xf32> -> tensor<6x4xf32>
  %2 = mpt.reshape %1 : tensor<6x4xf32> -> tensor<4x6xf32>
  return %2 : tensor<4x6xf32>
}

// -----

// A reshape and its inverse fold away entirely.
// CHECK-LABEL: func @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: mpt.reshape
// CHECK: return %[[X]] : tensor<4x8xf32>
func.func @reshape_round_trip(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %1 = mpt.reshape %0 : tensor<32xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// The inner reshape has another use: it stays, and the outer one reads the
// original input.
// CHECK-LABEL: func @reshape_reshape_multi_use
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[FLAT:.*]] = mpt.reshape %[[X]] : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-DAG: %[[R:.*]] = mpt.reshape %[[X]] : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK: return %[[FLAT]], %[[R]] : tensor<32xf32>, tensor<2x16xf32>
func.func @reshape_reshape_multi_use(%x: tensor<4x8xf32>) -> (tensor<32xf32>, tensor<2x16xf32>) {
  %0 = mpt.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %1 = mpt.reshape %0 : tensor<32xf32> -> tensor<2x16xf32>
  return %0, %1 : tensor<32xf32>, tensor<2x16xf32>
}

// -----

// Negative: a reshape that changes the shape of a non-reshape stays.
// CHECK-LABEL: func @reshape_no_fold
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = mpt.relu %[[X]] : tensor<4x8xf32>
// CHECK-NEXT: %[[F:.*]] = mpt.reshape %[[R]] : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NEXT: return %[[F]] : tensor<32xf32>
func.func @reshape_no_fold(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = mpt.relu %x : tensor<4x8xf32>
  %1 = mpt.reshape %0 : tensor<4x8xf32> -> tensor<32xf32>
  return %1 : tensor<32xf32>
}

// -----

// Negative: a reshape of a transpose is not a reshape of a reshape.
// CHECK-LABEL: func @reshape_of_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[T:.*]] = mpt.transpose %[[X]] [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[R:.*]] = mpt.reshape %[[T]] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x8xf32>
func.func @reshape_of_transpose(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.transpose %x [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = mpt.reshape %0 : tensor<8x4xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK-NOT: mpt.transpose
// CHECK: return %[[X]] : tensor<2x4x8xf32>
func.func @transpose_identity(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = mpt.transpose %x [0, 1, 2] : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// Negative: a non-identity permutation of equal dims keeps the type but moves
// data.
// CHECK-LABEL: func @transpose_square
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[T:.*]] = mpt.transpose %[[X]] [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT: return %[[T]] : tensor<4x4xf32>
func.func @transpose_square(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = mpt.transpose %x [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Two transposes compose into one: result dim i is input dim inner[outer[i]].
// inner = [1, 2, 0], outer = [0, 2, 1] -> [1, 0, 2].
// CHECK-LABEL: func @transpose_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf16>)
// CHECK-NEXT: %[[T:.*]] = mpt.transpose %[[X]] [1, 0, 2] : tensor<2x4x8xf16> -> tensor<4x2x8xf16>
// CHECK-NEXT: return %[[T]] : tensor<4x2x8xf16>
func.func @transpose_transpose(%x: tensor<2x4x8xf16>) -> tensor<4x2x8xf16> {
  %0 = mpt.transpose %x [1, 2, 0] : tensor<2x4x8xf16> -> tensor<4x8x2xf16>
  %1 = mpt.transpose %0 [0, 2, 1] : tensor<4x8x2xf16> -> tensor<4x2x8xf16>
  return %1 : tensor<4x2x8xf16>
}

// -----

// The composition order matters: inner = [0, 2, 1], outer = [1, 2, 0] -> [2, 1, 0].
// CHECK-LABEL: func @transpose_transpose_order
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK-NEXT: %[[T:.*]] = mpt.transpose %[[X]] [2, 1, 0] : tensor<2x4x8xf32> -> tensor<8x4x2xf32>
// CHECK-NEXT: return %[[T]] : tensor<8x4x2xf32>
func.func @transpose_transpose_order(%x: tensor<2x4x8xf32>) -> tensor<8x4x2xf32> {
  %0 = mpt.transpose %x [0, 2, 1] : tensor<2x4x8xf32> -> tensor<2x8x4xf32>
  %1 = mpt.transpose %0 [1, 2, 0] : tensor<2x8x4xf32> -> tensor<8x4x2xf32>
  return %1 : tensor<8x4x2xf32>
}

// -----

// A permutation followed by its inverse folds away.
// CHECK-LABEL: func @transpose_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK-NOT: mpt.transpose
// CHECK: return %[[X]] : tensor<2x4x8xf32>
func.func @transpose_inverse(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = mpt.transpose %x [1, 2, 0] : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %1 = mpt.transpose %0 [2, 0, 1] : tensor<4x8x2xf32> -> tensor<2x4x8xf32>
  return %1 : tensor<2x4x8xf32>
}

// -----

// Three transposes that compose to the identity fold away.
// CHECK-LABEL: func @transpose_cycle
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK-NOT: mpt.transpose
// CHECK: return %[[X]] : tensor<2x4x8xf32>
func.func @transpose_cycle(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = mpt.transpose %x [1, 2, 0] : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %1 = mpt.transpose %0 [1, 2, 0] : tensor<4x8x2xf32> -> tensor<8x2x4xf32>
  %2 = mpt.transpose %1 [1, 2, 0] : tensor<8x2x4xf32> -> tensor<2x4x8xf32>
  return %2 : tensor<2x4x8xf32>
}

// -----

// The inner transpose has another use: it stays, and the outer one is rewritten
// against the original input.
// CHECK-LABEL: func @transpose_transpose_multi_use
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK-DAG: %[[INNER:.*]] = mpt.transpose %[[X]] [1, 2, 0] : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
// CHECK-DAG: %[[OUTER:.*]] = mpt.transpose %[[X]] [1, 0, 2] : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
// CHECK: return %[[INNER]], %[[OUTER]] : tensor<4x8x2xf32>, tensor<4x2x8xf32>
func.func @transpose_transpose_multi_use(%x: tensor<2x4x8xf32>) -> (tensor<4x8x2xf32>, tensor<4x2x8xf32>) {
  %0 = mpt.transpose %x [1, 2, 0] : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %1 = mpt.transpose %0 [0, 2, 1] : tensor<4x8x2xf32> -> tensor<4x2x8xf32>
  return %0, %1 : tensor<4x8x2xf32>, tensor<4x2x8xf32>
}

// -----

// Negative: a transpose of a non-transpose stays.
// CHECK-LABEL: func @transpose_no_fold
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = mpt.reshape %[[X]] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[T:.*]] = mpt.transpose %[[R]] [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[T]] : tensor<4x8xf32>
func.func @transpose_no_fold(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.reshape %x : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = mpt.transpose %0 [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// reduce_sum
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @reduce_sum_no_dims
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: mpt.reduce_sum
// CHECK: return %[[X]] : tensor<4x8xf32>
func.func @reduce_sum_no_dims(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.reduce_sum %x [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func @reduce_sum_no_dims_keep_dims
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>)
// CHECK-NOT: mpt.reduce_sum
// CHECK: return %[[X]] : tensor<4x8xbf16>
func.func @reduce_sum_no_dims_keep_dims(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = mpt.reduce_sum %x [] {keep_dims} : tensor<4x8xbf16> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// Negative: with no dims but an f32 result from f16, the op is a cast; it stays.
// CHECK-LABEL: func @reduce_sum_no_dims_widening
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>)
// CHECK-NEXT: %[[S:.*]] = mpt.reduce_sum %[[X]] [] : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[S]] : tensor<4x8xf32>
func.func @reduce_sum_no_dims_widening(%x: tensor<4x8xf16>) -> tensor<4x8xf32> {
  %0 = mpt.reduce_sum %x [] : tensor<4x8xf16> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Negative: a real reduction stays.
// CHECK-LABEL: func @reduce_sum_no_fold
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[S:.*]] = mpt.reduce_sum %[[X]] [0] : tensor<4x8xf32> -> tensor<8xf32>
// CHECK-NEXT: %[[K:.*]] = mpt.reduce_sum %[[X]] [1] {keep_dims} : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: return %[[S]], %[[K]] : tensor<8xf32>, tensor<4x1xf32>
func.func @reduce_sum_no_fold(%x: tensor<4x8xf32>) -> (tensor<8xf32>, tensor<4x1xf32>) {
  %0 = mpt.reduce_sum %x [0] : tensor<4x8xf32> -> tensor<8xf32>
  %1 = mpt.reduce_sum %x [1] {keep_dims} : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0, %1 : tensor<8xf32>, tensor<4x1xf32>
}
