// RUN: mpt-opt %s --mpt-convert-to-linalg --split-input-file | FileCheck %s

// Grouped conv2d (6 channels, 4 filters, 2 groups): the channels split into
// (groups, channels per group) on views of the padded input, the filter and
// the f32 init, one linalg.conv_2d_ngchw_gfchw (not the conv_2d_nchw_fchw the
// CPU kernels and the im2col GEMM take), collapsed back and rounded once.

// CHECK-LABEL: func.func @conv2d_groups
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x6x9x7xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<4x3x3x2xf16>
// CHECK: %[[PADDED:.*]] = tensor.pad %[[X]] low[0, 0, 1, 0] high[0, 0, 1, 0]
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4x9x6xf32>)
// CHECK: %[[GINIT:.*]] = tensor.expand_shape %[[INIT]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 2, 9, 6]
// CHECK: %[[GX:.*]] = tensor.expand_shape %[[PADDED]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 3, 11, 7]
// CHECK: %[[GW:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 2, 3, 3, 2]
// CHECK: %[[CONV:.*]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[GX]], %[[GW]] : tensor<2x2x3x11x7xf16>, tensor<2x2x3x3x2xf16>) outs(%[[GINIT]] : tensor<2x2x2x9x6xf32>)
// CHECK: %[[Y:.*]] = tensor.collapse_shape %[[CONV]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x2x2x9x6xf32> into tensor<2x4x9x6xf32>
// CHECK: linalg.generic {{.*}} ins(%[[Y]] : tensor<2x4x9x6xf32>) outs(%{{.*}} : tensor<2x4x9x6xf16>)
// CHECK: arith.truncf
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv2d_groups(%x: tensor<2x6x9x7xf16>, %w: tensor<4x3x3x2xf16>) -> tensor<2x4x9x6xf16> {
  %y = mpt.conv2d %x, %w {padding = array<i64: 1, 0>, groups = 2 : i64}
      : tensor<2x6x9x7xf16>, tensor<4x3x3x2xf16> -> tensor<2x4x9x6xf16>
  return %y : tensor<2x4x9x6xf16>
}

// -----

// conv2d_input_grad in groups: each group's (3 channels, 2 filters) block of
// the filter flipped and swapped in place, flipped[c, j] =
// filter[(c / 3) * 2 + j, c mod 3], then a grouped stride-1 convolution of
// the spread gradient.

// CHECK-DAG: #[[$FLIP:.*]] = affine_map<(d0, d1, d2, d3) -> ((d0 floordiv 3) * 2 + d1, d0 mod 3, -d2 + 2, -d3 + 1)>
// CHECK-LABEL: func.func @conv2d_input_grad_groups
// CHECK-SAME: %[[DY:[a-zA-Z0-9_]+]]: tensor<2x4x9x6xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<4x3x3x2xf32>
// CHECK: %[[SPREAD:.*]] = tensor.insert_slice %[[DY]] into %{{.*}}[0, 0, 1, 1] [2, 4, 9, 6] [1, 1, 1, 1] : tensor<2x4x9x6xf32> into tensor<2x4x11x8xf32>
// CHECK: %[[FLIPPED:.*]] = linalg.generic {indexing_maps = [#[[$FLIP]], {{.*}}]{{.*}} ins(%[[W]] : tensor<4x3x3x2xf32>) outs(%{{.*}} : tensor<6x2x3x2xf32>)
// CHECK: %[[GSPREAD:.*]] = tensor.expand_shape %[[SPREAD]] {{.*}} output_shape [2, 2, 2, 11, 8]
// CHECK: %[[GFLIPPED:.*]] = tensor.expand_shape %[[FLIPPED]] {{.*}} output_shape [2, 3, 2, 3, 2]
// CHECK: linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[GSPREAD]], %[[GFLIPPED]] : tensor<2x2x2x11x8xf32>, tensor<2x3x2x3x2xf32>) outs(%{{.*}} : tensor<2x2x3x9x7xf32>)
func.func @conv2d_input_grad_groups(%dy: tensor<2x4x9x6xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<2x6x9x7xf32> {
  %dx = mpt.conv2d_input_grad %dy, %w {padding = array<i64: 1, 0>, groups = 2 : i64}
      : tensor<2x4x9x6xf32>, tensor<4x3x3x2xf32> -> tensor<2x6x9x7xf32>
  return %dx : tensor<2x6x9x7xf32>
}

// -----

// conv2d_filter_grad in groups: the padded input as [c, (g, n), H, W] (the
// batch is the channel within its group), dy as [f, n, OH, OW], a grouped
// convolution with strides and dilations swapped into [c, f, KH, KW],
// transposed back.

// CHECK-LABEL: func.func @conv2d_filter_grad_groups
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x6x9x7xf32>, %[[DY:[a-zA-Z0-9_]+]]: tensor<2x4x9x6xf32>
// CHECK: %[[PADDED:.*]] = tensor.pad %[[X]] low[0, 0, 1, 0] high[0, 0, 1, 0]
// CHECK: %[[GX:.*]] = tensor.expand_shape %[[PADDED]] {{.*}} output_shape [2, 2, 3, 11, 7]
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[GX]] : tensor<2x2x3x11x7xf32>) outs(%{{.*}} : tensor<3x2x2x11x7xf32>) permutation = [2, 1, 0, 3, 4]
// CHECK: %[[XC:.*]] = tensor.collapse_shape %[[XT]] {{.*}} into tensor<3x4x11x7xf32>
// CHECK: %[[DYT:.*]] = linalg.transpose ins(%[[DY]] : tensor<2x4x9x6xf32>) outs(%{{.*}} : tensor<4x2x9x6xf32>) permutation = [1, 0, 2, 3]
// CHECK: %[[GXC:.*]] = tensor.expand_shape %[[XC]] {{.*}} output_shape [3, 2, 2, 11, 7]
// CHECK: %[[GDY:.*]] = tensor.expand_shape %[[DYT]] {{.*}} output_shape [2, 2, 2, 9, 6]
// CHECK: %[[ACC:.*]] = linalg.conv_2d_ngchw_gfchw {{.*}} ins(%[[GXC]], %[[GDY]] : tensor<3x2x2x11x7xf32>, tensor<2x2x2x9x6xf32>) outs(%{{.*}} : tensor<3x2x2x3x2xf32>)
// CHECK: %[[DW:.*]] = tensor.collapse_shape %[[ACC]] {{.*}} into tensor<3x4x3x2xf32>
// CHECK: linalg.transpose ins(%[[DW]] : tensor<3x4x3x2xf32>) outs(%{{.*}} : tensor<4x3x3x2xf32>) permutation = [1, 0, 2, 3]
func.func @conv2d_filter_grad_groups(%x: tensor<2x6x9x7xf32>, %dy: tensor<2x4x9x6xf32>) -> tensor<4x3x3x2xf32> {
  %dw = mpt.conv2d_filter_grad %x, %dy {padding = array<i64: 1, 0>, groups = 2 : i64}
      : tensor<2x6x9x7xf32>, tensor<2x4x9x6xf32> -> tensor<4x3x3x2xf32>
  return %dw : tensor<4x3x3x2xf32>
}

// -----

// avg_pool2d without the padding in the divisor: zero padding, window sums of
// the bf16 input into f32 (linalg.pooling_nchw_sum extends in its body), then
// one pass that divides by the positions of each window inside the image,
// (min(oh*s - p + K, H) - max(oh*s - p, 0)) per dimension, and rounds once.

// CHECK-LABEL: func.func @avg_pool2d_exclude_pad
// CHECK: %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x3x5xf32>)
// CHECK: %[[WINDOW:.*]] = tensor.empty() : tensor<3x2xf32>
// CHECK: %[[SUM:.*]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%[[PADDED]], %[[WINDOW]] : tensor<1x2x7x6xbf16>, tensor<3x2xf32>) outs(%[[INIT]] : tensor<1x2x3x5xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x2x3x5xf32>) outs(%{{.*}} : tensor<1x2x3x5xbf16>)
// CHECK: linalg.index 2
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: linalg.index 3
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: %[[COUNT:.*]] = arith.uitofp %{{.*}} : i32 to f32
// CHECK: %[[AVERAGE:.*]] = arith.divf %{{.*}}, %[[COUNT]] : f32
// CHECK: arith.truncf %[[AVERAGE]] : f32 to bf16
func.func @avg_pool2d_exclude_pad(%x: tensor<1x2x5x4xbf16>) -> tensor<1x2x3x5xbf16> {
  %y = mpt.avg_pool2d %x {kernel = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>,
                          count_include_pad = false}
      : tensor<1x2x5x4xbf16> -> tensor<1x2x3x5xbf16>
  return %y : tensor<1x2x3x5xbf16>
}

// -----

// avg_pool2d_grad with the padding in the divisor: the gradient divided by
// the window size (3 * 2) in f32, spread over the input grown by the kernel
// (window (oh, ow) at (oh*2 + 3-1-1, ow + 2-1-1)), and a stride-1 window sum
// gathers, for each input position, the windows that hold it.

// CHECK-LABEL: func.func @avg_pool2d_grad
// CHECK-SAME: %[[DY:[a-zA-Z0-9_]+]]: tensor<1x2x3x5xf16>
// CHECK: %[[SHARES:.*]] = linalg.generic {{.*}} ins(%[[DY]] : tensor<1x2x3x5xf16>) outs(%{{.*}} : tensor<1x2x3x5xf32>)
// CHECK: %[[SIZE:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: %[[GRAD:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.divf %[[GRAD]], %[[SIZE]] : f32
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x7x5xf32>)
// CHECK: %[[SPREAD:.*]] = tensor.insert_slice %[[SHARES]] into %[[ZEROS]][0, 0, 1, 0] [1, 2, 3, 5] [1, 1, 2, 1]
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x5x4xf32>)
// CHECK: %[[DX:.*]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[SPREAD]], %{{.*}} : tensor<1x2x7x5xf32>, tensor<3x2xf32>) outs(%[[INIT]] : tensor<1x2x5x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[DX]] : tensor<1x2x5x4xf32>) outs(%{{.*}} : tensor<1x2x5x4xf16>)
// CHECK: arith.truncf
func.func @avg_pool2d_grad(%dy: tensor<1x2x3x5xf16>) -> tensor<1x2x5x4xf16> {
  %dx = mpt.avg_pool2d_grad %dy {kernel = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>}
      : tensor<1x2x3x5xf16> -> tensor<1x2x5x4xf16>
  return %dx : tensor<1x2x5x4xf16>
}
