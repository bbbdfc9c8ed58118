// A step written entirely in f16 (a model cast with .half()) gets f32 masters,
// f32 optimizer state and loss scaling.
// RUN: mpt-opt %s --mpt-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @half_step
// CHECK-SAME: %[[W:arg0]]: tensor<8x4xf32> {mpt.param}
// CHECK-SAME: %[[M:arg1]]: tensor<8x4xf32> {mpt.state}
// CHECK-SAME: -> (tensor<8x4xf32> {mpt.next = 0 : i64}, tensor<8x4xf32> {mpt.next = 1 : i64}
// CHECK: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK: mpt.matmul %arg2, %[[W16]]
// CHECK: %[[G:.*]] = mpt.unscale
// CHECK: mpt.sgd %[[W]], %[[G]], %[[M]] {{.*}} : tensor<8x4xf32>
func.func @half_step(%w: tensor<8x4xf16> {mpt.param}, %m: tensor<8x4xf16> {mpt.state},
                     %x: tensor<2x8xf16> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf16> {mpt.next = 0}, tensor<8x4xf16> {mpt.next = 1},
        tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %o = mpt.matmul %x, %w : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %o32 = arith.extf %o : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %do16 = arith.truncf %do : tensor<2x4xf32> to tensor<2x4xf16>
  %dw = mpt.matmul %x, %do16 {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
  %w2, %m2 = mpt.sgd %w, %dw, %m {lr = 0.1 : f32, momentum = 0.9 : f32} : tensor<8x4xf16>
  return %w2, %m2, %loss : tensor<8x4xf16>, tensor<8x4xf16>, tensor<f32>
}
