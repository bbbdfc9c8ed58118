// RUN: mpt-opt %s --mpt-convert-to-linalg --split-input-file | FileCheck %s

// Products accumulate in an f32 init: linalg.matmul extends the f16 operands
// in its body; the f16 result is rounded once by a trailing truncf.

// CHECK-LABEL: func.func @matmul_f16
// CHECK-SAME: %[[A:[a-zA-Z0-9_]+]]: tensor<4x8xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<8x16xf16>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4x16xf32>)
// CHECK: %[[ACC:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf16>, tensor<8x16xf16>) outs(%[[INIT]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[RES:.*]] = linalg.generic {{.*}} ins(%[[ACC]] : tensor<4x16xf32>) outs(%{{.*}} : tensor<4x16xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[RES]]
func.func @matmul_f16(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>) -> tensor<4x16xf16> {
  %c = mpt.matmul %a, %b : tensor<4x8xf16>, tensor<8x16xf16> -> tensor<4x16xf16>
  return %c : tensor<4x16xf16>
}

// -----

// An f32 product needs no rounding step.

// CHECK-LABEL: func.func @matmul_f32
// CHECK: %[[ACC:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32>) outs(%{{.*}} : tensor<4x16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[ACC]]
func.func @matmul_f32(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %c = mpt.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

// Transposes are folded into the operand maps; no copy is transposed.

// CHECK-DAG: #[[$TA:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$KN:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$MN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$MK:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$TB:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @matmul_transposes
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#[[$TA]], #[[$KN]], #[[$MN]]] ins({{.*}} : tensor<8x4xf32>, tensor<8x16xf32>)
// CHECK: linalg.matmul indexing_maps = [#[[$MK]], #[[$TB]], #[[$MN]]] ins({{.*}} : tensor<4x8xf32>, tensor<16x8xf32>)
// CHECK: linalg.matmul indexing_maps = [#[[$TA]], #[[$TB]], #[[$MN]]] ins({{.*}} : tensor<8x4xf32>, tensor<16x8xf32>)
func.func @matmul_transposes(%at: tensor<8x4xf32>, %a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %bt: tensor<16x8xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = mpt.matmul %at, %b {transpose_a} : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %1 = mpt.matmul %a, %bt {transpose_b} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %2 = mpt.matmul %at, %bt {transpose_a, transpose_b} : tensor<8x4xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  return %0, %1, %2 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Batched, bf16 operands into an f32 result: no rounding at all.

// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batch_matmul_bf16
// CHECK: %[[ACC:.*]] = linalg.batch_matmul indexing_maps = [#[[$A]], #[[$BT]], #[[$C]]] ins(%{{.*}}, %{{.*}} : tensor<2x4x8xbf16>, tensor<2x16x8xbf16>) outs(%{{.*}} : tensor<2x4x16xf32>)
// CHECK-NEXT: return %[[ACC]]
func.func @batch_matmul_bf16(%a: tensor<2x4x8xbf16>, %b: tensor<2x16x8xbf16>) -> tensor<2x4x16xf32> {
  %c = mpt.matmul %a, %b {transpose_b} : tensor<2x4x8xbf16>, tensor<2x16x8xbf16> -> tensor<2x4x16xf32>
  return %c : tensor<2x4x16xf32>
}

// -----

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @bias_add_axis0
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT: ^bb0(%[[X:[a-zA-Z0-9_]+]]: f16, %[[B:[a-zA-Z0-9_]+]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[X]], %[[B]] : f16
// CHECK-NEXT: linalg.yield %[[Y]] : f16
func.func @bias_add_axis0(%x: tensor<4x8xf16>, %b: tensor<4xf16>) -> tensor<4x8xf16> {
  %y = mpt.bias_add %x, %b {axis = 0 : i64} : tensor<4x8xf16>, tensor<4xf16>
  return %y : tensor<4x8xf16>
}

// -----

// Activations compute in their own type (bf16 here). relu keeps x where
// x > 0 or x is NaN (ugt) and gives +0 elsewhere, arith.maximumf(x, 0)'s
// values in a compare and a select.

// CHECK-LABEL: func.func @relu
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:[a-zA-Z0-9_]+]]: bf16, %{{.*}}: bf16):
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : bf16
// CHECK: %[[KEEP:.*]] = arith.cmpf ugt, %[[X]], %[[ZERO]] : bf16
// CHECK: %[[Y:.*]] = arith.select %[[KEEP]], %[[X]], %[[ZERO]] : bf16
// CHECK: linalg.yield %[[Y]] : bf16
func.func @relu(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %y = mpt.relu %x : tensor<4xbf16>
  return %y : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @relu_grad
// CHECK: ^bb0(%[[G:[a-zA-Z0-9_]+]]: f32, %[[X:[a-zA-Z0-9_]+]]: f32, %{{.*}}: f32):
// CHECK: %[[ACTIVE:.*]] = arith.cmpf ugt, %[[X]], %[[ZERO:.*]] : f32
// CHECK: arith.select %[[ACTIVE]], %[[G]], %[[ZERO]] : f32
func.func @relu_grad(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = mpt.relu_grad %g, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// gelu on f16 computes in f32 and rounds its result once.
// CHECK-LABEL: func.func @gelu_f16
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: f16, %{{.*}}: f16):
// CHECK: %[[X:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK: %[[SCALED:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK: %[[ERF:.*]] = math.erf %[[SCALED]] : f32
// CHECK: %[[ONE_PLUS:.*]] = arith.addf %{{.*}}, %[[ERF]] : f32
// CHECK: %[[HALF_X:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[HALF_X]], %[[ONE_PLUS]] : f32
// CHECK: %[[ROUNDED:.*]] = arith.truncf %[[Y]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[ROUNDED]] : f16
func.func @gelu_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %y = mpt.gelu %x : tensor<4xf16>
  return %y : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @gelu_tanh
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: arith.constant 0.797884583 : f32
// CHECK: math.tanh
// CHECK-NOT: math.erf
func.func @gelu_tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = mpt.gelu %x {approximate} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @gelu_grad
// CHECK: math.erf
// CHECK: arith.constant -5.000000e-01 : f32
// CHECK: math.exp
// CHECK: arith.constant 0.398942292 : f32
// CHECK-LABEL: func.func @gelu_grad_tanh
// CHECK: math.tanh
// CHECK: arith.constant 1.341450e-01 : f32
// CHECK-NOT: math.erf
func.func @gelu_grad(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = mpt.gelu_grad %g, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @gelu_grad_tanh(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = mpt.gelu_grad %g, %x {approximate} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// sigmoid, tanh and silu on f16 and bf16 compute in f32 and round once; the
// gradients of sigmoid and tanh read the forward output.
// CHECK-LABEL: func.func @sigmoid_f16
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[X:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT: %[[EXP:.*]] = math.exp %[[NEG]] : f32
// CHECK-NEXT: %[[ONE_PLUS:.*]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.divf %[[ONE]], %[[ONE_PLUS]] : f32
// CHECK-NEXT: %[[ROUNDED:.*]] = arith.truncf %[[Y]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[ROUNDED]] : f16
// CHECK-LABEL: func.func @sigmoid_grad_bf16
// CHECK: ^bb0(%[[G:[a-zA-Z0-9_]+]]: bf16, %[[Y:[a-zA-Z0-9_]+]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[G32:.*]] = arith.extf %[[G]] : bf16 to f32
// CHECK-NEXT: %[[Y32:.*]] = arith.extf %[[Y]] : bf16 to f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[COMPLEMENT:.*]] = arith.subf %[[ONE]], %[[Y32]] : f32
// CHECK-NEXT: %[[SCALED:.*]] = arith.mulf %[[G32]], %[[COMPLEMENT]] : f32
// CHECK-NEXT: %[[DX:.*]] = arith.mulf %[[SCALED]], %[[Y32]] : f32
// CHECK-NEXT: %[[ROUNDED:.*]] = arith.truncf %[[DX]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[ROUNDED]] : bf16
// CHECK-LABEL: func.func @tanh_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %{{.*}} : f32
// CHECK-NEXT: arith.truncf %[[T]] : f32 to f16
// CHECK-LABEL: func.func @tanh_grad_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: %[[Y32:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[SQUARE:.*]] = arith.mulf %[[Y32]], %[[Y32]] : f32
// CHECK-NEXT: %[[COMPLEMENT:.*]] = arith.subf %{{.*}}, %[[SQUARE]] : f32
// CHECK-NEXT: %[[DX:.*]] = arith.mulf %{{.*}}, %[[COMPLEMENT]] : f32
// CHECK-NEXT: arith.truncf %[[DX]] : f32 to f16
// CHECK-LABEL: func.func @silu_f16
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT: %[[EXP:.*]] = math.exp %[[NEG]] : f32
// CHECK-NEXT: %[[ONE_PLUS:.*]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.divf %[[X]], %[[ONE_PLUS]] : f32
// CHECK-NEXT: arith.truncf %[[Y]] : f32 to f16
// CHECK-LABEL: func.func @silu_grad_f16
// CHECK: %[[G32:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: %[[X32:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[S:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: %[[COMPLEMENT:.*]] = arith.subf %{{.*}}, %[[S]] : f32
// CHECK-NEXT: %[[XC:.*]] = arith.mulf %[[X32]], %[[COMPLEMENT]] : f32
// CHECK-NEXT: %[[SLOPE:.*]] = arith.addf %{{.*}}, %[[XC]] : f32
// CHECK-NEXT: %[[GS:.*]] = arith.mulf %[[G32]], %[[S]] : f32
// CHECK-NEXT: %[[DX:.*]] = arith.mulf %[[GS]], %[[SLOPE]] : f32
// CHECK-NEXT: arith.truncf %[[DX]] : f32 to f16
func.func @sigmoid_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %y = mpt.sigmoid %x : tensor<4xf16>
  return %y : tensor<4xf16>
}
func.func @sigmoid_grad_bf16(%g: tensor<4xbf16>, %y: tensor<4xbf16>) -> tensor<4xbf16> {
  %dx = mpt.sigmoid_grad %g, %y : tensor<4xbf16>
  return %dx : tensor<4xbf16>
}
func.func @tanh_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %y = mpt.tanh %x : tensor<4xf16>
  return %y : tensor<4xf16>
}
func.func @tanh_grad_f16(%g: tensor<4xf16>, %y: tensor<4xf16>) -> tensor<4xf16> {
  %dx = mpt.tanh_grad %g, %y : tensor<4xf16>
  return %dx : tensor<4xf16>
}
func.func @silu_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %y = mpt.silu %x : tensor<4xf16>
  return %y : tensor<4xf16>
}
func.func @silu_grad_f16(%g: tensor<4xf16>, %x: tensor<4xf16>) -> tensor<4xf16> {
  %dx = mpt.silu_grad %g, %x : tensor<4xf16>
  return %dx : tensor<4xf16>
}

// -----

// conv2d: zero padding, the named convolution into f32, one rounding.

// CHECK-LABEL: func.func @conv2d_f16
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x5x5xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<3x2x3x3xf16>
// CHECK: %[[PADDED:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %{{.*}} : f16
// CHECK: } : tensor<1x2x5x5xf16> to tensor<1x2x7x7xf16>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x3x3x2xf32>)
// CHECK: %[[ACC:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PADDED]], %[[W]] : tensor<1x2x7x7xf16>, tensor<3x2x3x3xf16>) outs(%[[INIT]] : tensor<1x3x3x2xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : tensor<1x3x3x2xf32>) outs(%{{.*}} : tensor<1x3x3x2xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @conv2d_f16(%x: tensor<1x2x5x5xf16>, %w: tensor<3x2x3x3xf16>) -> tensor<1x3x3x2xf16> {
  %y = mpt.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 2>}
      : tensor<1x2x5x5xf16>, tensor<3x2x3x3xf16> -> tensor<1x3x3x2xf16>
  return %y : tensor<1x3x3x2xf16>
}

// -----

// conv2d_input_grad: dy spread out by the stride into a zero tensor (offset by
// (K-1)*d - pad = 1), the filter flipped with its channels swapped, and a
// stride-1 convolution.

// CHECK-DAG: #[[$FLIP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, -d2 + 2, -d3 + 2)>
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv2d_input_grad
// CHECK-SAME: %[[DY:[a-zA-Z0-9_]+]]: tensor<1x3x3x3xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<3x2x3x3xf32>
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x3x7x7xf32>)
// CHECK: %[[SPREAD:.*]] = tensor.insert_slice %[[DY]] into %[[ZEROS]][0, 0, 1, 1] [1, 3, 3, 3] [1, 1, 2, 2]
// CHECK: %[[FLIPPED:.*]] = linalg.generic {indexing_maps = [#[[$FLIP]], #[[$ID]]], {{.*}}} ins(%[[W]] : tensor<3x2x3x3xf32>) outs(%{{.*}} : tensor<2x3x3x3xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[SPREAD]], %[[FLIPPED]] : tensor<1x3x7x7xf32>, tensor<2x3x3x3xf32>) outs(%{{.*}} : tensor<1x2x5x5xf32>)
func.func @conv2d_input_grad(%dy: tensor<1x3x3x3xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x2x5x5xf32> {
  %dx = mpt.conv2d_input_grad %dy, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<1x3x3x3xf32>, tensor<3x2x3x3xf32> -> tensor<1x2x5x5xf32>
  return %dx : tensor<1x2x5x5xf32>
}

// -----

// Padding wider than the dilated kernel (1x1 kernel, pad 2, stride 2): the
// outputs whose window is all padding are sliced off before spreading.

// CHECK-LABEL: func.func @conv2d_input_grad_wide_padding
// CHECK: %[[USED:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1, 1] [1, 2, 2, 2] [1, 1, 1, 1] : tensor<1x2x4x4xf32> to tensor<1x2x2x2xf32>
// CHECK: tensor.insert_slice %[[USED]] into %{{.*}}[0, 0, 0, 0] [1, 2, 2, 2] [1, 1, 2, 2] : tensor<1x2x2x2xf32> into tensor<1x2x3x3xf32>
func.func @conv2d_input_grad_wide_padding(%dy: tensor<1x2x4x4xf32>, %w: tensor<2x1x1x1xf32>) -> tensor<1x1x3x3xf32> {
  %dx = mpt.conv2d_input_grad %dy, %w {strides = array<i64: 2, 2>, padding = array<i64: 2, 2>}
      : tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x1x3x3xf32>
  return %dx : tensor<1x1x3x3xf32>
}

// -----

// conv2d_filter_grad: a convolution over the batch, with the padded input as
// [c, n, h, w], dy as the filter [f, n, oh, ow], strides and dilations
// swapped, into an f32 [c, f, kh, kw] transposed back; products of f16 values
// accumulated in f32.

// CHECK-LABEL: func.func @conv2d_filter_grad_f16
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x5x5xf16>, %[[DY:.*]]: tensor<1x3x3x2xf16>)
// CHECK: %[[PADDED:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[PADDED]] : tensor<1x2x7x7xf16>) outs(%{{.*}} : tensor<2x1x7x7xf16>) permutation = [1, 0, 2, 3]
// CHECK: %[[DYT:.*]] = linalg.transpose ins(%[[DY]] : tensor<1x3x3x2xf16>) outs(%{{.*}} : tensor<3x1x3x2xf16>) permutation = [1, 0, 2, 3]
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3x3x3xf32>)
// CHECK: %[[ACC:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%[[XT]], %[[DYT]] : tensor<2x1x7x7xf16>, tensor<3x1x3x2xf16>) outs(%[[INIT]] : tensor<2x3x3x3xf32>)
// CHECK: %[[DW:.*]] = linalg.transpose ins(%[[ACC]] : tensor<2x3x3x3xf32>) outs(%{{.*}} : tensor<3x2x3x3xf32>) permutation = [1, 0, 2, 3]
// CHECK: linalg.generic {{.*}} ins(%[[DW]] : tensor<3x2x3x3xf32>) outs(%{{.*}} : tensor<3x2x3x3xf16>)
// CHECK: arith.truncf
func.func @conv2d_filter_grad_f16(%x: tensor<1x2x5x5xf16>, %dy: tensor<1x3x3x2xf16>) -> tensor<3x2x3x3xf16> {
  %dw = mpt.conv2d_filter_grad %x, %dy {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 2>}
      : tensor<1x2x5x5xf16>, tensor<1x3x3x2xf16> -> tensor<3x2x3x3xf16>
  return %dw : tensor<3x2x3x3xf16>
}

// -----

// max_pool2d: -inf padding and init, so that padding never wins.

// CHECK-LABEL: func.func @max_pool2d
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFC00 : f16
// CHECK: %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NEG_INF]] : f16
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f16) outs(%{{.*}} : tensor<1x2x2x2xf16>)
// CHECK: %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xf16>
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PADDED]], %[[WINDOW]] : tensor<1x2x6x6xf16>, tensor<3x3xf16>) outs(%[[INIT]] : tensor<1x2x2x2xf16>)
func.func @max_pool2d(%x: tensor<1x2x4x4xf16>) -> tensor<1x2x2x2xf16> {
  %y = mpt.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<1x2x4x4xf16> -> tensor<1x2x2x2xf16>
  return %y : tensor<1x2x2x2xf16>
}

// -----

// max_pool2d with disjoint windows (stride = kernel, no padding): one
// parallel pass over the output, each element the first maximum of its
// window's inputs read at constant (kh, kw) from x viewed as
// [N, C, OH, KH, OW, KW], as the backward picks it: a later candidate wins if
// it is larger or the first NaN. Compared in f32, rounded once (exact: the
// maximum is one of the inputs).

// CHECK-DAG: #[[$Q00:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0, d3, 0)>
// CHECK-DAG: #[[$Q01:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0, d3, 1)>
// CHECK-DAG: #[[$Q10:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 1, d3, 0)>
// CHECK-DAG: #[[$Q11:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 1, d3, 1)>
// CHECK-DAG: #[[$Q:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool2d_disjoint
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x4x6xf16>
// CHECK: %[[XW:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1], [2, 3], [4, 5]] output_shape [1, 2, 2, 2, 3, 2]
// CHECK: linalg.generic {indexing_maps = [#[[$Q00]], #[[$Q01]], #[[$Q10]], #[[$Q11]], #[[$Q]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[XW]], %[[XW]], %[[XW]], %[[XW]] : {{.*}}) outs(%{{.*}} : tensor<1x2x2x3xf16>)
// CHECK: ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16, %[[C:.*]]: f16, %[[D:.*]]: f16, %{{.*}}: f16):
// CHECK: %[[A32:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK: %[[B32:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[B32]], %[[A32]] : f32
// CHECK: %[[BNAN:.*]] = arith.cmpf uno, %[[B32]], %[[B32]] : f32
// CHECK: %[[ANUM:.*]] = arith.cmpf ord, %[[A32]], %[[A32]] : f32
// CHECK: %[[FIRSTNAN:.*]] = arith.andi %[[BNAN]], %[[ANUM]] : i1
// CHECK: %[[TAKE:.*]] = arith.ori %[[GT]], %[[FIRSTNAN]] : i1
// CHECK: %[[AB:.*]] = arith.select %[[TAKE]], %[[B32]], %[[A32]] : f32
// CHECK: %[[C32:.*]] = arith.extf %[[C]] : f16 to f32
// CHECK: arith.cmpf ogt, %[[C32]], %[[AB]] : f32
// CHECK: %[[ABC:.*]] = arith.select %{{.*}}, %[[C32]], %[[AB]] : f32
// CHECK: %[[D32:.*]] = arith.extf %[[D]] : f16 to f32
// CHECK: arith.cmpf ogt, %[[D32]], %[[ABC]] : f32
// CHECK: %[[ABCD:.*]] = arith.select %{{.*}}, %[[D32]], %[[ABC]] : f32
// CHECK-NOT: arith.maximumf
// CHECK: %[[R:.*]] = arith.truncf %[[ABCD]] : f32 to f16
// CHECK: linalg.yield %[[R]] : f16
func.func @max_pool2d_disjoint(%x: tensor<1x2x4x6xf16>) -> tensor<1x2x2x3xf16> {
  %y = mpt.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<1x2x4x6xf16> -> tensor<1x2x2x3xf16>
  return %y : tensor<1x2x2x3xf16>
}

// -----

// max_pool2d_grad: the first maximum of every window (an order-independent
// argmax reduction), then a gather over the windows that reach each input
// position through dy and argmax spread out by the stride. Loops are (n, c,
// kh, kw, then the image): the window loops sit outside, so that the
// innermost loop is parallel. (Overlapping windows: stride 1.)

// CHECK-DAG: #[[$WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
// CHECK-DAG: #[[$KERNEL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d3)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>
// CHECK-DAG: #[[$BACK:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 - d2 + 1, d5 - d3 + 1)>
// CHECK-LABEL: func.func @max_pool2d_grad
// CHECK-SAME: %[[DY:[a-zA-Z0-9_]+]]: tensor<1x2x3x3xf32>, %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x4x4xf32>
// CHECK: %[[ARGMAX:[a-zA-Z0-9_]+]]:2 = linalg.generic {indexing_maps = [#[[$WIN]], #[[$KERNEL]], #[[$OUT]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]} ins(%[[X]], %{{.*}} : tensor<1x2x4x4xf32>, tensor<2x2xi1>) outs(%{{.*}}, %{{.*}} : tensor<1x2x3x3xf32>, tensor<1x2x3x3xi32>)
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi slt
// CHECK: arith.cmpf ogt
// CHECK: %[[SPREAD_DY:.*]] = tensor.insert_slice %[[DY]] into %{{.*}}[0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 1, 1] : tensor<1x2x3x3xf32> into tensor<1x2x5x5xf32>
// CHECK: %[[SPREAD_IDX:.*]] = tensor.insert_slice %[[ARGMAX]]#1 into %{{.*}}[0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 1, 1] : tensor<1x2x3x3xi32> into tensor<1x2x5x5xi32>
// CHECK: linalg.generic {indexing_maps = [#[[$BACK]], #[[$BACK]], #[[$KERNEL]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]} ins(%[[SPREAD_DY]], %[[SPREAD_IDX]], %{{.*}} : tensor<1x2x5x5xf32>, tensor<1x2x5x5xi32>, tensor<2x2xi1>) outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: arith.addf
func.func @max_pool2d_grad(%dy: tensor<1x2x3x3xf32>, %x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %dx = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>}
      : tensor<1x2x3x3xf32>, tensor<1x2x4x4xf32>
  return %dx : tensor<1x2x4x4xf32>
}

// -----

// Disjoint windows (stride = kernel, no padding): one parallel pass over dx
// viewed as [N, C, OH, KH, OW, KW], loops (n, c, oh, ow, kh, kw); each
// element reads its window's inputs at constant (kh, kw), and dy. The
// element's window position kh * KW + kw is computed in i32 from i32 indices,
// like the argmax it is compared with: computed as an index and cast, LLVM
// widened the argmax's selects to 64-bit lanes (twice the vectors).

// CHECK-DAG: #[[$P00:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, 0, d3, 0)>
// CHECK-DAG: #[[$P01:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, 0, d3, 1)>
// CHECK-DAG: #[[$P10:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, 1, d3, 0)>
// CHECK-DAG: #[[$P11:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, 1, d3, 1)>
// CHECK-DAG: #[[$DY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$WINDOWED:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4, d3, d5)>
// CHECK-LABEL: func.func @max_pool2d_grad_disjoint
// CHECK-SAME: %[[DY:[a-zA-Z0-9_]+]]: tensor<1x2x2x2xf32>, %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x4x4xf32>
// CHECK: %[[XW:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1], [2, 3], [4, 5]] output_shape [1, 2, 2, 2, 2, 2]
// CHECK: %[[DXW:.*]] = linalg.generic {indexing_maps = [#[[$P00]], #[[$P01]], #[[$P10]], #[[$P11]], #[[$DY]], #[[$WINDOWED]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[XW]], %[[XW]], %[[XW]], %[[XW]], %[[DY]] :
// CHECK-COUNT-3: arith.cmpf ogt
// CHECK: %[[KH:.*]] = linalg.index 4 : index
// CHECK: %[[KH32:.*]] = arith.index_cast %[[KH]] : index to i32
// CHECK: %[[KW:.*]] = linalg.index 5 : index
// CHECK: %[[KW32:.*]] = arith.index_cast %[[KW]] : index to i32
// CHECK: %[[ROW:.*]] = arith.muli %[[KH32]], %{{.*}} : i32
// CHECK: %[[POSITION:.*]] = arith.addi %[[ROW]], %[[KW32]] : i32
// CHECK: arith.cmpi eq, %{{.*}}, %[[POSITION]] : i32
// CHECK: arith.select
// CHECK: arith.addf
// CHECK: tensor.collapse_shape %[[DXW]] {{\[\[}}0], [1], [2, 3], [4, 5]] : tensor<1x2x2x2x2x2xf32> into tensor<1x2x4x4xf32>
func.func @max_pool2d_grad_disjoint(%dy: tensor<1x2x2x2xf32>, %x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %dx = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<1x2x2x2xf32>, tensor<1x2x4x4xf32>
  return %dx : tensor<1x2x4x4xf32>
}

// -----

// Padding positions are no argmax candidates: their row/column is checked.

// CHECK-LABEL: func.func @max_pool2d_grad_padded
// CHECK: %[[OH:.*]] = linalg.index 4
// CHECK: %[[KH:.*]] = linalg.index 2
// CHECK: %[[SCALED:.*]] = arith.muli %[[OH]], %{{.*}}
// CHECK: %[[ROW:.*]] = arith.addi %[[SCALED]], %[[KH]]
// CHECK: arith.cmpi sge, %[[ROW]]
// CHECK: arith.cmpi slt, %[[ROW]]
func.func @max_pool2d_grad_padded(%dy: tensor<1x1x2x2xf32>, %x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %dx = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>
  return %dx : tensor<1x1x3x3xf32>
}

// -----

// batch_norm with f16 activations and f32 statistics: the sums and the
// normalization run in f32, the output is rounded once. Each sum reduces one
// dimension at a time, batch first, then height, then width (a tree, not one
// sequential sum over 2*4*4 values).

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$NO_N:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$NO_H:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$NO_W:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm_f16
// CHECK: %[[OVER_N:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$NO_N]]], iterator_types = ["reduction", "parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<2x3x4x4xf16>) outs(%{{.*}} : tensor<3x4x4xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[OVER_H:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$NO_H]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[OVER_N]] : tensor<3x4x4xf32>) outs(%{{.*}} : tensor<3x4xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$NO_W]]], iterator_types = ["parallel", "reduction"]} ins(%[[OVER_H]] : tensor<3x4xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<3xf32>)
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: %[[SQUARES_N:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]], #[[$NO_N]]], iterator_types = ["reduction", "parallel", "parallel", "parallel"]} ins(%{{.*}}, %[[MEAN]] : tensor<2x3x4x4xf16>, tensor<3xf32>)
// CHECK: %[[SQUARES_H:.*]] = linalg.generic {{.*}} ins(%[[SQUARES_N]] : tensor<3x4x4xf32>)
// CHECK: %[[SQUARES:.*]] = linalg.generic {{.*}} ins(%[[SQUARES_H]] : tensor<3x4xf32>)
// CHECK: %[[STATS:[a-zA-Z0-9_]+]]:3 = linalg.generic {{.*}} ins(%[[MEAN]], %[[SQUARES]], %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: math.sqrt
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%{{.*}}, %[[MEAN]], %[[STATS]]#0, %{{.*}}, %{{.*}} : tensor<2x3x4x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<2x3x4x4xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[Y]], %[[MEAN]], %[[STATS]]#0, %[[STATS]]#1, %[[STATS]]#2
func.func @batch_norm_f16(%x: tensor<2x3x4x4xf16>, %g: tensor<3xf32>, %b: tensor<3xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>)
    -> (tensor<2x3x4x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %m, %i, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm, %rv {momentum = 1.0e-01 : f32, epsilon = 1.0e-05 : f32}
      : tensor<2x3x4x4xf16>, tensor<3xf32>
  return %y, %m, %i, %rm2, %rv2 : tensor<2x3x4x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$CH:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @batch_norm_grad
// CHECK: %[[SUMS:[a-zA-Z0-9_]+]]:2 = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$CH]], #[[$CH]], #[[$CH]]], iterator_types = ["reduction", "parallel"]}
// CHECK: %[[COEFFS:[a-zA-Z0-9_]+]]:5 = linalg.generic {{.*}} ins(%[[SUMS]]#0, %[[SUMS]]#1, %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: %[[DX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins({{.*}}, %[[COEFFS]]#0, %[[COEFFS]]#1, %[[COEFFS]]#2 : {{.*}}) outs(%{{.*}} : tensor<8x3xf32>)
// CHECK: return %[[DX]], %[[COEFFS]]#3, %[[COEFFS]]#4
func.func @batch_norm_grad(%dy: tensor<8x3xf32>, %x: tensor<8x3xf32>, %g: tensor<3xf32>, %m: tensor<3xf32>, %i: tensor<3xf32>)
    -> (tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %dx, %dg, %db = mpt.batch_norm_grad %dy, %x, %g, %m, %i : tensor<8x3xf32>, tensor<3xf32>
  return %dx, %dg, %db : tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @batch_norm_inference
// CHECK: %[[STD:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: math.sqrt
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[STD]], %{{.*}}, %{{.*}} : tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<2x3x4x4xbf16>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @batch_norm_inference(%x: tensor<2x3x4x4xbf16>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4x4xbf16> {
  %y = mpt.batch_norm_inference %x, %g, %b, %m, %v : tensor<2x3x4x4xbf16>, tensor<3xf32>
  return %y : tensor<2x3x4x4xbf16>
}

// -----

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$FEAT:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layer_norm
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x4x8xf16>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: %[[INVSTD:.*]] = linalg.generic
// CHECK: math.sqrt
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]], #[[$FEAT]], #[[$FEAT]], #[[$ID]]]
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[Y]], %{{.*}}, %[[INVSTD]] : tensor<2x4x8xf16>, tensor<2x4xf32>, tensor<2x4xf32>
func.func @layer_norm(%x: tensor<2x4x8xf16>, %g: tensor<8xf16>, %b: tensor<8xf16>) -> (tensor<2x4x8xf16>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %y, %m, %i = mpt.layer_norm %x, %g, %b : tensor<2x4x8xf16>, tensor<8xf16> -> tensor<2x4xf32>
  return %y, %m, %i : tensor<2x4x8xf16>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$FEAT:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @layer_norm_grad
// CHECK: %[[ROWS:[a-zA-Z0-9_]+]]:2 = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$FEAT]], #[[$ROW]], #[[$ROW]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK: %[[DX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ROWS]]#0, %[[ROWS]]#1 :
// CHECK: %[[PARAMS:[a-zA-Z0-9_]+]]:2 = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$FEAT]], #[[$ROW]], #[[$ROW]], #[[$FEAT]], #[[$FEAT]]], iterator_types = ["reduction", "parallel"]}
// CHECK: return %[[DX]], %[[PARAMS]]#0, %[[PARAMS]]#1
func.func @layer_norm_grad(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %m: tensor<4xf32>, %i: tensor<4xf32>)
    -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %dx, %dg, %db = mpt.layer_norm_grad %dy, %x, %g, %m, %i : tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>
  return %dx, %dg, %db : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Softmax runs in f32 whatever its input: max, sum of exp(x - max), divide.

// CHECK-LABEL: func.func @softmax_f16
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x4x8xf16>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[MAX]] : tensor<2x4x8xf16>, tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[MAX]], %[[SUM]] : tensor<2x4x8xf16>, tensor<2x4xf32>, tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4x8xf16>)
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @softmax_f16(%x: tensor<2x4x8xf16>) -> tensor<2x4x8xf16> {
  %y = mpt.softmax %x : tensor<2x4x8xf16>
  return %y : tensor<2x4x8xf16>
}

// -----

// CHECK-LABEL: func.func @softmax_grad
// CHECK: %[[DOT:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[DOT]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>)
// CHECK: arith.subf
// CHECK: arith.mulf
func.func @softmax_grad(%g: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %dx = mpt.softmax_grad %g, %y : tensor<4x8xf32>
  return %dx : tensor<4x8xf32>
}

// -----

// The labelled logit is picked in the pass that sums the exponentials; the
// loss is the batch mean of -((x[label] - max) - log(sum)).

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$VEC:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$TO_SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @softmax_cross_entropy
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x10xf32>, %[[L:[a-zA-Z0-9_]+]]: tensor<4xi32>
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK: %[[ROWS:[a-zA-Z0-9_]+]]:2 = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[L]], %[[MAX]] : tensor<4x10xf32>, tensor<4xi32>, tensor<4xf32>)
// CHECK: %[[CLASS:.*]] = linalg.index 1 : index
// CHECK: %[[CLASS_I32:.*]] = arith.index_cast %[[CLASS]] : index to i32
// CHECK: arith.cmpi eq, %[[CLASS_I32]], %{{.*}} : i32
// CHECK: math.exp
// CHECK: %[[TOTAL:.*]] = linalg.generic {indexing_maps = [#[[$VEC]], #[[$VEC]], #[[$VEC]], #[[$TO_SCALAR]]], iterator_types = ["reduction"]} ins(%[[ROWS]]#1, %[[MAX]], %[[ROWS]]#0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: math.log
// CHECK: linalg.generic {{.*}} iterator_types = []} ins(%[[TOTAL]] : tensor<f32>) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.constant 4.000000e+00 : f32
// CHECK: arith.divf
func.func @softmax_cross_entropy(%x: tensor<4x10xf32>, %l: tensor<4xi32>) -> tensor<f32> {
  %loss = mpt.softmax_cross_entropy %x, %l : tensor<4x10xf32>, tensor<4xi32>
  return %loss : tensor<f32>
}

// -----

// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @softmax_cross_entropy_grad
// CHECK-SAME: %[[SEED:[a-zA-Z0-9_]+]]: tensor<f32>, %[[X:[a-zA-Z0-9_]+]]: tensor<4x10xf16>, %[[L:[a-zA-Z0-9_]+]]: tensor<4xi64>
// CHECK: linalg.generic {indexing_maps = [{{.*}}, {{.*}}, {{.*}}, {{.*}}, #[[$SCALAR]], {{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[L]], %{{.*}}, %{{.*}}, %[[SEED]] : tensor<4x10xf16>, tensor<4xi64>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%{{.*}} : tensor<4x10xf16>)
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: arith.select
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @softmax_cross_entropy_grad(%seed: tensor<f32>, %x: tensor<4x10xf16>, %l: tensor<4xi64>) -> tensor<4x10xf16> {
  %dx = mpt.softmax_cross_entropy_grad %seed, %x, %l : tensor<4x10xf16>, tensor<4xi64>
  return %dx : tensor<4x10xf16>
}

// -----

// mse_loss sums the f32 squares of the f16 differences one dimension at a
// time, then divides by the 12 elements; its gradient is 2/12 (x - t) seed in
// f32, rounded once.
// CHECK-LABEL: func.func @mse_loss_f16
// CHECK: %[[ROWS:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<4x3xf16>, tensor<4x3xf16>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[D:.*]] = arith.subf
// CHECK: arith.mulf %[[D]], %[[D]] : f32
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[ROWS]] : tensor<3xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<f32>) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.constant 1.200000e+01 : f32
// CHECK: arith.divf
// CHECK-LABEL: func.func @mse_loss_grad_f16
// CHECK-SAME: (%[[SEED:.*]]: tensor<f32>,
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[SEED]] : tensor<4x3xf16>, tensor<4x3xf16>, tensor<f32>) outs(%{{.*}} : tensor<4x3xf16>)
// CHECK: %[[D:.*]] = arith.subf %{{.*}}, %{{.*}} : f32
// CHECK: %[[NORM:.*]] = arith.constant 0.166666672 : f32
// CHECK: %[[SCALED:.*]] = arith.mulf %[[NORM]], %[[D]] : f32
// CHECK: %[[DX:.*]] = arith.mulf %[[SCALED]], %{{.*}} : f32
// CHECK: arith.truncf %[[DX]] : f32 to f16
func.func @mse_loss_f16(%x: tensor<4x3xf16>, %t: tensor<4x3xf16>) -> tensor<f32> {
  %loss = mpt.mse_loss %x, %t : tensor<4x3xf16>
  return %loss : tensor<f32>
}
func.func @mse_loss_grad_f16(%seed: tensor<f32>, %x: tensor<4x3xf16>, %t: tensor<4x3xf16>) -> tensor<4x3xf16> {
  %dx = mpt.mse_loss_grad %seed, %x, %t : tensor<4x3xf16>
  return %dx : tensor<4x3xf16>
}

// -----

// CHECK-LABEL: func.func @loss_grad
// CHECK-SAME: %{{.*}}: tensor<f32>, %[[SCALE:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<f32>
// CHECK: %[[SEED:.*]] = linalg.fill ins(%[[ONE]] : f32) outs(%[[EMPTY]] : tensor<f32>) -> tensor<f32>
// CHECK: return %[[SEED]], %[[SCALE]]
func.func @loss_grad(%loss: tensor<f32>, %scale: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = mpt.loss_grad %loss
  %1 = mpt.loss_grad %loss scale %scale
  return %0, %1 : tensor<f32>, tensor<f32>
}

// -----

// Across 4 data-parallel ranks the seed is 1/4, or the scale divided by 4.
// CHECK-LABEL: func.func @loss_grad_world_size
// CHECK-SAME: %{{.*}}: tensor<f32>, %[[SCALE:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK: %[[QUARTER:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[SEED:.*]] = linalg.fill ins(%[[QUARTER]] : f32) outs(%{{.*}} : tensor<f32>) -> tensor<f32>
// CHECK: %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK: %[[N:.*]] = linalg.fill ins(%[[FOUR]] : f32) outs(%{{.*}} : tensor<f32>) -> tensor<f32>
// CHECK: %[[SCALED:.*]] = arith.divf %[[SCALE]], %[[N]] : tensor<f32>
// CHECK: return %[[SEED]], %[[SCALED]]
func.func @loss_grad_world_size(%loss: tensor<f32>, %scale: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = mpt.loss_grad %loss {world_size = 4 : i64}
  %1 = mpt.loss_grad %loss scale %scale {world_size = 4 : i64}
  return %0, %1 : tensor<f32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3x4xf32>
// CHECK: %[[COLLAPSED:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[EXPANDED:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 2, 2] : tensor<2x3x4xf32> into tensor<2x3x2x2xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: %[[REGROUPED:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK: return %[[COLLAPSED]], %[[EXPANDED]], %[[REGROUPED]]
func.func @reshape(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<4x6xf32>) {
  %a = mpt.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %b = mpt.reshape %x : tensor<2x3x4xf32> -> tensor<2x3x2x2xf32>
  %c = mpt.reshape %x : tensor<2x3x4xf32> -> tensor<4x6xf32>
  return %a, %b, %c : tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x2x3xbf16>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x4xbf16>) outs(%[[INIT]] : tensor<4x2x3xbf16>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<2x3x4xbf16>) -> tensor<4x2x3xbf16> {
  %t = mpt.transpose %x [2, 0, 1] : tensor<2x3x4xbf16> -> tensor<4x2x3xbf16>
  return %t : tensor<4x2x3xbf16>
}

// -----

// reduce_sum accumulates in f32 and rounds once to an f16 result; keep_dims
// re-inserts the reduced dimensions. It sums one dimension at a time.

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$NO_D0:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$NO_D1:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduce_sum
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<3x4xf32>)
// CHECK: %[[PARTIAL:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$NO_D0]]], iterator_types = ["reduction", "parallel", "parallel"]} ins(%{{.*}} : tensor<2x3x4xf16>) outs(%[[INIT]] : tensor<3x4xf32>)
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: f16, %[[ACC:[a-zA-Z0-9_]+]]: f32):
// CHECK: %[[EXT:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK: arith.addf %[[ACC]], %[[EXT]] : f32
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$NO_D1]]], iterator_types = ["parallel", "reduction"]} ins(%[[PARTIAL]] : tensor<3x4xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: %[[ROUNDED:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<3xf32>) outs(%{{.*}} : tensor<3xf16>)
// CHECK: arith.truncf
// CHECK: %[[SUM2:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3xf32>)
// CHECK: %[[KEPT:.*]] = tensor.expand_shape %[[SUM2]] {{\[}}[0, 1, 2]] output_shape [1, 3, 1] : tensor<3xf32> into tensor<1x3x1xf32>
// CHECK: return %[[ROUNDED]], %[[KEPT]]
func.func @reduce_sum(%x: tensor<2x3x4xf16>) -> (tensor<3xf16>, tensor<1x3x1xf32>) {
  %a = mpt.reduce_sum %x [0, 2] : tensor<2x3x4xf16> -> tensor<3xf16>
  %b = mpt.reduce_sum %x [0, 2] {keep_dims} : tensor<2x3x4xf16> -> tensor<1x3x1xf32>
  return %a, %b : tensor<3xf16>, tensor<1x3x1xf32>
}

// -----

// Reducing every dimension yields a 0-d tensor: rows first, then the row of
// partial sums.

// CHECK-DAG: #[[$TO_SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @reduce_sum_all
// CHECK: %[[ROWS:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$TO_SCALAR]]], iterator_types = ["reduction"]} ins(%[[ROWS]] : tensor<3xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
func.func @reduce_sum_all(%x: tensor<2x3xf32>) -> tensor<1x1xf32> {
  %s = mpt.reduce_sum %x [0, 1] {keep_dims} : tensor<2x3xf32> -> tensor<1x1xf32>
  return %s : tensor<1x1xf32>
}

// -----

// SGD in one elementwise generic with two results (parameter and buffer).

// CHECK-LABEL: func.func @sgd_nesterov
// CHECK: %[[R:[a-zA-Z0-9_]+]]:2 = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK: ^bb0(%[[P:[a-zA-Z0-9_]+]]: f32, %[[G:[a-zA-Z0-9_]+]]: f32, %[[BUF:[a-zA-Z0-9_]+]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: %[[DECAY:.*]] = arith.mulf %{{.*}}, %[[P]] : f32
// CHECK: %[[GRAD:.*]] = arith.addf %[[G]], %[[DECAY]] : f32
// CHECK: %[[MBUF:.*]] = arith.mulf %{{.*}}, %[[BUF]] : f32
// CHECK: %[[NEWBUF:.*]] = arith.addf %[[MBUF]], %[[GRAD]] : f32
// CHECK: %[[LOOKAHEAD:.*]] = arith.mulf %{{.*}}, %[[NEWBUF]] : f32
// CHECK: %[[DIR:.*]] = arith.addf %[[GRAD]], %[[LOOKAHEAD]] : f32
// CHECK: %[[STEP:.*]] = arith.mulf %{{.*}}, %[[DIR]] : f32
// CHECK: %[[NEWP:.*]] = arith.subf %[[P]], %[[STEP]] : f32
// CHECK: linalg.yield %[[NEWP]], %[[NEWBUF]] : f32, f32
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @sgd_nesterov(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %p2, %m2 = mpt.sgd %p, %g, %m {lr = 1.0e-01 : f32, momentum = 9.0e-01 : f32, weight_decay = 1.0e-02 : f32, nesterov} : tensor<4xf32>
  return %p2, %m2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @sgd_plain_f16
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4xf16>, tensor<4xf16>) outs(%{{.*}} : tensor<4xf16>)
// CHECK: arith.extf
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.subf
// CHECK: arith.truncf
func.func @sgd_plain_f16(%p: tensor<4xf16>, %g: tensor<4xf16>) -> tensor<4xf16> {
  %p2 = mpt.sgd %p, %g {lr = 1.0e-01 : f32} : tensor<4xf16>
  return %p2 : tensor<4xf16>
}

// -----

// Adam: the step count and the bias corrections live in 0-d tensors computed
// once; the update reads them through 0-d maps.

// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<() -> ()>
// CHECK-DAG: #[[$VEC:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$BCAST:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @adam
// CHECK-SAME: %[[STEP:[a-zA-Z0-9_]+]]: tensor<i64>
// CHECK: %[[NEXT:.*]] = linalg.generic {indexing_maps = [#[[$SCALAR]], #[[$SCALAR]]], iterator_types = []} ins(%[[STEP]] : tensor<i64>) outs(%{{.*}} : tensor<i64>)
// CHECK: arith.addi
// CHECK: %[[BC:[a-zA-Z0-9_]+]]:2 = linalg.generic {indexing_maps = [#[[$SCALAR]], #[[$SCALAR]], #[[$SCALAR]]], iterator_types = []} ins(%[[NEXT]] : tensor<i64>) outs(%{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>)
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: math.powf
// CHECK: math.powf
// CHECK: %[[UPD:[a-zA-Z0-9_]+]]:3 = linalg.generic {indexing_maps = [#[[$VEC]], #[[$VEC]], #[[$VEC]], #[[$VEC]], #[[$BCAST]], #[[$BCAST]], #[[$VEC]], #[[$VEC]], #[[$VEC]]], iterator_types = ["parallel"]} ins({{.*}}, %[[BC]]#0, %[[BC]]#1 : {{.*}})
// CHECK: math.sqrt
// CHECK: return %[[UPD]]#0, %[[UPD]]#1, %[[UPD]]#2, %[[NEXT]]
func.func @adam(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<i64>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) {
  %p2, %m2, %v2, %t2 = mpt.adam %p, %g, %m, %v, %t {lr = 1.0e-03 : f32} : tensor<4xf32>, tensor<i64>
  return %p2, %m2, %v2, %t2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>
}

// -----

// AdamW scales the parameter by 1 - lr * weight_decay = 1 - 1e-3 * 1e-2 first.

// CHECK-LABEL: func.func @adamw
// CHECK: ^bb0(%[[P:[a-zA-Z0-9_]+]]: f32,
// CHECK: %[[DECAY:.*]] = arith.constant 0.999989986 : f32
// CHECK: %[[DECAYED:.*]] = arith.mulf %[[P]], %[[DECAY]] : f32
// CHECK: arith.subf %[[DECAYED]], %{{.*}} : f32
func.func @adamw(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<i32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>) {
  %p2, %m2, %v2, %t2 = mpt.adamw %p, %g, %m, %v, %t {lr = 1.0e-03 : f32} : tensor<4xf32>, tensor<i32>
  return %p2, %m2, %v2, %t2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>
}

// -----

// A scheduled rate: mpt.lr_schedule is one 0-d generic computing the rate in
// f64, rounded to f32 once, and the next count; SGD reads the rate through a
// 0-d map instead of a constant.

// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<() -> ()>
// CHECK-DAG: #[[$VEC:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$BCAST:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @sgd_scheduled
// CHECK: %[[SCHED:[a-zA-Z0-9_]+]]:2 = linalg.generic {indexing_maps = [#[[$SCALAR]], #[[$SCALAR]], #[[$SCALAR]]], iterator_types = []} ins(%{{.*}} : tensor<i64>) outs(%{{.*}}, %{{.*}} : tensor<f32>, tensor<i64>)
// CHECK: ^bb0(%[[T:[a-zA-Z0-9_]+]]: i64,
// CHECK: arith.divsi %[[T]], %{{.*}} : i64
// CHECK: math.powf %{{.*}} : f64
// CHECK: %[[LR64:.*]] = arith.mulf %{{.*}} : f64
// CHECK: %[[NEXT:.*]] = arith.addi %[[T]], %{{.*}} : i64
// CHECK: %[[LR32:.*]] = arith.truncf %[[LR64]] : f64 to f32
// CHECK: linalg.yield %[[LR32]], %[[NEXT]] : f32, i64
// CHECK: linalg.generic {indexing_maps = [#[[$VEC]], #[[$VEC]], #[[$BCAST]], #[[$VEC]]], iterator_types = ["parallel"]} ins(%{{.*}}, %{{.*}}, %[[SCHED]]#0 : tensor<4xf32>, tensor<4xf32>, tensor<f32>)
// CHECK: ^bb0(%[[P:[a-zA-Z0-9_]+]]: f32, %[[G:[a-zA-Z0-9_]+]]: f32, %[[LR:[a-zA-Z0-9_]+]]: f32, %{{.*}}: f32):
// CHECK: %[[STEP:.*]] = arith.mulf %[[LR]], %[[G]] : f32
// CHECK: arith.subf %[[P]], %[[STEP]] : f32
func.func @sgd_scheduled(%p: tensor<4xf32>, %g: tensor<4xf32>, %t: tensor<i64>) -> (tensor<4xf32>, tensor<i64>) {
  %lr, %t2 = mpt.lr_schedule %t {base_lr = 1.0e-01 : f64, schedule = {kind = "step", step_size = 3, gamma = 0.5}} : tensor<i64>
  %p2 = mpt.sgd %p, %g scheduled_lr(%lr) {lr = 1.0e-01 : f32} : tensor<4xf32>
  return %p2, %t2 : tensor<4xf32>, tensor<i64>
}

// -----

// One f32 sum of squares over every gradient, then the norm and the factor.

// CHECK-LABEL: func.func @clip_grad_norm
// CHECK-SAME: %[[A:[a-zA-Z0-9_]+]]: tensor<4xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<2x2xf16>
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[SA:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[A]] : tensor<4xf32>) outs(%[[ZERO]] : tensor<f32>)
// CHECK: %[[SB:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[B]] : tensor<2x2xf16>) outs(%[[SA]] : tensor<f32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[NS:[a-zA-Z0-9_]+]]:2 = linalg.generic {{.*}} iterator_types = []} ins(%[[SB]] : tensor<f32>)
// CHECK: math.sqrt
// CHECK: arith.constant 9.99999997E-7 : f32
// CHECK: arith.minimumf
// CHECK: %[[CA:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[NS]]#1 : tensor<4xf32>, tensor<f32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[CB:.*]] = linalg.generic {{.*}} ins(%[[B]], %[[NS]]#1 : tensor<2x2xf16>, tensor<f32>) outs(%{{.*}} : tensor<2x2xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[CA]], %[[CB]], %[[NS]]#0
func.func @clip_grad_norm(%a: tensor<4xf32>, %b: tensor<2x2xf16>) -> (tensor<4xf32>, tensor<2x2xf16>, tensor<f32>) {
  %ca, %cb, %n = mpt.clip_grad_norm %a, %b {max_norm = 1.0 : f32} : tensor<4xf32>, tensor<2x2xf16>
  return %ca, %cb, %n : tensor<4xf32>, tensor<2x2xf16>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @unscale
// CHECK-SAME: %[[G:[a-zA-Z0-9_]+]]: tensor<4xf16>, %[[S:[a-zA-Z0-9_]+]]: tensor<f32>
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} iterator_types = []} ins(%[[S]] : tensor<f32>)
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} ins(%[[G]], %[[INV]] : tensor<4xf16>, tensor<f32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[GE:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf %[[GE]], %{{.*}} : f32
func.func @unscale(%g: tensor<4xf16>, %s: tensor<f32>) -> tensor<4xf32> {
  %u = mpt.unscale %g, %s : tensor<4xf16> -> tensor<4xf32>
  return %u : tensor<4xf32>
}

// -----

// all_finite compares each input in its own type (|x| != inf is false for
// inf and NaN) and and-reduces into one i1.

// CHECK-LABEL: func.func @all_finite
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%{{.*}} : tensor<i1>)
// CHECK: %[[R0:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<4xf16>) outs(%[[INIT]] : tensor<i1>)
// CHECK: math.absf %{{.*}} : f16
// CHECK: arith.cmpf one, %{{.*}}, %{{.*}} : f16
// CHECK: arith.andi
// CHECK: %[[R1:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<2x2xbf16>) outs(%[[R0]] : tensor<i1>)
// CHECK: return %[[R1]]
func.func @all_finite(%a: tensor<4xf16>, %b: tensor<2x2xbf16>) -> tensor<i1> {
  %ok = mpt.all_finite %a, %b : tensor<4xf16>, tensor<2x2xbf16>
  return %ok : tensor<i1>
}

// -----

// CHECK-LABEL: func.func @update_loss_scale
// CHECK: %[[R:[a-zA-Z0-9_]+]]:2 = linalg.generic {{.*}} iterator_types = []} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<i64>, tensor<i1>) outs(%{{.*}}, %{{.*}} : tensor<f32>, tensor<i64>)
// CHECK: ^bb0(%[[SCALE:[a-zA-Z0-9_]+]]: f32, %[[COUNT:[a-zA-Z0-9_]+]]: i64, %[[OK:[a-zA-Z0-9_]+]]: i1,
// CHECK: %[[COUNTED:.*]] = arith.addi %[[COUNT]], %{{.*}} : i64
// CHECK: %[[INTERVAL:.*]] = arith.constant 100 : i64
// CHECK: %[[GROW:.*]] = arith.cmpi sge, %[[COUNTED]], %[[INTERVAL]] : i64
// CHECK: %[[GROWN:.*]] = arith.mulf %[[SCALE]], %{{.*}} : f32
// CHECK: %[[CLEAN:.*]] = arith.select %[[GROW]], %[[GROWN]], %[[SCALE]] : f32
// CHECK: %[[BACKOFF:.*]] = arith.mulf %[[SCALE]], %{{.*}} : f32
// CHECK: %[[NEW:.*]] = arith.select %[[OK]], %[[CLEAN]], %[[BACKOFF]] : f32
// CHECK: %[[MIN:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[LOW:.*]] = arith.maximumf %[[NEW]], %[[MIN]] : f32
// CHECK: %[[MAX:.*]] = arith.constant 3.276800e+04 : f32
// CHECK: arith.minimumf %[[LOW]], %[[MAX]] : f32
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @update_loss_scale(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i1>) -> (tensor<f32>, tensor<i64>) {
  %s2, %n2 = mpt.update_loss_scale %s, %n, %ok {growth_interval = 100 : i64, max_scale = 3.2768e+04 : f32} : tensor<i64>
  return %s2, %n2 : tensor<f32>, tensor<i64>
}

// -----

// Ops of other dialects are left alone.

// CHECK-LABEL: func.func @not_mpt
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NEXT: return %[[SUM]]
func.func @not_mpt(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Two i64 counters over every input: zeros (oeq 0) and non-finites (|x| ueq inf).
// CHECK-LABEL: func @gradient_stats
// CHECK: %[[C0:.*]] = arith.constant 0 : i64
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[C0]] : i64) outs(%{{.*}} : tensor<i64>) -> tensor<i64>
// CHECK: %[[COUNTS:.*]]:2 = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%arg0 : tensor<4x8xf16>) outs(%[[INIT]], %[[INIT]] : tensor<i64>, tensor<i64>)
// CHECK: arith.cmpf oeq
// CHECK: math.absf
// CHECK: arith.cmpf ueq
// CHECK: %{{.*}}:2 = linalg.generic {{.*}} ins(%arg1 : tensor<8xf32>) outs(%[[COUNTS]]#0, %[[COUNTS]]#1 : tensor<i64>, tensor<i64>)
func.func @gradient_stats(%a: tensor<4x8xf16>, %b: tensor<8xf32>) -> (tensor<i64>, tensor<i64>) {
  %z, %n = mpt.gradient_stats %a, %b : tensor<4x8xf16>, tensor<8xf32>
  return %z, %n : tensor<i64>, tensor<i64>
}

// -----

// A check and the counts of the same gradients (as mpt-loss-scaling writes
// them) read the gradients once, for the counts: every element is finite
// exactly when none counts as non-finite. Lowered at the earlier op, so the
// check's users, before the counts, still see their operand defined.
// CHECK-LABEL: func @finite_check_from_counts
// CHECK-NOT: arith.andi
// CHECK: %[[A:.*]]:2 = linalg.generic {{.*}} ins(%arg0 : tensor<4x8xf16>)
// CHECK: %[[B:.*]]:2 = linalg.generic {{.*}} ins(%arg1 : tensor<8xf32>) outs(%[[A]]#0, %[[A]]#1 : tensor<i64>, tensor<i64>)
// CHECK: %[[OK:.*]] = linalg.generic {{.*}} iterator_types = []} ins(%[[B]]#1 : tensor<i64>) outs(%{{.*}} : tensor<i1>)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: arith.cmpi eq, %{{.*}}, %[[ZERO]] : i64
// CHECK: %[[USE:.*]] = arith.xori %[[OK]], %{{.*}} : tensor<i1>
// CHECK-NOT: linalg.generic
// CHECK: return %[[USE]], %[[B]]#0, %[[B]]#1
func.func @finite_check_from_counts(%a: tensor<4x8xf16>, %b: tensor<8xf32>) -> (tensor<i1>, tensor<i64>, tensor<i64>) {
  %ok = mpt.all_finite %a, %b : tensor<4x8xf16>, tensor<8xf32>
  %true = arith.constant dense<true> : tensor<i1>
  %skipped = arith.xori %ok, %true : tensor<i1>
  %z, %n = mpt.gradient_stats %a, %b : tensor<4x8xf16>, tensor<8xf32>
  return %skipped, %z, %n : tensor<i1>, tensor<i64>, tensor<i64>
}

// -----

// Different inputs: each lowers on its own.
// CHECK-LABEL: func @finite_check_other_inputs
// CHECK: arith.andi
// CHECK: arith.cmpf ueq
// CHECK-NOT: arith.cmpi
func.func @finite_check_other_inputs(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<i1>, tensor<i64>, tensor<i64>) {
  %ok = mpt.all_finite %a : tensor<4xf32>
  %z, %n = mpt.gradient_stats %b : tensor<4xf32>
  return %ok, %z, %n : tensor<i1>, tensor<i64>, tensor<i64>
}

// -----

// RMSprop, centered with momentum and weight decay: one generic over the
// parameter and its three states, in the ops of torch.optim's code, with its
// adds-with-alpha and addcmuls as fused multiply-adds as PyTorch's CPU kernels
// compute them.

// CHECK-LABEL: func.func @rmsprop
// CHECK: %[[R:[a-zA-Z0-9_]+]]:4 = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(
// CHECK: ^bb0(%[[P:[a-zA-Z0-9_]+]]: f32, %[[G:[a-zA-Z0-9_]+]]: f32, %[[V:[a-zA-Z0-9_]+]]: f32, %[[BUF:[a-zA-Z0-9_]+]]: f32, %[[A:[a-zA-Z0-9_]+]]: f32,
// CHECK: %[[GRAD:.*]] = math.fma %{{.*}}, %[[P]], %[[G]] : f32
// CHECK: %[[KEPTV:.*]] = arith.mulf %{{.*}}, %[[V]] : f32
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[GRAD]] : f32
// CHECK: %[[NEWV:.*]] = math.fma %[[SCALED]], %[[GRAD]], %[[KEPTV]] : f32
// CHECK: %[[KEPTA:.*]] = arith.mulf %{{.*}}, %[[A]] : f32
// CHECK: %[[NEWA:.*]] = math.fma %{{.*}}, %[[GRAD]], %[[KEPTA]] : f32
// CHECK: %[[NEGA:.*]] = arith.mulf %{{.*}}, %[[NEWA]] : f32
// CHECK: %[[VAR:.*]] = math.fma %[[NEGA]], %[[NEWA]], %[[NEWV]] : f32
// CHECK: %[[ROOT:.*]] = math.sqrt %[[VAR]] : f32
// CHECK: %[[DEN:.*]] = arith.addf %[[ROOT]], %{{.*}} : f32
// CHECK: %[[KEPTB:.*]] = arith.mulf %{{.*}}, %[[BUF]] : f32
// CHECK: %[[STEP:.*]] = arith.divf %{{.*}}, %[[DEN]] : f32
// CHECK: %[[NEWB:.*]] = arith.addf %[[KEPTB]], %[[STEP]] : f32
// CHECK: %[[NEWP:.*]] = math.fma %{{.*}}, %[[NEWB]], %[[P]] : f32
// CHECK: linalg.yield %[[NEWP]], %[[NEWV]], %[[NEWB]], %[[NEWA]] : f32, f32, f32, f32
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2, %[[R]]#3
func.func @rmsprop(%p: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf32>, %b: tensor<4xf32>, %a: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %r:4 = mpt.rmsprop %p, %g, %v momentum_buffer(%b) grad_avg(%a) {momentum = 0.9 : f32, weight_decay = 0.01 : f32, centered} : tensor<4xf32>
  return %r#0, %r#1, %r#2, %r#3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Adagrad: the update's negated learning rate, -lr / (1 + step * lr_decay),
// in f64 rounded once (PyTorch computes it in Python floats), in a 0-d
// tensor the update reads; the step count in another.

// CHECK-LABEL: func.func @adagrad
// CHECK-SAME: %[[STEP:[a-zA-Z0-9_]+]]: tensor<i64>
// CHECK: %[[LR:.*]] = linalg.generic {{.*}} ins(%[[STEP]] : tensor<i64>) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.sitofp %{{.*}} : i64 to f64
// CHECK: arith.divf %{{.*}} : f64
// CHECK: arith.negf %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[UPD:[a-zA-Z0-9_]+]]:2 = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %[[LR]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>)
// CHECK: math.fma
// CHECK: math.sqrt
// CHECK: %[[NEXT:.*]] = linalg.generic {{.*}} ins(%[[STEP]] : tensor<i64>) outs(%{{.*}} : tensor<i64>)
// CHECK: arith.addi
// CHECK: return %[[UPD]]#0, %[[UPD]]#1, %[[NEXT]]
func.func @adagrad(%p: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<4xf32>, %t: tensor<i64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<i64>) {
  %r:3 = mpt.adagrad %p, %g, %s, %t {lr_decay = 0.5 : f32} : tensor<4xf32>, tensor<i64>
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<4xf32>, tensor<i64>
}

// -----

// embedding: a gather over the result, the table read at each id inside the
// body. embedding_grad: a zero-filled f32 table, then one scf.forall
// iteration per column, adding the rows of the flattened ids in order into
// that column (the f16 gradient widened per term): O(N * D), no atomics.

// CHECK-DAG: #[[$IDS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$ROWS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: %[[T:[a-zA-Z0-9_]+]]: tensor<10x4xf16>, %[[IDS:[a-zA-Z0-9_]+]]: tensor<2x3xi32>, %[[DY:[a-zA-Z0-9_]+]]: tensor<2x3x4xf16>
// CHECK: linalg.generic {indexing_maps = [#[[$IDS]], #[[$ROWS]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[IDS]] : tensor<2x3xi32>) outs(%{{.*}} : tensor<2x3x4xf16>)
// CHECK-NEXT: ^bb0(%[[ID:.*]]: i32, %{{.*}}: f16):
// CHECK-NEXT: %[[D:.*]] = linalg.index 2 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK-NEXT: %[[V:.*]] = tensor.extract %[[T]][%[[ROW]], %[[D]]] : tensor<10x4xf16>
// CHECK-NEXT: linalg.yield %[[V]] : f16
// CHECK: %[[FLAT_IDS:.*]] = tensor.collapse_shape %[[IDS]] {{\[\[}}0, 1]] : tensor<2x3xi32> into tensor<6xi32>
// CHECK: %[[FLAT_DY:.*]] = tensor.collapse_shape %[[DY]] {{\[\[}}0, 1], [2]] : tensor<2x3x4xf16> into tensor<6x4xf16>
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<10x4xf32>)
// CHECK: scf.forall (%[[COL:.*]]) in (4) shared_outs(%[[OUT:.*]] = %[[ZEROS]]) -> (tensor<10x4xf32>)
// CHECK: %[[COLUMN:.*]] = tensor.extract_slice %[[OUT]][0, %[[COL]]] [10, 1] [1, 1] : tensor<10x4xf32> to tensor<10xf32>
// CHECK: %[[SUMS:.*]] = scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[COLUMN]]) -> (tensor<10xf32>)
// CHECK: %[[I:.*]] = tensor.extract %[[FLAT_IDS]][%[[N]]] : tensor<6xi32>
// CHECK: %[[R:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK: %[[G:.*]] = tensor.extract %[[FLAT_DY]][%[[N]], %[[COL]]] : tensor<6x4xf16>
// CHECK: %[[G32:.*]] = arith.extf %[[G]] : f16 to f32
// CHECK: %[[OLD:.*]] = tensor.extract %[[ACC]][%[[R]]] : tensor<10xf32>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[G32]] : f32
// CHECK: %[[INS:.*]] = tensor.insert %[[NEW]] into %[[ACC]][%[[R]]] : tensor<10xf32>
// CHECK: scf.yield %[[INS]] : tensor<10xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[SUMS]] into %[[OUT]][0, %[[COL]]] [10, 1] [1, 1] : tensor<10xf32> into tensor<10x4xf32>
func.func @embedding(%table: tensor<10x4xf16>, %ids: tensor<2x3xi32>, %dy: tensor<2x3x4xf16>)
    -> (tensor<2x3x4xf16>, tensor<10x4xf32>) {
  %e = mpt.embedding %table, %ids : tensor<10x4xf16>, tensor<2x3xi32> -> tensor<2x3x4xf16>
  %dt = mpt.embedding_grad %dy, %ids : tensor<2x3x4xf16>, tensor<2x3xi32> -> tensor<10x4xf32>
  return %e, %dt : tensor<2x3x4xf16>, tensor<10x4xf32>
}
