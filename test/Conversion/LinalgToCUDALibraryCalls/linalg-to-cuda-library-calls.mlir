// RUN: mpt-opt %s --split-input-file --mpt-convert-linalg-to-cuda-library-calls | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-convert-linalg-to-cuda-library-calls="im2col-only" | FileCheck %s --check-prefix=IM2COL

// A transposed-lhs f16 matmul with an f32 accumulator: one call, operands as
// dynamic strided memrefs, transpose flags (1, 0), and accumulate 1 (C is
// not known to be zero: the GEMM adds to it).
// The entry point is declared once, with a C interface.
// CHECK: func.func private @mpt_cuda_matmul_f16_2d(memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @matmul_ta
// CHECK-SAME: (%[[A:.*]]: memref<64x32xf16>, %[[B:.*]]: memref<64x16xf16>, %[[C:.*]]: memref<32x16xf32>)
// CHECK-DAG: %[[CA:.*]] = memref.cast %[[A]] : memref<64x32xf16> to memref<?x?xf16, strided<[?, ?], offset: ?>>
// CHECK-DAG: %[[CB:.*]] = memref.cast %[[B]]
// CHECK-DAG: %[[CC:.*]] = memref.cast %[[C]]
// CHECK-DAG: %[[T:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 0 : i64
// CHECK: call @mpt_cuda_matmul_f16_2d(%[[CA]], %[[CB]], %[[CC]], %[[T]], %[[N]], %[[T]])
// CHECK-NOT: linalg.matmul
// IM2COL-LABEL: func.func @matmul_ta
// IM2COL: linalg.matmul
func.func @matmul_ta(%a: memref<64x32xf16>, %b: memref<64x16xf16>, %c: memref<32x16xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<64x32xf16>, memref<64x16xf16>) outs(%c : memref<32x16xf32>)
  return
}

// -----

// An accumulator zeroed just before (the products of mpt-convert-to-linalg):
// the GEMM writes C (accumulate 0, cuBLASLt's beta 0) and the fill goes, with
// its kernel. Views made in between do not matter.
// CHECK-LABEL: func.func @matmul_into_zeros
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf16>, %[[B:.*]]: memref<8x16xf16>, %[[C:.*]]: memref<2x2x16xf32>)
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[CC:.*]] = memref.cast %{{.*}} : memref<4x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: call @mpt_cuda_matmul_f16_2d(%{{.*}}, %{{.*}}, %[[CC]], %[[ZERO]], %[[ZERO]], %[[ZERO]])
// CHECK-NOT: linalg.fill
func.func @matmul_into_zeros(%a: memref<4x8xf16>, %b: memref<8x16xf16>, %c: memref<2x2x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2x2x16xf32>)
  %view = memref.collapse_shape %c [[0, 1], [2]] : memref<2x2x16xf32> into memref<4x16xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x16xf16>) outs(%view : memref<4x16xf32>)
  return
}

// -----

// The GEMM still adds to C, and the fill stays, when C is read between the
// fill and the GEMM, when it is filled with another value, and when only
// part of its buffer is filled or multiplied into.
// CHECK-LABEL: func.func @matmul_after_read
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: linalg.fill
// CHECK: memref.copy
// CHECK: call @mpt_cuda_matmul_f16_2d(%{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %[[ZERO]], %[[ONE]])
func.func @matmul_after_read(%a: memref<4x8xf16>, %b: memref<8x4xf16>, %c: memref<4x4xf32>, %seen: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  memref.copy %c, %seen : memref<4x4xf32> to memref<4x4xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x4xf16>) outs(%c : memref<4x4xf32>)
  return
}
// CHECK-LABEL: func.func @matmul_into_ones
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: linalg.fill
// CHECK: call @mpt_cuda_matmul_f16_2d(%{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %[[ZERO]], %[[ONE]])
func.func @matmul_into_ones(%a: memref<4x8xf16>, %b: memref<8x4xf16>, %c: memref<4x4xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x4xf16>) outs(%c : memref<4x4xf32>)
  return
}
// CHECK-LABEL: func.func @matmul_into_part
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: linalg.fill
// CHECK: call @mpt_cuda_matmul_f16_2d(%{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %[[ZERO]], %[[ONE]])
// CHECK: linalg.fill
// CHECK: call @mpt_cuda_matmul_f16_2d(%{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %[[ZERO]], %[[ONE]])
func.func @matmul_into_part(%a: memref<4x8xf16>, %a8: memref<8x8xf16>, %b: memref<8x4xf16>, %c: memref<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %top = memref.subview %c[0, 0] [4, 4] [1, 1] : memref<8x4xf32> to memref<4x4xf32, strided<[4, 1]>>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x4xf16>) outs(%top : memref<4x4xf32, strided<[4, 1]>>)
  linalg.fill ins(%zero : f32) outs(%top : memref<4x4xf32, strided<[4, 1]>>)
  linalg.matmul ins(%a8, %b : memref<8x8xf16>, memref<8x4xf16>) outs(%c : memref<8x4xf32>)
  return
}

// -----

// A zeroed f32 product read only by its rounding to the inputs' type (a
// convolution's output ahead of batch norm's statistics): the GEMM writes it
// rounded, into the rounded buffer seen in the product's shape, and neither
// the fill nor the rounding generic is left. The rounded buffer, allocated
// after the GEMM, is allocated before it now.
// CHECK: func.func private @mpt_cuda_matmul_bf16_3d_rounded(memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @conv_rounded
// CHECK-NOT: linalg.fill
// CHECK: %[[R:.*]] = memref.alloc() : memref<2x4x4x4xbf16>
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[R]] {{\[}}[0, 1, 2, 3]] : memref<2x4x4x4xbf16> into memref<128xbf16>
// CHECK: %[[D:.*]] = memref.expand_shape %[[FLAT]] {{\[}}[0, 1, 2]] output_shape [2, 4, 16] : memref<128xbf16> into memref<2x4x16xbf16>
// CHECK: %[[DC:.*]] = memref.cast %[[D]] : memref<2x4x16xbf16> to memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>
// CHECK: call @mpt_cuda_matmul_bf16_3d_rounded(%{{.*}}, %{{.*}}, %[[DC]], %{{.*}}, %{{.*}}) :
// CHECK-NOT: linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[R]] : memref<2x4x4x4xbf16>)
// CHECK-NOT: linalg.generic
// CHECK-NOT: call @mpt_cuda_matmul_bf16_3d(
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

// A 2-d product rounded into a function argument of the same shape, read
// through a memref.cast: no reshape, the argument itself is D (transposed
// operands keep their flags).
// CHECK-LABEL: func.func @matmul_rounded_into_argument
// CHECK-SAME: (%[[A:.*]]: memref<8x4xf16>, %[[B:.*]]: memref<8x4xf16>, %[[R:.*]]: memref<4x4xf16>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[RC:.*]] = memref.cast %[[R]] : memref<4x4xf16> to memref<?x?xf16, strided<[?, ?], offset: ?>>
// CHECK: call @mpt_cuda_matmul_f16_2d_rounded(%{{.*}}, %{{.*}}, %[[RC]], %[[ONE]], %[[ZERO]])
// CHECK-NEXT: return
func.func @matmul_rounded_into_argument(%a: memref<8x4xf16>, %b: memref<8x4xf16>, %r: memref<4x4xf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<8x4xf16>, memref<8x4xf16>) outs(%c : memref<4x4xf32>)
  %view = memref.cast %c : memref<4x4xf32> to memref<?x4xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%view : memref<?x4xf32>) outs(%r : memref<4x4xf16>) {
  ^bb0(%x: f32, %y: f16):
    %h = arith.truncf %x : f32 to f16
    linalg.yield %h : f16
  }
  return
}

// -----

// The f32 product stays, and the GEMM writes it in f32 (accumulate 0), when
// it is read again after its rounding, when the rounded buffer is read
// between the GEMM and the rounding, when the rounding computes more than a
// truncation (or rounds to another type), when it rounds only part of the
// product, and when the product is the caller's (an argument).
// CHECK-LABEL: func.func @product_read_again
// CHECK: call @mpt_cuda_matmul_f16_2d(
// CHECK: linalg.generic
// CHECK: memref.copy
// CHECK-LABEL: func.func @rounded_buffer_read_between
// CHECK: call @mpt_cuda_matmul_f16_2d(
// CHECK: memref.copy
// CHECK: linalg.generic
// CHECK-LABEL: func.func @scaled_then_rounded
// CHECK: call @mpt_cuda_matmul_f16_2d(
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK-LABEL: func.func @rounded_to_bf16
// CHECK: call @mpt_cuda_matmul_f16_2d(
// CHECK: linalg.generic
// CHECK-LABEL: func.func @part_rounded
// CHECK: call @mpt_cuda_matmul_f16_2d(
// CHECK: linalg.generic
// CHECK-LABEL: func.func @product_is_argument
// CHECK: call @mpt_cuda_matmul_f16_2d(
// CHECK: linalg.generic
#id2 = affine_map<(i, j) -> (i, j)>
func.func @product_read_again(%a: memref<4x8xf16>, %b: memref<8x4xf16>, %r: memref<4x4xf16>, %seen: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x4xf16>) outs(%c : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x4xf32>) outs(%r : memref<4x4xf16>) {
  ^bb0(%x: f32, %y: f16):
    %h = arith.truncf %x : f32 to f16
    linalg.yield %h : f16
  }
  memref.copy %c, %seen : memref<4x4xf32> to memref<4x4xf32>
  return
}
func.func @rounded_buffer_read_between(%a: memref<4x8xf16>, %b: memref<8x4xf16>, %r: memref<4x4xf16>, %seen: memref<4x4xf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x4xf16>) outs(%c : memref<4x4xf32>)
  memref.copy %r, %seen : memref<4x4xf16> to memref<4x4xf16>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x4xf32>) outs(%r : memref<4x4xf16>) {
  ^bb0(%x: f32, %y: f16):
    %h = arith.truncf %x : f32 to f16
    linalg.yield %h : f16
  }
  return
}
func.func @scaled_then_rounded(%a: memref<4x8xf16>, %b: memref<8x4xf16>, %r: memref<4x4xf16>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %c = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x4xf16>) outs(%c : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x4xf32>) outs(%r : memref<4x4xf16>) {
  ^bb0(%x: f32, %y: f16):
    %s = arith.mulf %x, %two : f32
    %h = arith.truncf %s : f32 to f16
    linalg.yield %h : f16
  }
  return
}
func.func @rounded_to_bf16(%a: memref<4x8xf16>, %b: memref<8x4xf16>, %r: memref<4x4xbf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x4xf16>) outs(%c : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x4xf32>) outs(%r : memref<4x4xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %h = arith.truncf %x : f32 to bf16
    linalg.yield %h : bf16
  }
  return
}
func.func @part_rounded(%a: memref<4x8xf16>, %b: memref<8x4xf16>, %r: memref<2x4xf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x4xf16>) outs(%c : memref<4x4xf32>)
  %top = memref.subview %c[0, 0] [2, 4] [1, 1] : memref<4x4xf32> to memref<2x4xf32, strided<[4, 1]>>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%top : memref<2x4xf32, strided<[4, 1]>>) outs(%r : memref<2x4xf16>) {
  ^bb0(%x: f32, %y: f16):
    %h = arith.truncf %x : f32 to f16
    linalg.yield %h : f16
  }
  return
}
func.func @product_is_argument(%a: memref<4x8xf16>, %b: memref<8x4xf16>, %c: memref<4x4xf32>, %r: memref<4x4xf16>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x4xf16>) outs(%c : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x4xf32>) outs(%r : memref<4x4xf16>) {
  ^bb0(%x: f32, %y: f16):
    %h = arith.truncf %x : f32 to f16
    linalg.yield %h : f16
  }
  return
}

// -----

// A result in f16 is not what cuBLASLt's f32 accumulator path computes here:
// left to the generated code.
// CHECK-LABEL: func.func @matmul_f16_out
// CHECK: linalg.matmul
// CHECK-NOT: call
func.func @matmul_f16_out(%a: memref<4x8xf16>, %b: memref<8x4xf16>, %c: memref<4x4xf16>) {
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x4xf16>) outs(%c : memref<4x4xf16>)
  return
}

// -----

// A convolution: im2col into [n, c, kh, kw, oh, ow] with the input read at
// (oh*2 + kh, ow*2 + kw) for stride 2, then one batched GEMM whose filter
// view repeats with batch stride 0.
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[IN:.*]]: memref<2x3x9x9xbf16>, %[[F:.*]]: memref<4x3x3x3xbf16>, %[[OUT:.*]]: memref<2x4x4x4xf32>)
// CHECK: %[[COLS:.*]] = memref.alloc() : memref<2x3x3x3x4x4xbf16>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[IN]] : memref<2x3x9x9xbf16>) outs(%[[COLS]] : memref<2x3x3x3x4x4xbf16>)
// CHECK: %[[CV:.*]] = memref.collapse_shape %[[COLS]] {{\[}}[0], [1, 2, 3], [4, 5]] : memref<2x3x3x3x4x4xbf16> into memref<2x27x16xbf16>
// CHECK: %[[OV:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0], [1], [2, 3]] : memref<2x4x4x4xf32> into memref<2x4x16xf32>
// CHECK: %[[FV:.*]] = memref.reinterpret_cast %[[F]] to offset: [0], sizes: [2, 4, 27], strides: [0, 27, 1]
// CHECK: call @mpt_cuda_matmul_bf16_3d
// IM2COL: affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 * 2 + d3)>
// IM2COL-LABEL: func.func @conv
// IM2COL: linalg.batch_matmul
// IM2COL-NOT: call
func.func @conv(%in: memref<2x3x9x9xbf16>, %f: memref<4x3x3x3xbf16>, %out: memref<2x4x4x4xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %f : memref<2x3x9x9xbf16>, memref<4x3x3x3xbf16>) outs(%out : memref<2x4x4x4xf32>)
  return
}
