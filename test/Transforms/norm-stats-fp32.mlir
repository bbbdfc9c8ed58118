// RUN: mpt-opt %s -split-input-file --mpt-norm-stats-fp32 | FileCheck %s

// Graphs whose statistics already are f32 are unchanged: the f32 examples, and
// the same examples after mpt-autocast (f16 activations, f32 statistics).
// RUN: mpt-opt %examples/cnn_bn_manual.mlir > %t.cnn.mlir
// RUN: mpt-opt %t.cnn.mlir --mpt-norm-stats-fp32 | diff %t.cnn.mlir -
// RUN: mpt-opt %examples/cnn_bn_manual.mlir --mpt-autocast > %t.cnn16.mlir
// RUN: mpt-opt %t.cnn16.mlir --mpt-norm-stats-fp32 | diff %t.cnn16.mlir -
// RUN: mpt-opt %examples/transformer_block_manual.mlir --mpt-autocast > %t.tf16.mlir
// RUN: mpt-opt %t.tf16.mlir --mpt-norm-stats-fp32 | diff %t.tf16.mlir -

//===----------------------------------------------------------------------===//
// batch_norm in a training step, everything f16 as written by a user.
//===----------------------------------------------------------------------===//

// The running statistics (state) and the results carrying them become f32;
// gamma and beta (parameters) keep their type and are widened for the op; the
// normalized output and the input gradient stay f16.

// CHECK-LABEL: func @batch_norm_train_step
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x3x3xf16> {mpt.data}, %[[G:.*]]: tensor<4xf16> {mpt.param}, %[[B:.*]]: tensor<4xf16> {mpt.param}, %[[RM:.*]]: tensor<4xf32> {mpt.state}, %[[RV:.*]]: tensor<4xf32> {mpt.state}, %[[DY:.*]]: tensor<2x4x3x3xf16> {mpt.data})
// CHECK-SAME: -> (tensor<4xf16> {mpt.next = 1 : i64}, tensor<4xf16> {mpt.next = 2 : i64}, tensor<4xf32> {mpt.next = 3 : i64}, tensor<4xf32> {mpt.next = 4 : i64}, tensor<f16> {mpt.metric = "dx_sum"})
// CHECK-NOT: arith.extf %[[RM]]
// CHECK-NOT: arith.extf %[[RV]]
// CHECK-DAG: %[[G32:.*]] = arith.extf %[[G]] : tensor<4xf16> to tensor<4xf32>
// CHECK-DAG: %[[B32:.*]] = arith.extf %[[B]] : tensor<4xf16> to tensor<4xf32>
// CHECK: %[[Y:.*]], %[[MEAN:.*]], %[[INVSTD:.*]], %[[RM2:.*]], %[[RV2:.*]] = mpt.batch_norm %[[X]], %[[G32]], %[[B32]], %[[RM]], %[[RV]] {{.*}}: tensor<2x4x3x3xf16>, tensor<4xf32>
// CHECK: %[[DX:.*]], %[[DG:.*]], %[[DB:.*]] = mpt.batch_norm_grad %[[DY]], %[[X]], %{{.*}}, %[[MEAN]], %[[INVSTD]] : tensor<2x4x3x3xf16>, tensor<4xf32>
// The f16 parameters' optimizer still reads f16 gradients.
// CHECK-DAG: %[[DG16:.*]] = arith.truncf %[[DG]] : tensor<4xf32> to tensor<4xf16>
// CHECK-DAG: %[[DB16:.*]] = arith.truncf %[[DB]] : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[GN:.*]] = mpt.sgd %[[G]], %[[DG16]] {{.*}} : tensor<4xf16>
// CHECK: %[[BN:.*]] = mpt.sgd %[[B]], %[[DB16]] {{.*}} : tensor<4xf16>
// CHECK-NOT: arith.truncf %[[RM2]]
// CHECK-NOT: arith.truncf %[[RV2]]
// CHECK: %[[DXS:.*]] = mpt.reduce_sum %[[DX]] [0, 1, 2, 3] : tensor<2x4x3x3xf16> -> tensor<f16>
// CHECK-NEXT: return %[[GN]], %[[BN]], %[[RM2]], %[[RV2]], %[[DXS]] : tensor<4xf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<f16>
func.func @batch_norm_train_step(%x: tensor<2x4x3x3xf16> {mpt.data}, %g: tensor<4xf16> {mpt.param}, %b: tensor<4xf16> {mpt.param},
                                 %rm: tensor<4xf16> {mpt.state}, %rv: tensor<4xf16> {mpt.state}, %dy: tensor<2x4x3x3xf16> {mpt.data})
    -> (tensor<4xf16> {mpt.next = 1}, tensor<4xf16> {mpt.next = 2}, tensor<4xf16> {mpt.next = 3}, tensor<4xf16> {mpt.next = 4},
        tensor<f16> {mpt.metric = "dx_sum"})
    attributes {mpt.train_step} {
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm, %rv {momentum = 1.0e-01 : f32} : tensor<2x4x3x3xf16>, tensor<4xf16>
  %dx, %dg, %db = mpt.batch_norm_grad %dy, %x, %g, %mean, %invstd : tensor<2x4x3x3xf16>, tensor<4xf16>
  %g2 = mpt.sgd %g, %dg {lr = 1.0e-01 : f32} : tensor<4xf16>
  %b2 = mpt.sgd %b, %db {lr = 1.0e-01 : f32} : tensor<4xf16>
  %dxs = mpt.reduce_sum %dx [0, 1, 2, 3] : tensor<2x4x3x3xf16> -> tensor<f16>
  return %g2, %b2, %rm2, %rv2, %dxs : tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<f16>
}

// -----

// Outside a training step there is no state to retype: the statistics are
// computed in f32 and converted back for the readers that expect f16.

// CHECK-LABEL: func @batch_norm_not_a_train_step
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf16>, %[[G:.*]]: tensor<4xf16>, %[[B:.*]]: tensor<4xf16>, %[[RM:.*]]: tensor<4xf16>, %[[RV:.*]]: tensor<4xf16>)
// CHECK-SAME: -> (tensor<2x4xf16>, tensor<4xf16>, tensor<4xf16>)
// CHECK-DAG: %[[G32:.*]] = arith.extf %[[G]] : tensor<4xf16> to tensor<4xf32>
// CHECK-DAG: %[[B32:.*]] = arith.extf %[[B]] : tensor<4xf16> to tensor<4xf32>
// CHECK-DAG: %[[RM32:.*]] = arith.extf %[[RM]] : tensor<4xf16> to tensor<4xf32>
// CHECK-DAG: %[[RV32:.*]] = arith.extf %[[RV]] : tensor<4xf16> to tensor<4xf32>
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}}, %[[RM2:.*]], %[[RV2:.*]] = mpt.batch_norm %[[X]], %[[G32]], %[[B32]], %[[RM32]], %[[RV32]] : tensor<2x4xf16>, tensor<4xf32>
// CHECK-DAG: %[[RM216:.*]] = arith.truncf %[[RM2]] : tensor<4xf32> to tensor<4xf16>
// CHECK-DAG: %[[RV216:.*]] = arith.truncf %[[RV2]] : tensor<4xf32> to tensor<4xf16>
// CHECK: return %[[Y]], %[[RM216]], %[[RV216]] : tensor<2x4xf16>, tensor<4xf16>, tensor<4xf16>
func.func @batch_norm_not_a_train_step(%x: tensor<2x4xf16>, %g: tensor<4xf16>, %b: tensor<4xf16>, %rm: tensor<4xf16>, %rv: tensor<4xf16>)
    -> (tensor<2x4xf16>, tensor<4xf16>, tensor<4xf16>) {
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm, %rv : tensor<2x4xf16>, tensor<4xf16>
  return %y, %rm2, %rv2 : tensor<2x4xf16>, tensor<4xf16>, tensor<4xf16>
}

// -----

// CHECK-LABEL: func @batch_norm_inference
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf16>, %[[G:.*]]: tensor<4xf16>, %[[B:.*]]: tensor<4xf16>, %[[M:.*]]: tensor<4xf16>, %[[V:.*]]: tensor<4xf16>) -> tensor<2x4xf16>
// CHECK-DAG: %[[G32:.*]] = arith.extf %[[G]] : tensor<4xf16> to tensor<4xf32>
// CHECK-DAG: %[[B32:.*]] = arith.extf %[[B]] : tensor<4xf16> to tensor<4xf32>
// CHECK-DAG: %[[M32:.*]] = arith.extf %[[M]] : tensor<4xf16> to tensor<4xf32>
// CHECK-DAG: %[[V32:.*]] = arith.extf %[[V]] : tensor<4xf16> to tensor<4xf32>
// CHECK: %[[Y:.*]] = mpt.batch_norm_inference %[[X]], %[[G32]], %[[B32]], %[[M32]], %[[V32]] : tensor<2x4xf16>, tensor<4xf32>
// CHECK-NEXT: return %[[Y]] : tensor<2x4xf16>
func.func @batch_norm_inference(%x: tensor<2x4xf16>, %g: tensor<4xf16>, %b: tensor<4xf16>, %m: tensor<4xf16>, %v: tensor<4xf16>) -> tensor<2x4xf16> {
  %y = mpt.batch_norm_inference %x, %g, %b, %m, %v : tensor<2x4xf16>, tensor<4xf16>
  return %y : tensor<2x4xf16>
}

// -----

//===----------------------------------------------------------------------===//
// layer_norm: mean and invstd in f32, output in the activation type.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf16>, %[[G:.*]]: tensor<8xf16>, %[[B:.*]]: tensor<8xf16>, %[[DY:.*]]: tensor<2x4x8xf16>)
// CHECK-SAME: -> (tensor<2x4x8xf16>, tensor<2x4xf16>, tensor<2x4x8xf16>, tensor<8xf16>)
// CHECK-DAG: %[[G32:.*]] = arith.extf %[[G]] : tensor<8xf16> to tensor<8xf32>
// CHECK-DAG: %[[B32:.*]] = arith.extf %[[B]] : tensor<8xf16> to tensor<8xf32>
// CHECK: %[[Y:.*]], %[[MEAN:.*]], %[[INVSTD:.*]] = mpt.layer_norm %[[X]], %[[G32]], %[[B32]] {{.*}}: tensor<2x4x8xf16>, tensor<8xf32> -> tensor<2x4xf32>
// The returned mean is converted back for the return, right after the op...
// CHECK-NEXT: %[[MEAN16:.*]] = arith.truncf %[[MEAN]] : tensor<2x4xf32> to tensor<2x4xf16>
// ...and the gradient reads the f32 statistics themselves.
// CHECK-NOT: arith.extf %[[MEAN16]]
// CHECK: %[[DX:.*]], %[[DG:.*]], %{{.*}} = mpt.layer_norm_grad %[[DY]], %[[X]], %{{.*}}, %[[MEAN]], %[[INVSTD]] : tensor<2x4x8xf16>, tensor<8xf32>, tensor<2x4xf32>
// CHECK-NEXT: %[[DG16:.*]] = arith.truncf %[[DG]] : tensor<8xf32> to tensor<8xf16>
// CHECK: return %[[Y]], %[[MEAN16]], %[[DX]], %[[DG16]] : tensor<2x4x8xf16>, tensor<2x4xf16>, tensor<2x4x8xf16>, tensor<8xf16>
func.func @layer_norm(%x: tensor<2x4x8xf16>, %g: tensor<8xf16>, %b: tensor<8xf16>, %dy: tensor<2x4x8xf16>)
    -> (tensor<2x4x8xf16>, tensor<2x4xf16>, tensor<2x4x8xf16>, tensor<8xf16>) {
  %y, %mean, %invstd = mpt.layer_norm %x, %g, %b {epsilon = 1.0e-05 : f32} : tensor<2x4x8xf16>, tensor<8xf16> -> tensor<2x4xf16>
  %dx, %dg, %db = mpt.layer_norm_grad %dy, %x, %g, %mean, %invstd : tensor<2x4x8xf16>, tensor<8xf16>, tensor<2x4xf16>
  return %y, %mean, %dx, %dg : tensor<2x4x8xf16>, tensor<2x4xf16>, tensor<2x4x8xf16>, tensor<8xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Negative: statistics that already are f32 are left alone.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @already_f32
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf16> {mpt.data}, %[[G:.*]]: tensor<4xf32> {mpt.param}, %[[B:.*]]: tensor<4xf32> {mpt.param}, %[[RM:.*]]: tensor<4xf32> {mpt.state}, %[[RV:.*]]: tensor<4xf32> {mpt.state})
// CHECK-NOT: arith.
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}}, %[[RM2:.*]], %[[RV2:.*]] = mpt.batch_norm %[[X]], %[[G]], %[[B]], %[[RM]], %[[RV]] : tensor<2x4xf16>, tensor<4xf32>
// CHECK-NOT: arith.
// CHECK: mpt.layer_norm %[[Y]], %[[G]], %[[B]] : tensor<2x4xf16>, tensor<4xf32> -> tensor<2xf32>
// CHECK-NOT: arith.
// CHECK: return
func.func @already_f32(%x: tensor<2x4xf16> {mpt.data}, %g: tensor<4xf32> {mpt.param}, %b: tensor<4xf32> {mpt.param},
                       %rm: tensor<4xf32> {mpt.state}, %rv: tensor<4xf32> {mpt.state})
    -> (tensor<4xf32> {mpt.next = 1}, tensor<4xf32> {mpt.next = 2}, tensor<4xf32> {mpt.next = 3}, tensor<4xf32> {mpt.next = 4})
    attributes {mpt.train_step} {
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm, %rv : tensor<2x4xf16>, tensor<4xf32>
  %z, %zm, %zi = mpt.layer_norm %y, %g, %b : tensor<2x4xf16>, tensor<4xf32> -> tensor<2xf32>
  %g2 = mpt.sgd %g, %g {lr = 1.0e-01 : f32} : tensor<4xf32>
  %b2 = mpt.sgd %b, %b {lr = 1.0e-01 : f32} : tensor<4xf32>
  return %g2, %b2, %rm2, %rv2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The evaluation step reads the running statistics as the training step
// stores them: promoted to f32 with them (the variance's initial ones
// converted too), and read by batch_norm_inference in f32 directly.

// CHECK-LABEL: func @bn_step_with_eval
// CHECK-SAME: %[[RV:arg4]]: tensor<4xf32> {mpt.init = dense<1.000000e+00> : tensor<4xf32>, mpt.state}
// CHECK-LABEL: func @bn_eval
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf16> {mpt.data}, %[[G:.*]]: tensor<4xf16> {mpt.state_of = 1 : i64}, %[[B:.*]]: tensor<4xf16> {mpt.state_of = 2 : i64}, %[[RM:.*]]: tensor<4xf32> {mpt.state_of = 3 : i64}, %[[RV:.*]]: tensor<4xf32> {mpt.state_of = 4 : i64})
// CHECK-DAG: %[[G32:.*]] = arith.extf %[[G]]
// CHECK-DAG: %[[B32:.*]] = arith.extf %[[B]]
// CHECK: mpt.batch_norm_inference %[[X]], %[[G32]], %[[B32]], %[[RM]], %[[RV]] {{.*}}: tensor<2x4xf16>, tensor<4xf32>
func.func @bn_step_with_eval(%x: tensor<2x4xf16> {mpt.data}, %g: tensor<4xf16> {mpt.param}, %b: tensor<4xf16> {mpt.param},
                             %rm: tensor<4xf16> {mpt.state}, %rv: tensor<4xf16> {mpt.state, mpt.init = dense<1.0> : tensor<4xf16>},
                             %dg: tensor<4xf16> {mpt.data})
    -> (tensor<4xf16> {mpt.next = 1}, tensor<4xf16> {mpt.next = 2}, tensor<4xf16> {mpt.next = 3}, tensor<4xf16> {mpt.next = 4})
    attributes {mpt.train_step} {
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm, %rv : tensor<2x4xf16>, tensor<4xf16>
  %g2 = mpt.sgd %g, %dg {lr = 1.0e-01 : f32} : tensor<4xf16>
  %b2 = mpt.sgd %b, %dg {lr = 1.0e-01 : f32} : tensor<4xf16>
  return %g2, %b2, %rm2, %rv2 : tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>
}
func.func @bn_eval(%x: tensor<2x4xf16> {mpt.data}, %g: tensor<4xf16> {mpt.state_of = 1}, %b: tensor<4xf16> {mpt.state_of = 2},
                   %rm: tensor<4xf16> {mpt.state_of = 3}, %rv: tensor<4xf16> {mpt.state_of = 4})
    -> tensor<2x4xf16> attributes {mpt.eval_step} {
  %y = mpt.batch_norm_inference %x, %g, %b, %rm, %rv : tensor<2x4xf16>, tensor<4xf16>
  return %y : tensor<2x4xf16>
}
