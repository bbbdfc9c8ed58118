// RUN: mpt-opt %s --mpt-autodiff | FileCheck %s
// RUN: mpt-opt %s --mpt-autodiff --mpt-export-signature | FileCheck %s --check-prefix=SIGNATURE

// mpt-autodiff gives the dropouts the step's counter, a new i64 state argument
// carried as counter + 1, numbers their streams, and differentiates each by
// the same dropout (same counter, seed and stream, so the same mask) of its
// incoming gradient: no mask is kept for the backward.

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<8x16xf32> {mpt.param}, %[[X:[^:]*]]: tensor<4x8xf32> {mpt.data}, %[[Y:[^:]*]]: tensor<4xi32> {mpt.data}, %[[COUNTER:[^:]*]]: tensor<i64> {mpt.state})
// CHECK-SAME:    -> (tensor<f32> {mpt.metric = "loss"}, tensor<8x16xf32> {mpt.next = 0 : i64}, tensor<i64> {mpt.next = 3 : i64})
// CHECK:         %[[XD:.*]] = mpt.dropout %[[X]], %[[COUNTER]] {p = 2.000000e-01 : f64, seed = 5 : i64} : tensor<4x8xf32>
// CHECK:         %[[H:.*]] = mpt.matmul %[[XD]], %[[W]]
// CHECK:         %[[HD:.*]] = mpt.dropout %[[H]], %[[COUNTER]] {p = 5.000000e-01 : f64, stream = 1 : i64} : tensor<4x16xf32>
// CHECK:         %[[CE:.*]] = mpt.softmax_cross_entropy %[[HD]], %[[Y]]
// CHECK:         %[[SEED:.*]] = mpt.loss_grad %[[CE]]
// CHECK:         %[[DHD:.*]] = mpt.softmax_cross_entropy_grad %[[SEED]], %[[HD]], %[[Y]]
// CHECK:         %[[DH:.*]] = mpt.dropout %[[DHD]], %[[COUNTER]] {p = 5.000000e-01 : f64, stream = 1 : i64} : tensor<4x16xf32>
// CHECK:         %[[DW:.*]] = mpt.matmul %[[XD]], %[[DH]] {transpose_a}
// CHECK:         %[[W2:.*]] = mpt.sgd %[[W]], %[[DW]]
// CHECK:         %[[ONE:.*]] = arith.constant dense<1> : tensor<i64>
// CHECK:         %[[NEXT:.*]] = arith.addi %[[COUNTER]], %[[ONE]] : tensor<i64>
// CHECK:         return %[[CE]], %[[W2]], %[[NEXT]]

// The counter is state named dropout_counter, counting steps from zero.
// SIGNATURE: {\22domain\22:{\22max\22:9007199254740992,\22min\22:0},\22dtype\22:\22I64\22,\22init\22:{\22kind\22:\22zeros\22},\22name\22:\22dropout_counter\22,\22role\22:\22state\22,\22shape\22:[]}

func.func @train_step(%w: tensor<8x16xf32> {mpt.param}, %x: tensor<4x8xf32> {mpt.data},
                      %y: tensor<4xi32> {mpt.data}) -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  // The data's dropout takes no gradient (x is not active), but still draws
  // its own stream.
  %xd = mpt.dropout %x {p = 0.2 : f64, seed = 5, stream = 9} : tensor<4x8xf32>
  %h = mpt.matmul %xd, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %hd = mpt.dropout %h {p = 0.5 : f64} : tensor<4x16xf32>
  %ce = mpt.softmax_cross_entropy %hd, %y : tensor<4x16xf32>, tensor<4xi32>
  return %ce : tensor<f32>
}
