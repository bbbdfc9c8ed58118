// Runs grouped and depthwise mpt.conv2d with their two gradient ops, and
// mpt.avg_pool2d with its gradient (padding in and out of the divisor,
// overlapping windows), lowered to linalg on the CPU. Channels, filters,
// groups and the two spatial sizes all differ, so that a swapped group and
// channel order or a transposed window gives other numbers. Expected values:
// PyTorch's conv2d and avg_pool2d in float64 and their autograd gradients
// for the given output gradient, on small integers (multiples of 36 for the
// pooling, so that every average is whole).
//
// RUN: mpt-opt %s --mpt-convert-to-linalg --convert-elementwise-to-linalg \
// RUN:   --linalg-fuse-elementwise-ops --canonicalize --cse \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   --buffer-deallocation-pipeline --convert-bufferization-to-memref \
// RUN:   --convert-linalg-to-loops --expand-strided-metadata --lower-affine \
// RUN:   --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @conv_grouped(%x: tensor<2x6x5x4xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<2x4x3x3xf32> {
  %y = mpt.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64}
      : tensor<2x6x5x4xf32>, tensor<4x3x3x2xf32> -> tensor<2x4x3x3xf32>
  return %y : tensor<2x4x3x3xf32>
}
func.func @conv_input_grad_grouped(%dy: tensor<2x4x3x3xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<2x6x5x4xf32> {
  %dx = mpt.conv2d_input_grad %dy, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64}
      : tensor<2x4x3x3xf32>, tensor<4x3x3x2xf32> -> tensor<2x6x5x4xf32>
  return %dx : tensor<2x6x5x4xf32>
}
func.func @conv_filter_grad_grouped(%x: tensor<2x6x5x4xf32>, %dy: tensor<2x4x3x3xf32>) -> tensor<4x3x3x2xf32> {
  %dw = mpt.conv2d_filter_grad %x, %dy {strides = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64}
      : tensor<2x6x5x4xf32>, tensor<2x4x3x3xf32> -> tensor<4x3x3x2xf32>
  return %dw : tensor<4x3x3x2xf32>
}
func.func @conv_depthwise(%x: tensor<2x3x4x5xf32>, %w: tensor<3x1x3x3xf32>) -> tensor<2x3x2x3xf32> {
  %y = mpt.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 3 : i64}
      : tensor<2x3x4x5xf32>, tensor<3x1x3x3xf32> -> tensor<2x3x2x3xf32>
  return %y : tensor<2x3x2x3xf32>
}
func.func @conv_input_grad_depthwise(%dy: tensor<2x3x2x3xf32>, %w: tensor<3x1x3x3xf32>) -> tensor<2x3x4x5xf32> {
  %dx = mpt.conv2d_input_grad %dy, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 3 : i64}
      : tensor<2x3x2x3xf32>, tensor<3x1x3x3xf32> -> tensor<2x3x4x5xf32>
  return %dx : tensor<2x3x4x5xf32>
}
func.func @conv_filter_grad_depthwise(%x: tensor<2x3x4x5xf32>, %dy: tensor<2x3x2x3xf32>) -> tensor<3x1x3x3xf32> {
  %dw = mpt.conv2d_filter_grad %x, %dy {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 3 : i64}
      : tensor<2x3x4x5xf32>, tensor<2x3x2x3xf32> -> tensor<3x1x3x3xf32>
  return %dw : tensor<3x1x3x3xf32>
}
func.func @conv_grouped_dilated(%x: tensor<1x4x6x5xf32>, %w: tensor<6x2x2x3xf32>) -> tensor<1x6x6x5xf32> {
  %y = mpt.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilations = array<i64: 2, 1>, groups = 2 : i64}
      : tensor<1x4x6x5xf32>, tensor<6x2x2x3xf32> -> tensor<1x6x6x5xf32>
  return %y : tensor<1x6x6x5xf32>
}
func.func @conv_input_grad_grouped_dilated(%dy: tensor<1x6x6x5xf32>, %w: tensor<6x2x2x3xf32>) -> tensor<1x4x6x5xf32> {
  %dx = mpt.conv2d_input_grad %dy, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilations = array<i64: 2, 1>, groups = 2 : i64}
      : tensor<1x6x6x5xf32>, tensor<6x2x2x3xf32> -> tensor<1x4x6x5xf32>
  return %dx : tensor<1x4x6x5xf32>
}
func.func @conv_filter_grad_grouped_dilated(%x: tensor<1x4x6x5xf32>, %dy: tensor<1x6x6x5xf32>) -> tensor<6x2x2x3xf32> {
  %dw = mpt.conv2d_filter_grad %x, %dy {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilations = array<i64: 2, 1>, groups = 2 : i64}
      : tensor<1x4x6x5xf32>, tensor<1x6x6x5xf32> -> tensor<6x2x2x3xf32>
  return %dw : tensor<6x2x2x3xf32>
}
func.func @avg_pool_include_pad(%x: tensor<1x2x5x4xf32>) -> tensor<1x2x3x5xf32> {
  %y = mpt.avg_pool2d %x {kernel = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>, count_include_pad = true}
      : tensor<1x2x5x4xf32> -> tensor<1x2x3x5xf32>
  return %y : tensor<1x2x3x5xf32>
}
func.func @avg_pool_grad_include_pad(%dy: tensor<1x2x3x5xf32>) -> tensor<1x2x5x4xf32> {
  %dx = mpt.avg_pool2d_grad %dy {kernel = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>, count_include_pad = true}
      : tensor<1x2x3x5xf32> -> tensor<1x2x5x4xf32>
  return %dx : tensor<1x2x5x4xf32>
}
func.func @avg_pool_exclude_pad(%x: tensor<1x2x5x4xf32>) -> tensor<1x2x3x5xf32> {
  %y = mpt.avg_pool2d %x {kernel = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>, count_include_pad = false}
      : tensor<1x2x5x4xf32> -> tensor<1x2x3x5xf32>
  return %y : tensor<1x2x3x5xf32>
}
func.func @avg_pool_grad_exclude_pad(%dy: tensor<1x2x3x5xf32>) -> tensor<1x2x5x4xf32> {
  %dx = mpt.avg_pool2d_grad %dy {kernel = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>, count_include_pad = false}
      : tensor<1x2x3x5xf32> -> tensor<1x2x5x4xf32>
  return %dx : tensor<1x2x5x4xf32>
}
func.func @avg_pool_overlap(%x: tensor<2x1x6x7xf32>) -> tensor<2x1x6x4xf32> {
  %y = mpt.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 2>, padding = array<i64: 1, 1>, count_include_pad = false}
      : tensor<2x1x6x7xf32> -> tensor<2x1x6x4xf32>
  return %y : tensor<2x1x6x4xf32>
}
func.func @avg_pool_grad_overlap(%dy: tensor<2x1x6x4xf32>) -> tensor<2x1x6x7xf32> {
  %dx = mpt.avg_pool2d_grad %dy {kernel = array<i64: 3, 3>, strides = array<i64: 1, 2>, padding = array<i64: 1, 1>, count_include_pad = false}
      : tensor<2x1x6x4xf32> -> tensor<2x1x6x7xf32>
  return %dx : tensor<2x1x6x7xf32>
}

func.func @main() {
  // grouped {strides = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64}
  %v1 = arith.constant dense<[[[[2.0, 3.0, 3.0, -2.0], [-2.0, 1.0, 3.0, -2.0], [0.0, 0.0, 0.0, 3.0], [-1.0, -2.0, -1.0, -2.0], [-3.0, 0.0, -1.0, -2.0]], [[-1.0, 0.0, 0.0, 0.0], [0.0, -1.0, -3.0, 0.0], [0.0, 0.0, -2.0, 2.0], [0.0, 2.0, -1.0, 1.0], [0.0, -1.0, 3.0, 0.0]], [[-2.0, -3.0, -3.0, 0.0], [-2.0, 2.0, -2.0, 2.0], [1.0, 2.0, -2.0, 0.0], [-2.0, -1.0, 3.0, 3.0], [2.0, 2.0, 1.0, -1.0]], [[3.0, -3.0, -2.0, 0.0], [2.0, 3.0, 1.0, 3.0], [0.0, 3.0, 0.0, -1.0], [-1.0, -1.0, -2.0, -2.0], [2.0, 1.0, 3.0, 1.0]], [[-1.0, -2.0, -2.0, -1.0], [2.0, -2.0, -1.0, -3.0], [-3.0, 1.0, -3.0, 2.0], [3.0, -2.0, 0.0, 0.0], [-1.0, 2.0, -2.0, -1.0]], [[-3.0, 3.0, -2.0, -3.0], [0.0, 1.0, -3.0, -2.0], [-3.0, -2.0, 2.0, 2.0], [0.0, 1.0, -3.0, 0.0], [2.0, 1.0, -1.0, 2.0]]], [[[2.0, -1.0, -1.0, 1.0], [3.0, 2.0, 1.0, 1.0], [-1.0, 2.0, 3.0, -3.0], [0.0, 1.0, -3.0, 3.0], [-3.0, 3.0, -3.0, 0.0]], [[-1.0, -2.0, 3.0, -3.0], [2.0, 0.0, 1.0, -2.0], [-3.0, -3.0, 3.0, 1.0], [3.0, 0.0, -3.0, -2.0], [-1.0, 1.0, 3.0, 0.0]], [[-3.0, 3.0, -3.0, 3.0], [2.0, 1.0, -1.0, 1.0], [-1.0, 0.0, 2.0, 2.0], [-1.0, 3.0, -3.0, 2.0], [0.0, 2.0, -3.0, -2.0]], [[0.0, -1.0, 2.0, -3.0], [1.0, -2.0, 0.0, 2.0], [1.0, -3.0, -3.0, -2.0], [0.0, 0.0, 1.0, -1.0], [3.0, 0.0, 1.0, -1.0]], [[-3.0, 0.0, -3.0, 2.0], [2.0, 2.0, 3.0, 1.0], [3.0, -1.0, -3.0, 2.0], [3.0, -1.0, 2.0, -2.0], [-2.0, 1.0, -2.0, -1.0]], [[3.0, 2.0, 0.0, 1.0], [-1.0, 1.0, 2.0, 1.0], [1.0, -3.0, 0.0, 0.0], [3.0, -3.0, 3.0, -1.0], [-3.0, -3.0, -2.0, -1.0]]]]> : tensor<2x6x5x4xf32>
  %v2 = arith.constant dense<[[[[-2.0, -3.0], [-1.0, 2.0], [-3.0, -1.0]], [[-2.0, 3.0], [0.0, 2.0], [2.0, 2.0]], [[2.0, -3.0], [0.0, -3.0], [-3.0, -2.0]]], [[[3.0, 3.0], [-3.0, 1.0], [-3.0, 1.0]], [[-2.0, 0.0], [0.0, 2.0], [-3.0, -2.0]], [[0.0, -2.0], [1.0, -1.0], [-1.0, 3.0]]], [[[-1.0, 3.0], [-3.0, 1.0], [1.0, 2.0]], [[-2.0, 1.0], [-3.0, -1.0], [0.0, 1.0]], [[-1.0, -1.0], [-2.0, -1.0], [0.0, 2.0]]], [[[3.0, 0.0], [-2.0, 2.0], [0.0, -1.0]], [[1.0, 2.0], [-2.0, 3.0], [-3.0, 3.0]], [[-1.0, 0.0], [0.0, -3.0], [-2.0, -1.0]]]]> : tensor<4x3x3x2xf32>
  %v3 = arith.constant dense<[[[[-3.0, -3.0, 0.0], [-1.0, -2.0, -3.0], [-2.0, -3.0, 0.0]], [[-3.0, 1.0, -2.0], [2.0, 0.0, -3.0], [-3.0, -2.0, -1.0]], [[-1.0, 3.0, 0.0], [-1.0, 1.0, 1.0], [0.0, 0.0, 3.0]], [[0.0, 0.0, 1.0], [1.0, -3.0, 1.0], [-3.0, 1.0, -2.0]]], [[[-3.0, 0.0, 2.0], [3.0, -2.0, -1.0], [1.0, 0.0, 2.0]], [[2.0, 2.0, -2.0], [1.0, -2.0, 1.0], [-3.0, -2.0, 3.0]], [[1.0, 3.0, -3.0], [3.0, -1.0, 1.0], [2.0, 1.0, 2.0]], [[3.0, 0.0, 1.0], [3.0, 2.0, -3.0], [0.0, 3.0, 2.0]]]]> : tensor<2x4x3x3xf32>
  // conv2d
  // CHECK: sizes = [72]
  // CHECK-NEXT: [18, -4, -18, -1, 0, -4, 8, -10, 10, 15, -5, -8, -12, 29, 18, 0, -13, -10, 4, 9, 20, 16, -13, 6, -20, -4, -2, -41, 9, 13, 10, -10, 11, -1, -9, -12, -32, 8, -17, -14, -4, -30, -15, 19, -6, -29, 3, -5, 9, 0, 26, 3, -1, 10, 1, 9, 4, -29, 26, 7, -2, 15, -4, 1, -4, -14, -13, 5, 1, 8, 6, -2]
  %v4 = call @conv_grouped(%v1, %v2) : (tensor<2x6x5x4xf32>, tensor<4x3x3x2xf32>) -> tensor<2x4x3x3xf32>
  %v5 = tensor.collapse_shape %v4 [[0, 1, 2, 3]] : tensor<2x4x3x3xf32> into tensor<72xf32>
  %v6 = tensor.cast %v5 : tensor<72xf32> to tensor<*xf32>
  call @printMemrefF32(%v6) : (tensor<*xf32>) -> ()
  // conv2d_input_grad
  // CHECK: sizes = [240]
  // CHECK-NEXT: [12, -9, 1, -2, 26, 19, 13, -2, -5, 2, 8, -9, -8, 6, 20, -3, 11, 2, -5, -1, 0, -12, -4, -4, 1, -8, 4, -5, 0, 2, -4, -12, 2, -6, -8, 0, 0, -10, -10, -2, -3, 13, 6, 2, 10, 0, 11, 9, 2, 1, 3, 12, -3, 20, 29, -1, -3, 7, 10, 1, 3, -10, 1, 2, 3, -12, 11, 2, 1, 4, -10, 3, -10, 1, -3, 10, 6, -8, -3, -1, 3, -8, -5, 3, 3, -5, -6, 6, 1, 7, -15, 2, -6, 6, -17, 3, 6, -11, -2, -9, 2, -5, -3, -3, 0, 1, 1, -2, 2, -4, 6, -4, 1, 2, 2, -2, 0, 9, -9, 3, -3, -10, 6, 2, 0, -9, 7, 2, -6, 15, -8, -1, -23, -8, -1, 5, 8, 5, -13, 7, 0, -2, 4, 0, -20, 1, 0, 5, 0, 8, -8, 0, 7, 13, -15, 2, 0, -4, -4, 10, 2, 9, -4, -4, 13, -5, 10, -9, 1, -12, 9, 2, -8, 8, 8, -7, -3, -2, 5, -9, -9, -2, 10, -1, 7, 18, -10, -4, -15, 8, 6, -5, 1, 16, 4, 11, -6, -7, -3, 6, -9, -1, 4, 6, -12, 23, -2, -5, -15, 5, 10, -10, -13, 9, 19, -2, -6, -11, -2, 4, -2, -16, 3, 0, -12, -5, 7, -8, -6, -10, -7, 8, -8, -7, -3, 3, -4, -4, -14, -8]
  %v7 = call @conv_input_grad_grouped(%v3, %v2) : (tensor<2x4x3x3xf32>, tensor<4x3x3x2xf32>) -> tensor<2x6x5x4xf32>
  %v8 = tensor.collapse_shape %v7 [[0, 1, 2, 3]] : tensor<2x6x5x4xf32> into tensor<240xf32>
  %v9 = tensor.cast %v8 : tensor<240xf32> to tensor<*xf32>
  call @printMemrefF32(%v9) : (tensor<*xf32>) -> ()
  // conv2d_filter_grad
  // CHECK: sizes = [72]
  // CHECK-NEXT: [-3, 16, -36, -13, 5, 0, 7, 2, 20, -24, 10, 13, 9, 0, -2, 2, -19, -2, -16, 31, -3, -23, 5, 20, -9, -11, 12, -18, 10, 11, -6, -1, 0, -11, -3, -14, 3, -10, 2, 1, 1, -13, 11, -2, -4, -24, -2, 2, -4, -9, 14, -17, 12, -23, 1, -3, -12, -14, 1, 7, -2, 15, 1, -16, 18, 9, -9, 13, -7, -27, -16, 12]
  %v10 = call @conv_filter_grad_grouped(%v1, %v3) : (tensor<2x6x5x4xf32>, tensor<2x4x3x3xf32>) -> tensor<4x3x3x2xf32>
  %v11 = tensor.collapse_shape %v10 [[0, 1, 2, 3]] : tensor<4x3x3x2xf32> into tensor<72xf32>
  %v12 = tensor.cast %v11 : tensor<72xf32> to tensor<*xf32>
  call @printMemrefF32(%v12) : (tensor<*xf32>) -> ()
  // depthwise {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 3 : i64}
  %v13 = arith.constant dense<[[[[-3.0, 1.0, 3.0, 0.0, -3.0], [-1.0, 3.0, -2.0, 1.0, -2.0], [0.0, -2.0, -2.0, -2.0, 2.0], [2.0, -3.0, -2.0, 0.0, 2.0]], [[-3.0, -3.0, 0.0, 2.0, -2.0], [-1.0, -2.0, 2.0, -1.0, -2.0], [-1.0, -2.0, -3.0, 2.0, 3.0], [2.0, 3.0, -1.0, -1.0, 3.0]], [[3.0, 1.0, 2.0, -1.0, 3.0], [2.0, -3.0, 0.0, 1.0, 1.0], [2.0, 0.0, -2.0, 3.0, -2.0], [2.0, 0.0, -1.0, -3.0, -1.0]]], [[[-2.0, 3.0, -3.0, 0.0, -2.0], [1.0, 2.0, 3.0, -2.0, -3.0], [-1.0, -1.0, -3.0, 2.0, 0.0], [1.0, 2.0, 0.0, -3.0, 3.0]], [[3.0, 3.0, -3.0, 1.0, -2.0], [0.0, 3.0, 2.0, -2.0, 2.0], [3.0, -1.0, 1.0, -2.0, -1.0], [3.0, -2.0, -3.0, 1.0, 2.0]], [[-3.0, -2.0, -1.0, 3.0, 1.0], [-1.0, -3.0, 3.0, 3.0, 1.0], [2.0, -3.0, -1.0, -2.0, 2.0], [-3.0, 2.0, 1.0, 1.0, -2.0]]]]> : tensor<2x3x4x5xf32>
  %v14 = arith.constant dense<[[[[-1.0, 3.0, -2.0], [1.0, 0.0, 3.0], [1.0, -2.0, 1.0]]], [[[-3.0, 3.0, 2.0], [-2.0, 0.0, 3.0], [-1.0, -3.0, -1.0]]], [[[0.0, 0.0, -1.0], [3.0, -3.0, 2.0], [1.0, 3.0, -3.0]]]]> : tensor<3x1x3x3xf32>
  %v15 = arith.constant dense<[[[[0.0, -3.0, -1.0], [1.0, -1.0, -3.0]], [[-2.0, -3.0, -2.0], [2.0, -1.0, 2.0]], [[-2.0, -3.0, -3.0], [1.0, 2.0, 0.0]]], [[[-3.0, 2.0, 3.0], [-1.0, 3.0, 2.0]], [[3.0, -3.0, -2.0], [-3.0, 0.0, -2.0]], [[-1.0, -1.0, 0.0], [-3.0, 2.0, -3.0]]]]> : tensor<2x3x2x3xf32>
  // conv2d
  // CHECK: sizes = [36]
  // CHECK-NEXT: [8, 9, 5, -22, -18, -13, -4, 9, 3, -22, 21, -15, 8, -11, -8, 3, 17, 9, 9, -3, 4, -4, 15, -14, 6, -10, -6, -4, -1, 9, 11, 0, 12, -24, -11, -17]
  %v16 = call @conv_depthwise(%v13, %v14) : (tensor<2x3x4x5xf32>, tensor<3x1x3x3xf32>) -> tensor<2x3x2x3xf32>
  %v17 = tensor.collapse_shape %v16 [[0, 1, 2, 3]] : tensor<2x3x2x3xf32> into tensor<36xf32>
  %v18 = tensor.cast %v17 : tensor<36xf32> to tensor<*xf32>
  call @printMemrefF32(%v18) : (tensor<*xf32>) -> ()
  // conv2d_input_grad
  // CHECK: sizes = [120]
  // CHECK-NEXT: [0, -3, 0, -10, 0, 3, -4, 3, 1, -7, 0, 2, 0, -6, 0, -2, 0, 2, -4, 6, 0, 0, 0, -5, 0, 12, 12, 6, -3, 12, 0, 8, 0, -7, 0, -6, -1, 3, -1, -6, 6, -13, 9, -15, 9, -6, 2, -9, 4, -9, -3, 8, -6, 4, 0, 3, -1, 6, -6, 0, 0, -7, 0, 9, 0, 3, -2, 5, -3, 0, 0, 0, 0, 11, 0, 2, 2, -6, 5, -4, 0, 15, 0, -5, 0, -18, -6, 9, 11, 0, 0, -9, 0, 4, 0, 9, 3, 0, 2, 6, 3, -5, 3, -2, 0, -3, 5, -3, 1, 0, 9, 0, -6, -5, 9, -9, 11, 6, -9, -9]
  %v19 = call @conv_input_grad_depthwise(%v15, %v14) : (tensor<2x3x2x3xf32>, tensor<3x1x3x3xf32>) -> tensor<2x3x4x5xf32>
  %v20 = tensor.collapse_shape %v19 [[0, 1, 2, 3]] : tensor<2x3x4x5xf32> into tensor<120xf32>
  %v21 = tensor.cast %v20 : tensor<120xf32> to tensor<*xf32>
  call @printMemrefF32(%v21) : (tensor<*xf32>) -> ()
  // conv2d_filter_grad
  // CHECK: sizes = [27]
  // CHECK-NEXT: [-4, 9, -6, 12, -24, -2, -9, 5, -27, 4, -12, -12, 4, 32, 3, -4, -12, 35, -21, 8, 14, 2, -33, 11, 10, 8, -7]
  %v22 = call @conv_filter_grad_depthwise(%v13, %v15) : (tensor<2x3x4x5xf32>, tensor<2x3x2x3xf32>) -> tensor<3x1x3x3xf32>
  %v23 = tensor.collapse_shape %v22 [[0, 1, 2, 3]] : tensor<3x1x3x3xf32> into tensor<27xf32>
  %v24 = tensor.cast %v23 : tensor<27xf32> to tensor<*xf32>
  call @printMemrefF32(%v24) : (tensor<*xf32>) -> ()
  // grouped_dilated {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilations = array<i64: 2, 1>, groups = 2 : i64}
  %v25 = arith.constant dense<[[[[1.0, -1.0, 3.0, 2.0, 2.0], [-3.0, 1.0, -2.0, -1.0, 3.0], [-3.0, 0.0, 1.0, -2.0, -3.0], [2.0, -2.0, 3.0, -3.0, -1.0], [-1.0, 1.0, 2.0, 0.0, -1.0], [2.0, 0.0, -2.0, 2.0, 3.0]], [[-3.0, -3.0, 0.0, 1.0, -3.0], [0.0, 2.0, -2.0, 2.0, 0.0], [-3.0, -1.0, -2.0, 0.0, -1.0], [-3.0, -2.0, 2.0, -3.0, 1.0], [0.0, 3.0, -1.0, 2.0, -1.0], [2.0, 3.0, -2.0, -3.0, 1.0]], [[-3.0, 0.0, -1.0, 3.0, 0.0], [-2.0, -2.0, 1.0, -1.0, -1.0], [-3.0, 3.0, -1.0, 2.0, 1.0], [-3.0, 2.0, 1.0, 1.0, -2.0], [0.0, 1.0, 2.0, -2.0, -1.0], [1.0, 1.0, 0.0, 1.0, -3.0]], [[1.0, 2.0, -3.0, 1.0, 3.0], [-2.0, 1.0, -3.0, -3.0, 3.0], [-2.0, 2.0, -2.0, 1.0, 2.0], [1.0, 0.0, -1.0, -2.0, 2.0], [-3.0, -2.0, -2.0, 2.0, 1.0], [3.0, -2.0, -3.0, -1.0, -2.0]]]]> : tensor<1x4x6x5xf32>
  %v26 = arith.constant dense<[[[[3.0, -2.0, 3.0], [2.0, 1.0, -2.0]], [[-1.0, 3.0, 1.0], [1.0, 2.0, -3.0]]], [[[0.0, -2.0, 3.0], [0.0, -1.0, 2.0]], [[-2.0, 1.0, -3.0], [2.0, 2.0, 2.0]]], [[[3.0, 1.0, -2.0], [2.0, 1.0, 0.0]], [[3.0, 0.0, -1.0], [-2.0, 3.0, -1.0]]], [[[0.0, -3.0, 3.0], [2.0, 1.0, 0.0]], [[-3.0, -3.0, 2.0], [0.0, -2.0, -2.0]]], [[[3.0, -1.0, -2.0], [-2.0, -2.0, 2.0]], [[0.0, -1.0, -1.0], [3.0, -1.0, 0.0]]], [[[1.0, 3.0, 0.0], [-1.0, 2.0, 2.0]], [[2.0, -3.0, 3.0], [3.0, -2.0, 0.0]]]]> : tensor<6x2x2x3xf32>
  %v27 = arith.constant dense<[[[[3.0, 1.0, 0.0, -2.0, -3.0], [-2.0, 0.0, -1.0, 0.0, 3.0], [0.0, -1.0, 1.0, -2.0, -1.0], [0.0, -2.0, 1.0, -1.0, -1.0], [2.0, 0.0, 3.0, 3.0, 3.0], [3.0, 2.0, -3.0, 1.0, 3.0]], [[-1.0, -1.0, -1.0, 0.0, 2.0], [2.0, -2.0, 0.0, 0.0, -2.0], [-1.0, 3.0, -3.0, 1.0, -1.0], [1.0, 3.0, 3.0, 1.0, -1.0], [-1.0, 1.0, -2.0, -1.0, 1.0], [-2.0, 2.0, 0.0, 1.0, 3.0]], [[2.0, -1.0, -3.0, 1.0, 2.0], [3.0, -1.0, 1.0, -3.0, -2.0], [-2.0, -1.0, -2.0, -1.0, -3.0], [0.0, -3.0, 3.0, -2.0, -3.0], [2.0, 1.0, 3.0, -2.0, 1.0], [2.0, 1.0, -2.0, 0.0, 2.0]], [[-2.0, 2.0, -1.0, -2.0, -3.0], [-3.0, 1.0, -3.0, 3.0, -3.0], [-2.0, 0.0, -2.0, 2.0, -3.0], [2.0, -2.0, -2.0, 3.0, 1.0], [2.0, -2.0, 2.0, -2.0, -1.0], [1.0, 2.0, -1.0, 2.0, 1.0]], [[1.0, 3.0, 2.0, 2.0, 1.0], [2.0, 3.0, 2.0, -2.0, -2.0], [3.0, 0.0, -2.0, -3.0, 0.0], [-3.0, -3.0, 3.0, 1.0, -2.0], [0.0, -2.0, -3.0, -2.0, 0.0], [0.0, -2.0, 1.0, 3.0, 2.0]], [[3.0, -2.0, -1.0, -2.0, 0.0], [-1.0, 0.0, -1.0, -3.0, 1.0], [-2.0, -2.0, 3.0, 1.0, 1.0], [-2.0, 2.0, 0.0, 1.0, 0.0], [2.0, 0.0, 1.0, 2.0, -1.0], [-2.0, -3.0, 2.0, 1.0, 3.0]]]]> : tensor<1x6x6x5xf32>
  // conv2d
  // CHECK: sizes = [180]
  // CHECK-NEXT: [-11, 9, -6, -9, 3, -23, 1, 1, 18, -17, 17, -30, 14, 11, -19, -16, -4, -14, 11, -4, -24, 40, -14, -17, 5, 8, 9, -5, 9, -3, 9, -5, 4, 7, 1, -4, 4, -8, 2, -8, -13, 2, -26, 18, -13, 15, 21, -2, 0, 8, 1, 13, 2, -11, 2, -4, 10, -17, 4, -3, -5, 3, -12, 5, -3, -5, -14, -17, 15, 1, -12, -2, 19, -30, 8, -6, -9, -5, 15, -17, 13, -2, -11, 5, -3, -6, -5, 12, 6, 5, 0, -2, 9, 1, -9, 7, -21, 24, -3, -11, 3, 4, 5, 27, -1, 38, -7, 15, 0, -19, 11, 5, 9, 11, 9, 8, 14, 4, 5, -6, 2, 3, 6, -8, -8, 14, -16, 5, -17, 1, 16, 3, -2, -3, -11, 2, -15, -7, -20, 14, -5, -5, 3, -10, 6, 3, -1, 5, 7, -6, -4, -8, 11, -8, -16, -2, -19, 22, 7, -5, -1, -12, 7, 8, -34, 11, -9, 10, -14, 5, -14, 16, 3, 3, -21, 3, -3, 15, -11, -4]
  %v28 = call @conv_grouped_dilated(%v25, %v26) : (tensor<1x4x6x5xf32>, tensor<6x2x2x3xf32>) -> tensor<1x6x6x5xf32>
  %v29 = tensor.collapse_shape %v28 [[0, 1, 2, 3]] : tensor<1x6x6x5xf32> into tensor<180xf32>
  %v30 = tensor.cast %v29 : tensor<180xf32> to tensor<*xf32>
  call @printMemrefF32(%v30) : (tensor<*xf32>) -> ()
  // conv2d_input_grad
  // CHECK: sizes = [120]
  // CHECK-NEXT: [0, -3, -10, -5, 2, 0, -20, -7, -18, 1, -20, 19, -15, -7, 8, -2, 7, 9, -17, 6, -2, -21, 22, -2, -3, 7, 6, 12, 0, -5, -3, -9, -5, -7, 10, 2, -8, -31, -2, 1, -5, -7, -5, -23, -7, 5, 14, -2, 3, 14, 16, 8, 20, -3, 4, 8, -12, 17, -15, 2, 13, -14, -8, -34, 27, -3, -26, -2, -17, 19, -29, 24, 17, -25, -1, -16, 1, 7, 30, -7, -14, -17, 21, 13, 13, 6, 15, 4, 1, -3, 7, -10, -6, 2, 7, 5, 9, -13, 23, 25, 28, 14, -10, -18, 7, -7, 25, -4, 17, 10, -9, 16, 0, -17, -16, -14, -4, 1, -5, 8]
  %v31 = call @conv_input_grad_grouped_dilated(%v27, %v26) : (tensor<1x6x6x5xf32>, tensor<6x2x2x3xf32>) -> tensor<1x4x6x5xf32>
  %v32 = tensor.collapse_shape %v31 [[0, 1, 2, 3]] : tensor<1x4x6x5xf32> into tensor<120xf32>
  %v33 = tensor.cast %v32 : tensor<120xf32> to tensor<*xf32>
  call @printMemrefF32(%v33) : (tensor<*xf32>) -> ()
  // conv2d_filter_grad
  // CHECK: sizes = [72]
  // CHECK-NEXT: [14, -6, -16, -8, 7, 5, 4, -8, 4, -5, -4, 4, -25, 2, -2, 36, 3, 16, -19, 15, -28, 11, 3, 23, -12, 23, -18, 18, 9, 18, -18, 5, -9, 35, -3, 13, 1, 8, 14, -26, 22, -5, -25, 0, 7, 0, 24, -5, 2, -39, -7, -17, -29, -1, 28, 11, 9, -7, 19, 18, -2, 13, -24, 22, 9, -20, 12, 12, -3, -6, 6, -13]
  %v34 = call @conv_filter_grad_grouped_dilated(%v25, %v27) : (tensor<1x4x6x5xf32>, tensor<1x6x6x5xf32>) -> tensor<6x2x2x3xf32>
  %v35 = tensor.collapse_shape %v34 [[0, 1, 2, 3]] : tensor<6x2x2x3xf32> into tensor<72xf32>
  %v36 = tensor.cast %v35 : tensor<72xf32> to tensor<*xf32>
  call @printMemrefF32(%v36) : (tensor<*xf32>) -> ()
  // include_pad {kernel = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>, count_include_pad = true}
  %v37 = arith.constant dense<[[[[36.0, -72.0, 108.0, 108.0], [-36.0, 108.0, 36.0, 108.0], [-72.0, -72.0, 36.0, 72.0], [-72.0, -72.0, 72.0, 72.0], [-108.0, 108.0, 36.0, 72.0]], [[36.0, -36.0, 0.0, 108.0], [72.0, 0.0, 72.0, 72.0], [36.0, 0.0, 0.0, -108.0], [-72.0, 36.0, -36.0, -72.0], [-72.0, -108.0, -36.0, -72.0]]]]> : tensor<1x2x5x4xf32>
  %v38 = arith.constant dense<[[[[36.0, 72.0, 0.0, 108.0, 72.0], [-108.0, 72.0, -72.0, 108.0, -36.0], [72.0, 72.0, 108.0, 108.0, -108.0]], [[-108.0, 108.0, -72.0, -108.0, -108.0], [72.0, 72.0, 72.0, -72.0, -72.0], [-36.0, -108.0, -108.0, 0.0, 108.0]]]]> : tensor<1x2x3x5xf32>
  // avg_pool2d
  // CHECK: sizes = [30]
  // CHECK-NEXT: [0, 6, 30, 60, 36, -30, -36, 18, 66, 42, -30, -24, 24, 42, 24, 18, 12, 6, 42, 30, 6, 12, 12, -12, -18, -24, -36, -24, -36, -24]
  %v39 = call @avg_pool_include_pad(%v37) : (tensor<1x2x5x4xf32>) -> tensor<1x2x3x5xf32>
  %v40 = tensor.collapse_shape %v39 [[0, 1, 2, 3]] : tensor<1x2x3x5xf32> into tensor<30xf32>
  %v41 = tensor.cast %v40 : tensor<30xf32> to tensor<*xf32>
  call @printMemrefF32(%v41) : (tensor<*xf32>) -> ()
  // avg_pool2d_grad
  // CHECK: sizes = [40]
  // CHECK-NEXT: [18, 12, 18, 30, 12, 12, 24, 42, -6, 0, 6, 12, 18, 30, 42, 12, 24, 30, 36, 0, 0, 6, -30, -36, 24, 30, -30, -60, 24, 24, 0, -24, 0, -12, -18, -6, -24, -36, -18, 18]
  %v42 = call @avg_pool_grad_include_pad(%v38) : (tensor<1x2x3x5xf32>) -> tensor<1x2x5x4xf32>
  %v43 = tensor.collapse_shape %v42 [[0, 1, 2, 3]] : tensor<1x2x5x4xf32> into tensor<40xf32>
  %v44 = tensor.cast %v43 : tensor<40xf32> to tensor<*xf32>
  call @printMemrefF32(%v44) : (tensor<*xf32>) -> ()
  // exclude_pad {kernel = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>, count_include_pad = false}
  %v45 = arith.constant dense<[[[[-72.0, 108.0, -108.0, 36.0], [-108.0, 108.0, -108.0, -72.0], [36.0, -108.0, 0.0, 72.0], [-36.0, -36.0, -72.0, -108.0], [108.0, -36.0, -36.0, 0.0]], [[0.0, 108.0, -36.0, -36.0], [-72.0, 36.0, -108.0, 108.0], [72.0, -72.0, -108.0, -36.0], [36.0, 108.0, 108.0, 0.0], [36.0, 108.0, -108.0, -36.0]]]]> : tensor<1x2x5x4xf32>
  %v46 = arith.constant dense<[[[[-108.0, -72.0, 36.0, 108.0, -108.0], [36.0, -72.0, 36.0, 72.0, -36.0], [36.0, 72.0, 36.0, 72.0, 36.0]], [[72.0, -108.0, 36.0, 72.0, 36.0], [0.0, 36.0, 72.0, 36.0, -36.0], [72.0, 36.0, -108.0, -72.0, -36.0]]]]> : tensor<1x2x3x5xf32>
  // avg_pool2d
  // CHECK: sizes = [30]
  // CHECK-NEXT: [-90, 9, 0, -63, -18, -36, -24, -36, -48, -36, 36, 0, -45, -54, -54, -36, 18, 0, -18, 36, 12, 18, -6, -6, 24, 36, 72, 54, -9, -18]
  %v47 = call @avg_pool_exclude_pad(%v45) : (tensor<1x2x5x4xf32>) -> tensor<1x2x3x5xf32>
  %v48 = tensor.collapse_shape %v47 [[0, 1, 2, 3]] : tensor<1x2x3x5xf32> into tensor<30xf32>
  %v49 = tensor.cast %v48 : tensor<30xf32> to tensor<*xf32>
  call @printMemrefF32(%v49) : (tensor<*xf32>) -> ()
  // avg_pool2d_grad
  // CHECK: sizes = [40]
  // CHECK-NEXT: [-72, -9, 36, -27, -72, -15, 54, -27, 0, -6, 18, 0, 36, 21, 45, 36, 36, 27, 27, 36, 9, -18, 27, 36, 15, 0, 45, 30, 6, 18, 18, -6, 51, 0, -27, -42, 45, -18, -45, -36]
  %v50 = call @avg_pool_grad_exclude_pad(%v46) : (tensor<1x2x3x5xf32>) -> tensor<1x2x5x4xf32>
  %v51 = tensor.collapse_shape %v50 [[0, 1, 2, 3]] : tensor<1x2x5x4xf32> into tensor<40xf32>
  %v52 = tensor.cast %v51 : tensor<40xf32> to tensor<*xf32>
  call @printMemrefF32(%v52) : (tensor<*xf32>) -> ()
  // overlap {kernel = array<i64: 3, 3>, strides = array<i64: 1, 2>, padding = array<i64: 1, 1>, count_include_pad = false}
  %v53 = arith.constant dense<[[[[72.0, -72.0, -36.0, 36.0, 72.0, 72.0, -72.0], [108.0, 108.0, 36.0, -36.0, 72.0, 108.0, -36.0], [0.0, 36.0, 0.0, -36.0, 108.0, -36.0, -36.0], [108.0, -36.0, 72.0, -108.0, 0.0, -108.0, -108.0], [0.0, -36.0, 0.0, -108.0, -36.0, -72.0, 36.0], [-36.0, 108.0, -108.0, -36.0, -36.0, 108.0, 0.0]]], [[[0.0, 0.0, -108.0, 0.0, -36.0, 108.0, 108.0], [-108.0, -108.0, -108.0, -72.0, -108.0, 36.0, 72.0], [-108.0, 108.0, -108.0, 72.0, 36.0, 36.0, -72.0], [-36.0, 36.0, -36.0, 0.0, -72.0, 108.0, 0.0], [-108.0, -72.0, -36.0, 0.0, -108.0, 108.0, 0.0], [108.0, 36.0, 72.0, 36.0, 0.0, -108.0, -72.0]]]]> : tensor<2x1x6x7xf32>
  %v54 = arith.constant dense<[[[[-36.0, -36.0, 36.0, -72.0], [108.0, -72.0, -36.0, 108.0], [-72.0, -72.0, 72.0, 72.0], [0.0, 72.0, -108.0, -108.0], [-36.0, 72.0, -36.0, -108.0], [72.0, 36.0, -108.0, -36.0]]], [[[72.0, -72.0, -108.0, 72.0], [0.0, -72.0, 108.0, 108.0], [108.0, 0.0, -108.0, 0.0], [0.0, 72.0, 72.0, 0.0], [108.0, -108.0, -72.0, -72.0], [36.0, 36.0, 0.0, 36.0]]]]> : tensor<2x1x6x4xf32>
  // avg_pool2d
  // CHECK: sizes = [48]
  // CHECK-NEXT: [54, 6, 54, 18, 42, 4, 40, 0, 54, 4, -4, -36, 12, -24, -44, -54, 18, -28, -44, -24, 9, -30, -30, 18, -54, -66, -12, 81, -36, -36, 8, 48, -36, -24, 4, 30, -30, -4, 20, 30, -6, 4, -4, 6, -9, 6, -12, -18]
  %v55 = call @avg_pool_overlap(%v53) : (tensor<2x1x6x7xf32>) -> tensor<2x1x6x4xf32>
  %v56 = tensor.collapse_shape %v55 [[0, 1, 2, 3]] : tensor<2x1x6x4xf32> into tensor<48xf32>
  %v57 = tensor.cast %v56 : tensor<48xf32> to tensor<*xf32>
  call @printMemrefF32(%v57) : (tensor<*xf32>) -> ()
  // avg_pool2d_grad
  // CHECK: sizes = [84]
  // CHECK-NEXT: [9, -5, -14, -12, 2, 2, 0, -3, -25, -22, -12, 10, 22, 12, 6, -2, -8, -16, -8, 4, 12, -18, -10, 8, 0, -8, -32, -24, 12, 34, 22, -12, -34, -79, -45, 12, 26, 14, -8, -22, -49, -27, 18, -2, -20, -26, -6, 30, 36, 36, 16, -20, -38, -18, 18, 36, 18, 18, 0, 8, 8, 26, 18, 36, 32, -4, -16, -12, -24, -12, 27, 29, 2, 2, 0, -3, -3, 27, 21, -6, -14, -8, -11, -3]
  %v58 = call @avg_pool_grad_overlap(%v54) : (tensor<2x1x6x4xf32>) -> tensor<2x1x6x7xf32>
  %v59 = tensor.collapse_shape %v58 [[0, 1, 2, 3]] : tensor<2x1x6x7xf32> into tensor<84xf32>
  %v60 = tensor.cast %v59 : tensor<84xf32> to tensor<*xf32>
  call @printMemrefF32(%v60) : (tensor<*xf32>) -> ()
  return
}
