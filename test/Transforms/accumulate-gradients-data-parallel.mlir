// RUN: mpt-opt %s --mpt-data-parallel=world-size=2 --mpt-accumulate-gradients=micro-batches=2 | FileCheck %s

// Data parallel: the gradients are cut at the all-reduce's operands, so the
// sum across ranks runs once, on the micro-batches' sum. A gradient written
// by hand that reads no data (v's decay) is the same for every micro-batch:
// it stays out of the loop and is reduced as it is.
// CHECK-LABEL: func.func @step
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4x3xf32> {mpt.param}, %[[V:[a-z0-9]+]]: tensor<3xf32> {mpt.param}
// CHECK: %[[LOOP:.*]]:2 = scf.for {{.*}} -> (tensor<4x3xf32>, tensor<f32>) {
// CHECK: mpt.loss_grad %{{.*}} {micro_batches = 2 : i64, world_size = 2 : i64}
// CHECK-NOT: mpt.all_reduce
// CHECK: }
// CHECK: %[[DV:.*]] = arith.mulf %[[V]], %{{.*}} : tensor<3xf32>
// CHECK: %[[SUM:.*]]:2 = mpt.all_reduce sum %[[LOOP]]#0, %[[DV]] : tensor<4x3xf32>, tensor<3xf32>
// CHECK: mpt.sgd %[[W]], %[[SUM]]#0
// CHECK: mpt.sgd %[[V]], %[[SUM]]#1
func.func @step(%w: tensor<4x3xf32> {mpt.param}, %v: tensor<3xf32> {mpt.param},
    %x: tensor<2x4xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"}, tensor<4x3xf32> {mpt.next = 0},
        tensor<3xf32> {mpt.next = 1})
    attributes {mpt.train_step} {
  %z = mpt.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %loss = mpt.softmax_cross_entropy %z, %y : tensor<2x3xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %dz = mpt.softmax_cross_entropy_grad %seed, %z, %y : tensor<2x3xf32>, tensor<2xi32>
  %dw = mpt.matmul %x, %dz {transpose_a} : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %decay = arith.constant dense<1.0e-02> : tensor<3xf32>
  %dv = arith.mulf %v, %decay : tensor<3xf32>
  %w2 = mpt.sgd %w, %dw {lr = 0.1 : f32} : tensor<4x3xf32>
  %v2 = mpt.sgd %v, %dv {lr = 0.1 : f32} : tensor<3xf32>
  return %loss, %w2, %v2 : tensor<f32>, tensor<4x3xf32>, tensor<3xf32>
}
