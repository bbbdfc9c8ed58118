// RUN: mpt-opt %s | mpt-opt | FileCheck %s
// RUN: mpt-opt %s --mlir-print-op-generic | mpt-opt | FileCheck %s

// Round trip of every mpt op, in each of its optional forms, through the
// custom and the generic printer.

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<128x784xf32>, %[[B:.*]]: tensor<784x256xf32>)
func.func @matmul(%a: tensor<128x784xf32>, %b: tensor<784x256xf32>) -> tensor<128x256xf32> {
  // CHECK: %[[C:.*]] = mpt.matmul %[[A]], %[[B]] : tensor<128x784xf32>, tensor<784x256xf32> -> tensor<128x256xf32>
  %c = mpt.matmul %a, %b : tensor<128x784xf32>, tensor<784x256xf32> -> tensor<128x256xf32>
  // CHECK: return %[[C]]
  return %c : tensor<128x256xf32>
}

// CHECK-LABEL: func @matmul_transposed
// CHECK-SAME: (%[[X:.*]]: tensor<128x784xf32>, %[[DY:.*]]: tensor<128x256xf32>, %[[W:.*]]: tensor<784x256xf32>)
func.func @matmul_transposed(%x: tensor<128x784xf32>, %dy: tensor<128x256xf32>, %w: tensor<784x256xf32>)
    -> (tensor<784x256xf32>, tensor<128x784xf32>, tensor<256x128xf32>) {
  // CHECK: %[[DW:.*]] = mpt.matmul %[[X]], %[[DY]] {transpose_a} : tensor<128x784xf32>, tensor<128x256xf32> -> tensor<784x256xf32>
  %dw = mpt.matmul %x, %dy {transpose_a} : tensor<128x784xf32>, tensor<128x256xf32> -> tensor<784x256xf32>
  // CHECK: %[[DX:.*]] = mpt.matmul %[[DY]], %[[W]] {transpose_b} : tensor<128x256xf32>, tensor<784x256xf32> -> tensor<128x784xf32>
  %dx = mpt.matmul %dy, %w {transpose_b} : tensor<128x256xf32>, tensor<784x256xf32> -> tensor<128x784xf32>
  // CHECK: %[[BOTH:.*]] = mpt.matmul %[[W]], %[[X]] {transpose_a, transpose_b} : tensor<784x256xf32>, tensor<128x784xf32> -> tensor<256x128xf32>
  %both = mpt.matmul %w, %x {transpose_a, transpose_b} : tensor<784x256xf32>, tensor<128x784xf32> -> tensor<256x128xf32>
  // CHECK: return %[[DW]], %[[DX]], %[[BOTH]]
  return %dw, %dx, %both : tensor<784x256xf32>, tensor<128x784xf32>, tensor<256x128xf32>
}

// CHECK-LABEL: func @matmul_batched
// CHECK-SAME: (%[[Q:.*]]: tensor<8x64x32xbf16>, %[[K:.*]]: tensor<8x64x32xbf16>)
func.func @matmul_batched(%q: tensor<8x64x32xbf16>, %k: tensor<8x64x32xbf16>)
    -> (tensor<8x64x64xbf16>, tensor<8x32x32xf32>) {
  // CHECK: %[[S:.*]] = mpt.matmul %[[Q]], %[[K]] {transpose_b} : tensor<8x64x32xbf16>, tensor<8x64x32xbf16> -> tensor<8x64x64xbf16>
  %s = mpt.matmul %q, %k {transpose_b} : tensor<8x64x32xbf16>, tensor<8x64x32xbf16> -> tensor<8x64x64xbf16>
  // Low-precision operands accumulating in f32.
  // CHECK: %[[G:.*]] = mpt.matmul %[[Q]], %[[K]] {transpose_a} : tensor<8x64x32xbf16>, tensor<8x64x32xbf16> -> tensor<8x32x32xf32>
  %g = mpt.matmul %q, %k {transpose_a} : tensor<8x64x32xbf16>, tensor<8x64x32xbf16> -> tensor<8x32x32xf32>
  // CHECK: return %[[S]], %[[G]]
  return %s, %g : tensor<8x64x64xbf16>, tensor<8x32x32xf32>
}

// CHECK-LABEL: func @bias_add
// CHECK-SAME: (%[[X:.*]]: tensor<128x256xf16>, %[[B:.*]]: tensor<256xf16>, %[[Y:.*]]: tensor<64x8x28x28xf32>, %[[C:.*]]: tensor<8xf32>)
func.func @bias_add(%x: tensor<128x256xf16>, %b: tensor<256xf16>, %y: tensor<64x8x28x28xf32>, %c: tensor<8xf32>)
    -> (tensor<128x256xf16>, tensor<64x8x28x28xf32>, tensor<64x8x28x28xf32>) {
  // The default axis (-1) is not printed.
  // CHECK: %[[R0:.*]] = mpt.bias_add %[[X]], %[[B]] : tensor<128x256xf16>, tensor<256xf16>
  %r0 = mpt.bias_add %x, %b : tensor<128x256xf16>, tensor<256xf16>
  // CHECK: %[[R1:.*]] = mpt.bias_add %[[Y]], %[[C]] {axis = 1 : i64} : tensor<64x8x28x28xf32>, tensor<8xf32>
  %r1 = mpt.bias_add %y, %c {axis = 1 : i64} : tensor<64x8x28x28xf32>, tensor<8xf32>
  // CHECK: %[[R2:.*]] = mpt.bias_add %[[Y]], %[[C]] {axis = -3 : i64} : tensor<64x8x28x28xf32>, tensor<8xf32>
  %r2 = mpt.bias_add %y, %c {axis = -3 : i64} : tensor<64x8x28x28xf32>, tensor<8xf32>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]]
  return %r0, %r1, %r2 : tensor<128x256xf16>, tensor<64x8x28x28xf32>, tensor<64x8x28x28xf32>
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @activations
// CHECK-SAME: (%[[X:.*]]: tensor<128x256xf16>, %[[G:.*]]: tensor<128x256xf16>)
func.func @activations(%x: tensor<128x256xf16>, %g: tensor<128x256xf16>)
    -> (tensor<128x256xf16>, tensor<128x256xf16>, tensor<128x256xf16>, tensor<128x256xf16>,
        tensor<128x256xf16>, tensor<128x256xf16>) {
  // CHECK: %[[R:.*]] = mpt.relu %[[X]] : tensor<128x256xf16>
  %r = mpt.relu %x : tensor<128x256xf16>
  // CHECK: %[[DR:.*]] = mpt.relu_grad %[[G]], %[[X]] : tensor<128x256xf16>
  %dr = mpt.relu_grad %g, %x : tensor<128x256xf16>
  // CHECK: %[[E:.*]] = mpt.gelu %[[X]] : tensor<128x256xf16>
  %e = mpt.gelu %x : tensor<128x256xf16>
  // CHECK: %[[T:.*]] = mpt.gelu %[[X]] {approximate} : tensor<128x256xf16>
  %t = mpt.gelu %x {approximate} : tensor<128x256xf16>
  // CHECK: %[[DE:.*]] = mpt.gelu_grad %[[G]], %[[X]] : tensor<128x256xf16>
  %de = mpt.gelu_grad %g, %x : tensor<128x256xf16>
  // CHECK: %[[DT:.*]] = mpt.gelu_grad %[[G]], %[[X]] {approximate} : tensor<128x256xf16>
  %dt = mpt.gelu_grad %g, %x {approximate} : tensor<128x256xf16>
  // CHECK: return %[[R]], %[[DR]], %[[E]], %[[T]], %[[DE]], %[[DT]]
  return %r, %dr, %e, %t, %de, %dt : tensor<128x256xf16>, tensor<128x256xf16>, tensor<128x256xf16>,
                                     tensor<128x256xf16>, tensor<128x256xf16>, tensor<128x256xf16>
}

// CHECK-LABEL: func @sigmoid_tanh_silu
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>, %[[G:.*]]: tensor<4x8xbf16>)
func.func @sigmoid_tanh_silu(%x: tensor<4x8xbf16>, %g: tensor<4x8xbf16>)
    -> (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>,
        tensor<4x8xbf16>) {
  // CHECK: %[[S:.*]] = mpt.sigmoid %[[X]] : tensor<4x8xbf16>
  %s = mpt.sigmoid %x : tensor<4x8xbf16>
  // CHECK: %[[DS:.*]] = mpt.sigmoid_grad %[[G]], %[[S]] : tensor<4x8xbf16>
  %ds = mpt.sigmoid_grad %g, %s : tensor<4x8xbf16>
  // CHECK: %[[T:.*]] = mpt.tanh %[[X]] : tensor<4x8xbf16>
  %t = mpt.tanh %x : tensor<4x8xbf16>
  // CHECK: %[[DT:.*]] = mpt.tanh_grad %[[G]], %[[T]] : tensor<4x8xbf16>
  %dt = mpt.tanh_grad %g, %t : tensor<4x8xbf16>
  // CHECK: %[[U:.*]] = mpt.silu %[[X]] : tensor<4x8xbf16>
  %u = mpt.silu %x : tensor<4x8xbf16>
  // CHECK: %[[DU:.*]] = mpt.silu_grad %[[G]], %[[X]] : tensor<4x8xbf16>
  %du = mpt.silu_grad %g, %x : tensor<4x8xbf16>
  // CHECK: return %[[S]], %[[DS]], %[[T]], %[[DT]], %[[U]], %[[DU]]
  return %s, %ds, %t, %dt, %u, %du : tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>,
                                     tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @conv2d
// CHECK-SAME: (%[[X:.*]]: tensor<64x1x28x28xf32>, %[[W:.*]]: tensor<8x1x3x3xf32>, %[[XH:.*]]: tensor<64x1x28x28xf16>, %[[WH:.*]]: tensor<8x1x3x3xf16>)
func.func @conv2d(%x: tensor<64x1x28x28xf32>, %w: tensor<8x1x3x3xf32>,
                  %xh: tensor<64x1x28x28xf16>, %wh: tensor<8x1x3x3xf16>)
    -> (tensor<64x8x26x26xf32>, tensor<64x8x28x28xf32>, tensor<64x8x13x9xf16>, tensor<64x8x26x26xf32>) {
  // CHECK: %[[Y0:.*]] = mpt.conv2d %[[X]], %[[W]] : tensor<64x1x28x28xf32>, tensor<8x1x3x3xf32> -> tensor<64x8x26x26xf32>
  %y0 = mpt.conv2d %x, %w : tensor<64x1x28x28xf32>, tensor<8x1x3x3xf32> -> tensor<64x8x26x26xf32>
  // CHECK: %[[Y1:.*]] = mpt.conv2d %[[X]], %[[W]] {padding = array<i64: 1, 1>} : tensor<64x1x28x28xf32>, tensor<8x1x3x3xf32> -> tensor<64x8x28x28xf32>
  %y1 = mpt.conv2d %x, %w {padding = array<i64: 1, 1>}
      : tensor<64x1x28x28xf32>, tensor<8x1x3x3xf32> -> tensor<64x8x28x28xf32>
  // H: (28 + 2*1 - 2*(3-1) - 1) / 2 + 1 = 13; W: (28 + 0 - 1*(3-1) - 1) / 3 + 1 = 9.
  // CHECK: %[[Y2:.*]] = mpt.conv2d %[[XH]], %[[WH]] {dilations = array<i64: 2, 1>, padding = array<i64: 1, 0>, strides = array<i64: 2, 3>} : tensor<64x1x28x28xf16>, tensor<8x1x3x3xf16> -> tensor<64x8x13x9xf16>
  %y2 = mpt.conv2d %xh, %wh {strides = array<i64: 2, 3>, padding = array<i64: 1, 0>, dilations = array<i64: 2, 1>}
      : tensor<64x1x28x28xf16>, tensor<8x1x3x3xf16> -> tensor<64x8x13x9xf16>
  // f16 operands accumulating in f32.
  // CHECK: %[[Y3:.*]] = mpt.conv2d %[[XH]], %[[WH]] : tensor<64x1x28x28xf16>, tensor<8x1x3x3xf16> -> tensor<64x8x26x26xf32>
  %y3 = mpt.conv2d %xh, %wh : tensor<64x1x28x28xf16>, tensor<8x1x3x3xf16> -> tensor<64x8x26x26xf32>
  // CHECK: return %[[Y0]], %[[Y1]], %[[Y2]], %[[Y3]]
  return %y0, %y1, %y2, %y3 : tensor<64x8x26x26xf32>, tensor<64x8x28x28xf32>, tensor<64x8x13x9xf16>, tensor<64x8x26x26xf32>
}

// CHECK-LABEL: func @conv2d_grads
// CHECK-SAME: (%[[X:.*]]: tensor<64x3x32x32xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>, %[[DY:.*]]: tensor<64x16x16x16xf32>)
func.func @conv2d_grads(%x: tensor<64x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %dy: tensor<64x16x16x16xf32>)
    -> (tensor<64x3x32x32xf32>, tensor<16x3x3x3xf32>) {
  // CHECK: %[[DX:.*]] = mpt.conv2d_input_grad %[[DY]], %[[W]] {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<64x16x16x16xf32>, tensor<16x3x3x3xf32> -> tensor<64x3x32x32xf32>
  %dx = mpt.conv2d_input_grad %dy, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<64x16x16x16xf32>, tensor<16x3x3x3xf32> -> tensor<64x3x32x32xf32>
  // CHECK: %[[DW:.*]] = mpt.conv2d_filter_grad %[[X]], %[[DY]] {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<64x3x32x32xf32>, tensor<64x16x16x16xf32> -> tensor<16x3x3x3xf32>
  %dw = mpt.conv2d_filter_grad %x, %dy {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<64x3x32x32xf32>, tensor<64x16x16x16xf32> -> tensor<16x3x3x3xf32>
  // CHECK: return %[[DX]], %[[DW]]
  return %dx, %dw : tensor<64x3x32x32xf32>, tensor<16x3x3x3xf32>
}

// CHECK-LABEL: func @max_pool2d
// CHECK-SAME: (%[[X:.*]]: tensor<64x8x28x28xf16>, %[[DP:.*]]: tensor<64x8x14x14xf16>, %[[DQ:.*]]: tensor<64x8x14x15xf16>)
func.func @max_pool2d(%x: tensor<64x8x28x28xf16>, %dp: tensor<64x8x14x14xf16>, %dq: tensor<64x8x14x15xf16>)
    -> (tensor<64x8x14x14xf16>, tensor<64x8x14x15xf16>, tensor<64x8x28x28xf16>, tensor<64x8x28x28xf16>) {
  // CHECK: %[[P:.*]] = mpt.max_pool2d %[[X]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<64x8x28x28xf16> -> tensor<64x8x14x14xf16>
  %p = mpt.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<64x8x28x28xf16> -> tensor<64x8x14x14xf16>
  // H: (28 + 2*1 - 3) / 2 + 1 = 14; W: (28 + 2*1 - 2) / 2 + 1 = 15.
  // CHECK: %[[Q:.*]] = mpt.max_pool2d %[[X]] {kernel = array<i64: 3, 2>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<64x8x28x28xf16> -> tensor<64x8x14x15xf16>
  %q = mpt.max_pool2d %x {kernel = array<i64: 3, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<64x8x28x28xf16> -> tensor<64x8x14x15xf16>
  // CHECK: %[[DX0:.*]] = mpt.max_pool2d_grad %[[DP]], %[[X]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<64x8x14x14xf16>, tensor<64x8x28x28xf16>
  %dx0 = mpt.max_pool2d_grad %dp, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<64x8x14x14xf16>, tensor<64x8x28x28xf16>
  // CHECK: %[[DX1:.*]] = mpt.max_pool2d_grad %[[DQ]], %[[X]] {kernel = array<i64: 3, 2>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<64x8x14x15xf16>, tensor<64x8x28x28xf16>
  %dx1 = mpt.max_pool2d_grad %dq, %x {kernel = array<i64: 3, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<64x8x14x15xf16>, tensor<64x8x28x28xf16>
  // CHECK: return %[[P]], %[[Q]], %[[DX0]], %[[DX1]]
  return %p, %q, %dx0, %dx1 : tensor<64x8x14x14xf16>, tensor<64x8x14x15xf16>, tensor<64x8x28x28xf16>, tensor<64x8x28x28xf16>
}

// Groups: 6 channels, 4 filters of 6 / 2 = 3 channels; depthwise: groups = C.
// CHECK-LABEL: func @conv2d_groups
// CHECK-SAME: (%[[X:.*]]: tensor<2x6x9x7xf32>, %[[W:.*]]: tensor<4x3x3x2xf32>, %[[WD:.*]]: tensor<6x1x3x3xf32>, %[[DY:.*]]: tensor<2x4x7x6xf32>)
func.func @conv2d_groups(%x: tensor<2x6x9x7xf32>, %w: tensor<4x3x3x2xf32>, %wd: tensor<6x1x3x3xf32>,
                         %dy: tensor<2x4x7x6xf32>)
    -> (tensor<2x4x7x6xf32>, tensor<2x6x9x7xf32>, tensor<2x6x9x7xf32>, tensor<4x3x3x2xf32>) {
  // CHECK: mpt.conv2d %[[X]], %[[W]] {groups = 2 : i64} : tensor<2x6x9x7xf32>, tensor<4x3x3x2xf32> -> tensor<2x4x7x6xf32>
  %y = mpt.conv2d %x, %w {groups = 2 : i64} : tensor<2x6x9x7xf32>, tensor<4x3x3x2xf32> -> tensor<2x4x7x6xf32>
  // CHECK: mpt.conv2d %[[X]], %[[WD]] {groups = 6 : i64, padding = array<i64: 1, 1>} : tensor<2x6x9x7xf32>, tensor<6x1x3x3xf32> -> tensor<2x6x9x7xf32>
  %yd = mpt.conv2d %x, %wd {padding = array<i64: 1, 1>, groups = 6 : i64}
      : tensor<2x6x9x7xf32>, tensor<6x1x3x3xf32> -> tensor<2x6x9x7xf32>
  // CHECK: mpt.conv2d_input_grad %[[DY]], %[[W]] {groups = 2 : i64} : tensor<2x4x7x6xf32>, tensor<4x3x3x2xf32> -> tensor<2x6x9x7xf32>
  %dx = mpt.conv2d_input_grad %dy, %w {groups = 2 : i64} : tensor<2x4x7x6xf32>, tensor<4x3x3x2xf32> -> tensor<2x6x9x7xf32>
  // CHECK: mpt.conv2d_filter_grad %[[X]], %[[DY]] {groups = 2 : i64} : tensor<2x6x9x7xf32>, tensor<2x4x7x6xf32> -> tensor<4x3x3x2xf32>
  %dw = mpt.conv2d_filter_grad %x, %dy {groups = 2 : i64} : tensor<2x6x9x7xf32>, tensor<2x4x7x6xf32> -> tensor<4x3x3x2xf32>
  return %y, %yd, %dx, %dw : tensor<2x4x7x6xf32>, tensor<2x6x9x7xf32>, tensor<2x6x9x7xf32>, tensor<4x3x3x2xf32>
}

// CHECK-LABEL: func @avg_pool2d
// CHECK-SAME: (%[[X:.*]]: tensor<64x8x28x27xbf16>, %[[DP:.*]]: tensor<64x8x14x14xbf16>)
func.func @avg_pool2d(%x: tensor<64x8x28x27xbf16>, %dp: tensor<64x8x14x14xbf16>)
    -> (tensor<64x8x14x14xbf16>, tensor<64x8x28x27xbf16>) {
  // H: (28 + 2*1 - 3) / 2 + 1 = 14; W: (27 + 2*1 - 3) / 2 + 1 = 14.
  // CHECK: %[[P:.*]] = mpt.avg_pool2d %[[X]] {count_include_pad = false, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<64x8x28x27xbf16> -> tensor<64x8x14x14xbf16>
  %p = mpt.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>,
                          count_include_pad = false}
      : tensor<64x8x28x27xbf16> -> tensor<64x8x14x14xbf16>
  // CHECK: %[[DX:.*]] = mpt.avg_pool2d_grad %[[DP]] {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<64x8x14x14xbf16> -> tensor<64x8x28x27xbf16>
  %dx = mpt.avg_pool2d_grad %dp {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<64x8x14x14xbf16> -> tensor<64x8x28x27xbf16>
  // CHECK: return %[[P]], %[[DX]]
  return %p, %dx : tensor<64x8x14x14xbf16>, tensor<64x8x28x27xbf16>
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @embedding
// CHECK-SAME: (%[[T:.*]]: tensor<100x16xf16>, %[[IDS:.*]]: tensor<4x8xi32>, %[[DY:.*]]: tensor<4x8x16xf16>, %[[FLAT:.*]]: tensor<6xi32>)
func.func @embedding(%table: tensor<100x16xf16>, %ids: tensor<4x8xi32>, %dy: tensor<4x8x16xf16>,
                     %flat: tensor<6xi32>)
    -> (tensor<4x8x16xf16>, tensor<6x16xf16>, tensor<100x16xf32>) {
  // CHECK: %[[E:.*]] = mpt.embedding %[[T]], %[[IDS]] : tensor<100x16xf16>, tensor<4x8xi32> -> tensor<4x8x16xf16>
  %e = mpt.embedding %table, %ids : tensor<100x16xf16>, tensor<4x8xi32> -> tensor<4x8x16xf16>
  // CHECK: %[[F:.*]] = mpt.embedding %[[T]], %[[FLAT]] : tensor<100x16xf16>, tensor<6xi32> -> tensor<6x16xf16>
  %f = mpt.embedding %table, %flat : tensor<100x16xf16>, tensor<6xi32> -> tensor<6x16xf16>
  // CHECK: %[[DT:.*]] = mpt.embedding_grad %[[DY]], %[[IDS]] : tensor<4x8x16xf16>, tensor<4x8xi32> -> tensor<100x16xf32>
  %dt = mpt.embedding_grad %dy, %ids : tensor<4x8x16xf16>, tensor<4x8xi32> -> tensor<100x16xf32>
  // CHECK: return %[[E]], %[[F]], %[[DT]]
  return %e, %f, %dt : tensor<4x8x16xf16>, tensor<6x16xf16>, tensor<100x16xf32>
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

// f16 activations with f32 per-channel statistics, as after the mixed-precision
// rewrite.
// CHECK-LABEL: func @batch_norm
// CHECK-SAME: (%[[X:.*]]: tensor<64x8x28x28xf16>, %[[DY:.*]]: tensor<64x8x28x28xf16>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>, %[[RM:.*]]: tensor<8xf32>, %[[RV:.*]]: tensor<8xf32>)
func.func @batch_norm(%x: tensor<64x8x28x28xf16>, %dy: tensor<64x8x28x28xf16>, %g: tensor<8xf32>,
                      %b: tensor<8xf32>, %rm: tensor<8xf32>, %rv: tensor<8xf32>)
    -> (tensor<64x8x28x28xf16>, tensor<8xf32>, tensor<8xf32>, tensor<64x8x28x28xf16>,
        tensor<8xf32>, tensor<8xf32>, tensor<64x8x28x28xf16>) {
  // CHECK: %[[Y:[^,]*]], %[[MEAN:[^,]*]], %[[INVSTD:[^,]*]], %[[RM2:[^,]*]], %[[RV2:[^,]*]] = mpt.batch_norm %[[X]], %[[G]], %[[B]], %[[RM]], %[[RV]] {epsilon = 1.000000e-03 : f32, momentum = 0.00999999977 : f32} : tensor<64x8x28x28xf16>, tensor<8xf32>
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm, %rv
      {momentum = 1.0e-2 : f32, epsilon = 1.0e-3 : f32} : tensor<64x8x28x28xf16>, tensor<8xf32>
  // CHECK: %[[DX:[^,]*]], %[[DG:[^,]*]], %[[DB:[^,]*]] = mpt.batch_norm_grad %[[DY]], %[[X]], %[[G]], %[[MEAN]], %[[INVSTD]] : tensor<64x8x28x28xf16>, tensor<8xf32>
  %dx, %dg, %db = mpt.batch_norm_grad %dy, %x, %g, %mean, %invstd : tensor<64x8x28x28xf16>, tensor<8xf32>
  // CHECK: %[[I:.*]] = mpt.batch_norm_inference %[[X]], %[[G]], %[[B]], %[[RM2]], %[[RV2]] {epsilon = 1.000000e-03 : f32} : tensor<64x8x28x28xf16>, tensor<8xf32>
  %inf = mpt.batch_norm_inference %x, %g, %b, %rm2, %rv2 {epsilon = 1.0e-3 : f32} : tensor<64x8x28x28xf16>, tensor<8xf32>
  // CHECK: return %[[Y]], %[[RM2]], %[[RV2]], %[[DX]], %[[DG]], %[[DB]], %[[I]]
  return %y, %rm2, %rv2, %dx, %dg, %db, %inf : tensor<64x8x28x28xf16>, tensor<8xf32>, tensor<8xf32>, tensor<64x8x28x28xf16>,
                                               tensor<8xf32>, tensor<8xf32>, tensor<64x8x28x28xf16>
}

// Default momentum and epsilon are not printed; a rank-2 (N, C) input.
// CHECK-LABEL: func @batch_norm_defaults
// CHECK-SAME: (%[[X:.*]]: tensor<32x16xbf16>, %[[G:.*]]: tensor<16xf32>)
func.func @batch_norm_defaults(%x: tensor<32x16xbf16>, %g: tensor<16xf32>) -> (tensor<32x16xbf16>, tensor<32x16xbf16>) {
  // CHECK: %[[Y:[^,]*]], %[[MEAN:[^,]*]], %[[INVSTD:[^,]*]], %{{[^,]*}}, %{{[^,]*}} = mpt.batch_norm %[[X]], %[[G]], %[[G]], %[[G]], %[[G]] : tensor<32x16xbf16>, tensor<16xf32>
  %y:5 = mpt.batch_norm %x, %g, %g, %g, %g : tensor<32x16xbf16>, tensor<16xf32>
  // CHECK: %[[I:.*]] = mpt.batch_norm_inference %[[X]], %[[G]], %[[G]], %[[MEAN]], %[[INVSTD]] : tensor<32x16xbf16>, tensor<16xf32>
  %i = mpt.batch_norm_inference %x, %g, %g, %y#1, %y#2 : tensor<32x16xbf16>, tensor<16xf32>
  // CHECK: return %[[Y]], %[[I]]
  return %y#0, %i : tensor<32x16xbf16>, tensor<32x16xbf16>
}

// CHECK-LABEL: func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<8x64x128xf16>, %[[DY:.*]]: tensor<8x64x128xf16>, %[[G:.*]]: tensor<128xf32>, %[[B:.*]]: tensor<128xf32>)
func.func @layer_norm(%x: tensor<8x64x128xf16>, %dy: tensor<8x64x128xf16>, %g: tensor<128xf32>, %b: tensor<128xf32>)
    -> (tensor<8x64x128xf16>, tensor<8x64x128xf16>, tensor<128xf32>, tensor<128xf32>) {
  // CHECK: %[[Y:[^,]*]], %[[MEAN:[^,]*]], %[[INVSTD:[^,]*]] = mpt.layer_norm %[[X]], %[[G]], %[[B]] {epsilon = 1.000000e-03 : f32} : tensor<8x64x128xf16>, tensor<128xf32> -> tensor<8x64xf32>
  %y, %mean, %invstd = mpt.layer_norm %x, %g, %b {epsilon = 1.0e-3 : f32}
      : tensor<8x64x128xf16>, tensor<128xf32> -> tensor<8x64xf32>
  // CHECK: %[[DX:[^,]*]], %[[DG:[^,]*]], %[[DB:[^,]*]] = mpt.layer_norm_grad %[[DY]], %[[X]], %[[G]], %[[MEAN]], %[[INVSTD]] : tensor<8x64x128xf16>, tensor<128xf32>, tensor<8x64xf32>
  %dx, %dg, %db = mpt.layer_norm_grad %dy, %x, %g, %mean, %invstd
      : tensor<8x64x128xf16>, tensor<128xf32>, tensor<8x64xf32>
  // CHECK: return %[[Y]], %[[DX]], %[[DG]], %[[DB]]
  return %y, %dx, %dg, %db : tensor<8x64x128xf16>, tensor<8x64x128xf16>, tensor<128xf32>, tensor<128xf32>
}

// A rank-1 input normalizes into scalar statistics.
// CHECK-LABEL: func @layer_norm_rank1
// CHECK-SAME: (%[[X:.*]]: tensor<16xf32>)
func.func @layer_norm_rank1(%x: tensor<16xf32>) -> tensor<16xf32> {
  // CHECK: %[[Y:[^,]*]], %{{[^,]*}}, %{{[^,]*}} = mpt.layer_norm %[[X]], %[[X]], %[[X]] : tensor<16xf32>, tensor<16xf32> -> tensor<f32>
  %y:3 = mpt.layer_norm %x, %x, %x : tensor<16xf32>, tensor<16xf32> -> tensor<f32>
  // CHECK: return %[[Y]] :
  return %y#0 : tensor<16xf32>
}

//===----------------------------------------------------------------------===//
// Softmax and loss
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<8x64x64xf32>, %[[DY:.*]]: tensor<8x64x64xf32>)
func.func @softmax(%x: tensor<8x64x64xf32>, %dy: tensor<8x64x64xf32>) -> tensor<8x64x64xf32> {
  // CHECK: %[[Y:.*]] = mpt.softmax %[[X]] : tensor<8x64x64xf32>
  %y = mpt.softmax %x : tensor<8x64x64xf32>
  // CHECK: %[[DX:.*]] = mpt.softmax_grad %[[DY]], %[[Y]] : tensor<8x64x64xf32>
  %dx = mpt.softmax_grad %dy, %y : tensor<8x64x64xf32>
  // CHECK: return %[[DX]]
  return %dx : tensor<8x64x64xf32>
}

// CHECK-LABEL: func @softmax_cross_entropy
// CHECK-SAME: (%[[L:.*]]: tensor<128x10xf32>, %[[Y32:.*]]: tensor<128xi32>, %[[H:.*]]: tensor<128x10xf16>, %[[Y64:.*]]: tensor<128xi64>, %[[S:.*]]: tensor<f32>)
func.func @softmax_cross_entropy(%logits: tensor<128x10xf32>, %y32: tensor<128xi32>,
                                 %logits16: tensor<128x10xf16>, %y64: tensor<128xi64>, %scale: tensor<f32>)
    -> (tensor<f32>, tensor<f32>, tensor<128x10xf32>, tensor<128x10xf16>) {
  // CHECK: %[[L32:.*]] = mpt.softmax_cross_entropy %[[L]], %[[Y32]] : tensor<128x10xf32>, tensor<128xi32>
  %loss32 = mpt.softmax_cross_entropy %logits, %y32 : tensor<128x10xf32>, tensor<128xi32>
  // CHECK: %[[L64:.*]] = mpt.softmax_cross_entropy %[[H]], %[[Y64]] : tensor<128x10xf16>, tensor<128xi64>
  %loss64 = mpt.softmax_cross_entropy %logits16, %y64 : tensor<128x10xf16>, tensor<128xi64>
  // CHECK: %[[SEED:.*]] = mpt.loss_grad %[[L32]]{{$}}
  %seed = mpt.loss_grad %loss32
  // CHECK: %[[SCALED:.*]] = mpt.loss_grad %[[L64]] scale %[[S]]{{$}}
  %scaled = mpt.loss_grad %loss64 scale %scale
  // CHECK: %[[D32:.*]] = mpt.softmax_cross_entropy_grad %[[SEED]], %[[L]], %[[Y32]] : tensor<128x10xf32>, tensor<128xi32>
  %d32 = mpt.softmax_cross_entropy_grad %seed, %logits, %y32 : tensor<128x10xf32>, tensor<128xi32>
  // CHECK: %[[D64:.*]] = mpt.softmax_cross_entropy_grad %[[SCALED]], %[[H]], %[[Y64]] : tensor<128x10xf16>, tensor<128xi64>
  %d64 = mpt.softmax_cross_entropy_grad %scaled, %logits16, %y64 : tensor<128x10xf16>, tensor<128xi64>
  // CHECK: return %[[L32]], %[[L64]], %[[D32]], %[[D64]] : tensor<f32>, tensor<f32>, tensor<128x10xf32>, tensor<128x10xf16>
  return %loss32, %loss64, %d32, %d64 : tensor<f32>, tensor<f32>, tensor<128x10xf32>, tensor<128x10xf16>
}

// The options are attributes; the default smoothing 0 is not printed.
// CHECK-LABEL: func @softmax_cross_entropy_options
func.func @softmax_cross_entropy_options(%logits: tensor<6x10xf32>, %y: tensor<6xi64>, %seed: tensor<f32>)
    -> (tensor<f32>, tensor<f32>, tensor<6x10xf32>) {
  // CHECK: mpt.softmax_cross_entropy %{{.*}}, %{{.*}} {ignore_index = -100 : i64, label_smoothing = 1.000000e-01 : f64} : tensor<6x10xf32>, tensor<6xi64>
  %smoothed = mpt.softmax_cross_entropy %logits, %y {label_smoothing = 0.1, ignore_index = -100} : tensor<6x10xf32>, tensor<6xi64>
  // CHECK: mpt.softmax_cross_entropy %{{.*}}, %{{.*}} {ignore_index = 0 : i64} : tensor<6x10xf32>, tensor<6xi64>
  %padded = mpt.softmax_cross_entropy %logits, %y {label_smoothing = 0.0, ignore_index = 0} : tensor<6x10xf32>, tensor<6xi64>
  // CHECK: mpt.softmax_cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} {ignore_index = 3 : i64, label_smoothing = 1.000000e+00 : f64} : tensor<6x10xf32>, tensor<6xi64>
  %grad = mpt.softmax_cross_entropy_grad %seed, %logits, %y {label_smoothing = 1.0, ignore_index = 3} : tensor<6x10xf32>, tensor<6xi64>
  return %smoothed, %padded, %grad : tensor<f32>, tensor<f32>, tensor<6x10xf32>
}

// CHECK-LABEL: func @mse_loss
// CHECK-SAME: (%[[X:.*]]: tensor<32x3xf16>, %[[Y:.*]]: tensor<32x3xf16>)
func.func @mse_loss(%x: tensor<32x3xf16>, %y: tensor<32x3xf16>) -> (tensor<f32>, tensor<32x3xf16>) {
  // CHECK: %[[L:.*]] = mpt.mse_loss %[[X]], %[[Y]] : tensor<32x3xf16>
  %loss = mpt.mse_loss %x, %y : tensor<32x3xf16>
  // CHECK: %[[SEED:.*]] = mpt.loss_grad %[[L]]
  %seed = mpt.loss_grad %loss
  // CHECK: %[[DX:.*]] = mpt.mse_loss_grad %[[SEED]], %[[X]], %[[Y]] : tensor<32x3xf16>
  %dx = mpt.mse_loss_grad %seed, %x, %y : tensor<32x3xf16>
  // CHECK: return %[[L]], %[[DX]]
  return %loss, %dx : tensor<f32>, tensor<32x3xf16>
}

//===----------------------------------------------------------------------===//
// Shape and reduction
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<64x8x7x7xf16>)
func.func @reshape(%x: tensor<64x8x7x7xf16>) -> (tensor<64x392xf16>, tensor<25088xf16>) {
  // CHECK: %[[F:.*]] = mpt.reshape %[[X]] : tensor<64x8x7x7xf16> -> tensor<64x392xf16>
  %f = mpt.reshape %x : tensor<64x8x7x7xf16> -> tensor<64x392xf16>
  // CHECK: %[[G:.*]] = mpt.reshape %[[F]] : tensor<64x392xf16> -> tensor<25088xf16>
  %g = mpt.reshape %f : tensor<64x392xf16> -> tensor<25088xf16>
  // CHECK: return %[[F]], %[[G]]
  return %f, %g : tensor<64x392xf16>, tensor<25088xf16>
}

// CHECK-LABEL: func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<8x64x32xf32>)
func.func @transpose(%x: tensor<8x64x32xf32>) -> (tensor<8x32x64xf32>, tensor<32x8x64xf32>) {
  // CHECK: %[[T:.*]] = mpt.transpose %[[X]] [0, 2, 1] : tensor<8x64x32xf32> -> tensor<8x32x64xf32>
  %t = mpt.transpose %x [0, 2, 1] : tensor<8x64x32xf32> -> tensor<8x32x64xf32>
  // CHECK: %[[U:.*]] = mpt.transpose %[[X]] [2, 0, 1] : tensor<8x64x32xf32> -> tensor<32x8x64xf32>
  %u = mpt.transpose %x [2, 0, 1] : tensor<8x64x32xf32> -> tensor<32x8x64xf32>
  // CHECK: return %[[T]], %[[U]]
  return %t, %u : tensor<8x32x64xf32>, tensor<32x8x64xf32>
}

// CHECK-LABEL: func @reduce_sum
// CHECK-SAME: (%[[X:.*]]: tensor<128x256xf32>, %[[H:.*]]: tensor<64x8x28x28xf16>)
func.func @reduce_sum(%x: tensor<128x256xf32>, %h: tensor<64x8x28x28xf16>)
    -> (tensor<256xf32>, tensor<1x256xf32>, tensor<8xf32>, tensor<1x8x1x1xf16>, tensor<f32>, tensor<128x256xf32>) {
  // CHECK: %[[R0:.*]] = mpt.reduce_sum %[[X]] [0] : tensor<128x256xf32> -> tensor<256xf32>
  %r0 = mpt.reduce_sum %x [0] : tensor<128x256xf32> -> tensor<256xf32>
  // CHECK: %[[R1:.*]] = mpt.reduce_sum %[[X]] [0] {keep_dims} : tensor<128x256xf32> -> tensor<1x256xf32>
  %r1 = mpt.reduce_sum %x [0] {keep_dims} : tensor<128x256xf32> -> tensor<1x256xf32>
  // f16 input summed into f32.
  // CHECK: %[[R2:.*]] = mpt.reduce_sum %[[H]] [0, 2, 3] : tensor<64x8x28x28xf16> -> tensor<8xf32>
  %r2 = mpt.reduce_sum %h [0, 2, 3] : tensor<64x8x28x28xf16> -> tensor<8xf32>
  // CHECK: %[[R3:.*]] = mpt.reduce_sum %[[H]] [0, 2, 3] {keep_dims} : tensor<64x8x28x28xf16> -> tensor<1x8x1x1xf16>
  %r3 = mpt.reduce_sum %h [0, 2, 3] {keep_dims} : tensor<64x8x28x28xf16> -> tensor<1x8x1x1xf16>
  // CHECK: %[[R4:.*]] = mpt.reduce_sum %[[X]] [0, 1] : tensor<128x256xf32> -> tensor<f32>
  %r4 = mpt.reduce_sum %x [0, 1] : tensor<128x256xf32> -> tensor<f32>
  // CHECK: %[[R5:.*]] = mpt.reduce_sum %[[X]] [] : tensor<128x256xf32> -> tensor<128x256xf32>
  %r5 = mpt.reduce_sum %x [] : tensor<128x256xf32> -> tensor<128x256xf32>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]]
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<256xf32>, tensor<1x256xf32>, tensor<8xf32>, tensor<1x8x1x1xf16>, tensor<f32>, tensor<128x256xf32>
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @sgd
// CHECK-SAME: (%[[W:.*]]: tensor<784x256xf32>, %[[DW:.*]]: tensor<784x256xf32>, %[[M:.*]]: tensor<784x256xf32>)
func.func @sgd(%w: tensor<784x256xf32>, %dw: tensor<784x256xf32>, %m: tensor<784x256xf32>)
    -> (tensor<784x256xf32>, tensor<784x256xf32>, tensor<784x256xf32>, tensor<784x256xf32>, tensor<784x256xf32>) {
  // CHECK: %[[W0:.*]] = mpt.sgd %[[W]], %[[DW]] {lr = 5.000000e-02 : f32} : tensor<784x256xf32>
  %w0 = mpt.sgd %w, %dw {lr = 5.0e-2 : f32} : tensor<784x256xf32>
  // CHECK: %[[W1:[^,]*]], %[[M1:[^,]*]] = mpt.sgd %[[W]], %[[DW]], %[[M]] {dampening = 1.000000e-01 : f32, lr = 5.000000e-02 : f32, momentum = 0.899999976 : f32, weight_decay = 9.99999974E-5 : f32} : tensor<784x256xf32>
  %w1, %m1 = mpt.sgd %w, %dw, %m {lr = 5.0e-2 : f32, momentum = 9.0e-1 : f32, dampening = 0.1 : f32, weight_decay = 1.0e-4 : f32}
      : tensor<784x256xf32>
  // CHECK: %[[W2:[^,]*]], %[[M2:[^,]*]] = mpt.sgd %[[W]], %[[DW]], %[[M]] {lr = 5.000000e-02 : f32, momentum = 0.899999976 : f32, nesterov} : tensor<784x256xf32>
  %w2, %m2 = mpt.sgd %w, %dw, %m {lr = 5.0e-2 : f32, momentum = 9.0e-1 : f32, nesterov} : tensor<784x256xf32>
  // CHECK: return %[[W0]], %[[W1]], %[[M1]], %[[W2]], %[[M2]]
  return %w0, %w1, %m1, %w2, %m2 : tensor<784x256xf32>, tensor<784x256xf32>, tensor<784x256xf32>, tensor<784x256xf32>, tensor<784x256xf32>
}

// CHECK-LABEL: func @adam
// CHECK-SAME: (%[[W:.*]]: tensor<128x128xf32>, %[[DW:.*]]: tensor<128x128xf32>, %[[M:.*]]: tensor<128x128xf32>, %[[V:.*]]: tensor<128x128xf32>, %[[T:.*]]: tensor<i64>, %[[T32:.*]]: tensor<i32>)
func.func @adam(%w: tensor<128x128xf32>, %dw: tensor<128x128xf32>, %m: tensor<128x128xf32>, %v: tensor<128x128xf32>,
                %t: tensor<i64>, %t32: tensor<i32>)
    -> (tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>, tensor<i64>, tensor<128x128xf32>, tensor<i32>) {
  // CHECK: %[[W1:[^,]*]], %[[M1:[^,]*]], %[[V1:[^,]*]], %[[T1:[^,]*]] = mpt.adam %[[W]], %[[DW]], %[[M]], %[[V]], %[[T]] {lr = 1.000000e-03 : f32} : tensor<128x128xf32>, tensor<i64>
  %w1, %m1, %v1, %t1 = mpt.adam %w, %dw, %m, %v, %t {lr = 1.0e-3 : f32} : tensor<128x128xf32>, tensor<i64>
  // CHECK: %[[W2:[^,]*]], %{{[^,]*}}, %{{[^,]*}}, %[[T2:[^,]*]] = mpt.adam %[[W]], %[[DW]], %[[M]], %[[V]], %[[T32]] {beta1 = 8.000000e-01 : f32, beta2 = 9.900000e-01 : f32, epsilon = 9.99999997E-7 : f32, lr = 1.000000e-03 : f32, weight_decay = 0.00999999977 : f32} : tensor<128x128xf32>, tensor<i32>
  %w2:4 = mpt.adam %w, %dw, %m, %v, %t32 {lr = 1.0e-3 : f32, beta1 = 0.8 : f32, beta2 = 0.99 : f32, epsilon = 1.0e-6 : f32, weight_decay = 1.0e-2 : f32}
      : tensor<128x128xf32>, tensor<i32>
  // CHECK: return %[[W1]], %[[M1]], %[[V1]], %[[T1]], %[[W2]], %[[T2]] :
  return %w1, %m1, %v1, %t1, %w2#0, %w2#3 : tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>, tensor<i64>, tensor<128x128xf32>, tensor<i32>
}

// CHECK-LABEL: func @adamw
// CHECK-SAME: (%[[W:.*]]: tensor<256xf32>, %[[DW:.*]]: tensor<256xf32>, %[[M:.*]]: tensor<256xf32>, %[[V:.*]]: tensor<256xf32>, %[[T:.*]]: tensor<i64>)
func.func @adamw(%w: tensor<256xf32>, %dw: tensor<256xf32>, %m: tensor<256xf32>, %v: tensor<256xf32>, %t: tensor<i64>)
    -> (tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<i64>, tensor<256xf32>) {
  // CHECK: %[[W1:[^,]*]], %[[M1:[^,]*]], %[[V1:[^,]*]], %[[T1:[^,]*]] = mpt.adamw %[[W]], %[[DW]], %[[M]], %[[V]], %[[T]] {lr = 1.000000e-03 : f32} : tensor<256xf32>, tensor<i64>
  %w1, %m1, %v1, %t1 = mpt.adamw %w, %dw, %m, %v, %t {lr = 1.0e-3 : f32} : tensor<256xf32>, tensor<i64>
  // CHECK: %[[W2:[^,]*]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} = mpt.adamw %[[W]], %[[DW]], %[[M]], %[[V]], %[[T]] {lr = 1.000000e-03 : f32, weight_decay = 0.000000e+00 : f32} : tensor<256xf32>, tensor<i64>
  %b:4 = mpt.adamw %w, %dw, %m, %v, %t {lr = 1.0e-3 : f32, weight_decay = 0.0 : f32} : tensor<256xf32>, tensor<i64>
  // CHECK: return %[[W1]], %[[M1]], %[[V1]], %[[T1]], %[[W2]] :
  return %w1, %m1, %v1, %t1, %b#0 : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<i64>, tensor<256xf32>
}

// The state operands follow the parameter in operand order, the updated state the updated
// parameter; RMSprop's optional state is named.
// CHECK-LABEL: func @rmsprop_adagrad_adadelta
// CHECK-SAME: (%[[W:[^:]*]]: tensor<8xf32>, %[[DW:[^:]*]]: tensor<8xf32>, %[[V:[^:]*]]: tensor<8xf32>, %[[B:[^:]*]]: tensor<8xf32>, %[[A:[^:]*]]: tensor<8xf32>, %[[T:[^:]*]]: tensor<i64>)
func.func @rmsprop_adagrad_adadelta(%w: tensor<8xf32>, %dw: tensor<8xf32>, %v: tensor<8xf32>, %b: tensor<8xf32>,
                                    %a: tensor<8xf32>, %t: tensor<i64>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<i64>, tensor<8xf32>) {
  // CHECK: %{{[^,]*}}, %{{[^ ]*}} = mpt.rmsprop %[[W]], %[[DW]], %[[V]] : tensor<8xf32>
  %r0:2 = mpt.rmsprop %w, %dw, %v : tensor<8xf32>
  // CHECK: %[[R:[^,]*]], %[[RS:[^:]*]]:3 = mpt.rmsprop %[[W]], %[[DW]], %[[V]] momentum_buffer(%[[B]]) grad_avg(%[[A]]) {alpha = 0.949999988 : f32, centered, momentum = 5.000000e-01 : f32} : tensor<8xf32>
  %r1:4 = mpt.rmsprop %w, %dw, %v momentum_buffer(%b) grad_avg(%a) {alpha = 0.95 : f32, momentum = 0.5 : f32, centered} : tensor<8xf32>
  // CHECK: %{{[^,]*}}, %{{[^ ]*}}:2 = mpt.rmsprop %[[W]], %[[DW]], %[[V]] grad_avg(%[[A]]) {centered} : tensor<8xf32>
  %r2:3 = mpt.rmsprop %w, %dw, %v grad_avg(%a) {centered} : tensor<8xf32>
  // CHECK: %{{[^,]*}}, %[[GS:[^,]*]], %[[GT:[^ ]*]] = mpt.adagrad %[[W]], %[[DW]], %[[V]], %[[T]] {epsilon = 9.99999997E-7 : f32, lr_decay = 9.99999974E-5 : f32} : tensor<8xf32>, tensor<i64>
  %g:3 = mpt.adagrad %w, %dw, %v, %t {lr_decay = 1.0e-4 : f32, epsilon = 1.0e-6 : f32} : tensor<8xf32>, tensor<i64>
  // CHECK: %{{[^,]*}}, %{{[^,]*}}, %[[DU:[^ ]*]] = mpt.adadelta %[[W]], %[[DW]], %[[V]], %[[B]] {lr = 5.000000e-01 : f32, rho = 0.949999988 : f32} : tensor<8xf32>
  %d:3 = mpt.adadelta %w, %dw, %v, %b {lr = 0.5 : f32, rho = 0.95 : f32} : tensor<8xf32>
  // CHECK: return %[[R]], %[[RS]]#1, %[[RS]]#2, %[[GS]], %[[GT]], %[[DU]] :
  return %r1#0, %r1#2, %r1#3, %g#1, %g#2, %d#2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<i64>, tensor<8xf32>
}

// CHECK-LABEL: func @clip_grad_norm
// CHECK-SAME: (%[[G1:.*]]: tensor<784x256xf32>, %[[G2:.*]]: tensor<256xf16>)
func.func @clip_grad_norm(%g1: tensor<784x256xf32>, %g2: tensor<256xf16>)
    -> (tensor<784x256xf32>, tensor<256xf16>, tensor<f32>, tensor<256xf16>, tensor<f32>) {
  // CHECK: %[[C:[^,]*]]:2, %[[N:[^,]*]] = mpt.clip_grad_norm %[[G1]], %[[G2]] {max_norm = 1.000000e+00 : f32} : tensor<784x256xf32>, tensor<256xf16>
  %g1c, %g2c, %norm = mpt.clip_grad_norm %g1, %g2 {max_norm = 1.0 : f32} : tensor<784x256xf32>, tensor<256xf16>
  // CHECK: %[[D:[^,]*]], %[[DN:[^,]*]] = mpt.clip_grad_norm %[[G2]] {max_norm = 5.000000e-01 : f32} : tensor<256xf16>
  %one:2 = mpt.clip_grad_norm %g2 {max_norm = 0.5 : f32} : tensor<256xf16>
  // CHECK: return %[[C]]#0, %[[C]]#1, %[[N]], %[[D]], %[[DN]] : tensor<784x256xf32>, tensor<256xf16>, tensor<f32>, tensor<256xf16>, tensor<f32>
  return %g1c, %g2c, %norm, %one#0, %one#1 : tensor<784x256xf32>, tensor<256xf16>, tensor<f32>, tensor<256xf16>, tensor<f32>
}

//===----------------------------------------------------------------------===//
// Precision pins
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @precision_pin
// CHECK-SAME: (%[[A:.*]]: tensor<64x32xf16>, %[[B:.*]]: tensor<32x16xf16>, %[[X:.*]]: tensor<64x16xf32>)
func.func @precision_pin(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>, %x: tensor<64x16xf32>)
    -> (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>) {
  // CHECK: %[[C:.*]] = mpt.matmul %[[A]], %[[B]] {mpt.precision = #mpt.precision<fp32>} : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf32>
  %c = mpt.matmul %a, %b {mpt.precision = #mpt.precision<fp32>} : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf32>
  // CHECK: %[[R:.*]] = mpt.relu %[[C]] {mpt.precision = #mpt.precision<lower>} : tensor<64x16xf32>
  %r = mpt.relu %c {mpt.precision = #mpt.precision<lower>} : tensor<64x16xf32>
  // CHECK: %[[S:.*]] = mpt.softmax %[[R]] {mpt.precision = #mpt.precision<follow>} : tensor<64x16xf32>
  %s = mpt.softmax %r {mpt.precision = #mpt.precision<follow>} : tensor<64x16xf32>
  // Upstream ops with an attached policy may be pinned too.
  // CHECK: %[[ADD:.*]] = arith.addf %[[S]], %[[X]] {mpt.precision = #mpt.precision<promote>} : tensor<64x16xf32>
  %add = arith.addf %s, %x {mpt.precision = #mpt.precision<promote>} : tensor<64x16xf32>
  // CHECK: return %[[C]], %[[R]], %[[S]], %[[ADD]]
  return %c, %r, %s, %add : tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @loss_scaling
// CHECK-SAME: (%[[DW:.*]]: tensor<784x256xf16>, %[[DB:.*]]: tensor<256xf32>, %[[S:.*]]: tensor<f32>, %[[N:.*]]: tensor<i64>, %[[N32:.*]]: tensor<i32>)
func.func @loss_scaling(%dw: tensor<784x256xf16>, %db: tensor<256xf32>, %s: tensor<f32>, %n: tensor<i64>, %n32: tensor<i32>)
    -> (tensor<784x256xf32>, tensor<256xf32>, tensor<i1>, tensor<f32>, tensor<i64>, tensor<f32>, tensor<i32>) {
  // CHECK: %[[G:.*]] = mpt.unscale %[[DW]], %[[S]] : tensor<784x256xf16> -> tensor<784x256xf32>
  %g = mpt.unscale %dw, %s : tensor<784x256xf16> -> tensor<784x256xf32>
  // CHECK: %[[H:.*]] = mpt.unscale %[[DB]], %[[S]] : tensor<256xf32> -> tensor<256xf32>
  %h = mpt.unscale %db, %s : tensor<256xf32> -> tensor<256xf32>
  // CHECK: %[[OK:.*]] = mpt.all_finite %[[DW]], %[[DB]] : tensor<784x256xf16>, tensor<256xf32>
  %ok = mpt.all_finite %dw, %db : tensor<784x256xf16>, tensor<256xf32>
  // Defaults are not printed.
  // CHECK: %[[S2:[^,]*]], %[[N2:[^,]*]] = mpt.update_loss_scale %[[S]], %[[N]], %[[OK]] : tensor<i64>
  %s2, %n2 = mpt.update_loss_scale %s, %n, %ok : tensor<i64>
  // CHECK: %[[S3:[^,]*]], %[[N3:[^,]*]] = mpt.update_loss_scale %[[S]], %[[N32]], %[[OK]] {backoff_factor = 2.500000e-01 : f32, growth_factor = 4.000000e+00 : f32, growth_interval = 100 : i64, max_scale = 6.553600e+04 : f32, min_scale = 1.250000e-01 : f32} : tensor<i32>
  %s3, %n3 = mpt.update_loss_scale %s, %n32, %ok
      {growth_factor = 4.0 : f32, backoff_factor = 0.25 : f32, growth_interval = 100 : i64,
       min_scale = 0.125 : f32, max_scale = 65536.0 : f32} : tensor<i32>
  // CHECK: return %[[G]], %[[H]], %[[OK]], %[[S2]], %[[N2]], %[[S3]], %[[N3]]
  return %g, %h, %ok, %s2, %n2, %s3, %n3
      : tensor<784x256xf32>, tensor<256xf32>, tensor<i1>, tensor<f32>, tensor<i64>, tensor<f32>, tensor<i32>
}

// -----

// CHECK-LABEL: func @gradient_stats
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf16>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %{{.*}}, %{{.*}} = mpt.gradient_stats %[[A]], %[[B]] : tensor<4x8xf16>, tensor<8xf32>
func.func @gradient_stats(%a: tensor<4x8xf16>, %b: tensor<8xf32>) -> (tensor<i64>, tensor<i64>) {
  %z, %n = mpt.gradient_stats %a, %b : tensor<4x8xf16>, tensor<8xf32>
  return %z, %n : tensor<i64>, tensor<i64>
}
