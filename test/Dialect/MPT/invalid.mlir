// RUN: mpt-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// ODS type constraints
//===----------------------------------------------------------------------===//

func.func @matmul_integer(%a: tensor<4x8xi32>, %b: tensor<8x16xi32>) {
  // expected-error @+1 {{'mpt.matmul' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<4x8xi32>'}}
  %0 = mpt.matmul %a, %b : tensor<4x8xi32>, tensor<8x16xi32> -> tensor<4x16xi32>
  return
}

// -----

func.func @matmul_dynamic(%a: tensor<?x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'mpt.matmul' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<?x8xf32>'}}
  %0 = mpt.matmul %a, %b : tensor<?x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @relu_f64(%a: tensor<4xf64>) {
  // expected-error @+1 {{'mpt.relu' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<4xf64>'}}
  %0 = mpt.relu %a : tensor<4xf64>
  return
}

// -----

func.func @relu_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'mpt.relu' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<*xf32>'}}
  %0 = "mpt.relu"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @relu_grad_type_mismatch(%g: tensor<4xf16>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.relu_grad' op requires the same type for all operands and results}}
  %0 = "mpt.relu_grad"(%g, %a) : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @sce_float_labels(%l: tensor<8x10xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8xf32>'}}
  %0 = mpt.softmax_cross_entropy %l, %y : tensor<8x10xf32>, tensor<8xf32>
  return
}

// -----

func.func @sce_result_not_scalar(%l: tensor<8x10xf32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy' op result #0 must be 0D tensor of 32-bit float values, but got 'tensor<8xf32>'}}
  %0 = "mpt.softmax_cross_entropy"(%l, %y) : (tensor<8x10xf32>, tensor<8xi32>) -> tensor<8xf32>
  return
}

// -----

func.func @loss_grad_f16(%l: tensor<f16>) {
  // expected-error @+1 {{'mpt.loss_grad' op operand #0 must be 0D tensor of 32-bit float values, but got 'tensor<f16>'}}
  %0 = "mpt.loss_grad"(%l) : (tensor<f16>) -> tensor<f32>
  return
}

// -----

func.func @sgd_grad_type(%w: tensor<4xf32>, %g: tensor<4xf16>) {
  // expected-error @+1 {{'mpt.sgd' op failed to verify that grad has the type of param}}
  %0 = "mpt.sgd"(%w, %g) <{lr = 1.0 : f32, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @sgd_missing_lr(%w: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.sgd' op requires attribute 'lr'}}
  %0 = mpt.sgd %w, %w : tensor<4xf32>
  return
}

// -----

func.func @adam_state_type(%w: tensor<4xf32>, %m: tensor<4xf16>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adam' op failed to verify that all of {param, grad, exp_avg, exp_avg_sq, updated_param, updated_exp_avg, updated_exp_avg_sq} have same type}}
  %0:4 = "mpt.adam"(%w, %w, %m, %w, %t) <{lr = 1.0e-3 : f32}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @adam_float_step(%w: tensor<4xf32>, %t: tensor<f32>) {
  // expected-error @+1 {{'mpt.adam' op operand #4 must be 0D tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<f32>'}}
  %0:4 = mpt.adam %w, %w, %w, %w, %t {lr = 1.0e-3 : f32} : tensor<4xf32>, tensor<f32>
  return
}

// -----

func.func @batch_norm_stat_types(%x: tensor<4x3xf32>, %g: tensor<3xf32>, %b: tensor<3xf16>) {
  // expected-error @+1 {{'mpt.batch_norm' op failed to verify that all of {gamma, beta, running_mean, running_var, batch_mean, batch_invstd, new_running_mean, new_running_var} have same type}}
  %0:5 = "mpt.batch_norm"(%x, %g, %b, %g, %g) : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf16>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

func.func @matmul_lhs_rank(%a: tensor<8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'mpt.matmul' op expected lhs of rank 2 or 3, got rank 1 ('tensor<8xf32>')}}
  %0 = mpt.matmul %a, %b : tensor<8xf32>, tensor<8x16xf32> -> tensor<16xf32>
  return
}

// -----

func.func @matmul_lhs_rank4(%a: tensor<2x2x4x8xf32>, %b: tensor<2x2x8x16xf32>) {
  // expected-error @+1 {{'mpt.matmul' op expected lhs of rank 2 or 3, got rank 4 ('tensor<2x2x4x8xf32>')}}
  %0 = mpt.matmul %a, %b : tensor<2x2x4x8xf32>, tensor<2x2x8x16xf32> -> tensor<2x2x4x16xf32>
  return
}

// -----

func.func @matmul_rhs_rank(%a: tensor<4x8xf32>, %b: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'mpt.matmul' op expected rhs rank (3) to equal lhs rank (2)}}
  %0 = mpt.matmul %a, %b : tensor<4x8xf32>, tensor<2x8x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @matmul_result_rank(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'mpt.matmul' op expected result rank (3) to equal lhs rank (2)}}
  %0 = mpt.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<1x4x16xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<4x8xf16>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'mpt.matmul' op expected lhs and rhs element types to match, got 'f16' and 'f32'}}
  %0 = mpt.matmul %a, %b : tensor<4x8xf16>, tensor<8x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @matmul_accumulator(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>) {
  // expected-error @+1 {{'mpt.matmul' op expected result element type 'f16' or f32, got 'bf16'}}
  %0 = mpt.matmul %a, %b : tensor<4x8xf16>, tensor<8x16xf16> -> tensor<4x16xbf16>
  return
}

// -----

func.func @matmul_narrowing(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'mpt.matmul' op expected result element type f32, got 'f16'}}
  %0 = mpt.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf16>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<9x16xf32>) {
  // expected-error @+1 {{'mpt.matmul' op expected lhs dim 1 (8) to equal rhs dim 0 (9)}}
  %0 = mpt.matmul %a, %b : tensor<4x8xf32>, tensor<9x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @matmul_contraction_transposed(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>) {
  // Without transpose_b, rhs dim 0 (16) is contracted against lhs dim 0 (8).
  // expected-error @+1 {{'mpt.matmul' op expected lhs dim 0 (8) to equal rhs dim 0 (16)}}
  %0 = mpt.matmul %a, %b {transpose_a} : tensor<8x4xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @matmul_contraction_batched(%a: tensor<2x4x8xf32>, %b: tensor<2x16x9xf32>) {
  // expected-error @+1 {{'mpt.matmul' op expected lhs dim 2 (8) to equal rhs dim 2 (9)}}
  %0 = mpt.matmul %a, %b {transpose_b} : tensor<2x4x8xf32>, tensor<2x16x9xf32> -> tensor<2x4x16xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) {
  // expected-error @+1 {{'mpt.matmul' op expected lhs batch dim 0 (2) to equal rhs batch dim 0 (3)}}
  %0 = mpt.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x16xf32> -> tensor<2x4x16xf32>
  return
}

// -----

func.func @matmul_result_shape(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'mpt.matmul' op expected result shape 4x16, got 16x4}}
  %0 = mpt.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<16x4xf32>
  return
}

// -----

func.func @matmul_result_shape_transposed(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'mpt.matmul' op expected result shape 4x16, got 8x16}}
  %0 = mpt.matmul %a, %b {transpose_a} : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @matmul_result_batch(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'mpt.matmul' op expected result shape 2x4x16, got 3x4x16}}
  %0 = mpt.matmul %a, %b : tensor<2x4x8xf32>, tensor<2x8x16xf32> -> tensor<3x4x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// bias_add
//===----------------------------------------------------------------------===//

func.func @bias_add_rank(%x: tensor<4x8xf32>, %b: tensor<1x8xf32>) {
  // expected-error @+1 {{'mpt.bias_add' op expected bias of rank 1, got rank 2 ('tensor<1x8xf32>')}}
  %0 = mpt.bias_add %x, %b : tensor<4x8xf32>, tensor<1x8xf32>
  return
}

// -----

func.func @bias_add_element_types(%x: tensor<4x8xf16>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'mpt.bias_add' op expected input and bias element types to match, got 'f16' and 'f32'}}
  %0 = mpt.bias_add %x, %b : tensor<4x8xf16>, tensor<8xf32>
  return
}

// -----

func.func @bias_add_axis_high(%x: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'mpt.bias_add' op expected axis in [-2, 2) for an input of rank 2, got 2}}
  %0 = mpt.bias_add %x, %b {axis = 2 : i64} : tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @bias_add_axis_low(%x: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'mpt.bias_add' op expected axis in [-2, 2) for an input of rank 2, got -3}}
  %0 = mpt.bias_add %x, %b {axis = -3 : i64} : tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @bias_add_size(%x: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // The default axis is the last one.
  // expected-error @+1 {{'mpt.bias_add' op expected bias dim 0 (4) to equal input dim 1 (8)}}
  %0 = mpt.bias_add %x, %b : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @bias_add_size_negative_axis(%x: tensor<2x4x6x6xf32>, %b: tensor<6xf32>) {
  // expected-error @+1 {{'mpt.bias_add' op expected bias dim 0 (6) to equal input dim 1 (4)}}
  %0 = mpt.bias_add %x, %b {axis = -3 : i64} : tensor<2x4x6x6xf32>, tensor<6xf32>
  return
}

// -----

func.func @bias_add_result_type(%x: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'mpt.bias_add' op failed to verify that all of {input, result} have same type}}
  %0 = "mpt.bias_add"(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// conv2d, conv2d_input_grad, conv2d_filter_grad
//===----------------------------------------------------------------------===//

func.func @conv_strides_size(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected strides to have 2 entries (H, W), got 3}}
  %0 = mpt.conv2d %x, %w {strides = array<i64: 1, 1, 1>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv_strides_zero(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected strides entries to be at least 1, got 1x0}}
  %0 = mpt.conv2d %x, %w {strides = array<i64: 1, 0>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv_padding_size(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected padding to have 2 entries (H, W), got 1}}
  %0 = mpt.conv2d %x, %w {padding = array<i64: 1>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x8x8xf32>
  return
}

// -----

func.func @conv_padding_negative(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected padding entries to be at least 0, got 0x-1}}
  %0 = mpt.conv2d %x, %w {padding = array<i64: 0, -1>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x4xf32>
  return
}

// -----

func.func @conv_dilations_size(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected dilations to have 2 entries (H, W), got 0}}
  %0 = mpt.conv2d %x, %w {dilations = array<i64>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv_dilations_zero(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected dilations entries to be at least 1, got 0x1}}
  %0 = mpt.conv2d %x, %w {dilations = array<i64: 0, 1>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv_input_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected input (NCHW) of rank 4, got rank 3 ('tensor<3x8x8xf32>')}}
  %0 = mpt.conv2d %x, %w : tensor<3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv_result_rank(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected result (NCHW) of rank 4, got rank 3 ('tensor<2x4x36xf32>')}}
  %0 = mpt.conv2d %x, %w : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x36xf32>
  return
}

// -----

func.func @conv_element_types(%x: tensor<2x3x8x8xf16>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected lhs and rhs element types to match, got 'f16' and 'f32'}}
  %0 = mpt.conv2d %x, %w : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv_accumulator(%x: tensor<2x3x8x8xbf16>, %w: tensor<4x3x3x3xbf16>) {
  // expected-error @+1 {{'mpt.conv2d' op expected result element type 'bf16' or f32, got 'f16'}}
  %0 = mpt.conv2d %x, %w : tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16> -> tensor<2x4x6x6xf16>
  return
}

// -----

func.func @conv_channels(%x: tensor<2x3x8x8xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected input dim 1 (3) / groups (1) to equal filter dim 1 (1)}}
  %0 = mpt.conv2d %x, %w : tensor<2x3x8x8xf32>, tensor<4x1x3x3xf32> -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv_result_batch(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected result dim 0 (1) to equal input dim 0 (2)}}
  %0 = mpt.conv2d %x, %w : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_result_channels(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected result dim 1 (3) to equal filter dim 0 (4)}}
  %0 = mpt.conv2d %x, %w : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x6x6xf32>
  return
}

// -----

func.func @conv_groups_zero(%x: tensor<2x6x8x8xf32>, %w: tensor<4x6x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = mpt.conv2d %x, %w {groups = 0 : i64} : tensor<2x6x8x8xf32>, tensor<4x6x3x3xf32> -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv_groups_input_channels(%x: tensor<2x6x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected input channels (6) to be divisible by groups (4)}}
  %0 = mpt.conv2d %x, %w {groups = 4 : i64} : tensor<2x6x8x8xf32>, tensor<4x2x3x3xf32> -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv_groups_filter_channels(%x: tensor<2x6x8x8xf32>, %w: tensor<5x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected filter channels (5) to be divisible by groups (2)}}
  %0 = mpt.conv2d %x, %w {groups = 2 : i64} : tensor<2x6x8x8xf32>, tensor<5x3x3x3xf32> -> tensor<2x5x6x6xf32>
  return
}

// -----

func.func @conv_groups_filter_depth(%x: tensor<2x6x8x8xf32>, %w: tensor<4x6x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected input dim 1 (6) / groups (2) to equal filter dim 1 (6)}}
  %0 = mpt.conv2d %x, %w {groups = 2 : i64} : tensor<2x6x8x8xf32>, tensor<4x6x3x3xf32> -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv_input_grad_groups(%dy: tensor<2x4x6x6xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d_input_grad' op expected result channels (6) to be divisible by groups (4)}}
  %0 = mpt.conv2d_input_grad %dy, %w {groups = 4 : i64} : tensor<2x4x6x6xf32>, tensor<4x2x3x3xf32> -> tensor<2x6x8x8xf32>
  return
}

// -----

func.func @conv_filter_grad_groups(%x: tensor<2x6x8x8xf32>, %dy: tensor<2x3x6x6xf32>) {
  // expected-error @+1 {{'mpt.conv2d_filter_grad' op expected result channels (3) to be divisible by groups (2)}}
  %0 = mpt.conv2d_filter_grad %x, %dy {groups = 2 : i64} : tensor<2x6x8x8xf32>, tensor<2x3x6x6xf32> -> tensor<3x3x3x3xf32>
  return
}

// -----

func.func @conv_window_too_big(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // Dilated, the 3x3 window spans 9 columns.
  // expected-error @+1 {{'mpt.conv2d' op filter window 3x3 with dilations 1x4 does not fit the input 8x8 padded by 0x0}}
  %0 = mpt.conv2d %x, %w {dilations = array<i64: 1, 4>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x1xf32>
  return
}

// -----

func.func @conv_spatial(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected result spatial size 8x8 for input 8x8, filter 3x3, strides 1x1, padding 1x1, dilations 1x1; got 6x6}}
  %0 = mpt.conv2d %x, %w {padding = array<i64: 1, 1>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv_spatial_strided(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected result spatial size 3x3 for input 8x8, filter 3x3, strides 2x2, padding 0x0, dilations 1x1; got 4x4}}
  %0 = mpt.conv2d %x, %w {strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x4x4xf32>
  return
}

// -----

func.func @conv_input_grad_rank(%dy: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d_input_grad' op expected result (NCHW) of rank 4, got rank 3 ('tensor<2x3x64xf32>')}}
  %0 = mpt.conv2d_input_grad %dy, %w : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x64xf32>
  return
}

// -----

func.func @conv_input_grad_grad_rank(%dy: tensor<2x4x36xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d_input_grad' op expected grad (NCHW) of rank 4, got rank 3 ('tensor<2x4x36xf32>')}}
  %0 = mpt.conv2d_input_grad %dy, %w : tensor<2x4x36xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @conv_input_grad_channels(%dy: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d_input_grad' op expected result dim 1 (2) / groups (1) to equal filter dim 1 (3)}}
  %0 = mpt.conv2d_input_grad %dy, %w : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x2x8x8xf32>
  return
}

// -----

func.func @conv_input_grad_filters(%dy: tensor<2x5x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d_input_grad' op expected grad dim 1 (5) to equal filter dim 0 (4)}}
  %0 = mpt.conv2d_input_grad %dy, %w : tensor<2x5x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @conv_input_grad_batch(%dy: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d_input_grad' op expected grad dim 0 (2) to equal result dim 0 (3)}}
  %0 = mpt.conv2d_input_grad %dy, %w : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<3x3x8x8xf32>
  return
}

// -----

func.func @conv_input_grad_spatial(%dy: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d_input_grad' op expected grad spatial size 7x6 for result 9x8, filter 3x3, strides 1x1, padding 0x0, dilations 1x1; got 6x6}}
  %0 = mpt.conv2d_input_grad %dy, %w : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x9x8xf32>
  return
}

// -----

func.func @conv_input_grad_window(%dy: tensor<2x4x1x1xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d_input_grad' op filter window 3x3 with dilations 1x1 does not fit the result 2x2 padded by 0x0}}
  %0 = mpt.conv2d_input_grad %dy, %w : tensor<2x4x1x1xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x2x2xf32>
  return
}

// -----

func.func @conv_input_grad_element_types(%dy: tensor<2x4x6x6xf16>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d_input_grad' op expected lhs and rhs element types to match, got 'f16' and 'f32'}}
  %0 = mpt.conv2d_input_grad %dy, %w : tensor<2x4x6x6xf16>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @conv_filter_grad_input_rank(%x: tensor<2x3x64xf32>, %dy: tensor<2x4x6x6xf32>) {
  // expected-error @+1 {{'mpt.conv2d_filter_grad' op expected input (NCHW) of rank 4, got rank 3 ('tensor<2x3x64xf32>')}}
  %0 = mpt.conv2d_filter_grad %x, %dy : tensor<2x3x64xf32>, tensor<2x4x6x6xf32> -> tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_filter_grad_grad_rank(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x36xf32>) {
  // expected-error @+1 {{'mpt.conv2d_filter_grad' op expected grad (NCHW) of rank 4, got rank 3 ('tensor<2x4x36xf32>')}}
  %0 = mpt.conv2d_filter_grad %x, %dy : tensor<2x3x8x8xf32>, tensor<2x4x36xf32> -> tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_filter_grad_channels(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x6x6xf32>) {
  // expected-error @+1 {{'mpt.conv2d_filter_grad' op expected input dim 1 (3) / groups (1) to equal result dim 1 (1)}}
  %0 = mpt.conv2d_filter_grad %x, %dy : tensor<2x3x8x8xf32>, tensor<2x4x6x6xf32> -> tensor<4x1x3x3xf32>
  return
}

// -----

func.func @conv_filter_grad_batch(%x: tensor<2x3x8x8xf32>, %dy: tensor<3x4x6x6xf32>) {
  // expected-error @+1 {{'mpt.conv2d_filter_grad' op expected grad dim 0 (3) to equal input dim 0 (2)}}
  %0 = mpt.conv2d_filter_grad %x, %dy : tensor<2x3x8x8xf32>, tensor<3x4x6x6xf32> -> tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_filter_grad_filters(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x6x6xf32>) {
  // expected-error @+1 {{'mpt.conv2d_filter_grad' op expected grad dim 1 (4) to equal result dim 0 (5)}}
  %0 = mpt.conv2d_filter_grad %x, %dy : tensor<2x3x8x8xf32>, tensor<2x4x6x6xf32> -> tensor<5x3x3x3xf32>
  return
}

// -----

func.func @conv_filter_grad_spatial(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x6x6xf32>) {
  // expected-error @+1 {{'mpt.conv2d_filter_grad' op expected grad spatial size 4x4 for input 8x8, filter 5x5, strides 1x1, padding 0x0, dilations 1x1; got 6x6}}
  %0 = mpt.conv2d_filter_grad %x, %dy : tensor<2x3x8x8xf32>, tensor<2x4x6x6xf32> -> tensor<4x3x5x5xf32>
  return
}

// -----

func.func @conv_filter_grad_accumulator(%x: tensor<2x3x8x8xf16>, %dy: tensor<2x4x6x6xf16>) {
  // expected-error @+1 {{'mpt.conv2d_filter_grad' op expected result element type 'f16' or f32, got 'bf16'}}
  %0 = mpt.conv2d_filter_grad %x, %dy : tensor<2x3x8x8xf16>, tensor<2x4x6x6xf16> -> tensor<4x3x3x3xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// max_pool2d, max_pool2d_grad
//===----------------------------------------------------------------------===//

func.func @pool_missing_kernel(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d' op requires attribute 'kernel'}}
  %0 = mpt.max_pool2d %x {strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @pool_kernel_size(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d' op expected kernel to have 2 entries (H, W), got 1}}
  %0 = mpt.max_pool2d %x {kernel = array<i64: 2>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @pool_kernel_zero(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d' op expected kernel entries to be at least 1, got 0x2}}
  %0 = mpt.max_pool2d %x {kernel = array<i64: 0, 2>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @pool_strides_size(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d' op expected strides to have 2 entries (H, W), got 3}}
  %0 = mpt.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @pool_strides_zero(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d' op expected strides entries to be at least 1, got 0x0}}
  %0 = mpt.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 0, 0>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @pool_padding_negative(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d' op expected padding entries to be at least 0, got -1x0}}
  %0 = mpt.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: -1, 0>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @pool_input_rank(%x: tensor<3x8x8xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d' op expected input (NCHW) of rank 4, got rank 3 ('tensor<3x8x8xf32>')}}
  %0 = mpt.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<3x8x8xf32> -> tensor<3x4x4xf32>
  return
}

// -----

func.func @pool_padding_over_half_kernel(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d' op expected padding to be at most half the kernel, got padding 1x2 for kernel 3x3}}
  %0 = mpt.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x8x10xf32>
  return
}

// -----

func.func @pool_kernel_too_big(%x: tensor<2x3x8x2xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d' op kernel 3x3 does not fit the input 8x2 padded by 0x0}}
  %0 = mpt.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>} : tensor<2x3x8x2xf32> -> tensor<2x3x6x1xf32>
  return
}

// -----

func.func @pool_element_types(%x: tensor<2x3x8x8xf16>) {
  // expected-error @+1 {{'mpt.max_pool2d' op expected input and result element types to match, got 'f16' and 'f32'}}
  %0 = mpt.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xf16> -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @pool_result_shape(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d' op expected result shape 2x3x7x4, got 2x3x4x4}}
  %0 = mpt.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @pool_grad_element_types(%dy: tensor<2x3x4x4xf32>, %x: tensor<2x3x8x8xf16>) {
  // expected-error @+1 {{'mpt.max_pool2d_grad' op expected grad and input element types to match, got 'f32' and 'f16'}}
  %0 = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x4x4xf32>, tensor<2x3x8x8xf16>
  return
}

// -----

func.func @pool_grad_shape(%dy: tensor<2x3x4x5xf32>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d_grad' op expected grad shape 2x3x4x4, got 2x3x4x5}}
  %0 = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x4x5xf32>, tensor<2x3x8x8xf32>
  return
}

// -----

func.func @pool_grad_padding(%dy: tensor<2x3x5x5xf32>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d_grad' op expected padding to be at most half the kernel, got padding 2x2 for kernel 2x2}}
  %0 = mpt.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 2, 2>} : tensor<2x3x5x5xf32>, tensor<2x3x8x8xf32>
  return
}

// -----

func.func @pool_grad_result_type(%dy: tensor<2x3x4x4xf32>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d_grad' op failed to verify that all of {input, result} have same type}}
  %0 = "mpt.max_pool2d_grad"(%dy, %x) <{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// avg_pool2d, avg_pool2d_grad
//===----------------------------------------------------------------------===//

func.func @avg_pool_padding_over_half_kernel(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.avg_pool2d' op expected padding to be at most half the kernel, got padding 2x1 for kernel 3x3}}
  %0 = mpt.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 2, 1>} : tensor<2x3x8x8xf32> -> tensor<2x3x10x8xf32>
  return
}

// -----

func.func @avg_pool_result_shape(%x: tensor<2x3x8x7xf32>) {
  // expected-error @+1 {{'mpt.avg_pool2d' op expected result shape 2x3x4x3, got 2x3x4x4}}
  %0 = mpt.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x8x7xf32> -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @avg_pool_element_types(%x: tensor<2x3x8x8xbf16>) {
  // expected-error @+1 {{'mpt.avg_pool2d' op expected input and result element types to match, got 'bf16' and 'f32'}}
  %0 = mpt.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xbf16> -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @avg_pool_grad_shape(%dy: tensor<2x3x4x5xf32>) {
  // expected-error @+1 {{'mpt.avg_pool2d_grad' op expected grad shape 2x3x4x4, got 2x3x4x5}}
  %0 = mpt.avg_pool2d_grad %dy {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x4x5xf32> -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @avg_pool_grad_result_rank(%dy: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{'mpt.avg_pool2d_grad' op expected result (NCHW) of rank 4, got rank 3 ('tensor<3x8x8xf32>')}}
  %0 = mpt.avg_pool2d_grad %dy {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x4x4xf32> -> tensor<3x8x8xf32>
  return
}

// -----

func.func @avg_pool_grad_kernel_too_big(%dy: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{'mpt.avg_pool2d_grad' op kernel 3x3 does not fit the result 8x2 padded by 0x0}}
  %0 = mpt.avg_pool2d_grad %dy {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>} : tensor<2x3x4x4xf32> -> tensor<2x3x8x2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// batch_norm, batch_norm_grad, batch_norm_inference
//===----------------------------------------------------------------------===//

func.func @batch_norm_input_rank(%x: tensor<4x3x8xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'mpt.batch_norm' op expected input of rank 2 or 4, got rank 3 ('tensor<4x3x8xf32>')}}
  %0:5 = mpt.batch_norm %x, %g, %g, %g, %g : tensor<4x3x8xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_gamma_rank(%x: tensor<4x3xf32>, %g: tensor<1x3xf32>) {
  // expected-error @+1 {{'mpt.batch_norm' op expected gamma of rank 1, got rank 2 ('tensor<1x3xf32>')}}
  %0:5 = mpt.batch_norm %x, %g, %g, %g, %g : tensor<4x3xf32>, tensor<1x3xf32>
  return
}

// -----

func.func @batch_norm_channels(%x: tensor<4x3x8x8xf16>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'mpt.batch_norm' op expected gamma dim 0 (8) to equal input dim 1 (3)}}
  %0:5 = mpt.batch_norm %x, %g, %g, %g, %g : tensor<4x3x8x8xf16>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_momentum_high(%x: tensor<4x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'mpt.batch_norm' op expected momentum in [0.000000e+00, 1.000000e+00], got 1.500000e+00}}
  %0:5 = mpt.batch_norm %x, %g, %g, %g, %g {momentum = 1.5 : f32} : tensor<4x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_momentum_negative(%x: tensor<4x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'mpt.batch_norm' op expected momentum in [0.000000e+00, 1.000000e+00], got -1.000000e-01}}
  %0:5 = mpt.batch_norm %x, %g, %g, %g, %g {momentum = -0.1 : f32} : tensor<4x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_epsilon_zero(%x: tensor<4x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'mpt.batch_norm' op expected epsilon to be positive and finite, got 0.000000e+00}}
  %0:5 = mpt.batch_norm %x, %g, %g, %g, %g {epsilon = 0.0 : f32} : tensor<4x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_one_value_per_channel(%x: tensor<1x3x1x1xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'mpt.batch_norm' op expected more than 1 value per channel in training mode, got input 1x3x1x1}}
  %0:5 = mpt.batch_norm %x, %g, %g, %g, %g : tensor<1x3x1x1xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_one_value_per_channel_2d(%x: tensor<1x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'mpt.batch_norm' op expected more than 1 value per channel in training mode, got input 1x3}}
  %0:5 = mpt.batch_norm %x, %g, %g, %g, %g : tensor<1x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_grad_input_rank(%x: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.batch_norm_grad' op expected input of rank 2 or 4, got rank 1 ('tensor<4xf32>')}}
  %0:3 = mpt.batch_norm_grad %x, %x, %g, %g, %g : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @batch_norm_grad_gamma_rank(%x: tensor<4x3xf32>, %g: tensor<f32>) {
  // expected-error @+1 {{'mpt.batch_norm_grad' op expected gamma of rank 1, got rank 0 ('tensor<f32>')}}
  %0:3 = mpt.batch_norm_grad %x, %x, %g, %g, %g : tensor<4x3xf32>, tensor<f32>
  return
}

// -----

func.func @batch_norm_grad_channels(%x: tensor<4x3x2x2xf16>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.batch_norm_grad' op expected gamma dim 0 (4) to equal input dim 1 (3)}}
  %0:3 = mpt.batch_norm_grad %x, %x, %g, %g, %g : tensor<4x3x2x2xf16>, tensor<4xf32>
  return
}

// -----

func.func @batch_norm_inference_input_rank(%x: tensor<4x3x2xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'mpt.batch_norm_inference' op expected input of rank 2 or 4, got rank 3 ('tensor<4x3x2xf32>')}}
  %0 = mpt.batch_norm_inference %x, %g, %g, %g, %g : tensor<4x3x2xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_inference_channels(%x: tensor<4x3xf32>, %g: tensor<2xf32>) {
  // expected-error @+1 {{'mpt.batch_norm_inference' op expected gamma dim 0 (2) to equal input dim 1 (3)}}
  %0 = mpt.batch_norm_inference %x, %g, %g, %g, %g : tensor<4x3xf32>, tensor<2xf32>
  return
}

// -----

func.func @batch_norm_inference_epsilon(%x: tensor<4x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'mpt.batch_norm_inference' op expected epsilon to be positive and finite, got -1.000000e-05}}
  %0 = mpt.batch_norm_inference %x, %g, %g, %g, %g {epsilon = -1.0e-5 : f32} : tensor<4x3xf32>, tensor<3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// layer_norm, layer_norm_grad
//===----------------------------------------------------------------------===//

func.func @layer_norm_scalar(%x: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{'mpt.layer_norm' op expected input of rank at least 1, got a scalar}}
  %0:3 = mpt.layer_norm %x, %g, %g : tensor<f32>, tensor<1xf32> -> tensor<f32>
  return
}

// -----

func.func @layer_norm_gamma_rank(%x: tensor<4x8xf32>, %g: tensor<4x8xf32>) {
  // expected-error @+1 {{'mpt.layer_norm' op expected gamma of rank 1, got rank 2 ('tensor<4x8xf32>')}}
  %0:3 = mpt.layer_norm %x, %g, %g : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @layer_norm_gamma_size(%x: tensor<4x8xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.layer_norm' op expected gamma dim 0 (4) to equal input dim 1 (8)}}
  %0:3 = mpt.layer_norm %x, %g, %g : tensor<4x8xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @layer_norm_mean_shape(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'mpt.layer_norm' op expected mean shape 2x4, got 8}}
  %0:3 = mpt.layer_norm %x, %g, %g : tensor<2x4x8xf32>, tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @layer_norm_epsilon(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'mpt.layer_norm' op expected epsilon to be positive and finite, got 0.000000e+00}}
  %0:3 = mpt.layer_norm %x, %g, %g {epsilon = 0.0 : f32} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @layer_norm_grad_scalar(%x: tensor<f32>, %g: tensor<1xf32>, %m: tensor<f32>) {
  // expected-error @+1 {{'mpt.layer_norm_grad' op expected input of rank at least 1, got a scalar}}
  %0:3 = mpt.layer_norm_grad %x, %x, %g, %m, %m : tensor<f32>, tensor<1xf32>, tensor<f32>
  return
}

// -----

func.func @layer_norm_grad_gamma_rank(%x: tensor<4x8xf32>, %g: tensor<f32>, %m: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.layer_norm_grad' op expected gamma of rank 1, got rank 0 ('tensor<f32>')}}
  %0:3 = mpt.layer_norm_grad %x, %x, %g, %m, %m : tensor<4x8xf32>, tensor<f32>, tensor<4xf32>
  return
}

// -----

func.func @layer_norm_grad_gamma_size(%x: tensor<4x8xf32>, %g: tensor<16xf32>, %m: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.layer_norm_grad' op expected gamma dim 0 (16) to equal input dim 1 (8)}}
  %0:3 = mpt.layer_norm_grad %x, %x, %g, %m, %m : tensor<4x8xf32>, tensor<16xf32>, tensor<4xf32>
  return
}

// -----

func.func @layer_norm_grad_mean_shape(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %m: tensor<4x1xf32>) {
  // expected-error @+1 {{'mpt.layer_norm_grad' op expected mean shape 4, got 4x1}}
  %0:3 = mpt.layer_norm_grad %x, %x, %g, %m, %m : tensor<4x8xf32>, tensor<8xf32>, tensor<4x1xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// softmax_cross_entropy, softmax_cross_entropy_grad
//===----------------------------------------------------------------------===//

func.func @sce_logits_rank(%l: tensor<8x4x10xf32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy' op expected logits of rank 2, got rank 3 ('tensor<8x4x10xf32>')}}
  %0 = mpt.softmax_cross_entropy %l, %y : tensor<8x4x10xf32>, tensor<8xi32>
  return
}

// -----

func.func @sce_labels_rank(%l: tensor<8x10xf32>, %y: tensor<8x1xi64>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy' op expected labels of rank 1, got rank 2 ('tensor<8x1xi64>')}}
  %0 = mpt.softmax_cross_entropy %l, %y : tensor<8x10xf32>, tensor<8x1xi64>
  return
}

// -----

func.func @sce_batch(%l: tensor<8x10xf32>, %y: tensor<10xi32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy' op expected labels dim 0 (10) to equal logits dim 0 (8)}}
  %0 = mpt.softmax_cross_entropy %l, %y : tensor<8x10xf32>, tensor<10xi32>
  return
}

// -----

func.func @sce_negative_smoothing(%l: tensor<8x10xf32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy' op expected label_smoothing in [0, 1], got -1.000000e-01}}
  %0 = mpt.softmax_cross_entropy %l, %y {label_smoothing = -0.1} : tensor<8x10xf32>, tensor<8xi32>
  return
}

// -----

func.func @sce_grad_smoothing_above_one(%s: tensor<f32>, %l: tensor<8x10xf32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy_grad' op expected label_smoothing in [0, 1], got 1.500000e+00}}
  %0 = mpt.softmax_cross_entropy_grad %s, %l, %y {label_smoothing = 1.5} : tensor<8x10xf32>, tensor<8xi32>
  return
}

// -----

func.func @sce_nan_smoothing(%l: tensor<8x10xf32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy' op expected label_smoothing in [0, 1], got nan}}
  %0 = mpt.softmax_cross_entropy %l, %y {label_smoothing = 0x7FF8000000000000 : f64} : tensor<8x10xf32>, tensor<8xi32>
  return
}

// -----

func.func @sce_ignore_index_outside_i32(%l: tensor<8x10xf32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy' op ignore_index 4294967296 does not fit the labels' i32}}
  %0 = mpt.softmax_cross_entropy %l, %y {ignore_index = 4294967296} : tensor<8x10xf32>, tensor<8xi32>
  return
}

// -----

func.func @sce_grad_ignore_index_outside_i32(%s: tensor<f32>, %l: tensor<8x10xf32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy_grad' op ignore_index -2147483649 does not fit the labels' i32}}
  %0 = mpt.softmax_cross_entropy_grad %s, %l, %y {ignore_index = -2147483649} : tensor<8x10xf32>, tensor<8xi32>
  return
}

// -----

func.func @sce_grad_logits_rank(%s: tensor<f32>, %l: tensor<10xf32>, %y: tensor<10xi32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy_grad' op expected logits of rank 2, got rank 1 ('tensor<10xf32>')}}
  %0 = mpt.softmax_cross_entropy_grad %s, %l, %y : tensor<10xf32>, tensor<10xi32>
  return
}

// -----

func.func @sce_grad_labels_rank(%s: tensor<f32>, %l: tensor<8x10xf32>, %y: tensor<i32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy_grad' op expected labels of rank 1, got rank 0 ('tensor<i32>')}}
  %0 = mpt.softmax_cross_entropy_grad %s, %l, %y : tensor<8x10xf32>, tensor<i32>
  return
}

// -----

func.func @sce_grad_batch(%s: tensor<f32>, %l: tensor<8x10xf32>, %y: tensor<4xi64>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy_grad' op expected labels dim 0 (4) to equal logits dim 0 (8)}}
  %0 = mpt.softmax_cross_entropy_grad %s, %l, %y : tensor<8x10xf32>, tensor<4xi64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// sigmoid, tanh, silu and their gradients
//===----------------------------------------------------------------------===//

func.func @sigmoid_integer(%a: tensor<4xi32>) {
  // expected-error @+1 {{'mpt.sigmoid' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<4xi32>'}}
  %0 = mpt.sigmoid %a : tensor<4xi32>
  return
}

// -----

func.func @tanh_result_type(%a: tensor<4xf16>) {
  // expected-error @+1 {{'mpt.tanh' op requires the same type for all operands and results}}
  %0 = "mpt.tanh"(%a) : (tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @silu_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.silu' op requires the same type for all operands and results}}
  %0 = "mpt.silu"(%a) : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @sigmoid_grad_type_mismatch(%g: tensor<4xf32>, %y: tensor<4xbf16>) {
  // expected-error @+1 {{'mpt.sigmoid_grad' op requires the same type for all operands and results}}
  %0 = "mpt.sigmoid_grad"(%g, %y) : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xbf16>
  return
}

// -----

func.func @tanh_grad_shape_mismatch(%g: tensor<8xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.tanh_grad' op requires the same type for all operands and results}}
  %0 = "mpt.tanh_grad"(%g, %y) : (tensor<8xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @silu_grad_type_mismatch(%g: tensor<4xf16>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.silu_grad' op requires the same type for all operands and results}}
  %0 = "mpt.silu_grad"(%g, %x) : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// mse_loss, mse_loss_grad
//===----------------------------------------------------------------------===//

func.func @mse_target_type(%x: tensor<8x3xf16>, %y: tensor<8x3xf32>) {
  // expected-error @+1 {{'mpt.mse_loss' op failed to verify that all of {input, target} have same type}}
  %0 = "mpt.mse_loss"(%x, %y) : (tensor<8x3xf16>, tensor<8x3xf32>) -> tensor<f32>
  return
}

// -----

func.func @mse_target_shape(%x: tensor<8x3xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'mpt.mse_loss' op failed to verify that all of {input, target} have same type}}
  %0 = "mpt.mse_loss"(%x, %y) : (tensor<8x3xf32>, tensor<8xf32>) -> tensor<f32>
  return
}

// -----

func.func @mse_result(%x: tensor<8x3xf32>) {
  // expected-error @+1 {{'mpt.mse_loss' op result #0 must be 0D tensor of 32-bit float values, but got 'tensor<8x3xf32>'}}
  %0 = "mpt.mse_loss"(%x, %x) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
  return
}

// -----

func.func @mse_empty(%x: tensor<0x3xf32>) {
  // expected-error @+1 {{'mpt.mse_loss' op expected input with at least one element, got 0x3}}
  %0 = mpt.mse_loss %x, %x : tensor<0x3xf32>
  return
}

// -----

func.func @mse_grad_empty(%s: tensor<f32>, %x: tensor<8x0xbf16>) {
  // expected-error @+1 {{'mpt.mse_loss_grad' op expected input with at least one element, got 8x0}}
  %0 = mpt.mse_loss_grad %s, %x, %x : tensor<8x0xbf16>
  return
}

// -----

func.func @mse_grad_result_type(%s: tensor<f32>, %x: tensor<8x3xf16>) {
  // expected-error @+1 {{'mpt.mse_loss_grad' op failed to verify that all of {input, target, result} have same type}}
  %0 = "mpt.mse_loss_grad"(%s, %x, %x) : (tensor<f32>, tensor<8x3xf16>, tensor<8x3xf16>) -> tensor<8x3xf32>
  return
}

// -----

func.func @mse_grad_seed(%s: tensor<f16>, %x: tensor<8x3xf16>) {
  // expected-error @+1 {{'mpt.mse_loss_grad' op operand #0 must be 0D tensor of 32-bit float values, but got 'tensor<f16>'}}
  %0 = "mpt.mse_loss_grad"(%s, %x, %x) : (tensor<f16>, tensor<8x3xf16>, tensor<8x3xf16>) -> tensor<8x3xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// reshape, transpose, reduce_sum
//===----------------------------------------------------------------------===//

func.func @reshape_element_types(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mpt.reshape' op expected input and result element types to match, got 'f32' and 'f16'}}
  %0 = mpt.reshape %x : tensor<4x8xf32> -> tensor<32xf16>
  return
}

// -----

func.func @reshape_element_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mpt.reshape' op expected result shape 4x4 (16 elements) to have as many elements as input shape 4x8 (32)}}
  %0 = mpt.reshape %x : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @transpose_permutation_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mpt.transpose' op expected permutation of 2 entries for an input of rank 2, got 3}}
  %0 = mpt.transpose %x [1, 0, 2] : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @transpose_permutation_duplicate(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'mpt.transpose' op expected permutation to be a permutation of [0, 3), got [0, 1, 1]}}
  %0 = mpt.transpose %x [0, 1, 1] : tensor<2x4x8xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @transpose_permutation_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mpt.transpose' op expected permutation to be a permutation of [0, 2), got [2, 0]}}
  %0 = mpt.transpose %x [2, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @transpose_permutation_negative(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mpt.transpose' op expected permutation to be a permutation of [0, 2), got [-1, 0]}}
  %0 = mpt.transpose %x [-1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @transpose_element_types(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mpt.transpose' op expected input and result element types to match, got 'f32' and 'bf16'}}
  %0 = mpt.transpose %x [1, 0] : tensor<4x8xf32> -> tensor<8x4xbf16>
  return
}

// -----

func.func @transpose_result_shape(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'mpt.transpose' op expected result shape 8x2x4, got 8x4x2}}
  %0 = mpt.transpose %x [2, 0, 1] : tensor<2x4x8xf32> -> tensor<8x4x2xf32>
  return
}

// -----

func.func @reduce_sum_dims_decreasing(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'mpt.reduce_sum' op expected dims to be strictly increasing in [0, 3), got [2, 0]}}
  %0 = mpt.reduce_sum %x [2, 0] : tensor<2x4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_sum_dims_duplicate(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'mpt.reduce_sum' op expected dims to be strictly increasing in [0, 3), got [1, 1]}}
  %0 = mpt.reduce_sum %x [1, 1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @reduce_sum_dims_out_of_range(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'mpt.reduce_sum' op expected dims to be strictly increasing in [0, 3), got [0, 3]}}
  %0 = mpt.reduce_sum %x [0, 3] : tensor<2x4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_sum_dims_negative(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'mpt.reduce_sum' op expected dims to be strictly increasing in [0, 3), got [-1]}}
  %0 = mpt.reduce_sum %x [-1] : tensor<2x4x8xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @reduce_sum_accumulator(%x: tensor<2x4x8xf16>) {
  // expected-error @+1 {{'mpt.reduce_sum' op expected result element type 'f16' or f32, got 'bf16'}}
  %0 = mpt.reduce_sum %x [0] : tensor<2x4x8xf16> -> tensor<4x8xbf16>
  return
}

// -----

func.func @reduce_sum_result_shape(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'mpt.reduce_sum' op expected result shape 2x8, got 2x1x8}}
  %0 = mpt.reduce_sum %x [1] : tensor<2x4x8xf32> -> tensor<2x1x8xf32>
  return
}

// -----

func.func @reduce_sum_result_shape_keep_dims(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'mpt.reduce_sum' op expected result shape 1x4x1, got 4}}
  %0 = mpt.reduce_sum %x [0, 2] {keep_dims} : tensor<2x4x8xf32> -> tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// sgd
//===----------------------------------------------------------------------===//

func.func @sgd_lr(%w: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.sgd' op expected lr to be non-negative and finite, got -1.000000e-02}}
  %0 = mpt.sgd %w, %w {lr = -1.0e-2 : f32} : tensor<4xf32>
  return
}

// -----

func.func @sgd_lr_nan(%w: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.sgd' op expected lr to be non-negative and finite, got nan}}
  %0 = mpt.sgd %w, %w {lr = 0x7FC00000 : f32} : tensor<4xf32>
  return
}

// -----

func.func @sgd_momentum(%w: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.sgd' op expected momentum to be non-negative and finite, got -9.000000e-01}}
  %0:2 = mpt.sgd %w, %w, %w {lr = 1.0e-2 : f32, momentum = -0.9 : f32} : tensor<4xf32>
  return
}

// -----

func.func @sgd_dampening(%w: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.sgd' op expected dampening in [0.000000e+00, 1.000000e+00], got 1.500000e+00}}
  %0:2 = mpt.sgd %w, %w, %w {lr = 1.0e-2 : f32, momentum = 0.9 : f32, dampening = 1.5 : f32} : tensor<4xf32>
  return
}

// -----

func.func @sgd_weight_decay(%w: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.sgd' op expected weight_decay to be non-negative and finite, got -1.000000e-04}}
  %0 = mpt.sgd %w, %w {lr = 1.0e-2 : f32, weight_decay = -1.0e-4 : f32} : tensor<4xf32>
  return
}

// -----

func.func @sgd_missing_buffer(%w: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.sgd' op expected a momentum buffer operand since momentum is 9.000000e-01}}
  %0 = mpt.sgd %w, %w {lr = 1.0e-2 : f32, momentum = 0.9 : f32} : tensor<4xf32>
  return
}

// -----

func.func @sgd_unexpected_buffer(%w: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.sgd' op unexpected momentum buffer operand since momentum is 0}}
  %0:2 = mpt.sgd %w, %w, %w {lr = 1.0e-2 : f32} : tensor<4xf32>
  return
}

// -----

func.func @sgd_nesterov_without_momentum(%w: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.sgd' op nesterov requires a non-zero momentum and zero dampening}}
  %0 = mpt.sgd %w, %w {lr = 1.0e-2 : f32, nesterov} : tensor<4xf32>
  return
}

// -----

func.func @sgd_nesterov_with_dampening(%w: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.sgd' op nesterov requires a non-zero momentum and zero dampening}}
  %0:2 = mpt.sgd %w, %w, %w {lr = 1.0e-2 : f32, momentum = 0.9 : f32, dampening = 0.1 : f32, nesterov} : tensor<4xf32>
  return
}

// -----

func.func @sgd_buffer_type(%w: tensor<4xf32>, %m: tensor<4xf16>) {
  // expected-error @+1 {{'mpt.sgd' op failed to verify that momentum_buffer has the type of param}}
  %0:2 = "mpt.sgd"(%w, %w, %m) <{lr = 1.0e-2 : f32, momentum = 0.9 : f32, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_result_count(%w: tensor<4xf32>) {
  // expected-error @+2 {{'mpt.sgd' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>', 'tensor<4xf32>'}}
  // expected-error @+1 {{'mpt.sgd' op failed to infer returned types}}
  %0:2 = "mpt.sgd"(%w, %w) <{lr = 1.0e-2 : f32, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// adam, adamw
//===----------------------------------------------------------------------===//

func.func @adam_lr(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adam' op expected lr to be non-negative and finite, got -1.000000e-03}}
  %0:4 = mpt.adam %w, %w, %w, %w, %t {lr = -1.0e-3 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adam_beta1_one(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adam' op expected beta1 in [0.000000e+00, 1.000000e+00), got 1.000000e+00}}
  %0:4 = mpt.adam %w, %w, %w, %w, %t {lr = 1.0e-3 : f32, beta1 = 1.0 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adam_beta1_negative(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adam' op expected beta1 in [0.000000e+00, 1.000000e+00), got -5.000000e-01}}
  %0:4 = mpt.adam %w, %w, %w, %w, %t {lr = 1.0e-3 : f32, beta1 = -0.5 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adam_beta2(%w: tensor<4xf32>, %t: tensor<i32>) {
  // expected-error @+1 {{'mpt.adam' op expected beta2 in [0.000000e+00, 1.000000e+00), got 1.000000e+00}}
  %0:4 = mpt.adam %w, %w, %w, %w, %t {lr = 1.0e-3 : f32, beta2 = 1.0 : f32} : tensor<4xf32>, tensor<i32>
  return
}

// -----

func.func @adam_epsilon(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adam' op expected epsilon to be non-negative and finite, got -1.000000e-08}}
  %0:4 = mpt.adam %w, %w, %w, %w, %t {lr = 1.0e-3 : f32, epsilon = -1.0e-8 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adam_weight_decay(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adam' op expected weight_decay to be non-negative and finite, got -1.000000e-02}}
  %0:4 = mpt.adam %w, %w, %w, %w, %t {lr = 1.0e-3 : f32, weight_decay = -1.0e-2 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adamw_lr(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adamw' op expected lr to be non-negative and finite, got INF}}
  %0:4 = mpt.adamw %w, %w, %w, %w, %t {lr = 0x7F800000 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adamw_beta1(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adamw' op expected beta1 in [0.000000e+00, 1.000000e+00), got 1.000000e+00}}
  %0:4 = mpt.adamw %w, %w, %w, %w, %t {lr = 1.0e-3 : f32, beta1 = 1.0 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adamw_beta2(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adamw' op expected beta2 in [0.000000e+00, 1.000000e+00), got -9.990000e-01}}
  %0:4 = mpt.adamw %w, %w, %w, %w, %t {lr = 1.0e-3 : f32, beta2 = -0.999 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adamw_epsilon(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adamw' op expected epsilon to be non-negative and finite, got -1.000000e+00}}
  %0:4 = mpt.adamw %w, %w, %w, %w, %t {lr = 1.0e-3 : f32, epsilon = -1.0 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adamw_weight_decay(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adamw' op expected weight_decay to be non-negative and finite, got -1.000000e-02}}
  %0:4 = mpt.adamw %w, %w, %w, %w, %t {lr = 1.0e-3 : f32, weight_decay = -0.01 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// rmsprop, adagrad, adadelta
//===----------------------------------------------------------------------===//

func.func @rmsprop_lr(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.rmsprop' op expected lr to be non-negative and finite, got -1.000000e-02}}
  %0:2 = mpt.rmsprop %w, %w, %w {lr = -1.0e-2 : f32} : tensor<4xf32>
  return
}

// -----

func.func @rmsprop_alpha(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.rmsprop' op expected alpha in [0.000000e+00, 1.000000e+00], got 1.500000e+00}}
  %0:2 = mpt.rmsprop %w, %w, %w {alpha = 1.5 : f32} : tensor<4xf32>
  return
}

// -----

func.func @rmsprop_epsilon(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.rmsprop' op expected epsilon to be non-negative and finite, got -1.000000e+00}}
  %0:2 = mpt.rmsprop %w, %w, %w {epsilon = -1.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @rmsprop_weight_decay(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.rmsprop' op expected weight_decay to be non-negative and finite, got -1.000000e-04}}
  %0:2 = mpt.rmsprop %w, %w, %w {weight_decay = -1.0e-4 : f32} : tensor<4xf32>
  return
}

// -----

func.func @rmsprop_momentum(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.rmsprop' op expected momentum to be non-negative and finite, got -9.000000e-01}}
  %0:3 = mpt.rmsprop %w, %w, %w momentum_buffer(%w) {momentum = -0.9 : f32} : tensor<4xf32>
  return
}

// -----

func.func @rmsprop_missing_buffer(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.rmsprop' op expected a momentum buffer operand exactly when momentum is non-zero; momentum is 9.000000e-01}}
  %0:2 = mpt.rmsprop %w, %w, %w {momentum = 0.9 : f32} : tensor<4xf32>
  return
}

// -----

func.func @rmsprop_unexpected_buffer(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.rmsprop' op expected a momentum buffer operand exactly when momentum is non-zero; momentum is 0.000000e+00}}
  %0:3 = mpt.rmsprop %w, %w, %w momentum_buffer(%w) : tensor<4xf32>
  return
}

// -----

func.func @rmsprop_missing_grad_avg(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.rmsprop' op expected a grad_avg operand exactly when centered is set; centered is set}}
  %0:2 = mpt.rmsprop %w, %w, %w {centered} : tensor<4xf32>
  return
}

// -----

func.func @rmsprop_unexpected_grad_avg(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.rmsprop' op expected a grad_avg operand exactly when centered is set; centered is not set}}
  %0:3 = mpt.rmsprop %w, %w, %w grad_avg(%w) : tensor<4xf32>
  return
}

// -----

func.func @rmsprop_square_avg_type(%w: tensor<4xf32>, %v: tensor<4xf16>) {
  // expected-error @+1 {{'mpt.rmsprop' op failed to verify that square_avg has the type of param}}
  %0:2 = "mpt.rmsprop"(%w, %w, %v) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adagrad_lr(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adagrad' op expected lr to be non-negative and finite, got -1.000000e-02}}
  %0:3 = mpt.adagrad %w, %w, %w, %t {lr = -1.0e-2 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adagrad_lr_decay(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adagrad' op expected lr_decay to be non-negative and finite, got -1.000000e-03}}
  %0:3 = mpt.adagrad %w, %w, %w, %t {lr_decay = -1.0e-3 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adagrad_weight_decay(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adagrad' op expected weight_decay to be non-negative and finite, got -1.000000e-04}}
  %0:3 = mpt.adagrad %w, %w, %w, %t {weight_decay = -1.0e-4 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adagrad_epsilon(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adagrad' op expected epsilon to be non-negative and finite, got nan}}
  %0:3 = mpt.adagrad %w, %w, %w, %t {epsilon = 0x7FC00000 : f32} : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adagrad_float_step(%w: tensor<4xf32>, %t: tensor<f32>) {
  // expected-error @+1 {{'mpt.adagrad' op operand #3 must be 0D tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<f32>'}}
  %0:3 = mpt.adagrad %w, %w, %w, %t : tensor<4xf32>, tensor<f32>
  return
}

// -----

func.func @adadelta_lr(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adadelta' op expected lr to be non-negative and finite, got -1.000000e+00}}
  %0:3 = mpt.adadelta %w, %w, %w, %w {lr = -1.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @adadelta_rho_high(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adadelta' op expected rho in [0.000000e+00, 1.000000e+00], got 1.100000e+00}}
  %0:3 = mpt.adadelta %w, %w, %w, %w {rho = 1.1 : f32} : tensor<4xf32>
  return
}

// -----

func.func @adadelta_rho_negative(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adadelta' op expected rho in [0.000000e+00, 1.000000e+00], got -1.000000e-01}}
  %0:3 = mpt.adadelta %w, %w, %w, %w {rho = -0.1 : f32} : tensor<4xf32>
  return
}

// -----

func.func @adadelta_epsilon(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adadelta' op expected epsilon to be non-negative and finite, got -1.000000e-06}}
  %0:3 = mpt.adadelta %w, %w, %w, %w {epsilon = -1.0e-6 : f32} : tensor<4xf32>
  return
}

// -----

func.func @adadelta_weight_decay(%w: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'mpt.adadelta' op expected weight_decay to be non-negative and finite, got -1.000000e-04}}
  %0:3 = mpt.adadelta %w, %w, %w, %w {weight_decay = -1.0e-4 : f32} : tensor<4xf32>
  return
}

// -----

func.func @adadelta_state_type(%w: tensor<4xf32>, %u: tensor<4xf16>) {
  // expected-error @+1 {{'mpt.adadelta' op failed to verify that all of {param, grad, square_avg, acc_delta, updated_param, updated_square_avg, updated_acc_delta} have same type}}
  %0:3 = "mpt.adadelta"(%w, %w, %w, %u) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// clip_grad_norm
//===----------------------------------------------------------------------===//

func.func @clip_grad_norm_no_grads() {
  // expected-error @+1 {{'mpt.clip_grad_norm' op expected at least one gradient}}
  %0 = "mpt.clip_grad_norm"() <{max_norm = 1.0 : f32}> : () -> tensor<f32>
  return
}

// -----

func.func @clip_grad_norm_max_norm_zero(%g: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.clip_grad_norm' op expected max_norm to be positive and finite, got 0.000000e+00}}
  %0:2 = mpt.clip_grad_norm %g {max_norm = 0.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @clip_grad_norm_max_norm_inf(%g: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.clip_grad_norm' op expected max_norm to be positive and finite, got INF}}
  %0:2 = mpt.clip_grad_norm %g {max_norm = 0x7F800000 : f32} : tensor<4xf32>
  return
}

// -----

func.func @clip_grad_norm_result_types(%g: tensor<4xf32>) {
  // expected-error @+2 {{'mpt.clip_grad_norm' op inferred type(s) 'tensor<4xf32>', 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<4xf16>', 'tensor<f32>'}}
  // expected-error @+1 {{'mpt.clip_grad_norm' op failed to infer returned types}}
  %0:2 = "mpt.clip_grad_norm"(%g) <{max_norm = 1.0 : f32}> : (tensor<4xf32>) -> (tensor<4xf16>, tensor<f32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// unscale, all_finite, update_loss_scale
//===----------------------------------------------------------------------===//

func.func @unscale_not_f32(%g: tensor<4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'mpt.unscale' op expected an f32 result, got 'f16'}}
  %0 = mpt.unscale %g, %s : tensor<4xf16> -> tensor<4xf16>
  return
}

// -----

func.func @unscale_shape(%g: tensor<4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'mpt.unscale' op expected result shape 4, got 2x2}}
  %0 = mpt.unscale %g, %s : tensor<4xf16> -> tensor<2x2xf32>
  return
}

// -----

func.func @unscale_scale_not_scalar(%g: tensor<4xf16>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.unscale' op operand #1 must be 0D tensor of 32-bit float values, but got 'tensor<4xf32>'}}
  %0 = "mpt.unscale"(%g, %s) : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @all_finite_no_inputs() {
  // expected-error @+1 {{'mpt.all_finite' op expected at least one input}}
  %0 = "mpt.all_finite"() : () -> tensor<i1>
  return
}

// -----

func.func @all_finite_result_type(%g: tensor<4xf16>) {
  // expected-error @+1 {{'mpt.all_finite' op result #0 must be 0D tensor of 1-bit signless integer values, but got 'tensor<i32>'}}
  %0 = "mpt.all_finite"(%g) : (tensor<4xf16>) -> tensor<i32>
  return
}

// -----

func.func @update_loss_scale_growth_factor(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_loss_scale' op expected growth_factor in [1.000000e+00, 3.402823e+38], got 5.000000e-01}}
  %0:2 = mpt.update_loss_scale %s, %n, %ok {growth_factor = 0.5 : f32} : tensor<i64>
  return
}

// -----

func.func @update_loss_scale_growth_factor_inf(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_loss_scale' op expected growth_factor in [1.000000e+00, 3.402823e+38], got INF}}
  %0:2 = mpt.update_loss_scale %s, %n, %ok {growth_factor = 0x7F800000 : f32} : tensor<i64>
  return
}

// -----

func.func @update_loss_scale_backoff_zero(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_loss_scale' op expected backoff_factor in (0, 1], got 0.000000e+00}}
  %0:2 = mpt.update_loss_scale %s, %n, %ok {backoff_factor = 0.0 : f32} : tensor<i64>
  return
}

// -----

func.func @update_loss_scale_min_scale(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_loss_scale' op expected min_scale to be positive and finite, got 0.000000e+00}}
  %0:2 = mpt.update_loss_scale %s, %n, %ok {min_scale = 0.0 : f32} : tensor<i64>
  return
}

// -----

func.func @update_loss_scale_max_scale(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_loss_scale' op expected max_scale to be positive and finite, got INF}}
  %0:2 = mpt.update_loss_scale %s, %n, %ok {max_scale = 0x7F800000 : f32} : tensor<i64>
  return
}

// -----

func.func @update_loss_scale_interval(%s: tensor<f32>, %n: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_loss_scale' op expected growth_interval to be at least 1, got 0}}
  %0:2 = mpt.update_loss_scale %s, %n, %ok {growth_interval = 0 : i64} : tensor<i32>
  return
}

// -----

func.func @update_loss_scale_min_above_max(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_loss_scale' op expected min_scale (4.000000e+00) to be at most max_scale (2.000000e+00)}}
  %0:2 = mpt.update_loss_scale %s, %n, %ok {min_scale = 4.0 : f32, max_scale = 2.0 : f32} : tensor<i64>
  return
}

// -----

func.func @update_loss_scale_tracker_type(%s: tensor<f32>, %n: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_loss_scale' op failed to verify that all of {growth_tracker, updated_growth_tracker} have same type}}
  %0:2 = "mpt.update_loss_scale"(%s, %n, %ok) : (tensor<f32>, tensor<i32>, tensor<i1>) -> (tensor<f32>, tensor<i64>)
  return
}

// -----

func.func @update_loss_scale_finite_type(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i32>) {
  // expected-error @+1 {{'mpt.update_loss_scale' op operand #2 must be 0D tensor of 1-bit signless integer values, but got 'tensor<i32>'}}
  %0:2 = "mpt.update_loss_scale"(%s, %n, %ok) : (tensor<f32>, tensor<i64>, tensor<i32>) -> (tensor<f32>, tensor<i64>)
  return
}

// -----

func.func @batch_norm_zero_channels(%x: tensor<4x0xf32>, %c: tensor<0xf32>) {
  // expected-error @+1 {{'mpt.batch_norm' op expected at least one channel, got input 4x0}}
  %0:5 = mpt.batch_norm %x, %c, %c, %c, %c : tensor<4x0xf32>, tensor<0xf32>
  return
}

// -----

func.func @bias_add_scalar(%x: tensor<f32>, %b: tensor<1xf32>) {
  // expected-error @+1 {{'mpt.bias_add' op expected input of rank at least 1, got a scalar}}
  %0 = mpt.bias_add %x, %b : tensor<f32>, tensor<1xf32>
  return
}

// -----

func.func @softmax_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'mpt.softmax' op expected input of rank at least 1, got a scalar}}
  %0 = mpt.softmax %x : tensor<f32>
  return
}

// -----

func.func @softmax_grad_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'mpt.softmax_grad' op expected input of rank at least 1, got a scalar}}
  %0 = mpt.softmax_grad %x, %x : tensor<f32>
  return
}

// -----

func.func @cross_entropy_no_classes(%x: tensor<8x0xf32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy' op expected at least one class, got logits 8x0}}
  %0 = mpt.softmax_cross_entropy %x, %y : tensor<8x0xf32>, tensor<8xi32>
  return
}

// -----

func.func @conv_filter_rank(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op expected filter (FCHW) of rank 4, got rank 3}}
  %0 = mpt.conv2d %x, %w : tensor<2x3x8x8xf32>, tensor<4x3x3xf32> -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @gradient_stats_no_inputs() {
  // expected-error @+1 {{'mpt.gradient_stats' op expected at least one input}}
  %0:2 = "mpt.gradient_stats"() : () -> (tensor<i64>, tensor<i64>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// embedding, embedding_grad
//===----------------------------------------------------------------------===//

func.func @embedding_i64_ids(%t: tensor<10x4xf32>, %ids: tensor<3xi64>) {
  // expected-error @+1 {{'mpt.embedding' op operand #1 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<3xi64>'}}
  %0 = mpt.embedding %t, %ids : tensor<10x4xf32>, tensor<3xi64> -> tensor<3x4xf32>
  return
}

// -----

func.func @embedding_table_rank(%t: tensor<10x4x2xf32>, %ids: tensor<3xi32>) {
  // expected-error @+1 {{'mpt.embedding' op expected table of rank 2, got rank 3 ('tensor<10x4x2xf32>')}}
  %0 = mpt.embedding %t, %ids : tensor<10x4x2xf32>, tensor<3xi32> -> tensor<3x4xf32>
  return
}

// -----

func.func @embedding_scalar_ids(%t: tensor<10x4xf32>, %ids: tensor<i32>) {
  // expected-error @+1 {{'mpt.embedding' op expected ids of rank at least 1, got 'tensor<i32>'}}
  %0 = mpt.embedding %t, %ids : tensor<10x4xf32>, tensor<i32> -> tensor<4xf32>
  return
}

// -----

func.func @embedding_width(%t: tensor<10x4xf32>, %ids: tensor<2x3xi32>) {
  // expected-error @+1 {{'mpt.embedding' op expected result shape 2x3x4, got 2x3x5}}
  %0 = mpt.embedding %t, %ids : tensor<10x4xf32>, tensor<2x3xi32> -> tensor<2x3x5xf32>
  return
}

// -----

func.func @embedding_element_type(%t: tensor<10x4xf16>, %ids: tensor<3xi32>) {
  // expected-error @+1 {{'mpt.embedding' op expected table and result element types to match, got 'f16' and 'f32'}}
  %0 = mpt.embedding %t, %ids : tensor<10x4xf16>, tensor<3xi32> -> tensor<3x4xf32>
  return
}

// -----

func.func @embedding_grad_f16_result(%dy: tensor<3x4xf16>, %ids: tensor<3xi32>) {
  // expected-error @+1 {{'mpt.embedding_grad' op result #0 must be statically shaped tensor of 32-bit float values, but got 'tensor<10x4xf16>'}}
  %0 = mpt.embedding_grad %dy, %ids : tensor<3x4xf16>, tensor<3xi32> -> tensor<10x4xf16>
  return
}

// -----

func.func @embedding_grad_width(%dy: tensor<2x3x4xf32>, %ids: tensor<2x3xi32>) {
  // expected-error @+1 {{'mpt.embedding_grad' op expected grad shape 2x3x8, got 2x3x4}}
  %0 = mpt.embedding_grad %dy, %ids : tensor<2x3x4xf32>, tensor<2x3xi32> -> tensor<10x8xf32>
  return
}

// -----

func.func @embedding_grad_ids_shape(%dy: tensor<2x3x4xf32>, %ids: tensor<3x2xi32>) {
  // expected-error @+1 {{'mpt.embedding_grad' op expected grad shape 3x2x4, got 2x3x4}}
  %0 = mpt.embedding_grad %dy, %ids : tensor<2x3x4xf32>, tensor<3x2xi32> -> tensor<10x4xf32>
  return
}
