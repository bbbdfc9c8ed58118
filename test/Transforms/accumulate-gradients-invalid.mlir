// Option errors name the option and the value.
// RUN: not mpt-opt %s -split-input-file --mpt-accumulate-gradients=micro-batches=0 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: mpt-opt %s --mpt-accumulate-gradients=micro-batches=2 -split-input-file -verify-diagnostics

// OPTION: error: mpt-accumulate-gradients: micro-batches must be at least 1, got 0

// A hand-written step without a backward seed has no gradients to sum.
// expected-error @+1 {{mpt-accumulate-gradients: expected exactly one mpt.loss_grad (the backward seed) in a training step, found 0}}
func.func @no_seed(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// A metric computed from one micro-batch has no value for the whole step.
func.func @per_micro_batch_metric(%w: tensor<4x3xf32> {mpt.param},
    %x: tensor<2x4xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"}, tensor<f32> {mpt.metric = "logit_sum"},
        tensor<4x3xf32> {mpt.next = 0})
    attributes {mpt.train_step} {
  %z = mpt.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %loss = mpt.softmax_cross_entropy %z, %y : tensor<2x3xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %dz = mpt.softmax_cross_entropy_grad %seed, %z, %y : tensor<2x3xf32>, tensor<2xi32>
  %dw = mpt.matmul %x, %dz {transpose_a} : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %w2 = mpt.sgd %w, %dw {lr = 0.1 : f32} : tensor<4x3xf32>
  // expected-error @+1 {{mpt-accumulate-gradients: 'mpt.reduce_sum' reads a value computed once per micro-batch by 'mpt.matmul' that is neither a gradient, the loss nor carried state, so it has no value for the whole step}}
  %sum = mpt.reduce_sum %z [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %loss, %sum, %w2 : tensor<f32>, tensor<f32>, tensor<4x3xf32>
}

// -----

// Data read outside the gradients' computation would see all the rows.
func.func @data_outside(%w: tensor<4x3xf32> {mpt.param},
    %x: tensor<2x4xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"}, tensor<f32> {mpt.metric = "input_sum"},
        tensor<4x3xf32> {mpt.next = 0})
    attributes {mpt.train_step} {
  %z = mpt.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %loss = mpt.softmax_cross_entropy %z, %y : tensor<2x3xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %dz = mpt.softmax_cross_entropy_grad %seed, %z, %y : tensor<2x3xf32>, tensor<2xi32>
  %dw = mpt.matmul %x, %dz {transpose_a} : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %w2 = mpt.sgd %w, %dw {lr = 0.1 : f32} : tensor<4x3xf32>
  // expected-error @+1 {{mpt-accumulate-gradients: 'mpt.reduce_sum' reads data argument #1 outside the gradients' computation, which reads one micro-batch of it at a time}}
  %sum = mpt.reduce_sum %x [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %loss, %sum, %w2 : tensor<f32>, tensor<f32>, tensor<4x3xf32>
}

// -----

// A micro-batch is a slice of rows: a scalar has none.
func.func @scalar_data(%w: tensor<4x3xf32> {mpt.param},
    %x: tensor<2x4xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data},
    // expected-error @+1 {{mpt-accumulate-gradients: data argument #3 has type 'tensor<f32>'; a micro-batch is a slice of the rows (first dimension) of every data argument, which must be a statically shaped tensor of rank 1 or more}}
    %t: tensor<f32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"}, tensor<4x3xf32> {mpt.next = 0})
    attributes {mpt.train_step} {
  %z = mpt.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %loss = mpt.softmax_cross_entropy %z, %y : tensor<2x3xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %dz = mpt.softmax_cross_entropy_grad %seed, %z, %y : tensor<2x3xf32>, tensor<2xi32>
  %dw = mpt.matmul %x, %dz {transpose_a} : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %w2 = mpt.sgd %w, %dw {lr = 0.1 : f32} : tensor<4x3xf32>
  return %loss, %w2 : tensor<f32>, tensor<4x3xf32>
}

// -----

// A loss that reads no data has the same gradient on every micro-batch.
func.func @no_data_in_loss(%w: tensor<4x3xf32> {mpt.param},
    %x: tensor<2x4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"}, tensor<4x3xf32> {mpt.next = 0})
    attributes {mpt.train_step} {
  %loss = mpt.reduce_sum %w [0, 1] : tensor<4x3xf32> -> tensor<f32>
  // expected-error @+1 {{mpt-accumulate-gradients: the loss reads no data argument, so every micro-batch would give it the same gradients}}
  %seed = mpt.loss_grad %loss
  %dw = mpt.broadcast %seed [0, 1] : tensor<f32> -> tensor<4x3xf32>
  %w2 = mpt.sgd %w, %dw {lr = 0.1 : f32} : tensor<4x3xf32>
  return %loss, %w2 : tensor<f32>, tensor<4x3xf32>
}

// -----

// The dropout counter advances once per step: every micro-batch would draw
// the first one's mask.
func.func @dropout(%w: tensor<4x3xf32> {mpt.param}, %x: tensor<2x4xf32> {mpt.data},
    %y: tensor<2xi32> {mpt.data}, %counter: tensor<i64> {mpt.state})
    -> (tensor<f32> {mpt.metric = "loss"}, tensor<4x3xf32> {mpt.next = 0},
        tensor<i64> {mpt.next = 3})
    attributes {mpt.train_step} {
  %z = mpt.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  // expected-error @+1 {{mpt-accumulate-gradients: 'mpt.dropout' would draw the same mask for every micro-batch; dropout with micro-batches is not supported}}
  %d = mpt.dropout %z, %counter {p = 0.5 : f64} : tensor<2x3xf32>
  %loss = mpt.softmax_cross_entropy %d, %y : tensor<2x3xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %dd = mpt.softmax_cross_entropy_grad %seed, %d, %y : tensor<2x3xf32>, tensor<2xi32>
  %dz = mpt.dropout %dd, %counter {p = 0.5 : f64} : tensor<2x3xf32>
  %dw = mpt.matmul %x, %dz {transpose_a} : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %w2 = mpt.sgd %w, %dw {lr = 0.1 : f32} : tensor<4x3xf32>
  %one = arith.constant dense<1> : tensor<i64>
  %next = arith.addi %counter, %one : tensor<i64>
  return %loss, %w2, %next : tensor<f32>, tensor<4x3xf32>, tensor<i64>
}
