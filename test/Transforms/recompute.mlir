// RUN: mpt-opt %s -split-input-file --mpt-autodiff --mpt-recompute=policy=marked | FileCheck %s --check-prefix=MARKED
// RUN: mpt-opt %s -split-input-file --mpt-autodiff --mpt-recompute=policy=marked --cse --canonicalize | FileCheck %s --check-prefix=MARKED
// RUN: mpt-opt %s -split-input-file --mpt-autodiff --mpt-recompute=policy=none | FileCheck %s --check-prefix=NONE

// Two segments, the first ended by the op marked mpt.segment_end: its result
// %b, which the second segment reads, is kept; %h and %a, which only the
// first segment and the backward read, are recomputed from barriers on what
// the copies read (%x, %w1) before the first backward op that reads one.
// The backward reads the copies, in the operand order of the forward; CSE
// and canonicalization leave them (second RUN line). The last segment is
// never recomputed.

// MARKED-LABEL: func.func @two_segments
// MARKED-SAME: (%[[W1:.*]]: tensor<4x4xf32> {mpt.param}, %[[W2:.*]]: tensor<4x3xf32> {mpt.param}, %[[X:.*]]: tensor<8x4xf32> {mpt.data})
// MARKED: %[[H:.*]] = mpt.matmul %[[X]], %[[W1]] :
// MARKED: %[[A:.*]] = mpt.gelu %[[H]] :
// MARKED: %[[B:.*]] = mpt.gelu %[[A]] {mpt.segment_end} :
// MARKED: %[[O:.*]] = mpt.matmul %[[B]], %[[W2]] :
// MARKED: mpt.loss_grad
// MARKED: %[[DB:.*]] = mpt.matmul %{{.*}}, %[[W2]] {transpose_b}
// MARKED: mpt.matmul %[[B]], %{{.*}} {transpose_a}
// MARKED-NOT: mpt.gelu_grad
// MARKED: %[[XC:.*]] = mpt.recompute_barrier %[[X]] : tensor<8x4xf32>
// MARKED-NEXT: %[[WC:.*]] = mpt.recompute_barrier %[[W1]] : tensor<4x4xf32>
// MARKED-NEXT: %[[HC:.*]] = mpt.matmul %[[XC]], %[[WC]] :
// MARKED-NEXT: %[[AC:.*]] = mpt.gelu %[[HC]] :
// MARKED-NEXT: %[[DA:.*]] = mpt.gelu_grad %[[DB]], %[[AC]] :
// MARKED-NEXT: %[[DH:.*]] = mpt.gelu_grad %[[DA]], %[[HC]] :
// MARKED-NEXT: mpt.matmul %[[X]], %[[DH]] {transpose_a}
// NONE-LABEL: func.func @two_segments
// NONE-NOT: mpt.recompute_barrier
func.func @two_segments(%w1: tensor<4x4xf32> {mpt.param}, %w2: tensor<4x3xf32> {mpt.param}, %x: tensor<8x4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %h = mpt.matmul %x, %w1 : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %a = mpt.gelu %h : tensor<8x4xf32>
  %b = mpt.gelu %a {mpt.segment_end} : tensor<8x4xf32>
  %o = mpt.matmul %b, %w2 : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %loss = mpt.reduce_sum %o [0, 1] : tensor<8x3xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// An eval step (no backward) is left as it is.

// MARKED-LABEL: func.func @eval
// MARKED-NOT: mpt.recompute_barrier
func.func @eval(%w: tensor<4x4xf32> {mpt.state_of = 0}, %x: tensor<8x4xf32> {mpt.data}) -> tensor<8x4xf32>
    attributes {mpt.eval_step} {
  %h = mpt.matmul %x, %w : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %a = mpt.gelu %h {mpt.segment_end} : tensor<8x4xf32>
  return %a : tensor<8x4xf32>
}

