// RUN: mpt-opt %s --mpt-autodiff --split-input-file --verify-diagnostics

func.func @no_rule(%w: tensor<4xf32> {mpt.param}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %h = arith.mulf %x, %w : tensor<4xf32>
  // expected-error @below {{'math.erf' op has a gradient but no differentiation rule: 'math.erf' does not implement DifferentiableOpInterface}}
  %e = math.erf %h : tensor<4xf32>
  %loss = mpt.reduce_sum %e [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// An op without a rule that only sees data (no parameter behind it) is fine:
// no gradient has to pass through it. The error above is about the path.
func.func @no_rule_off_path(%w: tensor<4xf32> {mpt.param}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %e = math.erf %x : tensor<4xf32>
  %h = arith.mulf %e, %w : tensor<4xf32>
  %loss = mpt.reduce_sum %h [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{'func.func' op loss (result #0) must be an f32 scalar, tensor<f32>, got 'tensor<f16>'}}
func.func @f16_loss(%w: tensor<4xf16> {mpt.param})
    -> (tensor<f16> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf16> -> tensor<f16>
  return %loss : tensor<f16>
}

// -----

// A non-scalar loss is rejected when the step is read: metrics are scalars.
// expected-error @below {{'func.func' op metric 'loss' (result #0) must be a rank-0 tensor, got 'tensor<4xf32>'}}
func.func @vector_loss(%w: tensor<4xf32> {mpt.param})
    -> (tensor<4xf32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  return %w : tensor<4xf32>
}

// -----

// Two losses: the loss is the metric named "loss", and a metric has one result.
// expected-error @below {{'func.func' op metric 'loss' is returned by both result #0 and result #1}}
func.func @two_losses(%w: tensor<4xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %loss, %loss : tensor<f32>, tensor<f32>
}

// -----

// expected-error @below {{'func.func' op has 'mpt.optimizer' but no result marked 'mpt.metric = "loss"' to differentiate}}
func.func @no_loss(%w: tensor<4xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "error"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{parameter argument #1 of 'unused_param' does not reach the loss, so it would never be trained; mark it 'mpt.frozen' (beside 'mpt.param') to keep it fixed, or remove it}}
func.func @unused_param(%w: tensor<4xf32> {mpt.param}, %unused: tensor<3xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A parameter that reaches the loss only through a value that carries no
// gradient (a batch statistic) does not reach it.
func.func @statistic_in_loss(%g: tensor<2xf32> {mpt.param}, %b: tensor<2xf32> {mpt.param},
                             %rm: tensor<2xf32> {mpt.state}, %rv: tensor<2xf32> {mpt.state},
                             %x: tensor<4x2xf32> {mpt.data})
    -> (tensor<2xf32> {mpt.next = 2}, tensor<2xf32> {mpt.next = 3}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %gx = mpt.bias_add %x, %g : tensor<4x2xf32>, tensor<2xf32>
  // expected-error @below {{'mpt.batch_norm' op result #1 reaches the loss but carries no gradient}}
  %n, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %gx, %g, %b, %rm, %rv : tensor<4x2xf32>, tensor<2xf32>
  %s = arith.addf %mean, %invstd : tensor<2xf32>
  %loss = mpt.reduce_sum %s [0] : tensor<2xf32> -> tensor<f32>
  return %rm2, %rv2, %loss : tensor<2xf32>, tensor<2xf32>, tensor<f32>
}

// -----

func.func @already_trained(%w: tensor<4xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  // expected-error @below {{'mpt.loss_grad' op in a step with 'mpt.optimizer': the step already has a backward pass or optimizer; remove either the attribute or the hand-written update}}
  %seed = mpt.loss_grad %loss
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{'func.func' op result #0 carries parameter argument #0; in a forward-only step mpt-autodiff creates the update of every parameter}}
func.func @carried_param(%w: tensor<4xf32> {mpt.param})
    -> (tensor<4xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %w, %loss : tensor<4xf32>, tensor<f32>
}

// -----

// expected-error @below {{'func.func' op optimizer of parameter argument #0 has kind "lamb"; expected "sgd", "adam", "adamw", "rmsprop", "adagrad" or "adadelta"}}
func.func @unknown_kind(%w: tensor<4xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "lamb", lr = 0.1 : f32}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{'func.func' op optimizer of parameter argument #1: 'mpt.adam' has no option 'betas'}}
func.func @unknown_option(%w: tensor<4xf32> {mpt.param},
                          %b: tensor<4xf32> {mpt.param, mpt.optimizer = {kind = "adam", betas = 0.9}})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %s = arith.addf %w, %b : tensor<4xf32>
  %loss = mpt.reduce_sum %s [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// The optimizer op's own verifier checks the values.
// expected-error @below {{'mpt.sgd' op expected lr to be non-negative}}
func.func @negative_lr(%w: tensor<4xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = -0.1 : f32}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{'mpt.optimizer' must be a dictionary with a string 'kind' (sgd, adam or adamw), got {lr = 1.000000e-01 : f32}}}
func.func @no_kind(%w: tensor<4xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {lr = 0.1 : f32}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{'mpt.clip_grad_norm' must be a positive float, got 0.000000e+00 : f32}}
func.func @zero_clip(%w: tensor<4xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.clip_grad_norm = 0.0 : f32,
                mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{'mpt.optimizer' on argument #0 must be a dictionary on an 'mpt.param' argument}}
func.func @override_on_data(%x: tensor<4xf32> {mpt.data, mpt.optimizer = {lr = 0.1 : f32}},
                            %w: tensor<4xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %s = arith.addf %x, %w : tensor<4xf32>
  %loss = mpt.reduce_sum %s [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{'mpt.optimizer' requires a function marked 'mpt.train_step'}}
func.func @not_a_step(%w: tensor<4xf32>) -> tensor<4xf32>
    attributes {mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  return %w : tensor<4xf32>
}

// -----

// A hand-written step cannot ask for clipping: its update is already written.
// expected-error @below {{'mpt.clip_grad_norm' requires 'mpt.optimizer'}}
func.func @clip_without_optimizer(%w: tensor<4xf32> {mpt.param}, %m: tensor<4xf32> {mpt.state})
    -> (tensor<4xf32> {mpt.next = 0}, tensor<4xf32> {mpt.next = 1}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.clip_grad_norm = 1.0 : f32} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.loss_grad %loss
  %g = mpt.broadcast %seed [0] : tensor<f32> -> tensor<4xf32>
  %w2, %m2 = mpt.sgd %w, %g, %m {lr = 0.1 : f32, momentum = 0.9 : f32} : tensor<4xf32>
  return %w2, %m2, %loss : tensor<4xf32>, tensor<4xf32>, tensor<f32>
}

// -----

// expected-error @below {{'mpt.optimizer' on argument #0 requires the function to have 'mpt.optimizer'}}
func.func @override_without_spec(%w: tensor<4xf32> {mpt.param, mpt.optimizer = {lr = 0.1 : f32}}, %m: tensor<4xf32> {mpt.state})
    -> (tensor<4xf32> {mpt.next = 0}, tensor<4xf32> {mpt.next = 1}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.loss_grad %loss
  %g = mpt.broadcast %seed [0] : tensor<f32> -> tensor<4xf32>
  %w2, %m2 = mpt.sgd %w, %g, %m {lr = 0.1 : f32, momentum = 0.9 : f32} : tensor<4xf32>
  return %w2, %m2, %loss : tensor<4xf32>, tensor<4xf32>, tensor<f32>
}

// -----

// expected-error @below {{'func.func' op optimizer of parameter argument #0: option 'initial_accumulator_value' must be non-negative, got -1.000000e-01}}
func.func @negative_initial_accumulator(%w: tensor<4xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "adagrad", initial_accumulator_value = -0.1}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{'func.func' op optimizer of parameter argument #0: 'mpt.rmsprop' has no option 'initial_accumulator_value'}}
func.func @accumulator_outside_adagrad(%w: tensor<4xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "rmsprop", initial_accumulator_value = 0.1}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A slice's gradient is a tensor of its source's shape: a dynamic one has none.
func.func @dynamic_slice(%w: tensor<4xf32> {mpt.param}, %y: tensor<1xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %d = tensor.cast %w : tensor<4xf32> to tensor<?xf32>
  // expected-error @+2 {{'tensor.extract_slice' op slices a tensor of dynamic shape 'tensor<?xf32>': its gradient needs a static shape}}
  // expected-error @+1 {{'tensor.extract_slice' op failed to build its gradient}}
  %s = tensor.extract_slice %d[0] [2] [1] : tensor<?xf32> to tensor<2xf32>
  %r = mpt.reshape %s : tensor<2xf32> -> tensor<1x2xf32>
  %loss = mpt.softmax_cross_entropy %r, %y : tensor<1x2xf32>, tensor<1xi32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{'func.func' op optimizer of parameter argument #0: option 'rho' must be a number, got unit}}
func.func @switch_for_number(%w: tensor<4xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "adadelta", rho}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{'func.func' op optimizer of parameter argument #0: option 'centered' must be true or false, got 0 : i64}}
func.func @number_for_switch(%w: tensor<4xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "rmsprop", centered = 0}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{'func.func' op optimizer of parameter argument #0: 'mpt.sgd' has no option 'operandSegmentSizes'}}
func.func @segment_sizes_option(%w: tensor<4xf32> {mpt.param})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1, operandSegmentSizes = 1}} {
  %loss = mpt.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
