// RUN: mpt-opt %s --mpt-loss-scaling --split-input-file | FileCheck %s
// RUN: mpt-opt %s --mpt-loss-scaling="mode=static init-scale=1024" --split-input-file | FileCheck %s --check-prefix=STATIC
// RUN: mpt-opt %s --mpt-loss-scaling="growth-interval=10 growth-factor=4 backoff-factor=0.25 min-scale=2 max-scale=1000000" --split-input-file | FileCheck %s --check-prefix=OPTIONS
// RUN: mpt-opt %s --mpt-loss-scaling=mode=none --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: mpt-opt %s --mpt-loss-scaling --split-input-file | mpt-opt --mpt-loss-scaling --split-input-file | FileCheck %s

// An f16 step with clipping: auto mode picks dynamic scaling.

// CHECK-LABEL: func @clipped_step
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<8x4xf32> {mpt.param}
// CHECK-SAME: %[[B:[a-z0-9]+]]: tensor<4xf32> {mpt.param}
// CHECK-SAME: %[[M:[a-z0-9]+]]: tensor<8x4xf32> {mpt.state}
// CHECK-SAME: %[[S:[a-z0-9]+]]: tensor<f32> {mpt.init = dense<6.553600e+04> : tensor<f32>, mpt.state}
// CHECK-SAME: %[[N:[a-z0-9]+]]: tensor<i64> {mpt.init = dense<0> : tensor<i64>, mpt.state}
// CHECK-SAME: -> (tensor<8x4xf32> {mpt.next = 0 : i64}, tensor<4xf32> {mpt.next = 1 : i64}, tensor<8x4xf32> {mpt.next = 2 : i64}, tensor<f32> {mpt.metric = "loss"}, tensor<f32> {mpt.next = 5 : i64}, tensor<i64> {mpt.next = 6 : i64}, tensor<f32> {mpt.metric = "loss_scale"}, tensor<i1> {mpt.metric = "skipped"}, tensor<i64> {mpt.metric = "grad_zero"}, tensor<i64> {mpt.metric = "grad_nonfinite"})
// CHECK: %[[LOSS:.*]] = mpt.softmax_cross_entropy
// CHECK: %[[SEED:.*]] = mpt.loss_grad %[[LOSS]] scale %[[S]]
// CHECK: %[[DO:.*]] = mpt.softmax_cross_entropy_grad %[[SEED]]
// CHECK: %[[DW:.*]] = mpt.matmul %{{.*}} {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
// The f16 gradient leaves the backward pass at the clipping: it is unscaled
// in f32 from the f16 value, right after it is produced.
// CHECK-NEXT: %[[DWU:.*]] = mpt.unscale %[[DW]], %[[S]] : tensor<8x4xf16> -> tensor<8x4xf32>
// CHECK-NEXT: %[[DB:.*]] = mpt.reduce_sum %[[DO]]
// CHECK-NEXT: %[[DBU:.*]] = mpt.unscale %[[DB]], %[[S]] : tensor<4xf32> -> tensor<4xf32>
// Clipping reads unscaled gradients; the widening cast of the raw gradient is gone.
// CHECK-NOT: arith.extf
// CHECK: %[[CLIP:.*]]:2, %{{.*}} = mpt.clip_grad_norm %[[DWU]], %[[DBU]]
// CHECK: %[[W2:.*]], %[[M2:.*]] = mpt.sgd %[[W]], %[[CLIP]]#0, %[[M]]
// CHECK: %[[B2:.*]] = mpt.sgd %[[B]], %[[CLIP]]#1
// One check covers every gradient.
// CHECK: %[[OK:.*]] = mpt.all_finite %[[DWU]], %[[DBU]] : tensor<8x4xf32>, tensor<4xf32>
// CHECK-NOT: mpt.all_finite
// Zero and non-finite gradient elements, counted once per step.
// CHECK: %[[ZEROS:.*]], %[[NONFINITE:.*]] = mpt.gradient_stats %[[DWU]], %[[DBU]] : tensor<8x4xf32>, tensor<4xf32>
// CHECK: %[[FLAG:.*]] = tensor.extract %[[OK]][] : tensor<i1>
// CHECK: %[[WN:.*]] = arith.select %[[FLAG]], %[[W2]], %[[W]]
// CHECK: %[[BN:.*]] = arith.select %[[FLAG]], %[[B2]], %[[B]]
// CHECK: %[[MN:.*]] = arith.select %[[FLAG]], %[[M2]], %[[M]]
// CHECK: %[[S2:.*]], %[[N2:.*]] = mpt.update_loss_scale %[[S]], %[[N]], %[[OK]] : tensor<i64>
// CHECK: %[[TRUE:.*]] = arith.constant dense<true> : tensor<i1>
// CHECK: %[[SKIPPED:.*]] = arith.xori %[[OK]], %[[TRUE]]
// CHECK: return %[[WN]], %[[BN]], %[[MN]], %[[LOSS]], %[[S2]], %[[N2]], %[[S]], %[[SKIPPED]], %[[ZEROS]], %[[NONFINITE]] :

// STATIC-LABEL: func @clipped_step
// STATIC-SAME: %[[S:[a-z0-9]+]]: tensor<f32> {mpt.init = dense<1.024000e+03> : tensor<f32>, mpt.state})
// STATIC-SAME: tensor<f32> {mpt.next = 5 : i64}, tensor<f32> {mpt.metric = "loss_scale"}, tensor<i1> {mpt.metric = "skipped"}, tensor<i64> {mpt.metric = "grad_zero"}, tensor<i64> {mpt.metric = "grad_nonfinite"})
// STATIC: mpt.loss_grad %{{.*}} scale %[[S]]
// STATIC: mpt.all_finite
// STATIC-COUNT-3: arith.select
// STATIC-NOT: mpt.update_loss_scale
// STATIC: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[S]], %[[S]], %{{.*}}, %{{.*}}, %{{.*}} :

// OPTIONS-LABEL: func @clipped_step
// OPTIONS: mpt.update_loss_scale %{{.*}}, %{{.*}}, %{{.*}} {backoff_factor = 2.500000e-01 : f32, growth_factor = 4.000000e+00 : f32, growth_interval = 10 : i64, max_scale = 1.000000e+06 : f32, min_scale = 2.000000e+00 : f32} : tensor<i64>

// NONE-LABEL: func @clipped_step
// NONE-NOT: mpt.unscale
// NONE-NOT: mpt.all_finite
// NONE: mpt.loss_grad %{{[0-9]+}}{{$}}
func.func @clipped_step(%w: tensor<8x4xf32> {mpt.param}, %b: tensor<4xf32> {mpt.param},
                %m: tensor<8x4xf32> {mpt.state},
                %x: tensor<2x8xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf32> {mpt.next = 0}, tensor<4xf32> {mpt.next = 1},
        tensor<8x4xf32> {mpt.next = 2}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %x16 = arith.truncf %x : tensor<2x8xf32> to tensor<2x8xf16>
  %w16 = arith.truncf %w : tensor<8x4xf32> to tensor<8x4xf16>
  %h = mpt.matmul %x16, %w16 : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %h32 = arith.extf %h : tensor<2x4xf16> to tensor<2x4xf32>
  %o = mpt.bias_add %h32, %b : tensor<2x4xf32>, tensor<4xf32>
  %loss = mpt.softmax_cross_entropy %o, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o, %y : tensor<2x4xf32>, tensor<2xi32>
  %do16 = arith.truncf %do : tensor<2x4xf32> to tensor<2x4xf16>
  %dw = mpt.matmul %x16, %do16 {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
  %db = mpt.reduce_sum %do [0] : tensor<2x4xf32> -> tensor<4xf32>
  %dw32 = arith.extf %dw : tensor<8x4xf16> to tensor<8x4xf32>
  %dwc, %dbc, %norm = mpt.clip_grad_norm %dw32, %db {max_norm = 1.0 : f32} : tensor<8x4xf32>, tensor<4xf32>
  %w2, %m2 = mpt.sgd %w, %dwc, %m {lr = 0.1 : f32, momentum = 0.9 : f32} : tensor<8x4xf32>
  %b2 = mpt.sgd %b, %dbc {lr = 0.1 : f32} : tensor<4xf32>
  return %w2, %b2, %m2, %loss : tensor<8x4xf32>, tensor<4xf32>, tensor<8x4xf32>, tensor<f32>
}

// -----

// An all-f32 step: auto mode leaves it alone.

// CHECK-LABEL: func @fp32_step
// CHECK-NOT: mpt.unscale
// CHECK: mpt.loss_grad %{{[0-9]+}}{{$}}
// CHECK-NOT: mpt.all_finite
// STATIC-LABEL: func @fp32_step
// STATIC: mpt.unscale
// STATIC: mpt.all_finite
func.func @fp32_step(%w: tensor<8x4xf32> {mpt.param}, %x: tensor<2x8xf32> {mpt.data},
                     %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %o = mpt.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o, %y : tensor<2x4xf32>, tensor<2xi32>
  %dw = mpt.matmul %x, %do {transpose_a} : tensor<2x8xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
  %w2 = mpt.sgd %w, %dw {lr = 0.1 : f32} : tensor<8x4xf32>
  return %w2, %loss : tensor<8x4xf32>, tensor<f32>
}

// -----

// Adam's step count is predicated like every other state, and a state that the
// step returns unchanged needs no select.

// CHECK-LABEL: func @adam_step
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<8x4xf32> {mpt.param}
// CHECK-SAME: %[[MA:[a-z0-9]+]]: tensor<8x4xf32> {mpt.state}
// CHECK-SAME: %[[VA:[a-z0-9]+]]: tensor<8x4xf32> {mpt.state}
// CHECK-SAME: %[[T:[a-z0-9]+]]: tensor<i64> {mpt.state}
// CHECK-SAME: %[[K:[a-z0-9]+]]: tensor<4xf32> {mpt.state}
// CHECK: %[[W2:.*]], %[[M2:.*]], %[[V2:.*]], %[[T2:.*]] = mpt.adam %[[W]]
// CHECK: %[[OK:.*]] = mpt.all_finite
// CHECK: %[[FLAG:.*]] = tensor.extract %[[OK]]
// CHECK: %[[WN:.*]] = arith.select %[[FLAG]], %[[W2]], %[[W]]
// CHECK: %[[MN:.*]] = arith.select %[[FLAG]], %[[M2]], %[[MA]]
// CHECK: %[[VN:.*]] = arith.select %[[FLAG]], %[[V2]], %[[VA]]
// CHECK: %[[TN:.*]] = arith.select %[[FLAG]], %[[T2]], %[[T]] : tensor<i64>
// CHECK-NOT: arith.select
// CHECK: return %[[WN]], %[[MN]], %[[VN]], %[[TN]], %[[K]],
func.func @adam_step(%w: tensor<8x4xf32> {mpt.param}, %m: tensor<8x4xf32> {mpt.state},
                     %v: tensor<8x4xf32> {mpt.state}, %t: tensor<i64> {mpt.state},
                     %keep: tensor<4xf32> {mpt.state},
                     %x: tensor<2x8xf16> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf32> {mpt.next = 0}, tensor<8x4xf32> {mpt.next = 1},
        tensor<8x4xf32> {mpt.next = 2}, tensor<i64> {mpt.next = 3},
        tensor<4xf32> {mpt.next = 4}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %w16 = arith.truncf %w : tensor<8x4xf32> to tensor<8x4xf16>
  %o = mpt.matmul %x, %w16 : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %o32 = arith.extf %o : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %do16 = arith.truncf %do : tensor<2x4xf32> to tensor<2x4xf16>
  %dw = mpt.matmul %x, %do16 {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
  %dw32 = arith.extf %dw : tensor<8x4xf16> to tensor<8x4xf32>
  %w2, %m2, %v2, %t2 = mpt.adam %w, %dw32, %m, %v, %t {lr = 1.0e-3 : f32} : tensor<8x4xf32>, tensor<i64>
  return %w2, %m2, %v2, %t2, %keep, %loss : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<i64>, tensor<4xf32>, tensor<f32>
}

// -----

// Functions that are not training steps are left alone.

// CHECK-LABEL: func @predict
// CHECK-NOT: mpt.unscale
// CHECK: return
func.func @predict(%x: tensor<2x8xf16>, %w: tensor<8x4xf16>) -> tensor<2x4xf16> {
  %o = mpt.matmul %x, %w : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  return %o : tensor<2x4xf16>
}

// -----

// Unscaling happens where the backward slice ends, not at the optimizer: the
// backward ops that mix the scaled gradient with forward values (the matmul
// with w2, relu_grad with h) stay scaled, and weight decay written by hand
// (dw1 + wd * w1) adds the decay to the unscaled gradient.

// CHECK-LABEL: func @hand_weight_decay
// CHECK-SAME: %[[W1:[a-z0-9]+]]: tensor<8x4xf32> {mpt.param}
// CHECK-SAME: %[[W2:[a-z0-9]+]]: tensor<4x3xf32> {mpt.param}
// CHECK-SAME: %[[S:[a-z0-9]+]]: tensor<f32> {mpt.init = dense<6.553600e+04> : tensor<f32>, mpt.state}
// CHECK: %[[SEED:.*]] = mpt.loss_grad %{{.*}} scale %[[S]]
// CHECK: %[[DO:.*]] = mpt.softmax_cross_entropy_grad %[[SEED]]
// CHECK: %[[DW2:.*]] = mpt.matmul %{{.*}}, %[[DO]] {transpose_a}
// CHECK-NEXT: %[[DW2U:.*]] = mpt.unscale %[[DW2]], %[[S]]
// CHECK-NEXT: %[[DA:.*]] = mpt.matmul %[[DO]], %[[W2]] {transpose_b}
// CHECK-NEXT: %[[DH:.*]] = mpt.relu_grad %[[DA]], %{{.*}}
// CHECK-NEXT: %[[DW1:.*]] = mpt.matmul %{{.*}}, %[[DH]] {transpose_a}
// CHECK-NEXT: %[[DW1U:.*]] = mpt.unscale %[[DW1]], %[[S]]
// CHECK: %[[DECAY:.*]] = arith.mulf %{{.*}}, %[[W1]]
// CHECK-NEXT: %[[G1:.*]] = arith.addf %[[DW1U]], %[[DECAY]]
// CHECK-NEXT: mpt.sgd %[[W1]], %[[G1]]
// CHECK-NEXT: mpt.sgd %[[W2]], %[[DW2U]]
// CHECK-NEXT: mpt.all_finite %[[DW1U]], %[[DW2U]]
func.func @hand_weight_decay(%w1: tensor<8x4xf32> {mpt.param}, %w2: tensor<4x3xf32> {mpt.param},
                             %x: tensor<2x8xf16> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf32> {mpt.next = 0}, tensor<4x3xf32> {mpt.next = 1}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %x32 = arith.extf %x : tensor<2x8xf16> to tensor<2x8xf32>
  %h = mpt.matmul %x32, %w1 : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %a = mpt.relu %h : tensor<2x4xf32>
  %o = mpt.matmul %a, %w2 : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %loss = mpt.softmax_cross_entropy %o, %y : tensor<2x3xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o, %y : tensor<2x3xf32>, tensor<2xi32>
  %dw2 = mpt.matmul %a, %do {transpose_a} : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %da = mpt.matmul %do, %w2 {transpose_b} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %dh = mpt.relu_grad %da, %h : tensor<2x4xf32>
  %dw1 = mpt.matmul %x32, %dh {transpose_a} : tensor<2x8xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
  %wd = arith.constant dense<1.0e-2> : tensor<8x4xf32>
  %decay = arith.mulf %wd, %w1 : tensor<8x4xf32>
  %g1 = arith.addf %dw1, %decay : tensor<8x4xf32>
  %w1n = mpt.sgd %w1, %g1 {lr = 0.1 : f32} : tensor<8x4xf32>
  %w2n = mpt.sgd %w2, %dw2 {lr = 0.1 : f32} : tensor<4x3xf32>
  return %w1n, %w2n, %loss : tensor<8x4xf32>, tensor<4x3xf32>, tensor<f32>
}

// -----

// A gradient-accumulation buffer carried as state accumulates the unscaled
// gradient, so it does not shrink by the scale from one step to the next; a
// clip-by-value threshold compares the unscaled gradient; a gradient read
// inside scf.if is unscaled before it.

// CHECK-LABEL: func @accumulate_and_clip
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<8x4xf32> {mpt.param}
// CHECK-SAME: %[[ACC:[a-z0-9]+]]: tensor<8x4xf32> {mpt.state}
// CHECK-SAME: %[[S:[a-z0-9]+]]: tensor<f32> {mpt.init
// CHECK: %[[DW:.*]] = mpt.matmul %{{.*}}, %{{.*}} {transpose_a}
// CHECK-NEXT: %[[DWU:.*]] = mpt.unscale %[[DW]], %[[S]] : tensor<8x4xf16> -> tensor<8x4xf32>
// CHECK-NOT: arith.extf %[[DW]]
// CHECK: %[[ACC2:.*]] = arith.addf %[[ACC]], %[[DWU]]
// CHECK: %[[OVER:.*]] = arith.cmpf ogt, %[[DWU]], %[[T:.*]] : tensor<8x4xf32>
// CHECK-NEXT: %[[CLIPPED:.*]] = arith.select %[[OVER]], %[[T]], %[[DWU]]
// CHECK: scf.if
// CHECK-NEXT: scf.yield %[[CLIPPED]]
// CHECK-NEXT: } else {
// CHECK: arith.mulf %[[DWU]]
// CHECK: mpt.all_finite %[[DWU]] :
// CHECK: %[[FLAG:.*]] = tensor.extract
// CHECK: arith.select %[[FLAG]], %[[ACC2]], %[[ACC]]
func.func @accumulate_and_clip(%w: tensor<8x4xf32> {mpt.param}, %acc: tensor<8x4xf32> {mpt.state},
                               %x: tensor<2x8xf16> {mpt.data}, %y: tensor<2xi32> {mpt.data},
                               %use_clip: tensor<i1> {mpt.data})
    -> (tensor<8x4xf32> {mpt.next = 0}, tensor<8x4xf32> {mpt.next = 1}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %w16 = arith.truncf %w : tensor<8x4xf32> to tensor<8x4xf16>
  %o = mpt.matmul %x, %w16 : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %o32 = arith.extf %o : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %do16 = arith.truncf %do : tensor<2x4xf32> to tensor<2x4xf16>
  %dw = mpt.matmul %x, %do16 {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
  %dw32 = arith.extf %dw : tensor<8x4xf16> to tensor<8x4xf32>
  %acc2 = arith.addf %acc, %dw32 : tensor<8x4xf32>
  %t = arith.constant dense<5.0e-1> : tensor<8x4xf32>
  %over = arith.cmpf ogt, %dw32, %t : tensor<8x4xf32>
  %clipped = arith.select %over, %t, %dw32 : tensor<8x4xi1>, tensor<8x4xf32>
  %flag = tensor.extract %use_clip[] : tensor<i1>
  %g = scf.if %flag -> tensor<8x4xf32> {
    scf.yield %clipped : tensor<8x4xf32>
  } else {
    %half = arith.constant dense<5.0e-1> : tensor<8x4xf32>
    %halved = arith.mulf %dw32, %half : tensor<8x4xf32>
    scf.yield %halved : tensor<8x4xf32>
  }
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<8x4xf32>
  return %w2, %acc2, %loss : tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>
}

// -----

// Zero is multiplied by any scale: a scaled gradient broadcast by bias_add
// onto zeros stays in the scaled backward pass and is unscaled only at its
// optimizer; added to a non-zero (unscaled) value, it is unscaled before.

// CHECK-LABEL: func @broadcast_onto_zeros
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<3x4xf32> {mpt.param}
// CHECK-SAME: %[[S:[a-z0-9]+]]: tensor<f32> {mpt.init
// CHECK: %[[DB:.*]] = mpt.reduce_sum
// CHECK-NEXT: %[[DBU:.*]] = mpt.unscale %[[DB]], %[[S]]
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00>
// CHECK-NEXT: %[[BCAST:.*]] = mpt.bias_add %[[ZERO]], %[[DB]]
// CHECK-NEXT: %[[BCASTU:.*]] = mpt.unscale %[[BCAST]], %[[S]]
// CHECK: mpt.bias_add %{{.*}}, %[[DBU]]
// CHECK: mpt.sgd %[[W]], %[[BCASTU]]
func.func @broadcast_onto_zeros(%w: tensor<3x4xf32> {mpt.param}, %x16: tensor<2x4xf16> {mpt.data},
                                %y: tensor<2xi32> {mpt.data})
    -> (tensor<3x4xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "shifted"}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %x = arith.extf %x16 : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %x, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %dx = mpt.softmax_cross_entropy_grad %seed, %x, %y : tensor<2x4xf32>, tensor<2xi32>
  %db = mpt.reduce_sum %dx [0] : tensor<2x4xf32> -> tensor<4xf32>
  %zero = arith.constant dense<0.0> : tensor<3x4xf32>
  %bcast = mpt.bias_add %zero, %db : tensor<3x4xf32>, tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<3x4xf32>
  %shifted = mpt.bias_add %one, %db : tensor<3x4xf32>, tensor<4xf32>
  %total = mpt.reduce_sum %shifted [0, 1] : tensor<3x4xf32> -> tensor<f32>
  %w2 = mpt.sgd %w, %bcast {lr = 0.1 : f32} : tensor<3x4xf32>
  return %w2, %total, %loss : tensor<3x4xf32>, tensor<f32>, tensor<f32>
}
