// A weighted loss (0.5 * CE, CE + 0.3 * CE_aux) compiles in every precision:
// mpt-autodiff's chain rule multiplies the seed by the loss's own weight,
// which mpt-check-mixed-precision must not take for loss scaling by hand
// (test/Transforms/check-mixed-precision.mlir still rejects a seed scaled by
// a factor the loss does not have).
// RUN: mpt-opt %s --split-input-file --mpt-mixed-precision=compute-type=f32 | FileCheck %s --check-prefix=UNSCALED
// RUN: mpt-opt %s --split-input-file --mpt-mixed-precision=compute-type=bf16 | FileCheck %s --check-prefix=UNSCALED
// RUN: mpt-opt %s --split-input-file --mpt-mixed-precision="compute-type=f16 loss-scale=none" | FileCheck %s --check-prefix=UNSCALED
// RUN: mpt-opt %s --split-input-file --mpt-mixed-precision="compute-type=f16 loss-scale=dynamic" | FileCheck %s --check-prefix=DYNAMIC

// UNSCALED-LABEL: func.func @half_loss(
// UNSCALED:         %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
// UNSCALED:         %[[SEED:.*]] = mpt.loss_grad %{{[^ ]*}}{{$}}
// UNSCALED:         %[[WEIGHTED:.*]] = arith.mulf %[[SEED]], %[[HALF]] : tensor<f32>
// UNSCALED:         mpt.softmax_cross_entropy_grad %[[WEIGHTED]]
// DYNAMIC-LABEL:  func.func @half_loss(
// DYNAMIC:          mpt.loss_grad %{{[^ ]*}} scale

func.func @half_loss(%w: tensor<4x3xf32> {mpt.param}, %x: tensor<2x4xf32> {mpt.data},
                     %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 1.0e-01 : f32}} {
  %z = mpt.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %ce = mpt.softmax_cross_entropy %z, %y : tensor<2x3xf32>, tensor<2xi32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %loss = arith.mulf %half, %ce : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// UNSCALED-LABEL: func.func @auxiliary_loss(
// UNSCALED:         %[[WEIGHT:.*]] = arith.constant dense<3.000000e-01> : tensor<f32>
// UNSCALED:         %[[SEED:.*]] = mpt.loss_grad %{{[^ ]*}}{{$}}
// UNSCALED:         arith.mulf %[[SEED]], %[[WEIGHT]] : tensor<f32>
// DYNAMIC-LABEL:  func.func @auxiliary_loss(
// DYNAMIC:          mpt.loss_grad %{{[^ ]*}} scale

func.func @auxiliary_loss(%w: tensor<4x3xf32> {mpt.param}, %v: tensor<4x3xf32> {mpt.param},
                          %x: tensor<2x4xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 1.0e-01 : f32}} {
  %z = mpt.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %ce = mpt.softmax_cross_entropy %z, %y : tensor<2x3xf32>, tensor<2xi32>
  %za = mpt.matmul %x, %v : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %aux = mpt.softmax_cross_entropy %za, %y : tensor<2x3xf32>, tensor<2xi32>
  %weight = arith.constant dense<0.3> : tensor<f32>
  %weighted = arith.mulf %aux, %weight : tensor<f32>
  %loss = arith.addf %ce, %weighted : tensor<f32>
  return %loss : tensor<f32>
}
