// RUN: mpt-opt %s --mpt-convert-linalg-to-cpu-kernels --split-input-file | FileCheck %s

// A matmul on memrefs becomes a call to the f32 kernel: operands cast to
// fully dynamic strided memrefs, then transpose_a, transpose_b and accumulate
// (1: the product adds to C, which holds what the caller put there).

// CHECK-LABEL: func.func private @mpt_cpu_matmul_f32_2d(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64)
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @matmul_f32
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x16xf32>, %[[C:.*]]: memref<4x16xf32>)
// CHECK-DAG: %[[NO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[YES:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[CA:.*]] = memref.cast %[[A]] : memref<4x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-DAG: %[[CB:.*]] = memref.cast %[[B]] : memref<8x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-DAG: %[[CC:.*]] = memref.cast %[[C]] : memref<4x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: call @mpt_cpu_matmul_f32_2d(%[[CA]], %[[CB]], %[[CC]], %[[NO]], %[[NO]], %[[YES]])
// CHECK-NOT: linalg.matmul
func.func @matmul_f32(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A transposed lhs comes from the indexing map (k, m).

// CHECK-LABEL: func.func private @mpt_cpu_matmul_f16_2d(memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64)
// CHECK-LABEL: func.func @matmul_f16_transposed_a
// CHECK-DAG: %[[NO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[YES:.*]] = arith.constant 1 : i64
// CHECK: call @mpt_cpu_matmul_f16_2d(%{{.*}}, %{{.*}}, %{{.*}}, %[[YES]], %[[NO]], %[[YES]])
// CHECK-NOT: linalg.matmul
func.func @matmul_f16_transposed_a(%a: memref<8x4xf16>, %b: memref<8x16xf16>, %c: memref<4x16xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<8x4xf16>, memref<8x16xf16>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A transposed rhs, on a strided view: the kernel reads the strides from the
// descriptor.

// CHECK-LABEL: func.func @matmul_bf16_transposed_b_strided
// CHECK-DAG: %[[NO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[YES:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[CB:.*]] = memref.cast %{{.*}} : memref<16x8xbf16, strided<[32, 2], offset: 1>> to memref<?x?xbf16, strided<[?, ?], offset: ?>>
// CHECK: call @mpt_cpu_matmul_bf16_2d(%{{.*}}, %[[CB]], %{{.*}}, %[[NO]], %[[YES]], %[[YES]])
// CHECK-NOT: linalg.matmul
func.func @matmul_bf16_transposed_b_strided(%a: memref<4x8xbf16>, %b: memref<16x32xbf16>, %c: memref<4x16xf32>) {
  %view = memref.subview %b[0, 1] [16, 8] [1, 2]
      : memref<16x32xbf16> to memref<16x8xbf16, strided<[32, 2], offset: 1>>
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %view : memref<4x8xbf16>, memref<16x8xbf16, strided<[32, 2], offset: 1>>)
      outs(%c : memref<4x16xf32>)
  return
}

// -----

// batch_matmul calls the 3-d kernel.

// CHECK-LABEL: func.func private @mpt_cpu_matmul_f32_3d(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i64, i64, i64)
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @batch_matmul_f32
// CHECK-DAG: %[[NO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[YES:.*]] = arith.constant 1 : i64
// CHECK: call @mpt_cpu_matmul_f32_3d(%{{.*}}, %{{.*}}, %{{.*}}, %[[NO]], %[[NO]], %[[YES]])
// CHECK-NOT: linalg.batch_matmul
func.func @batch_matmul_f32(%a: memref<2x4x8xf32>, %b: memref<2x8x16xf32>, %c: memref<2x4x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x4x8xf32>, memref<2x8x16xf32>) outs(%c : memref<2x4x16xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @batch_matmul_f16_transposed_both
// CHECK-DAG: %[[YES:.*]] = arith.constant 1 : i64
// CHECK: call @mpt_cpu_matmul_f16_3d(%{{.*}}, %{{.*}}, %{{.*}}, %[[YES]], %[[YES]], %[[YES]])
// CHECK-NOT: linalg.batch_matmul
func.func @batch_matmul_f16_transposed_both(%a: memref<2x8x4xf16>, %b: memref<2x16x8xf16>, %c: memref<2x4x16xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(bt, m, n, k) -> (bt, k, m)>,
                                       affine_map<(bt, m, n, k) -> (bt, n, k)>,
                                       affine_map<(bt, m, n, k) -> (bt, m, n)>]
      ins(%a, %b : memref<2x8x4xf16>, memref<2x16x8xf16>) outs(%c : memref<2x4x16xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @batch_matmul_bf16_transposed_b
// CHECK-DAG: %[[NO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[YES:.*]] = arith.constant 1 : i64
// CHECK: call @mpt_cpu_matmul_bf16_3d(%{{.*}}, %{{.*}}, %{{.*}}, %[[NO]], %[[YES]], %[[YES]])
func.func @batch_matmul_bf16_transposed_b(%a: memref<2x4x8xbf16>, %b: memref<2x16x8xbf16>, %c: memref<2x4x16xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(bt, m, n, k) -> (bt, m, k)>,
                                       affine_map<(bt, m, n, k) -> (bt, n, k)>,
                                       affine_map<(bt, m, n, k) -> (bt, m, n)>]
      ins(%a, %b : memref<2x4x8xbf16>, memref<2x16x8xbf16>) outs(%c : memref<2x4x16xf32>)
  return
}

// -----

// A convolution passes its strides and dilations, (h, w) each, then
// accumulate.

// CHECK-LABEL: func.func private @mpt_cpu_conv2d_f32(memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64)
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @conv_f32
// CHECK-SAME: (%[[X:.*]]: memref<2x3x9x9xf32>, %[[W:.*]]: memref<4x3x3x3xf32>, %[[Y:.*]]: memref<2x4x3x5xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[CX:.*]] = memref.cast %[[X]] : memref<2x3x9x9xf32> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK-DAG: %[[CW:.*]] = memref.cast %[[W]] : memref<4x3x3x3xf32> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK-DAG: %[[CY:.*]] = memref.cast %[[Y]] : memref<2x4x3x5xf32> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: call @mpt_cpu_conv2d_f32(%[[CX]], %[[CW]], %[[CY]], %[[THREE]], %[[ONE]], %[[ONE]], %[[TWO]], %[[ONE]])
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv_f32(%x: memref<2x3x9x9xf32>, %w: memref<4x3x3x3xf32>, %y: memref<2x4x3x5xf32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<[3, 1]> : tensor<2xi64>, dilations = dense<[1, 2]> : tensor<2xi64>}
      ins(%x, %w : memref<2x3x9x9xf32>, memref<4x3x3x3xf32>) outs(%y : memref<2x4x3x5xf32>)
  return
}

// -----

// f16 and bf16 inputs, accumulating in f32; convolutions of one type share a
// declaration, and a strided view travels with its strides.

// CHECK: module {
// CHECK-DAG: func.func private @mpt_cpu_conv2d_bf16(memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @mpt_cpu_conv2d_f16(memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-NOT: func.func private
// CHECK: func.func @conv_f16_bf16
// CHECK: %[[CX:.*]] = memref.cast %{{.*}} : memref<1x2x5x5xf16, strided<[100, 25, 5, 1], offset: 50>> to memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: call @mpt_cpu_conv2d_f16(%[[CX]],
// CHECK: call @mpt_cpu_conv2d_f16(
// CHECK: call @mpt_cpu_conv2d_bf16(
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv_f16_bf16(%x: memref<1x4x5x5xf16>, %w: memref<3x2x3x3xf16>, %y: memref<1x3x3x3xf32>,
                         %xb: memref<1x2x5x5xbf16>, %wb: memref<3x2x3x3xbf16>) {
  %view = memref.subview %x[0, 2, 0, 0] [1, 2, 5, 5] [1, 1, 1, 1]
      : memref<1x4x5x5xf16> to memref<1x2x5x5xf16, strided<[100, 25, 5, 1], offset: 50>>
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%view, %w : memref<1x2x5x5xf16, strided<[100, 25, 5, 1], offset: 50>>, memref<3x2x3x3xf16>)
      outs(%y : memref<1x3x3x3xf32>)
  %first = memref.subview %x[0, 0, 0, 0] [1, 2, 5, 5] [1, 1, 1, 1]
      : memref<1x4x5x5xf16> to memref<1x2x5x5xf16, strided<[100, 25, 5, 1]>>
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%first, %w : memref<1x2x5x5xf16, strided<[100, 25, 5, 1]>>, memref<3x2x3x3xf16>)
      outs(%y : memref<1x3x3x3xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%xb, %wb : memref<1x2x5x5xbf16>, memref<3x2x3x3xbf16>)
      outs(%y : memref<1x3x3x3xf32>)
  return
}

// -----

// A zero fill of all of C just before: the kernel writes C (accumulate 0,
// sgemm's beta 0) and the fill goes. Reshapes and casts of C between them
// read nothing; the 3-d product fills through a collapsed view.

// CHECK-LABEL: func.func @matmuls_after_zero_fills
// CHECK-DAG: %[[NO:.*]] = arith.constant 0 : i64
// CHECK-NOT: linalg.fill
// CHECK: call @mpt_cpu_matmul_f16_2d(%{{.*}}, %{{.*}}, %{{.*}}, %[[NO]], %[[NO]], %[[NO]])
// CHECK-NOT: linalg.fill
// CHECK: call @mpt_cpu_matmul_f32_3d(%{{.*}}, %{{.*}}, %{{.*}}, %[[NO]], %[[NO]], %[[NO]])
// CHECK-NOT: linalg.fill
func.func @matmuls_after_zero_fills(%a: memref<4x8xf16>, %b: memref<8x16xf16>, %c: memref<4x16xf32>,
                                    %a3: memref<2x4x8xf32>, %b3: memref<2x8x16xf32>) -> memref<2x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x16xf16>) outs(%c : memref<4x16xf32>)
  %c3 = memref.alloc() : memref<2x4x16xf32>
  %flat = memref.collapse_shape %c3 [[0, 1], [2]] : memref<2x4x16xf32> into memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%flat : memref<8x16xf32>)
  linalg.batch_matmul ins(%a3, %b3 : memref<2x4x8xf32>, memref<2x8x16xf32>) outs(%c3 : memref<2x4x16xf32>)
  return %c3 : memref<2x4x16xf32>
}

// -----

// The convolution too; a fill of -0.0, the sum's exact identity, counts as
// zero like the examples' +0.0.

// CHECK-LABEL: func.func @conv_after_zero_fill
// CHECK-DAG: %[[NO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NOT: linalg.fill
// CHECK: call @mpt_cpu_conv2d_bf16(%{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[NO]])
// CHECK-NOT: linalg.fill
func.func @conv_after_zero_fill(%x: memref<1x2x5x5xbf16>, %w: memref<3x2x3x3xbf16>, %y: memref<1x3x3x3xf32>) {
  %zero = arith.constant -0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x3x3x3xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x2x5x5xbf16>, memref<3x2x3x3xbf16>) outs(%y : memref<1x3x3x3xf32>)
  return
}

// -----

// The kernel still adds to C, and the fill stays, when C is read between the
// fill and the product, when the fill writes another value, when it fills
// only part of C's buffer, and when the product writes only part of it.

// CHECK-LABEL: func.func @read_between
// CHECK-DAG: %[[YES:.*]] = arith.constant 1 : i64
// CHECK: linalg.fill
// CHECK: memref.copy
// CHECK: call @mpt_cpu_matmul_f32_2d(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[YES]])
func.func @read_between(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>, %copy: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  memref.copy %c, %copy : memref<4x4xf32> to memref<4x4xf32>
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK-LABEL: func.func @fill_with_one
// CHECK-DAG: %[[YES:.*]] = arith.constant 1 : i64
// CHECK: linalg.fill
// CHECK: call @mpt_cpu_matmul_f32_2d(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[YES]])
func.func @fill_with_one(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK-LABEL: func.func @partial_fill_and_partial_product
// CHECK-DAG: %[[YES:.*]] = arith.constant 1 : i64
// CHECK: linalg.fill
// CHECK: call @mpt_cpu_matmul_f32_2d(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[YES]])
// CHECK: linalg.fill
// CHECK: call @mpt_cpu_matmul_f32_2d(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[YES]])
func.func @partial_fill_and_partial_product(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %top = memref.subview %c[0, 0] [4, 4] [1, 1] : memref<8x4xf32> to memref<4x4xf32, strided<[4, 1]>>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%top : memref<4x4xf32, strided<[4, 1]>>)
  linalg.fill ins(%zero : f32) outs(%top : memref<4x4xf32, strided<[4, 1]>>)
  %bottom = memref.subview %c[4, 0] [4, 4] [1, 1] : memref<8x4xf32> to memref<4x4xf32, strided<[4, 1], offset: 16>>
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%bottom : memref<4x4xf32, strided<[4, 1], offset: 16>>)
  return
}

// -----

// Negative cases: what the kernels do not compute stays linalg.

// Integer products.
// CHECK-LABEL: func.func @matmul_i32
// CHECK-NOT: call
// CHECK: linalg.matmul
func.func @matmul_i32(%a: memref<4x8xi32>, %b: memref<8x16xi32>, %c: memref<4x16xi32>) {
  linalg.matmul ins(%a, %b : memref<4x8xi32>, memref<8x16xi32>) outs(%c : memref<4x16xi32>)
  return
}

// -----

// An f16 accumulator: the kernels accumulate in f32 only.
// CHECK-LABEL: func.func @matmul_f16_accumulator
// CHECK-NOT: call
// CHECK: linalg.matmul
func.func @matmul_f16_accumulator(%a: memref<4x8xf16>, %b: memref<8x16xf16>, %c: memref<4x16xf16>) {
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x16xf16>) outs(%c : memref<4x16xf16>)
  return
}

// -----

// Inputs of different types.
// CHECK-LABEL: func.func @matmul_mixed_inputs
// CHECK-NOT: call
// CHECK: linalg.matmul
func.func @matmul_mixed_inputs(%a: memref<4x8xf16>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A broadcast lhs: neither (m, k) nor (k, m).
// CHECK-LABEL: func.func @matmul_broadcast_a
// CHECK-NOT: call
// CHECK: linalg.matmul
func.func @matmul_broadcast_a(%a: memref<8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k)>,
                                 affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A batch broadcast rhs: the 3-d kernel wants a batch dimension on all three.
// CHECK-LABEL: func.func @batch_matmul_broadcast_b
// CHECK-NOT: call
// CHECK: linalg.batch_matmul
func.func @batch_matmul_broadcast_b(%a: memref<2x4x8xf32>, %b: memref<8x16xf32>, %c: memref<2x4x16xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(bt, m, n, k) -> (bt, m, k)>,
                                       affine_map<(bt, m, n, k) -> (k, n)>,
                                       affine_map<(bt, m, n, k) -> (bt, m, n)>]
      ins(%a, %b : memref<2x4x8xf32>, memref<8x16xf32>) outs(%c : memref<2x4x16xf32>)
  return
}

// -----

// Tensor semantics: the kernels write into buffers.
// CHECK-LABEL: func.func @matmul_tensor
// CHECK-NOT: call
// CHECK: linalg.matmul
func.func @matmul_tensor(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @conv_i32
// CHECK-NOT: call
// CHECK: linalg.conv_2d_nchw_fchw
func.func @conv_i32(%x: memref<1x2x5x5xi32>, %w: memref<3x2x3x3xi32>, %y: memref<1x3x3x3xi32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x2x5x5xi32>, memref<3x2x3x3xi32>) outs(%y : memref<1x3x3x3xi32>)
  return
}

// -----

// CHECK-LABEL: func.func @conv_f16_accumulator
// CHECK-NOT: call
// CHECK: linalg.conv_2d_nchw_fchw
func.func @conv_f16_accumulator(%x: memref<1x2x5x5xf16>, %w: memref<3x2x3x3xf16>, %y: memref<1x3x3x3xf16>) {
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x2x5x5xf16>, memref<3x2x3x3xf16>) outs(%y : memref<1x3x3x3xf16>)
  return
}

// -----

// CHECK-LABEL: func.func @conv_mixed_inputs
// CHECK-NOT: call
// CHECK: linalg.conv_2d_nchw_fchw
func.func @conv_mixed_inputs(%x: memref<1x2x5x5xbf16>, %w: memref<3x2x3x3xf32>, %y: memref<1x3x3x3xf32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x2x5x5xbf16>, memref<3x2x3x3xf32>) outs(%y : memref<1x3x3x3xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @conv_tensor
// CHECK-NOT: call
// CHECK: linalg.conv_2d_nchw_fchw
func.func @conv_tensor(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %y: tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32> {
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) outs(%y : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

// -----

// Other convolution layouts have no kernel.
// CHECK-LABEL: func.func @conv_nhwc
// CHECK-NOT: call
// CHECK: linalg.conv_2d_nhwc_hwcf
func.func @conv_nhwc(%x: memref<1x5x5x2xf32>, %w: memref<3x3x2x3xf32>, %y: memref<1x3x3x3xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x5x5x2xf32>, memref<3x3x2x3xf32>) outs(%y : memref<1x3x3x3xf32>)
  return
}

// -----

// A copy into a strided subview (the interior of a padded buffer) becomes
// linalg.copy; a copy between contiguous memrefs stays memref.copy.

// CHECK-LABEL: func.func @copies
// CHECK-SAME: (%[[SRC:.*]]: memref<4x4xf32>, %[[PADDED:.*]]: memref<6x6xf32>, %[[DST:.*]]: memref<4x4xf32>)
// CHECK: %[[INTERIOR:.*]] = memref.subview %[[PADDED]][1, 1] [4, 4] [1, 1]
// CHECK: linalg.copy ins(%[[SRC]] : memref<4x4xf32>) outs(%[[INTERIOR]] : memref<4x4xf32, strided<[6, 1], offset: 7>>)
// CHECK: memref.copy %[[SRC]], %[[DST]] : memref<4x4xf32> to memref<4x4xf32>
func.func @copies(%src: memref<4x4xf32>, %padded: memref<6x6xf32>, %dst: memref<4x4xf32>) {
  %interior = memref.subview %padded[1, 1] [4, 4] [1, 1] : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %src, %interior : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %src, %dst : memref<4x4xf32> to memref<4x4xf32>
  return
}

// -----

// A zeroed f32 product read only by its rounding to f16 or bf16 (a
// convolution's output ahead of batch norm's statistics): the kernel writes it
// rounded (`_to_<type>`, no accumulate argument) into the rounded buffer, which
// is allocated before the call now, and neither the fill, the f32 product nor
// the rounding generic is left. The CPU kernels round f32 inputs too (f16
// steps widen their matmul operands on CPUs without AVX512-FP16).
// CHECK-LABEL: func.func private @mpt_cpu_conv2d_bf16_to_bf16(memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64)
// CHECK-LABEL: func.func @conv_rounded
// CHECK-NOT: linalg.fill
// CHECK-NOT: 2x4x4x4xf32
// CHECK: %[[R:.*]] = memref.alloc() : memref<2x4x4x4xbf16>
// CHECK: %[[RC:.*]] = memref.cast %[[R]] : memref<2x4x4x4xbf16> to memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: call @mpt_cpu_conv2d_bf16_to_bf16(%{{.*}}, %{{.*}}, %[[RC]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) :
// CHECK-NOT: linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[R]] : memref<2x4x4x4xbf16>)
// CHECK-NOT: linalg.generic
func.func @conv_rounded(%in: memref<2x3x9x9xbf16>, %f: memref<4x3x3x3xbf16>, %sums: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<2x4x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<2x4x4x4xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %f : memref<2x3x9x9xbf16>, memref<4x3x3x3xbf16>) outs(%out : memref<2x4x4x4xf32>)
  %rounded = memref.alloc() : memref<2x4x4x4xbf16>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<2x4x4x4xf32>) outs(%rounded : memref<2x4x4x4xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>],
                  iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%rounded : memref<2x4x4x4xbf16>) outs(%sums : memref<4xf32>) {
  ^bb0(%x: bf16, %acc: f32):
    %e = arith.extf %x : bf16 to f32
    %s = arith.addf %acc, %e : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An f32 GEMM (widened f16 operands) whose product is rounded to f16 through
// a reshape into heads, as the transformer's projections are: the kernel
// writes the rounded buffer seen in the product's shape, with the transposes
// and no accumulate argument.
// CHECK-LABEL: func.func @projection_rounded_into_heads
// CHECK-SAME: (%[[A:.*]]: memref<8x4xf32>, %[[B:.*]]: memref<4x6xf32>, %[[HEADS:.*]]: memref<2x4x6xf16>)
// CHECK-DAG: %[[NO:.*]] = arith.constant 0 : i64
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[HEADS]] {{\[}}[0, 1, 2]] : memref<2x4x6xf16> into memref<48xf16>
// CHECK: %[[D:.*]] = memref.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [8, 6] : memref<48xf16> into memref<8x6xf16>
// CHECK: %[[DC:.*]] = memref.cast %[[D]] : memref<8x6xf16> to memref<?x?xf16, strided<[?, ?], offset: ?>>
// CHECK: call @mpt_cpu_matmul_f32_2d_to_f16(%{{.*}}, %{{.*}}, %[[DC]], %[[NO]], %[[NO]]) :
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @projection_rounded_into_heads(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %heads: memref<2x4x6xf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x6xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x6xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c : memref<8x6xf32>)
  %view = memref.expand_shape %c [[0, 1], [2]] output_shape [2, 4, 6] : memref<8x6xf32> into memref<2x4x6xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j, k)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%view : memref<2x4x6xf32>) outs(%heads : memref<2x4x6xf16>) {
  ^bb0(%x: f32, %y: f16):
    %h = arith.truncf %x : f32 to f16
    linalg.yield %h : f16
  }
  return
}

// -----

// The product stays in f32 (accumulate 0), rounded by the generic, when the
// rounding is not to nearest even, or when the product is read again.
// CHECK-LABEL: func.func @rounded_downward
// CHECK: call @mpt_cpu_matmul_f32_2d(
// CHECK: linalg.generic
// CHECK: arith.truncf {{.*}} downward
// CHECK-LABEL: func.func @product_read_again
// CHECK: call @mpt_cpu_matmul_f32_2d(
// CHECK: linalg.generic
// CHECK: memref.copy
#id2 = affine_map<(i, j) -> (i, j)>
func.func @rounded_downward(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %r: memref<4x4xbf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x4xf32>) outs(%r : memref<4x4xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %h = arith.truncf %x downward : f32 to bf16
    linalg.yield %h : bf16
  }
  return
}
func.func @product_read_again(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %r: memref<4x4xf16>, %seen: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x4xf32>) outs(%r : memref<4x4xf16>) {
  ^bb0(%x: f32, %y: f16):
    %h = arith.truncf %x : f32 to f16
    linalg.yield %h : f16
  }
  memref.copy %c, %seen : memref<4x4xf32> to memref<4x4xf32>
  return
}
