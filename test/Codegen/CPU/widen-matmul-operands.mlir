// RUN: mpt-opt %s --mpt-widen-matmul-operands --split-input-file | FileCheck %s
// RUN: mpt-opt %s --mpt-widen-matmul-operands --mpt-fuse-elementwise --split-input-file \
// RUN:   | FileCheck %s --check-prefix=FUSED
// RUN: mpt-opt %s --mpt-widen-matmul-operands="f16=false bf16=true" --split-input-file \
// RUN:   | FileCheck %s --check-prefix=BF16

// A weight read by two products (as in the forward and the input gradient,
// transposed there) is widened once, right after its definition (for an
// argument, at the start of the function, where each widening made goes
// before the earlier ones); the maps of both products stay.

// CHECK-LABEL: func.func @shared_weight
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>, %[[W:.*]]: tensor<8x6xf16>, %[[DY:.*]]: tensor<4x6xf16>
// CHECK: %[[DY32:.*]] = linalg.generic {{.*}} ins(%[[DY]] : tensor<4x6xf16>) outs(%{{.*}} : tensor<4x6xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f32):
// CHECK-NEXT: %[[E:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: linalg.yield %[[E]] : f32
// CHECK: %[[W32:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<8x6xf16>) outs(%{{.*}} : tensor<8x6xf32>)
// CHECK: %[[X32:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: linalg.matmul ins(%[[X32]], %[[W32]] : tensor<4x8xf32>, tensor<8x6xf32>)
// CHECK: linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%[[DY32]], %[[W32]] : tensor<4x6xf32>, tensor<8x6xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @shared_weight(%x: tensor<4x8xf16>, %w: tensor<8x6xf16>, %dy: tensor<4x6xf16>,
                         %acc: tensor<4x6xf32>, %dacc: tensor<4x8xf32>) -> (tensor<4x6xf32>, tensor<4x8xf32>) {
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf16>, tensor<8x6xf16>) outs(%acc : tensor<4x6xf32>) -> tensor<4x6xf32>
  %dx = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%dy, %w : tensor<4x6xf16>, tensor<8x6xf16>) outs(%dacc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y, %dx : tensor<4x6xf32>, tensor<4x8xf32>
}

// -----

// An activation computed in f32 and rounded to f16 for the product only: the
// widening fuses into the op that rounds it, which then writes the rounded
// values as f32 (truncf, then extf) for sgemm. batch_matmul too.

// CHECK-LABEL: func.func @rounded_activation
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<2x8x6xf32>)
// FUSED-LABEL: func.func @rounded_activation
// FUSED: %[[H:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x4x8xf32>)
// FUSED-NEXT: ^bb0
// FUSED-NEXT: arith.truncf %{{.*}} : f32 to f16
// FUSED-NEXT: arith.extf %{{.*}} : f16 to f32
// FUSED: } -> tensor<2x4x8xf32>
// FUSED: linalg.batch_matmul ins(%[[H]], %{{.*}} : tensor<2x4x8xf32>, tensor<2x8x6xf32>)
#id3 = affine_map<(b, i, j) -> (b, i, j)>
func.func @rounded_activation(%h: tensor<2x4x8xf32>, %w: tensor<2x8x6xf16>, %acc: tensor<2x4x6xf32>) -> tensor<2x4x6xf32> {
  %empty = tensor.empty() : tensor<2x4x8xf16>
  %half = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h : tensor<2x4x8xf32>) outs(%empty : tensor<2x4x8xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x4x8xf16>
  %y = linalg.batch_matmul ins(%half, %w : tensor<2x4x8xf16>, tensor<2x8x6xf16>) outs(%acc : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  return %y : tensor<2x4x6xf32>
}

// -----

// The first product that reads the weight is inside a region: the widening
// still goes where the weight is defined, so that it dominates the product
// after the region too.

// CHECK-LABEL: func.func @product_in_region
// CHECK-SAME: (%{{.*}}: i1, %[[X:.*]]: tensor<4x8xf16>, %[[W:.*]]: tensor<8x6xf16>
// CHECK: %[[W32:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<8x6xf16>)
// CHECK: %[[X32:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf16>)
// CHECK: scf.if
// CHECK: linalg.matmul ins(%[[X32]], %[[W32]] : tensor<4x8xf32>, tensor<8x6xf32>)
// CHECK: linalg.matmul ins(%[[X32]], %[[W32]] : tensor<4x8xf32>, tensor<8x6xf32>)
func.func @product_in_region(%c: i1, %x: tensor<4x8xf16>, %w: tensor<8x6xf16>, %acc: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %r = scf.if %c -> tensor<4x6xf32> {
    %y = linalg.matmul ins(%x, %w : tensor<4x8xf16>, tensor<8x6xf16>) outs(%acc : tensor<4x6xf32>) -> tensor<4x6xf32>
    scf.yield %y : tensor<4x6xf32>
  } else {
    scf.yield %acc : tensor<4x6xf32>
  }
  %z = linalg.matmul ins(%x, %w : tensor<4x8xf16>, tensor<8x6xf16>) outs(%r : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %z : tensor<4x6xf32>
}

// -----

// Left alone: bf16 (by default: the runtime has a bf16 kernel for CPUs with
// AVX512-BF16), an f16 accumulator, mixed input types, and products on
// memrefs. Asked to, the pass widens bf16 and leaves f16.

// BF16-LABEL: func.func @left_alone
// BF16-DAG: %[[B1:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xbf16>) outs(%{{.*}} : tensor<4x8xf32>)
// BF16-DAG: %[[B2:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8x6xbf16>) outs(%{{.*}} : tensor<8x6xf32>)
// BF16: linalg.matmul ins(%[[B1]], %[[B2]] : tensor<4x8xf32>, tensor<8x6xf32>)
// BF16-NOT: linalg.generic
// BF16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x6xf16>) outs(%{{.*}} : tensor<4x6xf16>)
// BF16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x6xf32>)
// BF16: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf16>, memref<8x6xf16>)

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: linalg.generic
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x6xbf16>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x6xf16>) outs(%{{.*}} : tensor<4x6xf16>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x6xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf16>, memref<8x6xf16>)
func.func @left_alone(%b1: tensor<4x8xbf16>, %b2: tensor<8x6xbf16>, %h1: tensor<4x8xf16>, %h2: tensor<8x6xf16>,
                      %f: tensor<8x6xf32>, %acc: tensor<4x6xf32>, %hacc: tensor<4x6xf16>,
                      %m1: memref<4x8xf16>, %m2: memref<8x6xf16>, %macc: memref<4x6xf32>)
    -> (tensor<4x6xf32>, tensor<4x6xf16>, tensor<4x6xf32>) {
  %0 = linalg.matmul ins(%b1, %b2 : tensor<4x8xbf16>, tensor<8x6xbf16>) outs(%acc : tensor<4x6xf32>) -> tensor<4x6xf32>
  %1 = linalg.matmul ins(%h1, %h2 : tensor<4x8xf16>, tensor<8x6xf16>) outs(%hacc : tensor<4x6xf16>) -> tensor<4x6xf16>
  %2 = linalg.matmul ins(%h1, %f : tensor<4x8xf16>, tensor<8x6xf32>) outs(%acc : tensor<4x6xf32>) -> tensor<4x6xf32>
  linalg.matmul ins(%m1, %m2 : memref<4x8xf16>, memref<8x6xf16>) outs(%macc : memref<4x6xf32>)
  return %0, %1, %2 : tensor<4x6xf32>, tensor<4x6xf16>, tensor<4x6xf32>
}
