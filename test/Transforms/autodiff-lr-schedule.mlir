// RUN: mpt-opt %s --mpt-autodiff --split-input-file | FileCheck %s

// A step schedule: one i64 state argument counts the applied steps
// (from zero; mpt-export-signature names it lr_schedule_step), one mpt.lr_schedule per distinct
// base rate computes the step's rate from it (the bias group keeps its own
// base rate 0.5 under the step's schedule), every optimizer reads its
// group's rate as an operand, the count's increment is carried, and the
// first parameter's rate is the metric "lr".

// CHECK-LABEL: func.func @step_schedule(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<4x4xf32> {mpt.param}, %[[B:[^:]*]]: tensor<4xf32> {mpt.param}, %[[X:[^:]*]]: tensor<2x4xf32> {mpt.data}, %[[Y:[^:]*]]: tensor<2xi32> {mpt.data},
// CHECK-SAME:    %[[M:[^:]*]]: tensor<4x4xf32> {mpt.init = dense<0.000000e+00> : tensor<4x4xf32>, mpt.state}, %[[BM:[^:]*]]: tensor<4xf32> {{{.*}}mpt.state},
// CHECK-SAME:    %[[T:[^:]*]]: tensor<i64> {mpt.state})
// CHECK-SAME:    -> (tensor<f32> {mpt.metric = "loss"}, tensor<i64> {mpt.next = 6 : i64}, tensor<f32> {mpt.metric = "lr"},
// CHECK-SAME:        tensor<4x4xf32> {mpt.next = 0 : i64}, tensor<4x4xf32> {mpt.next = 4 : i64}, tensor<4xf32> {mpt.next = 1 : i64}, tensor<4xf32> {mpt.next = 5 : i64})
// CHECK:         %[[LR:[^,]*]], %[[T2:[^ ]*]] = mpt.lr_schedule %[[T]] {base_lr = 1.000000e-01 : f64, schedule = {gamma = 5.000000e-01 : f64, kind = "step", step_size = 3 : i64}} : tensor<i64>
// CHECK:         %[[BLR:[^,]*]], %{{[^ ]*}} = mpt.lr_schedule %[[T]] {base_lr = 5.000000e-01 : f64, schedule = {gamma = 5.000000e-01 : f64, kind = "step", step_size = 3 : i64}} : tensor<i64>
// CHECK:         %[[W2:[^,]*]], %[[M2:[^ ]*]] = mpt.sgd %[[W]], %{{[^,]*}}, %[[M]] scheduled_lr(%[[LR]]) {lr = 1.000000e-01 : f32, momentum = 0.899999976 : f32} : tensor<4x4xf32>
// CHECK:         %[[B2:[^,]*]], %[[BM2:[^ ]*]] = mpt.sgd %[[B]], %{{[^,]*}}, %[[BM]] scheduled_lr(%[[BLR]]) {lr = 5.000000e-01 : f32, momentum = 0.899999976 : f32} : tensor<4xf32>
// CHECK:         return %{{[^,]*}}, %[[T2]], %[[LR]], %[[W2]], %[[M2]], %[[B2]], %[[BM2]]
func.func @step_schedule(%w: tensor<4x4xf32> {mpt.param},
                         %b: tensor<4xf32> {mpt.param, mpt.optimizer = {lr = 0.5}},
                         %x: tensor<2x4xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step,
                mpt.optimizer = {kind = "sgd", lr = 0.1, momentum = 0.9,
                                 lr_schedule = {kind = "step", step_size = 3, gamma = 0.5}}} {
  %h = mpt.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %o = mpt.bias_add %h, %b : tensor<2x4xf32>, tensor<4xf32>
  %loss = mpt.softmax_cross_entropy %o, %y : tensor<2x4xf32>, tensor<2xi32>
  return %loss : tensor<f32>
}

// -----

// AdamW under a warmup and cosine schedule; a parameter group with its own
// table (absolute rates) next to it. Parameters with the same base rate and
// schedule share one mpt.lr_schedule.

// CHECK-LABEL: func.func @warmup_cosine(
// CHECK:         %[[LR:[^,]*]], %[[T2:[^ ]*]] = mpt.lr_schedule %[[T:[^ ]*]] {base_lr = 1.000000e-03 : f64, schedule = {kind = "warmup_cosine", min_lr = 1.000000e-05 : f64, start_factor = 1.000000e-01 : f64, total_steps = 10 : i64, warmup_steps = 2 : i64}} : tensor<i64>
// CHECK:         %[[TLR:[^,]*]], %{{[^ ]*}} = mpt.lr_schedule %[[T]] {base_lr = 1.000000e-03 : f64, schedule = {kind = "table", values = [2.000000e-03, 1.000000e-03]}} : tensor<i64>
// CHECK-NOT:     mpt.lr_schedule
// CHECK:         mpt.adamw %{{.*}} scheduled_lr(%[[LR]]) {lr = 1.000000e-03 : f32, weight_decay = 5.000000e-02 : f32}
// CHECK:         mpt.adamw %{{.*}} scheduled_lr(%[[TLR]]) {lr = 1.000000e-03 : f32, weight_decay = 5.000000e-02 : f32}
// CHECK:         mpt.adamw %{{.*}} scheduled_lr(%[[LR]]) {lr = 1.000000e-03 : f32, weight_decay = 0.000000e+00 : f32}
// CHECK:         return %{{[^,]*}}, %[[T2]], %[[LR]],
func.func @warmup_cosine(%w: tensor<4x4xf32> {mpt.param},
                         %b: tensor<4xf32> {mpt.param, mpt.optimizer = {lr_schedule = {kind = "table", values = [2.0e-3, 1.0e-3]}}},
                         %v: tensor<4xf32> {mpt.param, mpt.optimizer = {weight_decay = 0.0}},
                         %x: tensor<2x4xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step,
                mpt.optimizer = {kind = "adamw", lr = 1.0e-3, weight_decay = 0.05,
                                 lr_schedule = {kind = "warmup_cosine", warmup_steps = 2,
                                                total_steps = 10, start_factor = 0.1,
                                                min_lr = 1.0e-5}}} {
  %h = mpt.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %o = mpt.bias_add %h, %b : tensor<2x4xf32>, tensor<4xf32>
  %p = mpt.bias_add %o, %v : tensor<2x4xf32>, tensor<4xf32>
  %loss = mpt.softmax_cross_entropy %p, %y : tensor<2x4xf32>, tensor<2xi32>
  return %loss : tensor<f32>
}

// -----

// RMSprop (its optional state and the rate as operand segments), Adagrad and
// Adadelta read the rate as well (lr = 0.01 is RMSprop's and Adagrad's default,
// which the printer leaves out).

// CHECK-LABEL: func.func @other_optimizers(
// CHECK:         %[[LR:[^,]*]], %{{[^ ]*}} = mpt.lr_schedule %{{[^ ]*}} {base_lr = 1.000000e-02 : f64, schedule = {kind = "constant"}} : tensor<i64>
// CHECK:         mpt.rmsprop %{{[^,]*}}, %{{[^,]*}}, %{{[^ ]*}} momentum_buffer(%{{[^)]*}}) scheduled_lr(%[[LR]]) {momentum = 0.899999976 : f32} : tensor<4x4xf32>
// CHECK:         mpt.adagrad %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^ ]*}} scheduled_lr(%[[LR]]) : tensor<4xf32>, tensor<i64>
// CHECK:         mpt.adadelta %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^ ]*}} scheduled_lr(%[[LR]]) {lr = 0.00999999977 : f32} : tensor<4xf32>
func.func @other_optimizers(%w: tensor<4x4xf32> {mpt.param, mpt.optimizer = {kind = "rmsprop", momentum = 0.9}},
                            %b: tensor<4xf32> {mpt.param, mpt.optimizer = {kind = "adagrad"}},
                            %v: tensor<4xf32> {mpt.param},
                            %x: tensor<2x4xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step,
                mpt.optimizer = {kind = "adadelta", lr = 1.0e-2,
                                 lr_schedule = {kind = "constant"}}} {
  %h = mpt.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %o = mpt.bias_add %h, %b : tensor<2x4xf32>, tensor<4xf32>
  %p = mpt.bias_add %o, %v : tensor<2x4xf32>, tensor<4xf32>
  %loss = mpt.softmax_cross_entropy %p, %y : tensor<2x4xf32>, tensor<2xi32>
  return %loss : tensor<f32>
}
