// RUN: mpt-opt %s --mpt-autodiff --split-input-file | FileCheck %s
// A hand-written training step has no mpt.optimizer: the pass leaves it alone.
// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-autodiff | diff <(mpt-opt %examples/mlp_manual.mlir) -

// Tied weights (w in two matmuls, once transposed), a value used three times
// (h in addf h, h and in mulf), a parameter used only in the loss (p).

// CHECK-LABEL: func.func @accumulate(
// CHECK-SAME:    %[[W:.*]]: tensor<4x4xf32> {mpt.param}, %[[P:.*]]: tensor<f32> {mpt.param}, %[[X:.*]]: tensor<2x4xf32> {mpt.data}, %[[Y:.*]]: tensor<2xi32> {mpt.data})
// CHECK-SAME:    -> (tensor<f32> {mpt.metric = "loss"}, tensor<4x4xf32> {mpt.next = 0 : i64}, tensor<f32> {mpt.next = 1 : i64})
// CHECK-SAME:    attributes {mpt.train_step} {
// CHECK:         %[[H:.*]] = mpt.matmul %[[X]], %[[W]]
// CHECK:         %[[A:.*]] = arith.addf %[[H]], %[[H]]
// CHECK:         %[[B:.*]] = arith.mulf %[[A]], %[[H]]
// CHECK:         %[[O:.*]] = mpt.matmul %[[B]], %[[W]] {transpose_b}
// CHECK:         %[[CE:.*]] = mpt.softmax_cross_entropy %[[O]], %[[Y]]
// CHECK:         %[[LOSS:.*]] = arith.addf %[[CE]], %[[P]]
// CHECK:         %[[SEED:.*]] = mpt.loss_grad %[[LOSS]]
// CHECK:         %[[DO:.*]] = mpt.softmax_cross_entropy_grad %[[SEED]], %[[O]], %[[Y]]
// CHECK:         %[[DB:.*]] = mpt.matmul %[[DO]], %[[W]] :
// CHECK:         %[[DW2:.*]] = mpt.matmul %[[DO]], %[[B]] {transpose_a}
// CHECK:         %[[DA:.*]] = arith.mulf %[[DB]], %[[H]]
// CHECK:         %[[DH1:.*]] = arith.mulf %[[DB]], %[[A]]
// CHECK:         %[[DH2:.*]] = arith.addf %[[DH1]], %[[DA]]
// CHECK:         %[[DH:.*]] = arith.addf %[[DH2]], %[[DA]]
// CHECK:         %[[DW1:.*]] = mpt.matmul %[[X]], %[[DH]] {transpose_a}
// CHECK:         %[[DW:.*]] = arith.addf %[[DW2]], %[[DW1]]
// CHECK:         %[[W2:.*]] = mpt.sgd %[[W]], %[[DW]] {lr = 1.000000e-01 : f32}
// CHECK:         %[[P2:.*]] = mpt.sgd %[[P]], %[[SEED]] {lr = 1.000000e-01 : f32}
// CHECK:         return %[[LOSS]], %[[W2]], %[[P2]]
func.func @accumulate(%w: tensor<4x4xf32> {mpt.param}, %p: tensor<f32> {mpt.param},
                      %x: tensor<2x4xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %h = mpt.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %a = arith.addf %h, %h : tensor<2x4xf32>
  %b = arith.mulf %a, %h : tensor<2x4xf32>
  %o = mpt.matmul %b, %w {transpose_b} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %ce = mpt.softmax_cross_entropy %o, %y : tensor<2x4xf32>, tensor<2xi32>
  %loss = arith.addf %ce, %p : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Batch norm in training mode: the running statistics stay threaded by the
// forward results and take no gradient; the optimizer state is appended as
// arguments after the data, one group per parameter in argument order, with
// the per-parameter override (no weight decay on gamma and beta); the updated
// parameters and state follow the existing results. The global clip-norm
// covers every gradient, in parameter order, and its norm becomes a metric.

// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<3x2xf32> {mpt.param}, %[[G:[^:]*]]: tensor<3xf32> {mpt.param}, %[[BE:[^:]*]]: tensor<3xf32> {mpt.param},
// CHECK-SAME:    %[[RM:[^:]*]]: tensor<3xf32> {mpt.state}, %[[RV:[^:]*]]: tensor<3xf32> {mpt.state},
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x2xf32> {mpt.data}, %[[Y:[^:]*]]: tensor<4xi32> {mpt.data},
// CHECK-SAME:    %[[WM:[^:]*]]: tensor<3x2xf32> {mpt.init = dense<0.000000e+00> : tensor<3x2xf32>, mpt.state}, %[[WV:[^:]*]]: tensor<3x2xf32> {mpt.init = dense<0.000000e+00> : tensor<3x2xf32>, mpt.state}, %[[WT:[^:]*]]: tensor<i64> {mpt.state},
// CHECK-SAME:    %[[GM:[^:]*]]: tensor<3xf32> {mpt.init = dense<0.000000e+00> : tensor<3xf32>, mpt.state}, %[[GV:[^:]*]]: tensor<3xf32> {{.*}}, %[[GT:[^:]*]]: tensor<i64> {mpt.state},
// CHECK-SAME:    %[[BM:[^:]*]]: tensor<3xf32> {{.*}}, %[[BV:[^:]*]]: tensor<3xf32> {{.*}}, %[[BT:[^:]*]]: tensor<i64> {mpt.state})
// CHECK-SAME:    -> (tensor<3xf32> {mpt.next = 3 : i64}, tensor<3xf32> {mpt.next = 4 : i64}, tensor<f32> {mpt.metric = "loss"},
// CHECK-SAME:        tensor<3x2xf32> {mpt.next = 0 : i64}, tensor<3x2xf32> {mpt.next = 7 : i64}, tensor<3x2xf32> {mpt.next = 8 : i64}, tensor<i64> {mpt.next = 9 : i64},
// CHECK-SAME:        tensor<3xf32> {mpt.next = 1 : i64}, tensor<3xf32> {mpt.next = 10 : i64}, tensor<3xf32> {mpt.next = 11 : i64}, tensor<i64> {mpt.next = 12 : i64},
// CHECK-SAME:        tensor<3xf32> {mpt.next = 2 : i64}, tensor<3xf32> {mpt.next = 13 : i64}, tensor<3xf32> {mpt.next = 14 : i64}, tensor<i64> {mpt.next = 15 : i64},
// CHECK-SAME:        tensor<f32> {mpt.metric = "grad_norm"})
// CHECK-SAME:    attributes {mpt.train_step} {
// CHECK:         %[[Z:.*]] = mpt.matmul %[[X]], %[[W]] {transpose_b}
// CHECK:         %[[N:.*]], %[[MEAN:.*]], %[[INVSTD:.*]], %[[RM2:.*]], %[[RV2:.*]] = mpt.batch_norm %[[Z]], %[[G]], %[[BE]], %[[RM]], %[[RV]]
// CHECK:         %[[LOSS:.*]] = mpt.softmax_cross_entropy %[[N]], %[[Y]]
// CHECK:         %[[SEED:.*]] = mpt.loss_grad %[[LOSS]]
// CHECK:         %[[DN:.*]] = mpt.softmax_cross_entropy_grad %[[SEED]], %[[N]], %[[Y]]
// CHECK:         %[[DZ:.*]], %[[DG:.*]], %[[DBE:.*]] = mpt.batch_norm_grad %[[DN]], %[[Z]], %[[G]], %[[MEAN]], %[[INVSTD]]
// CHECK:         %[[DW:.*]] = mpt.matmul %[[DZ]], %[[X]] {transpose_a}
// CHECK-NOT:     mpt.matmul
// CHECK:         %[[C:.*]]:3, %[[NORM:.*]] = mpt.clip_grad_norm %[[DW]], %[[DG]], %[[DBE]] {max_norm = 1.000000e+00 : f32}
// CHECK:         %[[W2:[^,]*]], %[[WM2:[^,]*]], %[[WV2:[^,]*]], %[[WT2:[^ ]*]] = mpt.adamw %[[W]], %[[C]]#0, %[[WM]], %[[WV]], %[[WT]] {lr = 1.000000e-03 : f32, weight_decay = 5.000000e-02 : f32}
// CHECK:         %[[G2:[^,]*]], %[[GM2:[^,]*]], %[[GV2:[^,]*]], %[[GT2:[^ ]*]] = mpt.adamw %[[G]], %[[C]]#1, %[[GM]], %[[GV]], %[[GT]] {lr = 1.000000e-03 : f32, weight_decay = 0.000000e+00 : f32}
// CHECK:         %[[B2:[^,]*]], %[[BM2:[^,]*]], %[[BV2:[^,]*]], %[[BT2:[^ ]*]] = mpt.adamw %[[BE]], %[[C]]#2, %[[BM]], %[[BV]], %[[BT]] {lr = 1.000000e-03 : f32, weight_decay = 0.000000e+00 : f32}
// CHECK:         return %[[RM2]], %[[RV2]], %[[LOSS]], %[[W2]], %[[WM2]], %[[WV2]], %[[WT2]], %[[G2]], %[[GM2]], %[[GV2]], %[[GT2]], %[[B2]], %[[BM2]], %[[BV2]], %[[BT2]], %[[NORM]]
func.func @batch_norm(%w: tensor<3x2xf32> {mpt.param},
                      %g: tensor<3xf32> {mpt.param, mpt.optimizer = {weight_decay = 0.0}},
                      %be: tensor<3xf32> {mpt.param, mpt.optimizer = {weight_decay = 0.0}},
                      %rm: tensor<3xf32> {mpt.state}, %rv: tensor<3xf32> {mpt.state},
                      %x: tensor<4x2xf32> {mpt.data}, %y: tensor<4xi32> {mpt.data})
    -> (tensor<3xf32> {mpt.next = 3}, tensor<3xf32> {mpt.next = 4}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.clip_grad_norm = 1.0 : f32,
                mpt.optimizer = {kind = "adamw", lr = 1.0e-3 : f32, weight_decay = 0.05 : f32}} {
  %z = mpt.matmul %x, %w {transpose_b} : tensor<4x2xf32>, tensor<3x2xf32> -> tensor<4x3xf32>
  %n, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %z, %g, %be, %rm, %rv : tensor<4x3xf32>, tensor<3xf32>
  %loss = mpt.softmax_cross_entropy %n, %y : tensor<4x3xf32>, tensor<4xi32>
  return %rm2, %rv2, %loss : tensor<3xf32>, tensor<3xf32>, tensor<f32>
}

// -----

// Broadcasts sum back: a position embedding broadcast over the batch gets the
// batch sum of its gradient; a bias_add on axis 1 sums over every other axis;
// a reduce_sum with keep_dims broadcasts back after dropping the unit dims.

// CHECK-LABEL: func.func @broadcasts(
// CHECK:         %[[SEED:.*]] = mpt.loss_grad
// CHECK:         %[[D0:.*]] = mpt.reshape %[[SEED]] : tensor<f32> -> tensor<1x1x1xf32>
// CHECK:         %[[D1:.*]] = mpt.reshape %[[D0]] : tensor<1x1x1xf32> -> tensor<f32>
// CHECK:         %[[D2:.*]] = mpt.broadcast %[[D1]] [0, 1, 2] : tensor<f32> -> tensor<2x3x4xf32>
// CHECK:         %[[DB:.*]] = mpt.reduce_sum %[[D2]] [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
// CHECK:         %[[DPOS:.*]] = mpt.reduce_sum %[[D2]] [0] : tensor<2x3x4xf32> -> tensor<3x4xf32>
// CHECK:         mpt.sgd %{{.*}}, %[[DPOS]]
// CHECK:         mpt.sgd %{{.*}}, %[[DB]]
func.func @broadcasts(%pos: tensor<3x4xf32> {mpt.param}, %b: tensor<3xf32> {mpt.param},
                      %x: tensor<2x3x4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %pb = mpt.broadcast %pos [0] : tensor<3x4xf32> -> tensor<2x3x4xf32>
  %h = arith.addf %x, %pb : tensor<2x3x4xf32>
  %hb = mpt.bias_add %h, %b {axis = 1} : tensor<2x3x4xf32>, tensor<3xf32>
  %s = mpt.reduce_sum %hb [0, 1, 2] {keep_dims} : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
  %loss = mpt.reshape %s : tensor<1x1x1xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// RMSprop keeps a momentum buffer where momentum is non-zero and a gradient
// average where centered is set: the weight gets both, the bias (whose
// override turns both off) its square average only. Adagrad's sum starts at
// initial_accumulator_value, which is not an attribute of mpt.adagrad;
// Adadelta keeps two averages.

// CHECK-LABEL: func.func @rmsprop(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<2x3xf32> {mpt.param}, %[[B:[^:]*]]: tensor<3xf32> {mpt.param}, %[[X:[^:]*]]: tensor<4x2xf32> {mpt.data},
// CHECK-SAME:    %[[WV:[^:]*]]: tensor<2x3xf32> {mpt.init = dense<0.000000e+00> : tensor<2x3xf32>, mpt.state}, %[[WB:[^:]*]]: tensor<2x3xf32> {mpt.init = dense<0.000000e+00> : tensor<2x3xf32>, mpt.state}, %[[WA:[^:]*]]: tensor<2x3xf32> {mpt.init = dense<0.000000e+00> : tensor<2x3xf32>, mpt.state},
// CHECK-SAME:    %[[BV:[^:]*]]: tensor<3xf32> {mpt.init = dense<0.000000e+00> : tensor<3xf32>, mpt.state})
// CHECK-SAME:    -> (tensor<f32> {mpt.metric = "loss"}, tensor<2x3xf32> {mpt.next = 0 : i64}, tensor<2x3xf32> {mpt.next = 3 : i64}, tensor<2x3xf32> {mpt.next = 4 : i64}, tensor<2x3xf32> {mpt.next = 5 : i64},
// CHECK-SAME:        tensor<3xf32> {mpt.next = 1 : i64}, tensor<3xf32> {mpt.next = 6 : i64})
// CHECK:         %[[W2:[^,]*]], %[[WS2:[^:]*]]:3 = mpt.rmsprop %[[W]], %{{[^,]*}}, %[[WV]] momentum_buffer(%[[WB]]) grad_avg(%[[WA]]) {centered, lr = 1.000000e-03 : f32, momentum = 0.899999976 : f32} : tensor<2x3xf32>
// CHECK:         %[[B2:[^,]*]], %[[BV2:[^ ]*]] = mpt.rmsprop %[[B]], %{{[^,]*}}, %[[BV]] {lr = 1.000000e-03 : f32} : tensor<3xf32>
// CHECK:         return %{{[^,]*}}, %[[W2]], %[[WS2]]#0, %[[WS2]]#1, %[[WS2]]#2, %[[B2]], %[[BV2]] :
func.func @rmsprop(%w: tensor<2x3xf32> {mpt.param},
                   %b: tensor<3xf32> {mpt.param, mpt.optimizer = {momentum = 0, centered = false}},
                   %x: tensor<4x2xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "rmsprop", lr = 1.0e-3, momentum = 0.9, centered}} {
  %h = mpt.matmul %x, %w : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %hb = mpt.bias_add %h, %b {axis = 1} : tensor<4x3xf32>, tensor<3xf32>
  %loss = mpt.reduce_sum %hb [0, 1] : tensor<4x3xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @adagrad(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<3xf32> {mpt.param}, %[[B:[^:]*]]: tensor<3xf32> {mpt.param},
// CHECK-SAME:    %[[WS:[^:]*]]: tensor<3xf32> {mpt.init = dense<1.000000e-01> : tensor<3xf32>, mpt.state}, %[[WT:[^:]*]]: tensor<i64> {mpt.state},
// CHECK-SAME:    %[[BS:[^:]*]]: tensor<3xf32> {mpt.init = dense<0.000000e+00> : tensor<3xf32>, mpt.state}, %[[BT:[^:]*]]: tensor<i64> {mpt.state})
// CHECK-SAME:    -> (tensor<f32> {mpt.metric = "loss"}, tensor<3xf32> {mpt.next = 0 : i64}, tensor<3xf32> {mpt.next = 2 : i64}, tensor<i64> {mpt.next = 3 : i64},
// CHECK-SAME:        tensor<3xf32> {mpt.next = 1 : i64}, tensor<3xf32> {mpt.next = 4 : i64}, tensor<i64> {mpt.next = 5 : i64})
// CHECK:         mpt.adagrad %[[W]], %{{[^,]*}}, %[[WS]], %[[WT]] {lr_decay = 0.00999999977 : f32, weight_decay = 5.000000e-02 : f32} : tensor<3xf32>, tensor<i64>
// CHECK:         mpt.adagrad %[[B]], %{{[^,]*}}, %[[BS]], %[[BT]] {lr_decay = 0.00999999977 : f32} : tensor<3xf32>, tensor<i64>
func.func @adagrad(%w: tensor<3xf32> {mpt.param},
                   %b: tensor<3xf32> {mpt.param, mpt.optimizer = {weight_decay = 0.0, initial_accumulator_value = 0.0}})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "adagrad", lr_decay = 0.01, weight_decay = 0.05,
                                                 initial_accumulator_value = 0.1}} {
  %s = arith.mulf %w, %b : tensor<3xf32>
  %loss = mpt.reduce_sum %s [0] : tensor<3xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @adadelta(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<3xf32> {mpt.param},
// CHECK-SAME:    %[[WV:[^:]*]]: tensor<3xf32> {mpt.init = dense<0.000000e+00> : tensor<3xf32>, mpt.state}, %[[WU:[^:]*]]: tensor<3xf32> {mpt.init = dense<0.000000e+00> : tensor<3xf32>, mpt.state})
// CHECK-SAME:    -> (tensor<f32> {mpt.metric = "loss"}, tensor<3xf32> {mpt.next = 0 : i64}, tensor<3xf32> {mpt.next = 1 : i64}, tensor<3xf32> {mpt.next = 2 : i64})
// CHECK:         mpt.adadelta %[[W]], %{{[^,]*}}, %[[WV]], %[[WU]] {rho = 0.949999988 : f32} : tensor<3xf32>
func.func @adadelta(%w: tensor<3xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "adadelta", rho = 0.95}} {
  %loss = mpt.reduce_sum %w [0] : tensor<3xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A frozen parameter takes no gradient, no optimizer and no state, and no
// result carries it; the trained one does.
// CHECK-LABEL: func.func @frozen_parameter
// CHECK-SAME:    (%[[W:[^:]*]]: tensor<4x3xf32> {mpt.param}, %[[F:[^:]*]]: tensor<4x3xf32> {mpt.frozen, mpt.param},
// CHECK-SAME:    %{{[^:]*}}: tensor<2x4xf32> {mpt.data}, %{{[^:]*}}: tensor<2xi32> {mpt.data})
// CHECK-SAME:    -> (tensor<f32> {mpt.metric = "loss"}, tensor<4x3xf32> {mpt.next = 0 : i64})
// CHECK:         mpt.sgd %[[W]]
// CHECK-NOT:     mpt.sgd
func.func @frozen_parameter(%w: tensor<4x3xf32> {mpt.param}, %frozen: tensor<4x3xf32> {mpt.param, mpt.frozen},
                            %x: tensor<2x4xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 1.0e-01 : f32}} {
  %sum = arith.addf %w, %frozen : tensor<4x3xf32>
  %z = mpt.matmul %x, %sum : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %loss = mpt.softmax_cross_entropy %z, %y : tensor<2x3xf32>, tensor<2xi32>
  return %loss : tensor<f32>
}

// -----

// A packed weight read through two row slices (fused QKV): each slice's
// gradient is zeros with the slice's gradient inserted at its rows, and the
// two add up to the packed weight's gradient. A token joined to the data by
// concat takes its slice of the concatenation's gradient; the data none.
// CHECK-LABEL: func.func @slices_and_concat
// CHECK-SAME:    (%[[W:[^:]*]]: tensor<4x2xf32> {mpt.param}, %[[T:[^:]*]]: tensor<1x2xf32> {mpt.param}, %[[X:[^:]*]]: tensor<3x2xf32> {mpt.data}, %[[Y:[^:]*]]: tensor<4xi32> {mpt.data})
// CHECK:         tensor.extract_slice %[[W]][0, 0] [2, 2] [1, 1]
// CHECK:         tensor.extract_slice %[[W]][2, 0] [2, 2] [1, 1]
// CHECK:         %[[XT:.*]] = tensor.concat dim(0) %[[T]], %[[X]] : (tensor<1x2xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
// CHECK:         %[[DWK:.*]] = mpt.matmul %{{.*}}, %{{.*}} {transpose_a} : tensor<4x2xf32>, tensor<4x2xf32> -> tensor<2x2xf32>
// CHECK:         %[[DXT:.*]] = mpt.matmul %{{.*}}, %{{.*}} {transpose_b} : tensor<4x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
// CHECK:         %[[DWQ:.*]] = mpt.matmul %[[XT]], %{{.*}} {transpose_a} : tensor<4x2xf32>, tensor<4x2xf32> -> tensor<2x2xf32>
// CHECK-NEXT:    %[[DT:.*]] = tensor.extract_slice %[[DXT]][0, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<1x2xf32>
// CHECK-NEXT:    %[[Z1:.*]] = arith.constant dense<0.000000e+00> : tensor<4x2xf32>
// CHECK-NEXT:    %[[GK:.*]] = tensor.insert_slice %[[DWK]] into %[[Z1]][2, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x2xf32>
// CHECK-NEXT:    %[[Z0:.*]] = arith.constant dense<0.000000e+00> : tensor<4x2xf32>
// CHECK-NEXT:    %[[GQ:.*]] = tensor.insert_slice %[[DWQ]] into %[[Z0]][0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x2xf32>
// CHECK-NEXT:    %[[DW:.*]] = arith.addf %[[GK]], %[[GQ]] : tensor<4x2xf32>
// CHECK-NEXT:    mpt.sgd %[[W]], %[[DW]]
// CHECK-NEXT:    mpt.sgd %[[T]], %[[DT]]
func.func @slices_and_concat(%w: tensor<4x2xf32> {mpt.param}, %t: tensor<1x2xf32> {mpt.param},
                             %x: tensor<3x2xf32> {mpt.data}, %y: tensor<4xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 1.0e-01 : f32}} {
  %wq = tensor.extract_slice %w[0, 0] [2, 2] [1, 1] : tensor<4x2xf32> to tensor<2x2xf32>
  %wk = tensor.extract_slice %w[2, 0] [2, 2] [1, 1] : tensor<4x2xf32> to tensor<2x2xf32>
  %xt = tensor.concat dim(0) %t, %x : (tensor<1x2xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %q = mpt.matmul %xt, %wq : tensor<4x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
  %k = mpt.matmul %q, %wk : tensor<4x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
  %loss = mpt.softmax_cross_entropy %k, %y : tensor<4x2xf32>, tensor<4xi32>
  return %loss : tensor<f32>
}
