// Runs mpt.matmul lowered to linalg on the CPU: every transpose combination,
// batched, and f16/bf16 operands that accumulate in f32 and round once.
//
// RUN: mpt-opt %s --mpt-convert-to-linalg --convert-elementwise-to-linalg \
// RUN:   --linalg-fuse-elementwise-ops --canonicalize --cse \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   --buffer-deallocation-pipeline --convert-bufferization-to-memref \
// RUN:   --convert-linalg-to-loops \
// RUN:   --math-extend-to-supported-types="target-type=f32" \
// RUN:   --convert-math-to-libm \
// RUN:   --expand-strided-metadata --lower-affine --convert-scf-to-cf \
// RUN:   --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | sed -e 's/ {fastmath = #arith.fastmath<contract>}//g' \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s
//
// LLVM rounds f16/bf16 arithmetic after every op by itself. Not used:
// arith-emulate-unsupported-floats, whose extf/truncf pairs carry `contract`,
// which lets arith.extf(arith.truncf(x)) fold to x and drops the rounding
// between ops. The sed drops that `fastmath` attribute where
// math-extend-to-supported-types put it (around f16/bf16 math ops): the LLVM
// lowering carries it over verbatim and mlir-runner, which does not load the
// arith dialect, cannot parse it.

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print2d(%t: tensor<2x2xf32>) {
  %flat = tensor.collapse_shape %t [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %u = tensor.cast %flat : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %c = mpt.matmul %a, %b : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

func.func @matmul_ta(%a: tensor<3x2xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %c = mpt.matmul %a, %b {transpose_a} : tensor<3x2xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

func.func @matmul_tb(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %c = mpt.matmul %a, %b {transpose_b} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

func.func @matmul_tab(%a: tensor<3x2xf32>, %b: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %c = mpt.matmul %a, %b {transpose_a, transpose_b} : tensor<3x2xf32>, tensor<2x3xf32> -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

func.func @batch_matmul_tb(%a: tensor<2x2x3xf32>, %b: tensor<2x2x3xf32>) -> tensor<2x2x2xf32> {
  %c = mpt.matmul %a, %b {transpose_b} : tensor<2x2x3xf32>, tensor<2x2x3xf32> -> tensor<2x2x2xf32>
  return %c : tensor<2x2x2xf32>
}

func.func @batch_matmul_ta(%a: tensor<2x3x2xf32>, %b: tensor<2x3x2xf32>) -> tensor<2x2x2xf32> {
  %c = mpt.matmul %a, %b {transpose_a} : tensor<2x3x2xf32>, tensor<2x3x2xf32> -> tensor<2x2x2xf32>
  return %c : tensor<2x2x2xf32>
}

func.func @matmul_f16(%a: tensor<2x3xf16>, %b: tensor<3x2xf16>) -> tensor<2x2xf16> {
  %c = mpt.matmul %a, %b : tensor<2x3xf16>, tensor<3x2xf16> -> tensor<2x2xf16>
  return %c : tensor<2x2xf16>
}

func.func @matmul_f16_to_f32(%a: tensor<2x3xf16>, %b: tensor<3x2xf16>) -> tensor<2x2xf32> {
  %c = mpt.matmul %a, %b : tensor<2x3xf16>, tensor<3x2xf16> -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

func.func @matmul_bf16_tb(%a: tensor<2x3xbf16>, %b: tensor<2x3xbf16>) -> tensor<2x2xbf16> {
  %c = mpt.matmul %a, %b {transpose_b} : tensor<2x3xbf16>, tensor<2x3xbf16> -> tensor<2x2xbf16>
  return %c : tensor<2x2xbf16>
}

func.func @main() {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = arith.constant dense<[[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]> : tensor<3x2xf32>
  %at = arith.constant dense<[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]> : tensor<3x2xf32>
  %bt = arith.constant dense<[[7.0, 9.0, 11.0], [8.0, 10.0, 12.0]]> : tensor<2x3xf32>

  // CHECK: sizes = [4]
  // CHECK-NEXT: [58, 64, 139, 154]
  %r0 = call @matmul(%a, %b) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  call @print2d(%r0) : (tensor<2x2xf32>) -> ()
  // CHECK: [58, 64, 139, 154]
  %r1 = call @matmul_ta(%at, %b) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  call @print2d(%r1) : (tensor<2x2xf32>) -> ()
  // CHECK: [58, 64, 139, 154]
  %r2 = call @matmul_tb(%a, %bt) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  call @print2d(%r2) : (tensor<2x2xf32>) -> ()
  // CHECK: [58, 64, 139, 154]
  %r3 = call @matmul_tab(%at, %bt) : (tensor<3x2xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  call @print2d(%r3) : (tensor<2x2xf32>) -> ()

  // Batch 0: a0 . b0^T; batch 1: a1 . b1^T.
  %ba = arith.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
                              [[1.0, 0.0, -1.0], [2.0, 1.0, 0.0]]]> : tensor<2x2x3xf32>
  %bb = arith.constant dense<[[[1.0, 1.0, 1.0], [0.0, 1.0, 2.0]],
                              [[3.0, 2.0, 1.0], [1.0, -1.0, 1.0]]]> : tensor<2x2x3xf32>
  // CHECK: sizes = [8]
  // CHECK-NEXT: [6, 8, 15, 17, 2, 0, 8, 1]
  %r4 = call @batch_matmul_tb(%ba, %bb) : (tensor<2x2x3xf32>, tensor<2x2x3xf32>) -> tensor<2x2x2xf32>
  %r4f = tensor.collapse_shape %r4 [[0, 1, 2]] : tensor<2x2x2xf32> into tensor<8xf32>
  %r4u = tensor.cast %r4f : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%r4u) : (tensor<*xf32>) -> ()

  // (a^T)[0] = [[1, 3, 5], [2, 4, 6]], b[0] = [[1, 0], [0, 1], [1, 1]];
  // (a^T)[1] = [[1, 1, 1], [0, 1, 2]], b[1] = [[2, 1], [1, 2], [0, 3]].
  %ta = arith.constant dense<[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                              [[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]]> : tensor<2x3x2xf32>
  %tb = arith.constant dense<[[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
                              [[2.0, 1.0], [1.0, 2.0], [0.0, 3.0]]]> : tensor<2x3x2xf32>
  // CHECK: sizes = [8]
  // CHECK-NEXT: [6, 8, 8, 10, 3, 6, 1, 8]
  %r5 = call @batch_matmul_ta(%ta, %tb) : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>
  %r5f = tensor.collapse_shape %r5 [[0, 1, 2]] : tensor<2x2x2xf32> into tensor<8xf32>
  %r5u = tensor.cast %r5f : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%r5u) : (tensor<*xf32>) -> ()

  // f16: 2048 + 1 + 1 is 2050 when accumulated in f32 (exact in f16), but
  // 2048 if every partial sum were rounded to f16 (2049 ties to 2048). The
  // products of f16 values are exact in f32; the sums are rounded once.
  %ha = arith.constant dense<[[2048.0, 1.0, 1.0], [0.1, 0.1, 0.1]]> : tensor<2x3xf16>
  %hb = arith.constant dense<[[1.0, 0.1], [1.0, 0.1], [1.0, 0.1]]> : tensor<3x2xf16>
  // CHECK: [2050, 205, 0.299805, 0.0299835]
  %r6 = call @matmul_f16(%ha, %hb) : (tensor<2x3xf16>, tensor<3x2xf16>) -> tensor<2x2xf16>
  %r6e = arith.extf %r6 : tensor<2x2xf16> to tensor<2x2xf32>
  call @print2d(%r6e) : (tensor<2x2xf32>) -> ()

  // f16 operands into an f32 result: no rounding at all after the exact
  // products.
  // CHECK: [2050, 204.95, 0.299927, 0.0299854]
  %r7 = call @matmul_f16_to_f32(%ha, %hb) : (tensor<2x3xf16>, tensor<3x2xf16>) -> tensor<2x2xf32>
  call @print2d(%r7) : (tensor<2x2xf32>) -> ()

  // bf16: 256 + 1 + 1 = 258 (exact in bf16); bf16 partial sums would give 256.
  %ga = arith.constant dense<[[256.0, 1.0, 1.0], [1.0, 2.0, 3.0]]> : tensor<2x3xbf16>
  %gb = arith.constant dense<[[1.0, 1.0, 1.0], [1.0, 0.0, -1.0]]> : tensor<2x3xbf16>
  // CHECK: [258, 255, 6, -2]
  %r8 = call @matmul_bf16_tb(%ga, %gb) : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<2x2xbf16>
  %r8e = arith.extf %r8 : tensor<2x2xbf16> to tensor<2x2xf32>
  call @print2d(%r8e) : (tensor<2x2xf32>) -> ()
  return
}
