// RUN: mpt-opt %s | mpt-opt | FileCheck %s
// RUN: mpt-opt %s --mlir-print-op-generic | mpt-opt | FileCheck %s

// CHECK-LABEL: func.func @scheduled
// CHECK: %[[LR:.*]], %{{.*}} = mpt.lr_schedule %{{.*}} {base_lr = 1.000000e-01 : f64, schedule = {gamma = 1.000000e-01 : f64, kind = "step", step_size = 30 : i64}} : tensor<i64>
// CHECK: mpt.sgd %{{.*}}, %{{.*}}, %{{.*}} scheduled_lr(%[[LR]]) {lr = 1.000000e-01 : f32, momentum = 0.899999976 : f32} : tensor<4xf32>
// CHECK: mpt.sgd %{{.*}}, %{{.*}} scheduled_lr(%[[LR]]) {lr = 1.000000e-01 : f32} : tensor<4xf32>
// CHECK: mpt.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scheduled_lr(%[[LR]]) {lr = 1.000000e-01 : f32} : tensor<4xf32>, tensor<i64>
func.func @scheduled(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %t: tensor<i64>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) {
  %lr, %t2 = mpt.lr_schedule %t {base_lr = 0.1 : f64, schedule = {kind = "step", step_size = 30, gamma = 0.1}} : tensor<i64>
  %p2, %m2 = mpt.sgd %p, %g, %m scheduled_lr(%lr) {lr = 0.1 : f32, momentum = 0.9 : f32} : tensor<4xf32>
  %p3 = mpt.sgd %p, %g scheduled_lr(%lr) {lr = 0.1 : f32} : tensor<4xf32>
  %p4, %m4, %v4, %t4 = mpt.adamw %p, %g, %m, %m, %t scheduled_lr(%lr) {lr = 0.1 : f32} : tensor<4xf32>, tensor<i64>
  return %p2, %m2, %p3, %p4, %t2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>
}

// CHECK-LABEL: func.func @scheduled_others
// CHECK: mpt.rmsprop %{{.*}}, %{{.*}}, %{{.*}} grad_avg(%{{.*}}) scheduled_lr(%{{.*}}) {centered} : tensor<4xf32>
// CHECK: mpt.adagrad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scheduled_lr(%{{.*}}) : tensor<4xf32>, tensor<i64>
// CHECK: mpt.adadelta %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scheduled_lr(%{{.*}}) : tensor<4xf32>
func.func @scheduled_others(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %p2, %s2:2 = mpt.rmsprop %p, %g, %m grad_avg(%m) scheduled_lr(%lr) {centered} : tensor<4xf32>
  %p3, %s3, %t3 = mpt.adagrad %p, %g, %m, %t scheduled_lr(%lr) : tensor<4xf32>, tensor<i64>
  %p4, %v4, %u4 = mpt.adadelta %p, %g, %m, %m scheduled_lr(%lr) : tensor<4xf32>
  return %p2, %p3, %p4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
