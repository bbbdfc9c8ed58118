// Autocast around regions and scalars.
// RUN: mpt-opt %s --mpt-autocast --split-input-file | FileCheck %s
// RUN: mpt-opt %s --mpt-autocast=follow-ops=mpt.softmax_cross_entropy --split-input-file | FileCheck %s --check-prefix=FOLLOW

// A reader inside a region sees the type the value was written with.
// CHECK-LABEL: func @region_reader
// CHECK: %[[M:.*]] = mpt.matmul {{.*}} -> tensor<4x8xf16>
// CHECK-NEXT: %[[M32:.*]] = arith.extf %[[M]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK: scf.if
// CHECK-NEXT: scf.yield %[[M32]] : tensor<4x8xf32>
func.func @region_reader(%p: i1, %a: tensor<4x2xf32>, %b: tensor<2x8xf32>,
                         %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = mpt.matmul %a, %b : tensor<4x2xf32>, tensor<2x8xf32> -> tensor<4x8xf32>
  %r = scf.if %p -> tensor<4x8xf32> {
    scf.yield %m : tensor<4x8xf32>
  } else {
    scf.yield %x : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// Moving the loss to the follow class keeps its f32 scalar result valid.
// FOLLOW-LABEL: func @loss_follows
// FOLLOW: %[[O:.*]] = mpt.matmul {{.*}} -> tensor<2x4xf16>
// FOLLOW: mpt.softmax_cross_entropy %[[O]], %arg2 : tensor<2x4xf16>, tensor<2xi32>
// CHECK-LABEL: func @loss_follows
// CHECK: %[[O:.*]] = mpt.matmul {{.*}} -> tensor<2x4xf16>
// CHECK: %[[O32:.*]] = arith.extf %[[O]]
// CHECK: mpt.softmax_cross_entropy %[[O32]], %arg2 : tensor<2x4xf32>, tensor<2xi32>
func.func @loss_follows(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>, %y: tensor<2xi32>) -> tensor<f32> {
  %o = mpt.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o, %y : tensor<2x4xf32>, tensor<2xi32>
  return %loss : tensor<f32>
}

// -----

// A slice keeps the precision of what it slices, and so does the insert into
// zeros that is a slice's gradient; a concatenation promotes, as PyTorch's
// autocast does cat: f16 with f16 stays f16, f16 with f32 joins in f32
// instead of rounding the f32 operand.
// CHECK-LABEL: func @slices_and_concat
// CHECK:      %[[M:.*]] = mpt.matmul {{.*}} -> tensor<4x8xf16>
// CHECK-NEXT: %[[M32:.*]] = arith.extf %[[M]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.extract_slice %[[M]][0, 0] [4, 4] [1, 1] : tensor<4x8xf16> to tensor<4x4xf16>
// CHECK:      %[[Z:.*]] = arith.truncf %{{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK:      tensor.insert_slice %[[S]] into %[[Z]][0, 4] [4, 4] [1, 1] : tensor<4x4xf16> into tensor<4x8xf16>
// CHECK:      tensor.concat dim(1) %[[M]], %[[S]] : (tensor<4x8xf16>, tensor<4x4xf16>) -> tensor<4x12xf16>
// CHECK:      tensor.concat dim(1) %[[M32]], %arg2 : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x11xf32>
func.func @slices_and_concat(%a: tensor<4x2xf32>, %b: tensor<2x8xf32>, %x: tensor<4x3xf32>)
    -> (tensor<4x8xf32>, tensor<4x12xf32>, tensor<4x11xf32>) {
  %m = mpt.matmul %a, %b : tensor<4x2xf32>, tensor<2x8xf32> -> tensor<4x8xf32>
  %s = tensor.extract_slice %m[0, 0] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  %zeros = arith.constant dense<0.0> : tensor<4x8xf32>
  %i = tensor.insert_slice %s into %zeros[0, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x8xf32>
  %low = tensor.concat dim(1) %m, %s : (tensor<4x8xf32>, tensor<4x4xf32>) -> tensor<4x12xf32>
  %mixed = tensor.concat dim(1) %m, %x : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x11xf32>
  return %i, %low, %mixed : tensor<4x8xf32>, tensor<4x12xf32>, tensor<4x11xf32>
}
