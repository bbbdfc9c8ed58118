// RUN: mpt-opt %s -split-input-file --mpt-recompute=policy=marked --verify-diagnostics
// RUN: echo "" | not mpt-opt --mpt-recompute=policy=every 2>&1 | FileCheck %s --check-prefix=OPTION

// OPTION: for the --policy option: Cannot find option named 'every'!

// expected-error @below {{'func.func' op has no op marked 'mpt.segment_end' to end a segment (policy=marked of mpt-recompute)}}
func.func @no_mark(%w: tensor<4xf32> {mpt.param}) -> (tensor<f32> {mpt.metric = "loss"}, tensor<4xf32> {mpt.next = 0})
    attributes {mpt.train_step} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.loss_grad %loss
  %g = mpt.broadcast %seed [0] : tensor<f32> -> tensor<4xf32>
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  return %loss, %w2 : tensor<f32>, tensor<4xf32>
}

// -----

// A forward-only step: mpt-autodiff has not built its backward.
// expected-error @below {{'func.func' op has no 'mpt.loss_grad' where its backward starts; run mpt-recompute after mpt-autodiff}}
func.func @no_backward(%w: tensor<4xf32> {mpt.param}) -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

func.func @mark_with_value(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'mpt.segment_end' must be a unit attribute on an op with results (the end of a forward segment)}}
  %a = mpt.gelu %w {mpt.segment_end = 1 : i64} : tensor<4xf32>
  return %a : tensor<4xf32>
}
