// Runs mpt.conv2d, mpt.conv2d_input_grad and mpt.conv2d_filter_grad lowered
// to linalg on the CPU, with strides, padding (also wider than the dilated
// kernel), dilations and inputs whose last rows no window reaches. Expected
// values: a direct NumPy loop over the convolution's definition (and its
// adjoint for the gradients, checked against finite differences).
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

func.func @conv_s2p1(%x: tensor<1x2x6x6xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %y = mpt.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>}
      : tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}
func.func @conv_input_grad_s2p1(%dy: tensor<1x2x3x3xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %dx = mpt.conv2d_input_grad %dy, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>}
      : tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x6x6xf32>
  return %dx : tensor<1x2x6x6xf32>
}
func.func @conv_filter_grad_s2p1(%x: tensor<1x2x6x6xf32>, %dy: tensor<1x2x3x3xf32>) -> tensor<2x2x3x3xf32> {
  %dw = mpt.conv2d_filter_grad %x, %dy {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>}
      : tensor<1x2x6x6xf32>, tensor<1x2x3x3xf32> -> tensor<2x2x3x3xf32>
  return %dw : tensor<2x2x3x3xf32>
}

func.func @conv_d2(%x: tensor<2x1x5x5xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<2x1x3x3xf32> {
  %y = mpt.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilations = array<i64: 2, 2>}
      : tensor<2x1x5x5xf32>, tensor<1x1x2x2xf32> -> tensor<2x1x3x3xf32>
  return %y : tensor<2x1x3x3xf32>
}
func.func @conv_input_grad_d2(%dy: tensor<2x1x3x3xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<2x1x5x5xf32> {
  %dx = mpt.conv2d_input_grad %dy, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilations = array<i64: 2, 2>}
      : tensor<2x1x3x3xf32>, tensor<1x1x2x2xf32> -> tensor<2x1x5x5xf32>
  return %dx : tensor<2x1x5x5xf32>
}
func.func @conv_filter_grad_d2(%x: tensor<2x1x5x5xf32>, %dy: tensor<2x1x3x3xf32>) -> tensor<1x1x2x2xf32> {
  %dw = mpt.conv2d_filter_grad %x, %dy {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilations = array<i64: 2, 2>}
      : tensor<2x1x5x5xf32>, tensor<2x1x3x3xf32> -> tensor<1x1x2x2xf32>
  return %dw : tensor<1x1x2x2xf32>
}

func.func @conv_s2p2k1(%x: tensor<1x1x3x3xf32>, %w: tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %y = mpt.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 2, 2>, dilations = array<i64: 1, 1>}
      : tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
func.func @conv_input_grad_s2p2k1(%dy: tensor<1x2x4x4xf32>, %w: tensor<2x1x1x1xf32>) -> tensor<1x1x3x3xf32> {
  %dx = mpt.conv2d_input_grad %dy, %w {strides = array<i64: 2, 2>, padding = array<i64: 2, 2>, dilations = array<i64: 1, 1>}
      : tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x1x3x3xf32>
  return %dx : tensor<1x1x3x3xf32>
}
func.func @conv_filter_grad_s2p2k1(%x: tensor<1x1x3x3xf32>, %dy: tensor<1x2x4x4xf32>) -> tensor<2x1x1x1xf32> {
  %dw = mpt.conv2d_filter_grad %x, %dy {strides = array<i64: 2, 2>, padding = array<i64: 2, 2>, dilations = array<i64: 1, 1>}
      : tensor<1x1x3x3xf32>, tensor<1x2x4x4xf32> -> tensor<2x1x1x1xf32>
  return %dw : tensor<2x1x1x1xf32>
}

func.func @conv_mixed(%x: tensor<1x2x7x5xf32>, %w: tensor<3x2x3x2xf32>) -> tensor<1x3x4x3xf32> {
  %y = mpt.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilations = array<i64: 1, 2>}
      : tensor<1x2x7x5xf32>, tensor<3x2x3x2xf32> -> tensor<1x3x4x3xf32>
  return %y : tensor<1x3x4x3xf32>
}
func.func @conv_input_grad_mixed(%dy: tensor<1x3x4x3xf32>, %w: tensor<3x2x3x2xf32>) -> tensor<1x2x7x5xf32> {
  %dx = mpt.conv2d_input_grad %dy, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilations = array<i64: 1, 2>}
      : tensor<1x3x4x3xf32>, tensor<3x2x3x2xf32> -> tensor<1x2x7x5xf32>
  return %dx : tensor<1x2x7x5xf32>
}
func.func @conv_filter_grad_mixed(%x: tensor<1x2x7x5xf32>, %dy: tensor<1x3x4x3xf32>) -> tensor<3x2x3x2xf32> {
  %dw = mpt.conv2d_filter_grad %x, %dy {strides = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilations = array<i64: 1, 2>}
      : tensor<1x2x7x5xf32>, tensor<1x3x4x3xf32> -> tensor<3x2x3x2xf32>
  return %dw : tensor<3x2x3x2xf32>
}

func.func @conv_f16(%x: tensor<1x3x1x1xf16>, %w: tensor<2x3x1x1xf16>) -> tensor<1x2x1x1xf16> {
  %y = mpt.conv2d %x, %w : tensor<1x3x1x1xf16>, tensor<2x3x1x1xf16> -> tensor<1x2x1x1xf16>
  return %y : tensor<1x2x1x1xf16>
}
func.func @conv_input_grad_f16(%dy: tensor<1x3x1x1xf16>, %w: tensor<3x1x1x1xf16>) -> tensor<1x1x1x1xf16> {
  %dx = mpt.conv2d_input_grad %dy, %w : tensor<1x3x1x1xf16>, tensor<3x1x1x1xf16> -> tensor<1x1x1x1xf16>
  return %dx : tensor<1x1x1x1xf16>
}
func.func @conv_filter_grad_bf16(%x: tensor<3x1x1x1xbf16>, %dy: tensor<3x1x1x1xbf16>) -> tensor<1x1x1x1xbf16> {
  %dw = mpt.conv2d_filter_grad %x, %dy : tensor<3x1x1x1xbf16>, tensor<3x1x1x1xbf16> -> tensor<1x1x1x1xbf16>
  return %dw : tensor<1x1x1x1xbf16>
}

func.func @main() {
  // s2p1 {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>}
  %v1 = arith.constant dense<[[[[3.0, 1.0, 1.0, 3.0, 1.0, 2.0], [2.0, -2.0, -3.0, -1.0, -2.0, 3.0], [3.0, -3.0, 0.0, 2.0, -3.0, 2.0], [-3.0, 0.0, 2.0, -1.0, -1.0, -2.0], [2.0, -2.0, 3.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 3.0, 2.0, 2.0]], [[1.0, 1.0, -1.0, 3.0, 0.0, -2.0], [2.0, -2.0, 3.0, 1.0, -3.0, -3.0], [0.0, -3.0, -3.0, 0.0, 3.0, 0.0], [2.0, 3.0, 2.0, 1.0, 0.0, 0.0], [-2.0, 0.0, -1.0, -2.0, 3.0, -3.0], [-3.0, -2.0, 3.0, 1.0, 3.0, -2.0]]]]> : tensor<1x2x6x6xf32>
  %v2 = arith.constant dense<[[[[1.0, -1.0, 0.0], [-2.0, 1.0, 2.0], [1.0, -2.0, 0.0]], [[-1.0, 2.0, 2.0], [-2.0, 0.0, 2.0], [2.0, 1.0, 1.0]]], [[[-2.0, 1.0, 0.0], [-2.0, -1.0, 0.0], [1.0, 0.0, 1.0]], [[2.0, 1.0, -1.0], [1.0, 0.0, -2.0], [-2.0, 1.0, -1.0]]]]> : tensor<2x2x3x3xf32>
  %v3 = arith.constant dense<[[[[2.0, 0.0, 2.0], [1.0, 2.0, 2.0], [0.0, -1.0, -2.0]], [[0.0, -2.0, 1.0], [2.0, -1.0, 0.0], [-2.0, -2.0, -1.0]]]]> : tensor<1x2x3x3xf32>
  // conv2d
  // CHECK: sizes = [18]
  // CHECK-NEXT: [3, 13, -12, 0, 32, -12, 4, 4, -1, -3, -5, 0, 8, -4, -4, -7, 23, 15]
  %v4 = call @conv_s2p1(%v1, %v2) : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %v5 = tensor.collapse_shape %v4 [[0, 1, 2, 3]] : tensor<1x2x3x3xf32> into tensor<18xf32>
  %v6 = tensor.cast %v5 : tensor<18xf32> to tensor<*xf32>
  call @printMemrefF32(%v6) : (tensor<*xf32>) -> ()
  // conv2d_input_grad
  // CHECK: sizes = [72]
  // CHECK-NEXT: [2, 8, 2, -6, 1, 4, -3, 2, -3, 3, -6, 1, -1, 0, 3, 0, 2, 4, -4, 6, -5, 1, -3, 0, 2, 6, 1, 4, -1, -4, 0, -5, 2, -5, 4, -1, 0, 2, 0, 1, 0, 2, 6, 2, 1, 7, 7, 5, 0, -7, 0, 2, 0, 4, 1, 4, -3, 7, -3, -1, 0, 4, 0, 5, 0, -2, -2, 4, -3, -1, -3, -1]
  %v7 = call @conv_input_grad_s2p1(%v3, %v2) : (tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  %v8 = tensor.collapse_shape %v7 [[0, 1, 2, 3]] : tensor<1x2x6x6xf32> into tensor<72xf32>
  %v9 = tensor.cast %v8 : tensor<72xf32> to tensor<*xf32>
  call @printMemrefF32(%v9) : (tensor<*xf32>) -> ()
  // conv2d_filter_grad
  // CHECK: sizes = [36]
  // CHECK-NEXT: [-4, -8, 7, 6, 2, 11, -10, -5, -11, -7, 0, -7, 4, -3, 3, 10, -5, -2, 3, 10, 1, 8, -5, -8, 0, -8, -2, -5, -7, -13, 6, 8, -7, 5, -10, 4]
  %v10 = call @conv_filter_grad_s2p1(%v1, %v3) : (tensor<1x2x6x6xf32>, tensor<1x2x3x3xf32>) -> tensor<2x2x3x3xf32>
  %v11 = tensor.collapse_shape %v10 [[0, 1, 2, 3]] : tensor<2x2x3x3xf32> into tensor<36xf32>
  %v12 = tensor.cast %v11 : tensor<36xf32> to tensor<*xf32>
  call @printMemrefF32(%v12) : (tensor<*xf32>) -> ()
  
  // d2 {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilations = array<i64: 2, 2>}
  %v13 = arith.constant dense<[[[[3.0, 3.0, 1.0, 1.0, 0.0], [-3.0, -1.0, 3.0, -1.0, -2.0], [-2.0, 1.0, -3.0, 3.0, 3.0], [0.0, 0.0, 2.0, 0.0, 0.0], [-1.0, 0.0, 2.0, -3.0, -3.0]]], [[[2.0, -1.0, 2.0, -3.0, 3.0], [-3.0, -1.0, 3.0, -3.0, 1.0], [2.0, -1.0, -3.0, 0.0, 0.0], [3.0, 1.0, -1.0, -3.0, 1.0], [-2.0, 1.0, 3.0, -1.0, 3.0]]]]> : tensor<2x1x5x5xf32>
  %v14 = arith.constant dense<[[[[0.0, 0.0], [1.0, 1.0]]]]> : tensor<1x1x2x2xf32>
  %v15 = arith.constant dense<[[[[2.0, -1.0, -2.0], [-1.0, -2.0, 2.0], [-1.0, 0.0, -1.0]]], [[[2.0, -2.0, 0.0], [2.0, 0.0, 2.0], [2.0, 1.0, 1.0]]]]> : tensor<2x1x3x3xf32>
  // conv2d
  // CHECK: sizes = [18]
  // CHECK-NEXT: [-5, 4, 0, 2, 0, 2, 1, -3, -1, -1, -1, -3, 2, -2, 0, 1, 0, 6]
  %v16 = call @conv_d2(%v13, %v14) : (tensor<2x1x5x5xf32>, tensor<1x1x2x2xf32>) -> tensor<2x1x3x3xf32>
  %v17 = tensor.collapse_shape %v16 [[0, 1, 2, 3]] : tensor<2x1x3x3xf32> into tensor<18xf32>
  %v18 = tensor.cast %v17 : tensor<18xf32> to tensor<*xf32>
  call @printMemrefF32(%v18) : (tensor<*xf32>) -> ()
  // conv2d_input_grad
  // CHECK: sizes = [50]
  // CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, -1, 0, -1, -2, -1, -2, 1, -2, 2, -1, 0, -2, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, -2, 2, -2, 0, 2, 0, 4, 0, 2, 2, 1, 3, 1, 1]
  %v19 = call @conv_input_grad_d2(%v15, %v14) : (tensor<2x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<2x1x5x5xf32>
  %v20 = tensor.collapse_shape %v19 [[0, 1, 2, 3]] : tensor<2x1x5x5xf32> into tensor<50xf32>
  %v21 = tensor.cast %v20 : tensor<50xf32> to tensor<*xf32>
  call @printMemrefF32(%v21) : (tensor<*xf32>) -> ()
  // conv2d_filter_grad
  // CHECK: sizes = [4]
  // CHECK-NEXT: [23, 8, 14, -14]
  %v22 = call @conv_filter_grad_d2(%v13, %v15) : (tensor<2x1x5x5xf32>, tensor<2x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  %v23 = tensor.collapse_shape %v22 [[0, 1, 2, 3]] : tensor<1x1x2x2xf32> into tensor<4xf32>
  %v24 = tensor.cast %v23 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v24) : (tensor<*xf32>) -> ()
  
  // s2p2k1 {strides = array<i64: 2, 2>, padding = array<i64: 2, 2>, dilations = array<i64: 1, 1>}
  %v25 = arith.constant dense<[[[[1.0, 1.0, 2.0], [-1.0, 3.0, 3.0], [-1.0, -1.0, 2.0]]]]> : tensor<1x1x3x3xf32>
  %v26 = arith.constant dense<[[[[2.0]]], [[[-2.0]]]]> : tensor<2x1x1x1xf32>
  %v27 = arith.constant dense<[[[[1.0, 2.0, 2.0, 0.0], [2.0, 2.0, -1.0, -2.0], [-2.0, -2.0, 0.0, -2.0], [-1.0, -1.0, 1.0, -1.0]], [[2.0, -2.0, 2.0, 0.0], [-1.0, -2.0, -1.0, 0.0], [-2.0, -2.0, -2.0, 1.0], [-2.0, -2.0, 0.0, -1.0]]]]> : tensor<1x2x4x4xf32>
  // conv2d
  // CHECK: sizes = [32]
  // CHECK-NEXT: [0, 0, 0, 0, 0, 2, 4, 0, 0, -2, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -2, -4, 0, 0, 2, -4, 0, 0, 0, 0, 0]
  %v28 = call @conv_s2p2k1(%v25, %v26) : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %v29 = tensor.collapse_shape %v28 [[0, 1, 2, 3]] : tensor<1x2x4x4xf32> into tensor<32xf32>
  %v30 = tensor.cast %v29 : tensor<32xf32> to tensor<*xf32>
  call @printMemrefF32(%v30) : (tensor<*xf32>) -> ()
  // conv2d_input_grad
  // CHECK: sizes = [9]
  // CHECK-NEXT: [8, 0, 0, 0, 0, 0, 0, 0, 4]
  %v31 = call @conv_input_grad_s2p2k1(%v27, %v26) : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x1x3x3xf32>
  %v32 = tensor.collapse_shape %v31 [[0, 1, 2, 3]] : tensor<1x1x3x3xf32> into tensor<9xf32>
  %v33 = tensor.cast %v32 : tensor<9xf32> to tensor<*xf32>
  call @printMemrefF32(%v33) : (tensor<*xf32>) -> ()
  // conv2d_filter_grad
  // CHECK: sizes = [2]
  // CHECK-NEXT: [2, -6]
  %v34 = call @conv_filter_grad_s2p2k1(%v25, %v27) : (tensor<1x1x3x3xf32>, tensor<1x2x4x4xf32>) -> tensor<2x1x1x1xf32>
  %v35 = tensor.collapse_shape %v34 [[0, 1, 2, 3]] : tensor<2x1x1x1xf32> into tensor<2xf32>
  %v36 = tensor.cast %v35 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v36) : (tensor<*xf32>) -> ()
  
  // mixed {strides = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilations = array<i64: 1, 2>}
  %v37 = arith.constant dense<[[[[0.0, 3.0, 3.0, 0.0, 1.0], [2.0, 0.0, 1.0, -2.0, 1.0], [-2.0, -2.0, 2.0, 1.0, -1.0], [-3.0, -2.0, 2.0, 0.0, 3.0], [3.0, 2.0, -3.0, -3.0, 1.0], [-1.0, 2.0, -1.0, -2.0, -3.0], [-1.0, 1.0, -3.0, 2.0, -1.0]], [[-1.0, 1.0, 3.0, 0.0, 2.0], [-1.0, -3.0, 2.0, 2.0, 2.0], [3.0, 0.0, -2.0, 1.0, 1.0], [-1.0, 1.0, -2.0, 1.0, 2.0], [-3.0, 0.0, 1.0, -3.0, 1.0], [3.0, 2.0, 1.0, 2.0, -1.0], [-1.0, -3.0, 2.0, -1.0, 3.0]]]]> : tensor<1x2x7x5xf32>
  %v38 = arith.constant dense<[[[[0.0, 2.0], [-2.0, -2.0], [-1.0, -2.0]], [[0.0, 1.0], [1.0, -1.0], [-2.0, 0.0]]], [[[1.0, 2.0], [2.0, -1.0], [-2.0, -1.0]], [[2.0, 0.0], [2.0, 1.0], [0.0, -2.0]]], [[[0.0, -1.0], [2.0, -2.0], [-2.0, 1.0]], [[1.0, 2.0], [0.0, -1.0], [-1.0, -1.0]]]]> : tensor<3x2x3x2xf32>
  %v39 = arith.constant dense<[[[[-2.0, -2.0, 1.0], [0.0, 1.0, -2.0], [1.0, 0.0, 2.0], [1.0, 2.0, 1.0]], [[2.0, -2.0, 1.0], [1.0, -1.0, -1.0], [1.0, -2.0, -2.0], [2.0, 1.0, 0.0]], [[1.0, -1.0, 1.0], [-1.0, 0.0, -2.0], [-1.0, -1.0, 0.0], [0.0, -2.0, -1.0]]]]> : tensor<1x3x4x3xf32>
  // conv2d
  // CHECK: sizes = [36]
  // CHECK-NEXT: [-12, 5, -14, 10, -1, -5, -5, 4, 17, 4, -10, 0, -11, 6, 6, 8, -12, -2, 4, -2, 7, 4, -5, -3, -13, 5, -3, 7, -2, 9, 1, 6, -11, 8, 7, -5]
  %v40 = call @conv_mixed(%v37, %v38) : (tensor<1x2x7x5xf32>, tensor<3x2x3x2xf32>) -> tensor<1x3x4x3xf32>
  %v41 = tensor.collapse_shape %v40 [[0, 1, 2, 3]] : tensor<1x3x4x3xf32> into tensor<36xf32>
  %v42 = tensor.cast %v41 : tensor<36xf32> to tensor<*xf32>
  call @printMemrefF32(%v42) : (tensor<*xf32>) -> ()
  // conv2d_input_grad
  // CHECK: sizes = [70]
  // CHECK-NEXT: [10, -2, 2, 8, -5, -3, 7, 0, 5, -6, 0, -4, -1, -1, 9, 1, -1, 9, -4, 3, -2, -6, -9, 4, -2, 1, 7, 4, 9, 1, 2, -6, -8, -1, 0, 2, -6, 6, 1, -1, 4, 3, -14, 6, -9, 2, -1, -2, -2, 3, 2, -7, 0, 0, 6, 3, -4, -1, -1, -4, 3, 1, -5, 3, 3, 5, 4, 2, 1, 0]
  %v43 = call @conv_input_grad_mixed(%v39, %v38) : (tensor<1x3x4x3xf32>, tensor<3x2x3x2xf32>) -> tensor<1x2x7x5xf32>
  %v44 = tensor.collapse_shape %v43 [[0, 1, 2, 3]] : tensor<1x2x7x5xf32> into tensor<70xf32>
  %v45 = tensor.cast %v44 : tensor<70xf32> to tensor<*xf32>
  call @printMemrefF32(%v45) : (tensor<*xf32>) -> ()
  // conv2d_filter_grad
  // CHECK: sizes = [36]
  // CHECK-NEXT: [1, -4, -14, -3, -12, -10, -4, 4, 1, 1, 20, -10, -2, -6, -1, 6, -1, 15, 9, -6, -6, 12, 3, -4, -2, 2, -6, 7, 1, -1, -8, -8, 9, 6, 4, -3]
  %v46 = call @conv_filter_grad_mixed(%v37, %v39) : (tensor<1x2x7x5xf32>, tensor<1x3x4x3xf32>) -> tensor<3x2x3x2xf32>
  %v47 = tensor.collapse_shape %v46 [[0, 1, 2, 3]] : tensor<3x2x3x2xf32> into tensor<36xf32>
  %v48 = tensor.cast %v47 : tensor<36xf32> to tensor<*xf32>
  call @printMemrefF32(%v48) : (tensor<*xf32>) -> ()
  
  // f16 and bf16: the sums 2048 + 1 + 1 (f16) and 256 + 1 + 1 (bf16) are exact
  // only when accumulated in f32 (low-precision partial sums would lose both 1s).
  %v49 = arith.constant dense<[[[[2048.0]], [[1.0]], [[1.0]]]]> : tensor<1x3x1x1xf16>
  %v50 = arith.constant dense<[[[[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[-1.0]], [[3.0]]]]> : tensor<2x3x1x1xf16>
  // CHECK: [2050, 1026]
  %v51 = call @conv_f16(%v49, %v50) : (tensor<1x3x1x1xf16>, tensor<2x3x1x1xf16>) -> tensor<1x2x1x1xf16>
  %v52 = arith.extf %v51 : tensor<1x2x1x1xf16> to tensor<1x2x1x1xf32>
  %v53 = tensor.collapse_shape %v52 [[0, 1, 2, 3]] : tensor<1x2x1x1xf32> into tensor<2xf32>
  %v54 = tensor.cast %v53 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v54) : (tensor<*xf32>) -> ()
  %v55 = arith.constant dense<[[[[2048.0]], [[1.0]], [[1.0]]]]> : tensor<1x3x1x1xf16>
  %v56 = arith.constant dense<1.0> : tensor<3x1x1x1xf16>
  // CHECK: [2050]
  %v57 = call @conv_input_grad_f16(%v55, %v56) : (tensor<1x3x1x1xf16>, tensor<3x1x1x1xf16>) -> tensor<1x1x1x1xf16>
  %v58 = arith.extf %v57 : tensor<1x1x1x1xf16> to tensor<1x1x1x1xf32>
  %v59 = tensor.collapse_shape %v58 [[0, 1, 2, 3]] : tensor<1x1x1x1xf32> into tensor<1xf32>
  %v60 = tensor.cast %v59 : tensor<1xf32> to tensor<*xf32>
  call @printMemrefF32(%v60) : (tensor<*xf32>) -> ()
  %v61 = arith.constant dense<[[[[256.0]]], [[[1.0]]], [[[1.0]]]]> : tensor<3x1x1x1xbf16>
  %v62 = arith.constant dense<1.0> : tensor<3x1x1x1xbf16>
  // CHECK: [258]
  %v63 = call @conv_filter_grad_bf16(%v61, %v62) : (tensor<3x1x1x1xbf16>, tensor<3x1x1x1xbf16>) -> tensor<1x1x1x1xbf16>
  %v64 = arith.extf %v63 : tensor<1x1x1x1xbf16> to tensor<1x1x1x1xf32>
  %v65 = tensor.collapse_shape %v64 [[0, 1, 2, 3]] : tensor<1x1x1x1xf32> into tensor<1xf32>
  %v66 = tensor.cast %v65 : tensor<1xf32> to tensor<*xf32>
  call @printMemrefF32(%v66) : (tensor<*xf32>) -> ()
  return
}
