// RUN: mpt-opt %s --fuse-elementwise-around-cpu-kernels --split-input-file | FileCheck %s
// RUN: mpt-opt %s --linalg-fuse-elementwise-ops --split-input-file | FileCheck %s --check-prefix=UPSTREAM

#id = affine_map<(d0, d1) -> (d0, d1)>

// Two elementwise generics still fuse into one.

// CHECK-LABEL: func.func @elementwise_chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[FUSED:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[FUSED]]
func.func @elementwise_chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %empty = tensor.empty() : tensor<4x8xf32>
  %square = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%square, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %sum : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The cast producing a matmul operand and the reshape of its result stay
// outside: the matmul remains a named op for the BLAS kernel. Upstream
// generalizes it and fuses the cast in.

// CHECK-LABEL: func.func @matmul_between_cast_and_reshape
// CHECK: %[[WIDE:.*]] = linalg.generic
// CHECK: arith.extf
// CHECK: %[[PRODUCT:.*]] = linalg.matmul ins(%[[WIDE]], %{{.*}} : tensor<4x8xf32>, tensor<8x6xf32>)
// CHECK: tensor.expand_shape %[[PRODUCT]]
// UPSTREAM-LABEL: func.func @matmul_between_cast_and_reshape
// UPSTREAM-NOT: linalg.matmul
// UPSTREAM: linalg.generic
// UPSTREAM-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
func.func @matmul_between_cast_and_reshape(%x: tensor<4x8xf16>, %w: tensor<8x6xf32>) -> tensor<2x2x6xf32> {
  %empty = tensor.empty() : tensor<4x8xf32>
  %wide = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf16>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%a: f16, %out: f32):
    %e = arith.extf %a : f16 to f32
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x6xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4x6xf32>) -> tensor<4x6xf32>
  %product = linalg.matmul ins(%wide, %w : tensor<4x8xf32>, tensor<8x6xf32>) outs(%acc : tensor<4x6xf32>) -> tensor<4x6xf32>
  %split = tensor.expand_shape %product [[0, 1], [2]] output_shape [2, 2, 6] : tensor<4x6xf32> into tensor<2x2x6xf32>
  return %split : tensor<2x2x6xf32>
}
