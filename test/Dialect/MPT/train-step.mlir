// RUN: mpt-opt %s -split-input-file | FileCheck %s
// RUN: mpt-opt %s -split-input-file --mlir-print-op-generic | mpt-opt -split-input-file | FileCheck %s

// Functions that follow the training-step conventions; the role attributes
// must survive printing and parsing.

// One step of a linear classifier trained with SGD and momentum.
// CHECK-LABEL: func.func @sgd_step
// CHECK-SAME: (%[[W:[^:]*]]: tensor<784x10xf32> {mpt.param},
// CHECK-SAME: %[[B:[^:]*]]: tensor<10xf32> {mpt.param},
// CHECK-SAME: %[[MW:[^:]*]]: tensor<784x10xf32> {mpt.state},
// CHECK-SAME: %[[MB:[^:]*]]: tensor<10xf32> {mpt.state},
// CHECK-SAME: %[[X:[^:]*]]: tensor<32x784xf32> {mpt.data},
// CHECK-SAME: %[[Y:[^:]*]]: tensor<32xi32> {mpt.data})
// CHECK-SAME: -> (tensor<784x10xf32> {mpt.next = 0 : i64}, tensor<10xf32> {mpt.next = 1 : i64},
// CHECK-SAME: tensor<784x10xf32> {mpt.next = 2 : i64}, tensor<10xf32> {mpt.next = 3 : i64},
// CHECK-SAME: tensor<f32> {mpt.metric = "loss"})
// CHECK-SAME: attributes {mpt.train_step}
// CHECK: %[[H:.*]] = mpt.matmul %[[X]], %[[W]]
// CHECK: %[[LOGITS:.*]] = mpt.bias_add %[[H]], %[[B]]
// CHECK: %[[LOSS:.*]] = mpt.softmax_cross_entropy %[[LOGITS]], %[[Y]]
// CHECK: %[[SEED:.*]] = mpt.loss_grad %[[LOSS]]
// CHECK: %[[DLOGITS:.*]] = mpt.softmax_cross_entropy_grad %[[SEED]], %[[LOGITS]], %[[Y]]
// CHECK: %[[DW:.*]] = mpt.matmul %[[X]], %[[DLOGITS]] {transpose_a}
// CHECK: %[[DB:.*]] = mpt.reduce_sum %[[DLOGITS]] [0]
// CHECK: %[[W2:[^,]*]], %[[MW2:[^,]*]] = mpt.sgd %[[W]], %[[DW]], %[[MW]] {lr = 1.000000e-01 : f32, momentum = 0.899999976 : f32}
// CHECK: %[[B2:[^,]*]], %[[MB2:[^,]*]] = mpt.sgd %[[B]], %[[DB]], %[[MB]] {lr = 1.000000e-01 : f32, momentum = 0.899999976 : f32}
// CHECK: return %[[W2]], %[[B2]], %[[MW2]], %[[MB2]], %[[LOSS]]
func.func @sgd_step(%w: tensor<784x10xf32> {mpt.param}, %b: tensor<10xf32> {mpt.param},
                    %mw: tensor<784x10xf32> {mpt.state}, %mb: tensor<10xf32> {mpt.state},
                    %x: tensor<32x784xf32> {mpt.data}, %y: tensor<32xi32> {mpt.data})
    -> (tensor<784x10xf32> {mpt.next = 0}, tensor<10xf32> {mpt.next = 1},
        tensor<784x10xf32> {mpt.next = 2}, tensor<10xf32> {mpt.next = 3},
        tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %h = mpt.matmul %x, %w : tensor<32x784xf32>, tensor<784x10xf32> -> tensor<32x10xf32>
  %logits = mpt.bias_add %h, %b : tensor<32x10xf32>, tensor<10xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<32x10xf32>, tensor<32xi32>
  %seed = mpt.loss_grad %loss
  %dlogits = mpt.softmax_cross_entropy_grad %seed, %logits, %y : tensor<32x10xf32>, tensor<32xi32>
  %dw = mpt.matmul %x, %dlogits {transpose_a} : tensor<32x784xf32>, tensor<32x10xf32> -> tensor<784x10xf32>
  %db = mpt.reduce_sum %dlogits [0] : tensor<32x10xf32> -> tensor<10xf32>
  %w2, %mw2 = mpt.sgd %w, %dw, %mw {lr = 0.1 : f32, momentum = 0.9 : f32} : tensor<784x10xf32>
  %b2, %mb2 = mpt.sgd %b, %db, %mb {lr = 0.1 : f32, momentum = 0.9 : f32} : tensor<10xf32>
  return %w2, %b2, %mw2, %mb2, %loss : tensor<784x10xf32>, tensor<10xf32>, tensor<784x10xf32>, tensor<10xf32>, tensor<f32>
}

// -----

// Results may come in any order, several metrics are allowed, Adam's step
// counter is state, and a gradient norm may be reported. The precision pin
// survives inside a training step.
// CHECK-LABEL: func.func @adam_step
// CHECK-SAME: (%[[T:[^:]*]]: tensor<i64> {mpt.state},
// CHECK-SAME: %[[V:[^:]*]]: tensor<16xf32> {mpt.state},
// CHECK-SAME: %[[M:[^:]*]]: tensor<16xf32> {mpt.state},
// CHECK-SAME: %[[W:[^:]*]]: tensor<16xf32> {mpt.param},
// CHECK-SAME: %[[G:[^:]*]]: tensor<16xf32> {mpt.data})
// CHECK-SAME: -> (tensor<f32> {mpt.metric = "grad_norm"}, tensor<16xf32> {mpt.next = 3 : i64},
// CHECK-SAME: tensor<i64> {mpt.next = 0 : i64}, tensor<16xf32> {mpt.next = 2 : i64},
// CHECK-SAME: tensor<16xf32> {mpt.next = 1 : i64}, tensor<i64> {mpt.metric = "step"})
// CHECK-SAME: attributes {mpt.train_step}
// CHECK: %[[C:[^,]*]], %[[NORM:[^,]*]] = mpt.clip_grad_norm %[[G]] {max_norm = 1.000000e+00 : f32, mpt.precision = #mpt.precision<fp32>}
// CHECK: %[[W2:[^,]*]], %[[M2:[^,]*]], %[[V2:[^,]*]], %[[T2:[^,]*]] = mpt.adam %[[W]], %[[C]], %[[M]], %[[V]], %[[T]] {lr = 1.000000e-03 : f32}
// CHECK: return %[[NORM]], %[[W2]], %[[T2]], %[[M2]], %[[V2]], %[[T2]]
func.func @adam_step(%t: tensor<i64> {mpt.state}, %v: tensor<16xf32> {mpt.state}, %m: tensor<16xf32> {mpt.state},
                     %w: tensor<16xf32> {mpt.param}, %g: tensor<16xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "grad_norm"}, tensor<16xf32> {mpt.next = 3}, tensor<i64> {mpt.next = 0},
        tensor<16xf32> {mpt.next = 2}, tensor<16xf32> {mpt.next = 1}, tensor<i64> {mpt.metric = "step"})
    attributes {mpt.train_step} {
  %c, %norm = mpt.clip_grad_norm %g {max_norm = 1.0 : f32, mpt.precision = #mpt.precision<fp32>} : tensor<16xf32>
  %w2, %m2, %v2, %t2 = mpt.adam %w, %c, %m, %v, %t {lr = 1.0e-3 : f32} : tensor<16xf32>, tensor<i64>
  return %norm, %w2, %t2, %m2, %v2, %t2 : tensor<f32>, tensor<16xf32>, tensor<i64>, tensor<16xf32>, tensor<16xf32>, tensor<i64>
}

// -----

// State that no optimizer updates (batch-norm running statistics) is carried
// all the same; a parameter counts as optimized whichever optimizer updates it.
// CHECK-LABEL: func.func @batch_norm_step
// CHECK-SAME: (%[[G:[^:]*]]: tensor<4xf32> {mpt.param},
// CHECK-SAME: %[[BETA:[^:]*]]: tensor<4xf32> {mpt.param},
// CHECK-SAME: %[[RM:[^:]*]]: tensor<4xf32> {mpt.state},
// CHECK-SAME: %[[RV:[^:]*]]: tensor<4xf32> {mpt.state},
// CHECK-SAME: %[[M:[^:]*]]: tensor<4xf32> {mpt.state},
// CHECK-SAME: %[[V:[^:]*]]: tensor<4xf32> {mpt.state},
// CHECK-SAME: %[[T:[^:]*]]: tensor<i32> {mpt.state},
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x4xf16> {mpt.data},
// CHECK-SAME: %[[DY:[^:]*]]: tensor<8x4xf16> {mpt.data})
// CHECK-SAME: -> (tensor<4xf32> {mpt.next = 0 : i64}, tensor<4xf32> {mpt.next = 1 : i64},
// CHECK-SAME: tensor<4xf32> {mpt.next = 2 : i64}, tensor<4xf32> {mpt.next = 3 : i64},
// CHECK-SAME: tensor<4xf32> {mpt.next = 4 : i64}, tensor<4xf32> {mpt.next = 5 : i64},
// CHECK-SAME: tensor<i32> {mpt.next = 6 : i64})
// CHECK-SAME: attributes {mpt.train_step}
// CHECK: %[[Y:[^,]*]], %[[MEAN:[^,]*]], %[[INVSTD:[^,]*]], %[[RM2:[^,]*]], %[[RV2:[^,]*]] = mpt.batch_norm %[[X]], %[[G]], %[[BETA]], %[[RM]], %[[RV]]
// CHECK: %[[DX:[^,]*]], %[[DG:[^,]*]], %[[DB:[^,]*]] = mpt.batch_norm_grad %[[DY]], %[[X]], %[[G]], %[[MEAN]], %[[INVSTD]]
// CHECK: %[[G2:.*]] = mpt.sgd %[[G]], %[[DG]] {lr = 5.000000e-01 : f32}
// CHECK: %[[BETA2:[^,]*]], %[[M2:[^,]*]], %[[V2:[^,]*]], %[[T2:[^,]*]] = mpt.adamw %[[BETA]], %[[DB]], %[[M]], %[[V]], %[[T]] {lr = 1.000000e-03 : f32}
// CHECK: return %[[G2]], %[[BETA2]], %[[RM2]], %[[RV2]], %[[M2]], %[[V2]], %[[T2]]
func.func @batch_norm_step(%g: tensor<4xf32> {mpt.param}, %beta: tensor<4xf32> {mpt.param},
                           %rm: tensor<4xf32> {mpt.state}, %rv: tensor<4xf32> {mpt.state},
                           %m: tensor<4xf32> {mpt.state}, %v: tensor<4xf32> {mpt.state},
                           %t: tensor<i32> {mpt.state},
                           %x: tensor<8x4xf16> {mpt.data}, %dy: tensor<8x4xf16> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}, tensor<4xf32> {mpt.next = 1}, tensor<4xf32> {mpt.next = 2},
        tensor<4xf32> {mpt.next = 3}, tensor<4xf32> {mpt.next = 4}, tensor<4xf32> {mpt.next = 5},
        tensor<i32> {mpt.next = 6})
    attributes {mpt.train_step} {
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %beta, %rm, %rv : tensor<8x4xf16>, tensor<4xf32>
  %dx, %dg, %db = mpt.batch_norm_grad %dy, %x, %g, %mean, %invstd : tensor<8x4xf16>, tensor<4xf32>
  %g2 = mpt.sgd %g, %dg {lr = 0.5 : f32} : tensor<4xf32>
  %beta2, %m2, %v2, %t2 = mpt.adamw %beta, %db, %m, %v, %t {lr = 1.0e-3 : f32} : tensor<4xf32>, tensor<i32>
  return %g2, %beta2, %rm2, %rv2, %m2, %v2, %t2
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>
}

// -----

// A state argument may carry its initial value; state read by no op is carried
// unchanged.
// CHECK-LABEL: func.func @initialized_state
// CHECK-SAME: (%[[W:[^:]*]]: tensor<2xf32> {mpt.param},
// CHECK-SAME: %[[M:[^:]*]]: tensor<2xf32> {mpt.init = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>, mpt.state},
// CHECK-SAME: %[[C:[^:]*]]: tensor<i64> {mpt.init = dense<100> : tensor<i64>, mpt.state},
// CHECK-SAME: %[[G:[^:]*]]: tensor<2xf32> {mpt.data})
// CHECK-SAME: -> (tensor<2xf32> {mpt.next = 0 : i64}, tensor<2xf32> {mpt.next = 1 : i64}, tensor<i64> {mpt.next = 2 : i64})
// CHECK-SAME: attributes {mpt.train_step}
// CHECK: %[[W2:[^,]*]], %[[M2:[^,]*]] = mpt.sgd %[[W]], %[[G]], %[[M]]
// CHECK: return %[[W2]], %[[M2]], %[[C]]
func.func @initialized_state(%w: tensor<2xf32> {mpt.param},
                             %m: tensor<2xf32> {mpt.state, mpt.init = dense<[1.0, 2.0]> : tensor<2xf32>},
                             %c: tensor<i64> {mpt.state, mpt.init = dense<100> : tensor<i64>},
                             %g: tensor<2xf32> {mpt.data})
    -> (tensor<2xf32> {mpt.next = 0}, tensor<2xf32> {mpt.next = 1}, tensor<i64> {mpt.next = 2})
    attributes {mpt.train_step} {
  %w2, %m2 = mpt.sgd %w, %g, %m {lr = 0.1 : f32, momentum = 0.9 : f32} : tensor<2xf32>
  return %w2, %m2, %c : tensor<2xf32>, tensor<2xf32>, tensor<i64>
}

// -----

// A step with only data arguments and metrics, and a step with no arguments
// or results at all, are valid.
// CHECK-LABEL: func.func @eval_step
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x10xf32> {mpt.data}, %[[Y:[^:]*]]: tensor<4xi64> {mpt.data})
// CHECK-SAME: -> (tensor<f32> {mpt.metric = "loss"})
// CHECK-SAME: attributes {mpt.train_step}
// CHECK: %[[L:.*]] = mpt.softmax_cross_entropy %[[X]], %[[Y]]
// CHECK: return %[[L]]
func.func @eval_step(%x: tensor<4x10xf32> {mpt.data}, %y: tensor<4xi64> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"}) attributes {mpt.train_step} {
  %l = mpt.softmax_cross_entropy %x, %y : tensor<4x10xf32>, tensor<4xi64>
  return %l : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @empty_step()
// CHECK-SAME: attributes {mpt.train_step}
func.func @empty_step() attributes {mpt.train_step} {
  return
}

// -----

// Functions that are not training steps need no roles, and declarations are
// fine without the mark.
// CHECK-LABEL: func.func private @helper_decl(tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @helper
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK: %[[R:.*]] = mpt.relu %[[X]] {mpt.precision = #mpt.precision<lower>} : tensor<4xf32>
// CHECK: %[[C:.*]] = call @helper_decl(%[[R]])
// CHECK: return %[[C]]
func.func private @helper_decl(tensor<4xf32>) -> tensor<4xf32>
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mpt.relu %x {mpt.precision = #mpt.precision<lower>} : tensor<4xf32>
  %c = func.call @helper_decl(%r) : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// A persistent working copy is the truncated update of its master.
// CHECK-LABEL: func @working_copy
// CHECK-SAME: %{{.*}}: tensor<4xf16> {mpt.state, mpt.working_copy_of = 0 : i64}
func.func @working_copy(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data},
                        %w16: tensor<4xf16> {mpt.state, mpt.working_copy_of = 0})
    -> (tensor<4xf32> {mpt.next = 0}, tensor<4xf16> {mpt.next = 2})
    attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  %c = arith.truncf %w2 : tensor<4xf32> to tensor<4xf16>
  return %w2, %c : tensor<4xf32>, tensor<4xf16>
}

// -----

// A frozen parameter: read, never carried or updated.
// CHECK-LABEL: func.func @frozen_parameter
// CHECK-SAME: tensor<4x3xf32> {mpt.frozen, mpt.param}
func.func @frozen_parameter(%w: tensor<4x3xf32> {mpt.param}, %frozen: tensor<4x3xf32> {mpt.param, mpt.frozen},
                            %x: tensor<2x4xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<4x3xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %sum = arith.addf %w, %frozen : tensor<4x3xf32>
  %z = mpt.matmul %x, %sum : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %loss = mpt.softmax_cross_entropy %z, %y : tensor<2x3xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %dz = mpt.softmax_cross_entropy_grad %seed, %z, %y : tensor<2x3xf32>, tensor<2xi32>
  %dw = mpt.matmul %x, %dz {transpose_a} : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %w2 = mpt.sgd %w, %dw {lr = 1.0e-01 : f32} : tensor<4x3xf32>
  return %w2, %loss : tensor<4x3xf32>, tensor<f32>
}
