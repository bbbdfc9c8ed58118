// RUN: mpt-opt %s --mpt-loss-scaling --split-input-file -verify-diagnostics

// expected-error @+1 {{mpt-loss-scaling: expected exactly one mpt.loss_grad (the backward seed) in a training step, found 2}}
func.func @two_seeds(%w: tensor<4xf16> {mpt.param}, %l: tensor<f32> {mpt.data})
    -> (tensor<4xf16> {mpt.next = 0}) attributes {mpt.train_step} {
  %s1 = mpt.loss_grad %l
  %s2 = mpt.loss_grad %l
  %w2 = mpt.sgd %w, %w {lr = 0.1 : f32} : tensor<4xf16>
  return %w2 : tensor<4xf16>
}

// -----

// expected-error @+1 {{mpt-loss-scaling: expected exactly one mpt.loss_grad (the backward seed) in a training step, found 0}}
func.func @no_seed(%w: tensor<4xf16> {mpt.param})
    -> (tensor<4xf16> {mpt.next = 0}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %w {lr = 0.1 : f32} : tensor<4xf16>
  return %w2 : tensor<4xf16>
}

// -----

// expected-error @+1 {{mpt-loss-scaling: no gradient leaves the backward pass (nothing outside it reads a value computed from mpt.loss_grad), so there is nothing to unscale}}
func.func @no_optimizer(%x: tensor<2x4xf16> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"}) attributes {mpt.train_step} {
  %x32 = arith.extf %x : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %x32, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  return %loss : tensor<f32>
}
