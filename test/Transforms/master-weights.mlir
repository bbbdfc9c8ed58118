// RUN: mpt-opt %s -split-input-file --mpt-master-weights | FileCheck %s

// On an f32 graph that mpt-autocast has rewritten, the parameters already are
// f32 masters read by the optimizer: the pass changes nothing. (mpt-autocast
// runs on the cases from `// CASE: no-working-copy` on, which have no f16
// training step.)
// RUN: sed -n '/^\/\/ CASE: no-working-copy$/,$p' %s | grep '' | mpt-opt -split-input-file --mpt-autocast > %t.ac.mlir
// RUN: mpt-opt %t.ac.mlir -split-input-file --mpt-master-weights | diff %t.ac.mlir -
// RUN: mpt-opt %t.ac.mlir -split-input-file --mpt-master-weights | FileCheck %s --check-prefix=AUTOCAST
// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-autocast > %t.mlp.mlir
// RUN: mpt-opt %t.mlp.mlir --mpt-master-weights | diff %t.mlp.mlir -
// RUN: mpt-opt %examples/cnn_bn_manual.mlir --mpt-autocast > %t.cnn.mlir
// RUN: mpt-opt %t.cnn.mlir --mpt-master-weights | diff %t.cnn.mlir -
// RUN: mpt-opt %examples/transformer_block_manual.mlir --mpt-autocast=compute-type=bf16 > %t.tf.mlir
// RUN: mpt-opt %t.tf.mlir --mpt-master-weights | diff %t.tf.mlir -

// persistent-working-copy: the working copy becomes state; a second run adds
// nothing.
// RUN: mpt-opt %s -split-input-file --mpt-master-weights=persistent-working-copy | FileCheck %s --check-prefix=PWC
// RUN: mpt-opt %s -split-input-file --mpt-master-weights=persistent-working-copy > %t.pwc.mlir
// RUN: mpt-opt %t.pwc.mlir -split-input-file --mpt-master-weights=persistent-working-copy | diff %t.pwc.mlir -
// RUN: mpt-opt %t.ac.mlir -split-input-file --mpt-master-weights=persistent-working-copy | FileCheck %s --check-prefix=PWC-AUTOCAST

//===----------------------------------------------------------------------===//
// Pure f16 training as a user writes it: f16 parameter and momentum buffer.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @pure_f16_sgd
// CHECK-SAME: (%[[W:.*]]: tensor<8x4xf32> {mpt.param}, %[[M:.*]]: tensor<8x4xf32> {mpt.state}, %[[X:.*]]: tensor<2x8xf16> {mpt.data}, %[[Y:.*]]: tensor<2xi32> {mpt.data})
// CHECK-SAME: -> (tensor<8x4xf32> {mpt.next = 0 : i64}, tensor<8x4xf32> {mpt.next = 1 : i64}, tensor<f32> {mpt.metric = "loss"})
// CHECK-SAME: attributes {mpt.train_step}
// The working copy: truncated once, at entry, read by forward and backward.
// CHECK-NEXT: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NOT: arith.truncf
// CHECK: %[[O:.*]] = mpt.matmul %[[X]], %[[W16]] : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
// CHECK: %[[DX:.*]] = mpt.matmul %{{.*}}, %[[W16]] {transpose_b} : tensor<2x4xf16>, tensor<8x4xf16> -> tensor<2x8xf16>
// CHECK: %[[DW:.*]] = mpt.matmul %[[X]], %{{.*}} {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
// The update: f32 master, f32 gradient, f32 momentum buffer.
// CHECK-NOT: arith.extf %[[W16]]
// CHECK: %[[DW32:.*]] = arith.extf %[[DW]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[WN:.*]], %[[MN:.*]] = mpt.sgd %[[W]], %[[DW32]], %[[M]] {{.*}} : tensor<8x4xf32>
// CHECK-NOT: arith.truncf
// CHECK-NEXT: return %[[WN]], %[[MN]], %{{.*}} : tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>
// PWC-LABEL: func @pure_f16_sgd
// PWC-SAME: (%[[W:.*]]: tensor<8x4xf32> {mpt.param}, %[[M:.*]]: tensor<8x4xf32> {mpt.state}, %[[X:.*]]: tensor<2x8xf16> {mpt.data}, %[[Y:.*]]: tensor<2xi32> {mpt.data}, %[[WC:.*]]: tensor<8x4xf16> {mpt.state, mpt.working_copy_of = 0 : i64})
// PWC-SAME: -> (tensor<8x4xf32> {mpt.next = 0 : i64}, tensor<8x4xf32> {mpt.next = 1 : i64}, tensor<f32> {mpt.metric = "loss"}, tensor<8x4xf16> {mpt.next = 4 : i64})
// No conversion of the master at entry: the forward reads the carried copy.
// PWC-NOT: arith.truncf %[[W]]
// PWC: mpt.matmul %[[X]], %[[WC]] : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
// PWC: mpt.matmul %{{.*}}, %[[WC]] {transpose_b} : tensor<2x4xf16>, tensor<8x4xf16> -> tensor<2x8xf16>
// PWC: %[[DW:.*]] = mpt.matmul %[[X]], %{{.*}} {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
// PWC-NEXT: %[[DW32:.*]] = arith.extf %[[DW]] : tensor<8x4xf16> to tensor<8x4xf32>
// PWC-NEXT: %[[WN:.*]], %[[MN:.*]] = mpt.sgd %[[W]], %[[DW32]], %[[M]] {{.*}} : tensor<8x4xf32>
// The next step's copy, right after the update.
// PWC-NEXT: %[[WCN:.*]] = arith.truncf %[[WN]] : tensor<8x4xf32> to tensor<8x4xf16>
// PWC-NEXT: return %[[WN]], %[[MN]], %{{.*}}, %[[WCN]] : tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>, tensor<8x4xf16>
func.func @pure_f16_sgd(%w: tensor<8x4xf16> {mpt.param}, %m: tensor<8x4xf16> {mpt.state},
                        %x: tensor<2x8xf16> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf16> {mpt.next = 0}, tensor<8x4xf16> {mpt.next = 1}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %o = mpt.matmul %x, %w : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %loss = mpt.softmax_cross_entropy %o, %y : tensor<2x4xf16>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o, %y : tensor<2x4xf16>, tensor<2xi32>
  %dx = mpt.matmul %do, %w {transpose_b} : tensor<2x4xf16>, tensor<8x4xf16> -> tensor<2x8xf16>
  %dw = mpt.matmul %x, %do {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
  %w2, %m2 = mpt.sgd %w, %dw, %m {lr = 1.0e-01 : f32, momentum = 9.0e-01 : f32} : tensor<8x4xf16>
  return %w2, %m2, %loss : tensor<8x4xf16>, tensor<8x4xf16>, tensor<f32>
}

// -----

// Adam moments become f32, the step count keeps its integer type; a second
// parameter (SGD) gets its own master and working copy.

// CHECK-LABEL: func @pure_f16_adam
// CHECK-SAME: (%[[W:.*]]: tensor<8x4xf32> {mpt.param}, %[[B:.*]]: tensor<4xf32> {mpt.param}, %[[MW:.*]]: tensor<8x4xf32> {mpt.state}, %[[VW:.*]]: tensor<8x4xf32> {mpt.state}, %[[T:.*]]: tensor<i64> {mpt.state}, %[[MB:.*]]: tensor<4xf32> {mpt.state}, %[[X:.*]]: tensor<2x8xf16> {mpt.data}, %[[Y:.*]]: tensor<2xi32> {mpt.data})
// CHECK-SAME: -> (tensor<8x4xf32> {mpt.next = 0 : i64}, tensor<4xf32> {mpt.next = 1 : i64}, tensor<8x4xf32> {mpt.next = 2 : i64}, tensor<8x4xf32> {mpt.next = 3 : i64}, tensor<i64> {mpt.next = 4 : i64}, tensor<4xf32> {mpt.next = 5 : i64}, tensor<f32> {mpt.metric = "loss"})
// CHECK-DAG: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-DAG: %[[B16:.*]] = arith.truncf %[[B]] : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[O:.*]] = mpt.matmul %[[X]], %[[W16]] : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
// CHECK-NEXT: mpt.bias_add %[[O]], %[[B16]] : tensor<2x4xf16>, tensor<4xf16>
// CHECK-NOT: arith.truncf %[[MW]]
// CHECK-NOT: arith.truncf %[[VW]]
// CHECK: %[[DW:.*]] = mpt.matmul %[[X]], %{{.*}} {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
// CHECK: %[[DB:.*]] = mpt.reduce_sum %{{.*}} [0] : tensor<2x4xf16> -> tensor<4xf16>
// CHECK: %[[DW32:.*]] = arith.extf %[[DW]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[WN:.*]], %[[MWN:.*]], %[[VWN:.*]], %[[TN:.*]] = mpt.adam %[[W]], %[[DW32]], %[[MW]], %[[VW]], %[[T]] {{.*}} : tensor<8x4xf32>, tensor<i64>
// CHECK-NEXT: %[[DB32:.*]] = arith.extf %[[DB]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: %[[BN:.*]], %[[MBN:.*]] = mpt.sgd %[[B]], %[[DB32]], %[[MB]] {{.*}} : tensor<4xf32>
// CHECK-NEXT: return %[[WN]], %[[BN]], %[[MWN]], %[[VWN]], %[[TN]], %[[MBN]], %{{.*}} : tensor<8x4xf32>, tensor<4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<i64>, tensor<4xf32>, tensor<f32>
// One carried copy per parameter, in parameter order.
// PWC-LABEL: func @pure_f16_adam
// PWC-SAME: %[[X:[^:]*]]: tensor<2x8xf16> {mpt.data}, %{{.*}}: tensor<2xi32> {mpt.data}, %[[WC:.*]]: tensor<8x4xf16> {mpt.state, mpt.working_copy_of = 0 : i64}, %[[BC:.*]]: tensor<4xf16> {mpt.state, mpt.working_copy_of = 1 : i64})
// PWC-SAME: tensor<f32> {mpt.metric = "loss"}, tensor<8x4xf16> {mpt.next = 8 : i64}, tensor<4xf16> {mpt.next = 9 : i64})
// PWC-NOT: arith.truncf
// PWC: %[[O:.*]] = mpt.matmul %[[X]], %[[WC]] : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
// PWC-NEXT: mpt.bias_add %[[O]], %[[BC]] : tensor<2x4xf16>, tensor<4xf16>
// PWC: %[[WN:.*]], %{{.*}}, %{{.*}}, %{{.*}} = mpt.adam
// PWC-NEXT: %[[WCN:.*]] = arith.truncf %[[WN]] : tensor<8x4xf32> to tensor<8x4xf16>
// PWC: %[[BN:.*]], %{{.*}} = mpt.sgd
// PWC-NEXT: %[[BCN:.*]] = arith.truncf %[[BN]] : tensor<4xf32> to tensor<4xf16>
// PWC-NEXT: return %[[WN]], %[[BN]], {{.*}}, %[[WCN]], %[[BCN]] :
func.func @pure_f16_adam(%w: tensor<8x4xf16> {mpt.param}, %b: tensor<4xf16> {mpt.param},
                         %mw: tensor<8x4xf16> {mpt.state}, %vw: tensor<8x4xf16> {mpt.state}, %t: tensor<i64> {mpt.state},
                         %mb: tensor<4xf16> {mpt.state},
                         %x: tensor<2x8xf16> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf16> {mpt.next = 0}, tensor<4xf16> {mpt.next = 1}, tensor<8x4xf16> {mpt.next = 2},
        tensor<8x4xf16> {mpt.next = 3}, tensor<i64> {mpt.next = 4}, tensor<4xf16> {mpt.next = 5},
        tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %o = mpt.matmul %x, %w : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %ob = mpt.bias_add %o, %b : tensor<2x4xf16>, tensor<4xf16>
  %loss = mpt.softmax_cross_entropy %ob, %y : tensor<2x4xf16>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %ob, %y : tensor<2x4xf16>, tensor<2xi32>
  %dw = mpt.matmul %x, %do {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
  %db = mpt.reduce_sum %do [0] : tensor<2x4xf16> -> tensor<4xf16>
  %w2, %mw2, %vw2, %t2 = mpt.adam %w, %dw, %mw, %vw, %t {lr = 1.0e-03 : f32} : tensor<8x4xf16>, tensor<i64>
  %b2, %mb2 = mpt.sgd %b, %db, %mb {lr = 1.0e-01 : f32, momentum = 9.0e-01 : f32} : tensor<4xf16>
  return %w2, %b2, %mw2, %vw2, %t2, %mb2, %loss
      : tensor<8x4xf16>, tensor<4xf16>, tensor<8x4xf16>, tensor<8x4xf16>, tensor<i64>, tensor<4xf16>, tensor<f32>
}

// -----

// bf16 parameters get f32 masters and a bf16 working copy.

// CHECK-LABEL: func @pure_bf16
// CHECK-SAME: (%[[W:.*]]: tensor<8x4xf32> {mpt.param}, %[[X:.*]]: tensor<2x8xbf16> {mpt.data})
// CHECK-SAME: -> (tensor<8x4xf32> {mpt.next = 0 : i64})
// CHECK-NEXT: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x4xf32> to tensor<8x4xbf16>
// CHECK-NEXT: %[[O:.*]] = mpt.matmul %[[X]], %[[W16]] : tensor<2x8xbf16>, tensor<8x4xbf16> -> tensor<2x4xbf16>
// CHECK-NEXT: %[[DW:.*]] = mpt.matmul %[[X]], %[[O]] {transpose_a} : tensor<2x8xbf16>, tensor<2x4xbf16> -> tensor<8x4xbf16>
// CHECK-NEXT: %[[DW32:.*]] = arith.extf %[[DW]] : tensor<8x4xbf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[WN:.*]] = mpt.sgd %[[W]], %[[DW32]] {{.*}} : tensor<8x4xf32>
// CHECK-NEXT: return %[[WN]] : tensor<8x4xf32>
// PWC-LABEL: func @pure_bf16
// PWC-SAME: (%[[W:.*]]: tensor<8x4xf32> {mpt.param}, %[[X:.*]]: tensor<2x8xbf16> {mpt.data}, %[[WC:.*]]: tensor<8x4xbf16> {mpt.state, mpt.working_copy_of = 0 : i64})
// PWC-SAME: -> (tensor<8x4xf32> {mpt.next = 0 : i64}, tensor<8x4xbf16> {mpt.next = 2 : i64})
// PWC-NEXT: mpt.matmul %[[X]], %[[WC]] : tensor<2x8xbf16>, tensor<8x4xbf16> -> tensor<2x4xbf16>
// PWC: %[[WN:.*]] = mpt.sgd %[[W]]
// PWC-NEXT: %[[WCN:.*]] = arith.truncf %[[WN]] : tensor<8x4xf32> to tensor<8x4xbf16>
// PWC-NEXT: return %[[WN]], %[[WCN]] : tensor<8x4xf32>, tensor<8x4xbf16>
func.func @pure_bf16(%w: tensor<8x4xbf16> {mpt.param}, %x: tensor<2x8xbf16> {mpt.data})
    -> (tensor<8x4xbf16> {mpt.next = 0}) attributes {mpt.train_step} {
  %o = mpt.matmul %x, %w : tensor<2x8xbf16>, tensor<8x4xbf16> -> tensor<2x4xbf16>
  %dw = mpt.matmul %x, %o {transpose_a} : tensor<2x8xbf16>, tensor<2x4xbf16> -> tensor<8x4xbf16>
  %w2 = mpt.sgd %w, %dw {lr = 1.0e-01 : f32} : tensor<8x4xbf16>
  return %w2 : tensor<8x4xbf16>
}

// -----

// Promoting an f16 parameter and its momentum buffer converts the buffer's
// mpt.init to f32, and the evaluation step that reads the parameter
// (mpt.state_of) now reads the f32 master, converted to f16 at its entry.

// CHECK-LABEL: func @promoted_with_init_and_eval
// CHECK-SAME: (%[[W:.*]]: tensor<2xf32> {mpt.param}, %[[M:.*]]: tensor<2xf32> {mpt.init = dense<[5.000000e-01, -2.500000e-01]> : tensor<2xf32>, mpt.state}
// CHECK: mpt.sgd %[[W]], %{{.*}}, %[[M]]
// CHECK-LABEL: func @promoted_eval
// CHECK-SAME: (%[[EW:.*]]: tensor<2xf32> {mpt.state_of = 0 : i64}, %[[EM:.*]]: tensor<2xf32> {mpt.state_of = 1 : i64}, %[[EX:.*]]: tensor<2xf16> {mpt.data})
// CHECK-SAME: -> tensor<2xf16>
// CHECK-DAG: %[[EW16:.*]] = arith.truncf %[[EW]] : tensor<2xf32> to tensor<2xf16>
// CHECK-DAG: %[[EM16:.*]] = arith.truncf %[[EM]] : tensor<2xf32> to tensor<2xf16>
// CHECK: %[[P:.*]] = arith.mulf %[[EX]], %[[EW16]] : tensor<2xf16>
// CHECK: arith.addf %[[P]], %[[EM16]] : tensor<2xf16>
func.func @promoted_with_init_and_eval(%w: tensor<2xf16> {mpt.param},
                                       %m: tensor<2xf16> {mpt.state, mpt.init = dense<[0.5, -0.25]> : tensor<2xf16>},
                                       %g: tensor<2xf16> {mpt.data})
    -> (tensor<2xf16> {mpt.next = 0}, tensor<2xf16> {mpt.next = 1}) attributes {mpt.train_step} {
  %w2, %m2 = mpt.sgd %w, %g, %m {lr = 1.0e-01 : f32, momentum = 9.0e-01 : f32} : tensor<2xf16>
  return %w2, %m2 : tensor<2xf16>, tensor<2xf16>
}
func.func @promoted_eval(%w: tensor<2xf16> {mpt.state_of = 0}, %m: tensor<2xf16> {mpt.state_of = 1},
                         %x: tensor<2xf16> {mpt.data}) -> tensor<2xf16> attributes {mpt.eval_step} {
  %p = arith.mulf %x, %w : tensor<2xf16>
  %q = arith.addf %p, %m : tensor<2xf16>
  return %q : tensor<2xf16>
}

// -----

// CASE: no-working-copy

// Negative: a function that is not a training step is left alone.

// CHECK-LABEL: func @not_a_train_step
// CHECK-SAME: (%[[W:.*]]: tensor<8x4xf16>, %[[G:.*]]: tensor<8x4xf16>, %[[M:.*]]: tensor<8x4xf16>) -> (tensor<8x4xf16>, tensor<8x4xf16>)
// CHECK-NOT: arith.
// CHECK: mpt.sgd %[[W]], %[[G]], %[[M]] {{.*}} : tensor<8x4xf16>
// CHECK-NOT: arith.

// PWC-LABEL: func @not_a_train_step
// PWC-SAME: (%[[W:.*]]: tensor<8x4xf16>, %[[G:.*]]: tensor<8x4xf16>, %[[M:.*]]: tensor<8x4xf16>) -> (tensor<8x4xf16>, tensor<8x4xf16>)
// PWC-NOT: arith.
// PWC: mpt.sgd %[[W]], %[[G]], %[[M]] {{.*}} : tensor<8x4xf16>
// PWC-NOT: arith.
func.func @not_a_train_step(%w: tensor<8x4xf16>, %g: tensor<8x4xf16>, %m: tensor<8x4xf16>) -> (tensor<8x4xf16>, tensor<8x4xf16>) {
  %w2, %m2 = mpt.sgd %w, %g, %m {lr = 1.0e-01 : f32, momentum = 9.0e-01 : f32} : tensor<8x4xf16>
  return %w2, %m2 : tensor<8x4xf16>, tensor<8x4xf16>
}

// -----

// Negative: an f32 training step before mpt-autocast has no working copy, so
// there is nothing to convert or to carry.

// CHECK-LABEL: func @f32_train_step
// CHECK-SAME: (%[[W:.*]]: tensor<8x4xf32> {mpt.param}, %[[M:.*]]: tensor<8x4xf32> {mpt.state}, %[[X:.*]]: tensor<2x8xf32> {mpt.data})
// CHECK-SAME: -> (tensor<8x4xf32> {mpt.next = 0 : i64}, tensor<8x4xf32> {mpt.next = 1 : i64})
// CHECK-NEXT: %[[O:.*]] = mpt.matmul %[[X]], %[[W]] : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[DW:.*]] = mpt.matmul %[[X]], %[[O]] {transpose_a} : tensor<2x8xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[WN:.*]], %[[MN:.*]] = mpt.sgd %[[W]], %[[DW]], %[[M]] {{.*}} : tensor<8x4xf32>
// CHECK-NEXT: return %[[WN]], %[[MN]] : tensor<8x4xf32>, tensor<8x4xf32>

// PWC-LABEL: func @f32_train_step
// PWC-SAME: (%[[W:.*]]: tensor<8x4xf32> {mpt.param}, %[[M:.*]]: tensor<8x4xf32> {mpt.state}, %[[X:.*]]: tensor<2x8xf32> {mpt.data})
// PWC-SAME: -> (tensor<8x4xf32> {mpt.next = 0 : i64}, tensor<8x4xf32> {mpt.next = 1 : i64})
// PWC-NOT: mpt.working_copy_of
// PWC-NEXT: %[[O:.*]] = mpt.matmul %[[X]], %[[W]] : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
// PWC-NEXT: %[[DW:.*]] = mpt.matmul %[[X]], %[[O]] {transpose_a} : tensor<2x8xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
// PWC-NEXT: %[[WN:.*]], %[[MN:.*]] = mpt.sgd %[[W]], %[[DW]], %[[M]] {{.*}} : tensor<8x4xf32>
// PWC-NEXT: return %[[WN]], %[[MN]] : tensor<8x4xf32>, tensor<8x4xf32>

// After mpt-autocast the optimizer already reads the f32 master and an f32
// gradient; mpt-master-weights keeps it that way.
// AUTOCAST-LABEL: func @f32_train_step
// AUTOCAST-SAME: (%[[W:.*]]: tensor<8x4xf32> {mpt.param}, %[[M:.*]]: tensor<8x4xf32> {mpt.state}, %[[X:.*]]: tensor<2x8xf32> {mpt.data})
// AUTOCAST-SAME: -> (tensor<8x4xf32> {mpt.next = 0 : i64}, tensor<8x4xf32> {mpt.next = 1 : i64})
// AUTOCAST-DAG: %[[X16:.*]] = arith.truncf %[[X]] : tensor<2x8xf32> to tensor<2x8xf16>
// AUTOCAST-DAG: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x4xf32> to tensor<8x4xf16>
// AUTOCAST: %[[O:.*]] = mpt.matmul %[[X16]], %[[W16]] : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
// AUTOCAST-NEXT: %[[DW:.*]] = mpt.matmul %[[X16]], %[[O]] {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
// AUTOCAST-NEXT: %[[DW32:.*]] = arith.extf %[[DW]] : tensor<8x4xf16> to tensor<8x4xf32>
// AUTOCAST-NEXT: %[[WN:.*]], %[[MN:.*]] = mpt.sgd %[[W]], %[[DW32]], %[[M]] {{.*}} : tensor<8x4xf32>
// AUTOCAST-NEXT: return %[[WN]], %[[MN]] : tensor<8x4xf32>, tensor<8x4xf32>
// After mpt-autocast, the entry truncation of the master becomes a carried
// copy; the data keeps its per-step conversion.
// PWC-AUTOCAST-LABEL: func @f32_train_step
// PWC-AUTOCAST-SAME: (%[[W:.*]]: tensor<8x4xf32> {mpt.param}, %[[M:.*]]: tensor<8x4xf32> {mpt.state}, %[[X:.*]]: tensor<2x8xf32> {mpt.data}, %[[WC:.*]]: tensor<8x4xf16> {mpt.state, mpt.working_copy_of = 0 : i64})
// PWC-AUTOCAST-SAME: -> (tensor<8x4xf32> {mpt.next = 0 : i64}, tensor<8x4xf32> {mpt.next = 1 : i64}, tensor<8x4xf16> {mpt.next = 3 : i64})
// PWC-AUTOCAST-NEXT: %[[X16:.*]] = arith.truncf %[[X]] : tensor<2x8xf32> to tensor<2x8xf16>
// PWC-AUTOCAST-NEXT: %[[O:.*]] = mpt.matmul %[[X16]], %[[WC]] : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
// PWC-AUTOCAST-NEXT: %[[DW:.*]] = mpt.matmul %[[X16]], %[[O]] {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
// PWC-AUTOCAST-NEXT: %[[DW32:.*]] = arith.extf %[[DW]] : tensor<8x4xf16> to tensor<8x4xf32>
// PWC-AUTOCAST-NEXT: %[[WN:.*]], %[[MN:.*]] = mpt.sgd %[[W]], %[[DW32]], %[[M]] {{.*}} : tensor<8x4xf32>
// PWC-AUTOCAST-NEXT: %[[WCN:.*]] = arith.truncf %[[WN]] : tensor<8x4xf32> to tensor<8x4xf16>
// PWC-AUTOCAST-NEXT: return %[[WN]], %[[MN]], %[[WCN]] : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf16>
func.func @f32_train_step(%w: tensor<8x4xf32> {mpt.param}, %m: tensor<8x4xf32> {mpt.state}, %x: tensor<2x8xf32> {mpt.data})
    -> (tensor<8x4xf32> {mpt.next = 0}, tensor<8x4xf32> {mpt.next = 1}) attributes {mpt.train_step} {
  %o = mpt.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %dw = mpt.matmul %x, %o {transpose_a} : tensor<2x8xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
  %w2, %m2 = mpt.sgd %w, %dw, %m {lr = 1.0e-01 : f32, momentum = 9.0e-01 : f32} : tensor<8x4xf32>
  return %w2, %m2 : tensor<8x4xf32>, tensor<8x4xf32>
}
