// Runs mpt.max_pool2d and mpt.max_pool2d_grad lowered to linalg on the CPU:
// padding never wins, ties go to the first maximum in row-major window
// order and overlapping windows accumulate, as in PyTorch's CPU kernels.
// Disjoint windows (stride = kernel, no padding) take their own lowering;
// the *_disjoint cases check it by the same rules.
// Expected values: a NumPy transcription of those kernels.
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

func.func @pool_k3s2p1(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = mpt.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}
func.func @pool_grad_k3s2p1(%dy: tensor<1x2x3x3xf32>, %x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> {
  %dx = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>
  return %dx : tensor<1x2x5x5xf32>
}

func.func @pool_k2s1_ties(%x: tensor<1x1x3x4xf32>) -> tensor<1x1x2x3xf32> {
  %y = mpt.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0>} : tensor<1x1x3x4xf32> -> tensor<1x1x2x3xf32>
  return %y : tensor<1x1x2x3xf32>
}
func.func @pool_grad_k2s1_ties(%dy: tensor<1x1x2x3xf32>, %x: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %dx = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0>} : tensor<1x1x2x3xf32>, tensor<1x1x3x4xf32>
  return %dx : tensor<1x1x3x4xf32>
}

func.func @pool_k2s2p1_neginf(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32> {
  %y = mpt.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<1x1x3x3xf32> -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}
func.func @pool_grad_k2s2p1_neginf(%dy: tensor<1x1x2x2xf32>, %x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %dx = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>
  return %dx : tensor<1x1x3x3xf32>
}

func.func @pool_k2x3s1x2(%x: tensor<2x1x4x6xf32>) -> tensor<2x1x3x3xf32> {
  %y = mpt.max_pool2d %x {kernel = array<i64: 2, 3>, strides = array<i64: 1, 2>, padding = array<i64: 0, 1>} : tensor<2x1x4x6xf32> -> tensor<2x1x3x3xf32>
  return %y : tensor<2x1x3x3xf32>
}
func.func @pool_grad_k2x3s1x2(%dy: tensor<2x1x3x3xf32>, %x: tensor<2x1x4x6xf32>) -> tensor<2x1x4x6xf32> {
  %dx = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 3>, strides = array<i64: 1, 2>, padding = array<i64: 0, 1>} : tensor<2x1x3x3xf32>, tensor<2x1x4x6xf32>
  return %dx : tensor<2x1x4x6xf32>
}

func.func @pool_nan(%x: tensor<1x1x2x4xf32>) -> tensor<1x1x1x2xf32> {
  %y = mpt.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<1x1x2x4xf32> -> tensor<1x1x1x2xf32>
  return %y : tensor<1x1x1x2xf32>
}
func.func @pool_f16(%x: tensor<1x1x1x5xf16>) -> tensor<1x1x1x3xf16> {
  %y = mpt.max_pool2d %x {kernel = array<i64: 1, 3>, strides = array<i64: 1, 1>}
      : tensor<1x1x1x5xf16> -> tensor<1x1x1x3xf16>
  return %y : tensor<1x1x1x3xf16>
}
func.func @pool_grad_f16(%dy: tensor<1x1x1x3xf16>, %x: tensor<1x1x1x5xf16>) -> tensor<1x1x1x5xf16> {
  %dx = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 1, 3>, strides = array<i64: 1, 1>}
      : tensor<1x1x1x3xf16>, tensor<1x1x1x5xf16>
  return %dx : tensor<1x1x1x5xf16>
}

func.func @pool_f16_disjoint(%x: tensor<1x1x2x8xf16>) -> tensor<1x1x1x4xf16> {
  %y = mpt.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<1x1x2x8xf16> -> tensor<1x1x1x4xf16>
  return %y : tensor<1x1x1x4xf16>
}

func.func @pool_grad_nan_disjoint(%dy: tensor<1x1x1x2xf32>, %x: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %dx = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<1x1x1x2xf32>, tensor<1x1x2x4xf32>
  return %dx : tensor<1x1x2x4xf32>
}
func.func @pool_grad_ties_disjoint(%dy: tensor<1x2x1x2xf32>, %x: tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32> {
  %dx = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<1x2x1x2xf32>, tensor<1x2x2x4xf32>
  return %dx : tensor<1x2x2x4xf32>
}
func.func @pool_grad_k1x3_disjoint(%dy: tensor<2x1x2x2xf16>, %x: tensor<2x1x2x6xf16>) -> tensor<2x1x2x6xf16> {
  %dx = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 1, 3>, strides = array<i64: 1, 3>}
      : tensor<2x1x2x2xf16>, tensor<2x1x2x6xf16>
  return %dx : tensor<2x1x2x6xf16>
}

func.func @main() {
  // k3s2p1
  %v1 = arith.constant dense<[[[[2.0, 0.0, 0.0, 0.0, 0.0], [2.0, 2.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 1.0, 0.0], [0.0, 2.0, 2.0, 0.0, 0.0], [1.0, 1.0, 2.0, 1.0, 1.0]], [[1.0, 1.0, 1.0, 0.0, 2.0], [2.0, 2.0, 2.0, 0.0, 0.0], [1.0, 1.0, 2.0, 2.0, 0.0], [2.0, 0.0, 0.0, 2.0, 2.0], [0.0, 0.0, 0.0, 0.0, 2.0]]]]> : tensor<1x2x5x5xf32>
  %v2 = arith.constant dense<[[[[6.0, 4.0, 8.0], [4.0, 4.0, 2.0], [2.0, 6.0, 7.0]], [[3.0, 6.0, 7.0], [2.0, 3.0, 5.0], [5.0, 4.0, 4.0]]]]> : tensor<1x2x3x3xf32>
  // CHECK: sizes = [18]
  // CHECK-NEXT: [2, 2, 0, 2, 2, 1, 2, 2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2]
  %v3 = call @pool_k3s2p1(%v1) : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %v4 = tensor.collapse_shape %v3 [[0, 1, 2, 3]] : tensor<1x2x3x3xf32> into tensor<18xf32>
  %v5 = tensor.cast %v4 : tensor<18xf32> to tensor<*xf32>
  call @printMemrefF32(%v5) : (tensor<*xf32>) -> ()
  // CHECK: sizes = [50]
  // CHECK-NEXT: [6, 0, 0, 8, 0, 4, 8, 0, 0, 0, 0, 0, 0, 2, 0, 0, 8, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 7, 5, 9, 0, 0, 0, 0, 0, 0, 5, 0, 5, 0, 0, 8, 0, 0, 0, 0, 0, 0]
  %v6 = call @pool_grad_k3s2p1(%v2, %v1) : (tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %v7 = tensor.collapse_shape %v6 [[0, 1, 2, 3]] : tensor<1x2x5x5xf32> into tensor<50xf32>
  %v8 = tensor.cast %v7 : tensor<50xf32> to tensor<*xf32>
  call @printMemrefF32(%v8) : (tensor<*xf32>) -> ()
  
  // k2s1_ties
  %v9 = arith.constant dense<[[[[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]]]> : tensor<1x1x3x4xf32>
  %v10 = arith.constant dense<[[[[2.0, 5.0, 8.0], [2.0, 7.0, 2.0]]]]> : tensor<1x1x2x3xf32>
  // CHECK: sizes = [6]
  // CHECK-NEXT: [1, 1, 1, 1, 1, 1]
  %v11 = call @pool_k2s1_ties(%v9) : (tensor<1x1x3x4xf32>) -> tensor<1x1x2x3xf32>
  %v12 = tensor.collapse_shape %v11 [[0, 1, 2, 3]] : tensor<1x1x2x3xf32> into tensor<6xf32>
  %v13 = tensor.cast %v12 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%v13) : (tensor<*xf32>) -> ()
  // CHECK: sizes = [12]
  // CHECK-NEXT: [2, 5, 8, 0, 2, 7, 2, 0, 0, 0, 0, 0]
  %v14 = call @pool_grad_k2s1_ties(%v10, %v9) : (tensor<1x1x2x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  %v15 = tensor.collapse_shape %v14 [[0, 1, 2, 3]] : tensor<1x1x3x4xf32> into tensor<12xf32>
  %v16 = tensor.cast %v15 : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%v16) : (tensor<*xf32>) -> ()
  
  // k2s2p1_neginf
  %v17 = arith.constant dense<[[[[0xFF800000, 0xFF800000, 1.0], [0xFF800000, 0xFF800000, 2.0], [0.0, 3.0, 3.0]]]]> : tensor<1x1x3x3xf32>
  %v18 = arith.constant dense<[[[[1.0, 6.0], [2.0, 7.0]]]]> : tensor<1x1x2x2xf32>
  // CHECK: sizes = [4]
  // CHECK-NEXT: [-inf, 1, 0, 3]
  %v19 = call @pool_k2s2p1_neginf(%v17) : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  %v20 = tensor.collapse_shape %v19 [[0, 1, 2, 3]] : tensor<1x1x2x2xf32> into tensor<4xf32>
  %v21 = tensor.cast %v20 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v21) : (tensor<*xf32>) -> ()
  // CHECK: sizes = [9]
  // CHECK-NEXT: [1, 0, 6, 0, 0, 0, 2, 7, 0]
  %v22 = call @pool_grad_k2s2p1_neginf(%v18, %v17) : (tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  %v23 = tensor.collapse_shape %v22 [[0, 1, 2, 3]] : tensor<1x1x3x3xf32> into tensor<9xf32>
  %v24 = tensor.cast %v23 : tensor<9xf32> to tensor<*xf32>
  call @printMemrefF32(%v24) : (tensor<*xf32>) -> ()
  
  // k2x3s1x2
  %v25 = arith.constant dense<[[[[1.0, 1.0, -2.0, 0.0, -3.0, 2.0], [0.0, -4.0, -2.0, 2.0, 0.0, -1.0], [-2.0, -4.0, 1.0, 1.0, 0.0, 4.0], [4.0, -3.0, 1.0, 1.0, -2.0, -2.0]]], [[[0.0, 2.0, -2.0, 2.0, 1.0, -3.0], [-1.0, 3.0, 3.0, 1.0, -4.0, 2.0], [-2.0, 3.0, 4.0, -1.0, 4.0, 2.0], [-2.0, 3.0, -1.0, -4.0, 1.0, 3.0]]]]> : tensor<2x1x4x6xf32>
  %v26 = arith.constant dense<[[[[3.0, 5.0, 8.0], [8.0, 4.0, 2.0], [3.0, 7.0, 5.0]]], [[[2.0, 8.0, 8.0], [8.0, 5.0, 8.0], [5.0, 5.0, 8.0]]]]> : tensor<2x1x3x3xf32>
  // CHECK: sizes = [18]
  // CHECK-NEXT: [1, 2, 2, 0, 2, 4, 4, 1, 4, 3, 3, 2, 3, 4, 4, 3, 4, 4]
  %v27 = call @pool_k2x3s1x2(%v25) : (tensor<2x1x4x6xf32>) -> tensor<2x1x3x3xf32>
  %v28 = tensor.collapse_shape %v27 [[0, 1, 2, 3]] : tensor<2x1x3x3xf32> into tensor<18xf32>
  %v29 = tensor.cast %v28 : tensor<18xf32> to tensor<*xf32>
  call @printMemrefF32(%v29) : (tensor<*xf32>) -> ()
  // CHECK: sizes = [48]
  // CHECK-NEXT: [3, 0, 0, 0, 0, 8, 8, 0, 0, 9, 0, 0, 0, 0, 7, 0, 0, 7, 3, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 18, 0, 0, 0, 0, 0, 5, 10, 0, 16, 0, 0, 0, 0, 0, 0, 0]
  %v30 = call @pool_grad_k2x3s1x2(%v26, %v25) : (tensor<2x1x3x3xf32>, tensor<2x1x4x6xf32>) -> tensor<2x1x4x6xf32>
  %v31 = tensor.collapse_shape %v30 [[0, 1, 2, 3]] : tensor<2x1x4x6xf32> into tensor<48xf32>
  %v32 = tensor.cast %v31 : tensor<48xf32> to tensor<*xf32>
  call @printMemrefF32(%v32) : (tensor<*xf32>) -> ()
  
  // A NaN wins its window, as in PyTorch.
  %v33 = arith.constant dense<[[[[1.0, 0x7FC00000, 5.0, 6.0], [2.0, 3.0, 7.0, 4.0]]]]> : tensor<1x1x2x4xf32>
  // CHECK: sizes = [2]
  // CHECK-NEXT: [nan, 7]
  %v34 = call @pool_nan(%v33) : (tensor<1x1x2x4xf32>) -> tensor<1x1x1x2xf32>
  %v35 = tensor.collapse_shape %v34 [[0, 1, 2, 3]] : tensor<1x1x1x2xf32> into tensor<2xf32>
  %v36 = tensor.cast %v35 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v36) : (tensor<*xf32>) -> ()
  
  // f16, disjoint windows (compared in f32): the largest value exactly
  // (65504, 1.0009765625 = 1 + 2^-10 over 1), a NaN, and of -0, -0, +0, -0
  // the first, -0 (PyTorch 1.13's max_pool2d returns -0 for this window too).
  %p1 = arith.constant dense<[[[[65504.0, -65504.0, 1.0, 1.0009765625, -1.0, 0x7E00, -0.0, -0.0], [0xFC00, 2.0, 1.0, 0.5, -3.0, 4.0, 0.0, -0.0]]]]> : tensor<1x1x2x8xf16>
  // CHECK: sizes = [4]
  // CHECK-NEXT: [65504, 1.00098, nan, -0]
  %p2 = call @pool_f16_disjoint(%p1) : (tensor<1x1x2x8xf16>) -> tensor<1x1x1x4xf16>
  %p3 = arith.extf %p2 : tensor<1x1x1x4xf16> to tensor<1x1x1x4xf32>
  %p4 = tensor.collapse_shape %p3 [[0, 1, 2, 3]] : tensor<1x1x1x4xf32> into tensor<4xf32>
  %p5 = tensor.cast %p4 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%p5) : (tensor<*xf32>) -> ()

  // Disjoint windows: the NaN (position 1) and the 7 (position 2) win.
  %d1 = arith.constant dense<[[[[10.0, 20.0]]]]> : tensor<1x1x1x2xf32>
  // CHECK: sizes = [8]
  // CHECK-NEXT: [0, 10, 0, 0, 0, 0, 20, 0]
  %d2 = call @pool_grad_nan_disjoint(%d1, %v33) : (tensor<1x1x1x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %d3 = tensor.collapse_shape %d2 [[0, 1, 2, 3]] : tensor<1x1x2x4xf32> into tensor<8xf32>
  %d4 = tensor.cast %d3 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%d4) : (tensor<*xf32>) -> ()

  // Ties go to the first position: all equal, all -inf, 5 at positions 1
  // and 2, NaN at positions 0 and 2.
  %d5 = arith.constant dense<[[[[1.0, 1.0, 0xFF800000, 0xFF800000], [1.0, 1.0, 0xFF800000, 0xFF800000]], [[3.0, 5.0, 0x7FC00000, 2.0], [5.0, 1.0, 0x7FC00000, 1.0]]]]> : tensor<1x2x2x4xf32>
  %d6 = arith.constant dense<[[[[6.0, 7.0]], [[8.0, 9.0]]]]> : tensor<1x2x1x2xf32>
  // CHECK: sizes = [16]
  // CHECK-NEXT: [6, 0, 7, 0, 0, 0, 0, 0, 0, 8, 9, 0, 0, 0, 0, 0]
  %d7 = call @pool_grad_ties_disjoint(%d6, %d5) : (tensor<1x2x1x2xf32>, tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %d8 = tensor.collapse_shape %d7 [[0, 1, 2, 3]] : tensor<1x2x2x4xf32> into tensor<16xf32>
  %d9 = tensor.cast %d8 : tensor<16xf32> to tensor<*xf32>
  call @printMemrefF32(%d9) : (tensor<*xf32>) -> ()

  // f16, 1x3 windows over two images: winners at positions 2, 0, 1, 1 and
  // 0, 2, 2, 0.
  %d10 = arith.constant dense<[[[[1.0, 2.0, 3.0, 4.0, 0.0, 4.0], [0.0, 9.0, 1.0, -1.0, 5.0, -2.0]]], [[[7.0, 6.0, 5.0, 1.0, 1.0, 2.0], [0.0, 0.0, 3.0, 8.0, 8.0, 8.0]]]]> : tensor<2x1x2x6xf16>
  %d11 = arith.constant dense<[[[[0.5, 1.5], [2.5, 3.5]]], [[[4.5, 5.5], [6.5, 7.5]]]]> : tensor<2x1x2x2xf16>
  // CHECK: sizes = [24]
  // CHECK-NEXT: [0, 0, 0.5, 1.5, 0, 0, 0, 2.5, 0, 0, 3.5, 0, 4.5, 0, 0, 0, 0, 5.5, 0, 0, 6.5, 7.5, 0, 0]
  %d12 = call @pool_grad_k1x3_disjoint(%d11, %d10) : (tensor<2x1x2x2xf16>, tensor<2x1x2x6xf16>) -> tensor<2x1x2x6xf16>
  %d13 = arith.extf %d12 : tensor<2x1x2x6xf16> to tensor<2x1x2x6xf32>
  %d14 = tensor.collapse_shape %d13 [[0, 1, 2, 3]] : tensor<2x1x2x6xf32> into tensor<24xf32>
  %d15 = tensor.cast %d14 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%d15) : (tensor<*xf32>) -> ()

  // f16: the three overlapping windows all route to the 9; their gradients
  // 2048 + 1 + 1 are summed in f32 and rounded once (f16 partial sums: 2048).
  %v37 = arith.constant dense<[[[[0.0, 0.0, 9.0, 0.0, 0.0]]]]> : tensor<1x1x1x5xf16>
  %v38 = arith.constant dense<[[[[2048.0, 1.0, 1.0]]]]> : tensor<1x1x1x3xf16>
  // CHECK: sizes = [3]
  // CHECK-NEXT: [9, 9, 9]
  %v39 = call @pool_f16(%v37) : (tensor<1x1x1x5xf16>) -> tensor<1x1x1x3xf16>
  %v40 = arith.extf %v39 : tensor<1x1x1x3xf16> to tensor<1x1x1x3xf32>
  %v41 = tensor.collapse_shape %v40 [[0, 1, 2, 3]] : tensor<1x1x1x3xf32> into tensor<3xf32>
  %v42 = tensor.cast %v41 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v42) : (tensor<*xf32>) -> ()
  // CHECK: sizes = [5]
  // CHECK-NEXT: [0, 0, 2050, 0, 0]
  %v43 = call @pool_grad_f16(%v38, %v37) : (tensor<1x1x1x3xf16>, tensor<1x1x1x5xf16>) -> tensor<1x1x1x5xf16>
  %v44 = arith.extf %v43 : tensor<1x1x1x5xf16> to tensor<1x1x1x5xf32>
  %v45 = tensor.collapse_shape %v44 [[0, 1, 2, 3]] : tensor<1x1x1x5xf32> into tensor<5xf32>
  %v46 = tensor.cast %v45 : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%v46) : (tensor<*xf32>) -> ()
  return
}
