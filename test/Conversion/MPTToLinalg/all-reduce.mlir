// RUN: mpt-opt %s --mpt-convert-to-linalg --split-input-file | FileCheck %s

// A bucket becomes one vector per element type, in operand order: one
// collective per type. Each tensor is a free reshape of its slice, so a
// tensor whose operand order would be swapped lands at another offset.
// CHECK-LABEL: func.func @bucket
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf16>, %[[B:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<5xf16>, %[[D:.*]]: tensor<f32>)
// CHECK-DAG: %[[FA:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1]] : tensor<2x3xf16> into tensor<6xf16>
// CHECK-DAG: %[[E16:.*]] = tensor.empty() : tensor<11xf16>
// CHECK: %[[P1:.*]] = tensor.insert_slice %[[FA]] into %[[E16]][0] [6] [1]
// CHECK: %[[P2:.*]] = tensor.insert_slice %[[C]] into %[[P1]][6] [5] [1]
// CHECK: %[[R16:.*]] = mpt.all_reduce sum %[[P2]] : tensor<11xf16>
// CHECK: %[[SA:.*]] = tensor.extract_slice %[[R16]][0] [6] [1]
// CHECK: %[[RA:.*]] = tensor.expand_shape %[[SA]] {{\[}}[0, 1]] output_shape [2, 3]
// CHECK: %[[RC:.*]] = tensor.extract_slice %[[R16]][6] [5] [1]
// CHECK-DAG: %[[FD:.*]] = tensor.expand_shape %[[D]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK-DAG: %[[E32:.*]] = tensor.empty() : tensor<5xf32>
// CHECK: %[[Q1:.*]] = tensor.insert_slice %[[B]] into %[[E32]][0] [4] [1]
// CHECK: %[[Q2:.*]] = tensor.insert_slice %[[FD]] into %[[Q1]][4] [1] [1]
// CHECK: %[[R32:.*]] = mpt.all_reduce sum %[[Q2]] : tensor<5xf32>
// CHECK: %[[RB:.*]] = tensor.extract_slice %[[R32]][0] [4] [1]
// CHECK: %[[SD:.*]] = tensor.extract_slice %[[R32]][4] [1] [1]
// CHECK: %[[RD:.*]] = tensor.collapse_shape %[[SD]] [] : tensor<1xf32> into tensor<f32>
// CHECK: return %[[RA]], %[[RB]], %[[RC]], %[[RD]]
func.func @bucket(%a: tensor<2x3xf16>, %b: tensor<4xf32>, %c: tensor<5xf16>, %d: tensor<f32>)
    -> (tensor<2x3xf16>, tensor<4xf32>, tensor<5xf16>, tensor<f32>) {
  %0:4 = mpt.all_reduce sum %a, %b, %c, %d : tensor<2x3xf16>, tensor<4xf32>, tensor<5xf16>, tensor<f32>
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x3xf16>, tensor<4xf32>, tensor<5xf16>, tensor<f32>
}

// -----

// One tensor of its type is reduced where it is, reshaped, not copied; a
// vector is left as it is.
// CHECK-LABEL: func.func @single
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xbf16>, %[[V:.*]]: tensor<7xf32>)
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[X]]
// CHECK: %[[R:.*]] = mpt.all_reduce max %[[F]] : tensor<12xbf16>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[R]] {{\[}}[0, 1]] output_shape [3, 4]
// CHECK: %[[RV:.*]] = mpt.all_reduce sum %[[V]] : tensor<7xf32>
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[E]], %[[RV]]
func.func @single(%x: tensor<3x4xbf16>, %v: tensor<7xf32>) -> (tensor<3x4xbf16>, tensor<7xf32>) {
  %0 = mpt.all_reduce max %x : tensor<3x4xbf16>
  %1 = mpt.all_reduce sum %v : tensor<7xf32>
  return %0, %1 : tensor<3x4xbf16>, tensor<7xf32>
}
