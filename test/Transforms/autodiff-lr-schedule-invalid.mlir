// RUN: mpt-opt %s --mpt-autodiff --split-input-file --verify-diagnostics

// expected-error @below {{optimizer of parameter argument #0: lr_schedule: field 'kind' must be "constant", "step", "warmup_cosine" or "table", got "exponential"}}
func.func @unknown_kind(%w: tensor<4xf32> {mpt.param}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1, lr_schedule = {kind = "exponential"}}} {
  %h = arith.mulf %x, %w : tensor<4xf32>
  %loss = mpt.reduce_sum %h [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{optimizer of parameter argument #0: lr_schedule of kind 'step': field 'step_size' is required}}
func.func @missing_step_size(%w: tensor<4xf32> {mpt.param}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1, lr_schedule = {kind = "step", gamma = 0.5}}} {
  %h = arith.mulf %x, %w : tensor<4xf32>
  %loss = mpt.reduce_sum %h [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{optimizer of parameter argument #0: lr_schedule of kind 'step': field 'step_size' must be an integer of at least 1, got 0 : i64}}
func.func @zero_step_size(%w: tensor<4xf32> {mpt.param}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1, lr_schedule = {kind = "step", step_size = 0}}} {
  %h = arith.mulf %x, %w : tensor<4xf32>
  %loss = mpt.reduce_sum %h [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{optimizer of parameter argument #0: lr_schedule of kind 'step': field 'gamma' must be a finite non-negative number, got "0.5"}}
func.func @string_gamma(%w: tensor<4xf32> {mpt.param}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1, lr_schedule = {kind = "step", step_size = 2, gamma = "0.5"}}} {
  %h = arith.mulf %x, %w : tensor<4xf32>
  %loss = mpt.reduce_sum %h [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{optimizer of parameter argument #0: lr_schedule of kind 'step' has no field 'warmup_steps'}}
func.func @foreign_field(%w: tensor<4xf32> {mpt.param}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1, lr_schedule = {kind = "step", step_size = 2, warmup_steps = 5}}} {
  %h = arith.mulf %x, %w : tensor<4xf32>
  %loss = mpt.reduce_sum %h [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{optimizer of parameter argument #0: lr_schedule of kind 'warmup_cosine': field 'total_steps' must be an integer of at least 11, got 10 : i64}}
func.func @short_cosine(%w: tensor<4xf32> {mpt.param}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "adamw", lr = 0.1, lr_schedule = {kind = "warmup_cosine", warmup_steps = 10, total_steps = 10}}} {
  %h = arith.mulf %x, %w : tensor<4xf32>
  %loss = mpt.reduce_sum %h [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{optimizer of parameter argument #0: lr_schedule of kind 'warmup_cosine': field 'start_factor' must be greater than 0}}
func.func @zero_start_factor(%w: tensor<4xf32> {mpt.param}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "adam", lr = 0.1, lr_schedule = {kind = "warmup_cosine", warmup_steps = 2, total_steps = 10, start_factor = 0.0}}} {
  %h = arith.mulf %x, %w : tensor<4xf32>
  %loss = mpt.reduce_sum %h [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{optimizer of parameter argument #0: lr_schedule of kind 'table': field 'values' must be a non-empty list of numbers, got []}}
func.func @empty_table(%w: tensor<4xf32> {mpt.param}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1, lr_schedule = {kind = "table", values = []}}} {
  %h = arith.mulf %x, %w : tensor<4xf32>
  %loss = mpt.reduce_sum %h [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{optimizer of parameter argument #0: lr_schedule of kind 'table': field 'values' must be a finite non-negative number, got -1.000000e-01 : f64}}
func.func @negative_rate(%w: tensor<4xf32> {mpt.param}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1, lr_schedule = {kind = "table", values = [0.1, -0.1]}}} {
  %h = arith.mulf %x, %w : tensor<4xf32>
  %loss = mpt.reduce_sum %h [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// expected-error @below {{optimizer of parameter argument #0: option 'lr_schedule' must be a dictionary, got "step"}}
func.func @not_a_dictionary(%w: tensor<4xf32> {mpt.param}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1, lr_schedule = "step"}} {
  %h = arith.mulf %x, %w : tensor<4xf32>
  %loss = mpt.reduce_sum %h [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A table's rates are absolute: a group's own lr cannot rescale them.
// expected-error @below {{optimizer of parameter argument #1: its own 'lr' does not apply to the step's 'table' schedule; give it its own 'lr_schedule'}}
func.func @table_group_lr(%w: tensor<4xf32> {mpt.param}, %b: tensor<4xf32> {mpt.param, mpt.optimizer = {lr = 0.5}},
                          %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1, lr_schedule = {kind = "table", values = [0.1, 0.2]}}} {
  %h = arith.mulf %x, %w : tensor<4xf32>
  %o = arith.addf %h, %b : tensor<4xf32>
  %loss = mpt.reduce_sum %o [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// RMSprop has a default rate, but a schedule of it would be a rate nobody
// chose: without 'lr' the schedule's base rate was silently 0.
// expected-error @below {{optimizer of parameter argument #0: 'lr_schedule' needs 'lr', the base rate it schedules}}
func.func @schedule_without_lr(%w: tensor<4xf32> {mpt.param}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "rmsprop", lr_schedule = {kind = "step", step_size = 10}}} {
  %h = arith.mulf %x, %w : tensor<4xf32>
  %loss = mpt.reduce_sum %h [0] : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
