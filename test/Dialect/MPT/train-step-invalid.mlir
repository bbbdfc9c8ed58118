// RUN: mpt-opt %s -split-input-file -verify-diagnostics

// Errors on a function signature are reported at the function.

//===----------------------------------------------------------------------===//
// mpt.train_step
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'func.func' op marked 'mpt.train_step' must have a body}}
func.func private @declaration(tensor<4xf32> {mpt.param}) -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step}

// -----

// expected-error @+1 {{'mpt.train_step' must be a unit attribute on a function}}
func.func @train_step_not_unit() attributes {mpt.train_step = true} {
  return
}

// -----

func.func @train_step_on_op() {
  // expected-error @+1 {{'mpt.train_step' must be a unit attribute on a function}}
  %0 = arith.constant {mpt.train_step} dense<0.0> : tensor<4xf32>
  return
}

// -----

// expected-error @+1 {{'mpt.train_step' must be a unit attribute on a function}}
module attributes {mpt.train_step} {
}

// -----

//===----------------------------------------------------------------------===//
// Argument roles
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'func.func' op argument #1 has no role: mark it 'mpt.param', 'mpt.state' or 'mpt.data'}}
func.func @no_role(%x: tensor<4xf32> {mpt.data}, %w: tensor<4xf32>) attributes {mpt.train_step} {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has more than one role ('mpt.param' and 'mpt.state')}}
func.func @two_roles(%w: tensor<4xf32> {mpt.param, mpt.state}) -> (tensor<4xf32> {mpt.next = 0})
    attributes {mpt.train_step} {
  return %w : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument #1 has more than one role ('mpt.state' and 'mpt.data')}}
func.func @state_and_data(%x: tensor<4xf32> {mpt.data}, %s: tensor<4xf32> {mpt.data, mpt.state})
    attributes {mpt.train_step} {
  return
}

// -----

//===----------------------------------------------------------------------===//
// Result roles
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'func.func' op result #0 has no role: mark it 'mpt.next = <argument index>' or 'mpt.metric = "<name>"'}}
func.func @result_no_role(%x: tensor<4xf32> {mpt.data}) -> tensor<4xf32> attributes {mpt.train_step} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #0 is both 'mpt.next' and 'mpt.metric'}}
func.func @next_and_metric(%s: tensor<f32> {mpt.state}) -> (tensor<f32> {mpt.next = 0, mpt.metric = "loss"})
    attributes {mpt.train_step} {
  return %s : tensor<f32>
}

// -----

// expected-error @+1 {{'func.func' op metric 'loss' (result #0) must be a rank-0 tensor, got 'tensor<4xf32>'}}
func.func @metric_not_scalar(%x: tensor<4xf32> {mpt.data}) -> (tensor<4xf32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op metric 'loss' (result #0) must be a rank-0 tensor, got 'f32'}}
func.func @metric_not_tensor(%x: f32 {mpt.data}) -> (f32 {mpt.metric = "loss"}) attributes {mpt.train_step} {
  return %x : f32
}

// -----

// expected-error @+1 {{'func.func' op metric 'loss' is returned by both result #0 and result #2}}
func.func @duplicate_metric(%x: tensor<f32> {mpt.data}, %y: tensor<f32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"}, tensor<f32> {mpt.metric = "acc"}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  return %x, %y, %y : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{'func.func' op result #0 has 'mpt.next = 1' out of range for 1 arguments}}
func.func @next_out_of_range(%s: tensor<4xf32> {mpt.state}) -> (tensor<4xf32> {mpt.next = 1})
    attributes {mpt.train_step} {
  return %s : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #0 has 'mpt.next = -1' out of range for 1 arguments}}
func.func @next_negative(%s: tensor<4xf32> {mpt.state}) -> (tensor<4xf32> {mpt.next = -1})
    attributes {mpt.train_step} {
  return %s : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #1 carries data argument #1; only 'mpt.param' and 'mpt.state' arguments are carried}}
func.func @next_of_data(%s: tensor<4xf32> {mpt.state}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}, tensor<4xf32> {mpt.next = 1})
    attributes {mpt.train_step} {
  return %s, %x : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #0 has type 'tensor<4xf16>' but replaces argument #0 of type 'tensor<4xf32>'}}
func.func @next_type_mismatch(%s: tensor<4xf32> {mpt.state}) -> (tensor<4xf16> {mpt.next = 0})
    attributes {mpt.train_step} {
  %0 = arith.truncf %s : tensor<4xf32> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 is carried by both result #0 and result #2}}
func.func @carried_twice(%s: tensor<4xf32> {mpt.state}, %t: tensor<4xf32> {mpt.state})
    -> (tensor<4xf32> {mpt.next = 0}, tensor<4xf32> {mpt.next = 1}, tensor<4xf32> {mpt.next = 0})
    attributes {mpt.train_step} {
  return %s, %t, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'mpt.state' argument #1 is never carried: no result has 'mpt.next = 1'}}
func.func @state_never_carried(%s: tensor<4xf32> {mpt.state}, %t: tensor<4xf32> {mpt.state})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  return %s : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'mpt.param' argument #0 is never carried: no result has 'mpt.next = 0'}}
func.func @param_never_carried(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  %c:2 = mpt.clip_grad_norm %w2 {max_norm = 1.0 : f32} : tensor<4xf32>
  return %c#1 : tensor<f32>
}

// -----

// expected-error @+1 {{'func.func' op 'mpt.param' argument #0 is not updated by any optimizer}}
func.func @param_not_optimized(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// The parameter feeds the optimizer as a gradient, not as the parameter.
// expected-error @+1 {{'func.func' op 'mpt.param' argument #0 is not updated by any optimizer}}
func.func @param_only_as_grad(%w: tensor<4xf32> {mpt.param}, %v: tensor<4xf32> {mpt.param})
    -> (tensor<4xf32> {mpt.next = 0}, tensor<4xf32> {mpt.next = 1}) attributes {mpt.train_step} {
  %v2 = mpt.sgd %v, %w {lr = 0.1 : f32} : tensor<4xf32>
  return %w, %v2 : tensor<4xf32>, tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Carried updates
//===----------------------------------------------------------------------===//

// Two same-typed parameters with their updates swapped.
// expected-error @+1 {{'func.func' op result #0 replaces argument #0 but returns an update of argument #1}}
func.func @swapped_params(%w: tensor<2xf32> {mpt.param}, %v: tensor<2xf32> {mpt.param}, %g: tensor<2xf32> {mpt.data})
    -> (tensor<2xf32> {mpt.next = 0}, tensor<2xf32> {mpt.next = 1}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<2xf32>
  %v2 = mpt.sgd %v, %g {lr = 0.1 : f32} : tensor<2xf32>
  return %v2, %w2 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Adam's two moment estimates swapped.
// expected-error @+1 {{'func.func' op result #1 replaces argument #1 but returns an update of argument #2}}
func.func @swapped_adam_state(%w: tensor<2xf32> {mpt.param}, %m: tensor<2xf32> {mpt.state},
                              %v: tensor<2xf32> {mpt.state}, %t: tensor<i64> {mpt.state}, %g: tensor<2xf32> {mpt.data})
    -> (tensor<2xf32> {mpt.next = 0}, tensor<2xf32> {mpt.next = 1}, tensor<2xf32> {mpt.next = 2}, tensor<i64> {mpt.next = 3})
    attributes {mpt.train_step} {
  %w2, %m2, %v2, %t2 = mpt.adam %w, %g, %m, %v, %t {lr = 1.0e-3 : f32} : tensor<2xf32>, tensor<i64>
  return %w2, %v2, %m2, %t2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i64>
}

// -----

// Batch-norm running statistics swapped.
// expected-error @+1 {{'func.func' op result #1 replaces argument #1 but returns an update of argument #2}}
func.func @swapped_running_stats(%g: tensor<3xf32> {mpt.param}, %rm: tensor<3xf32> {mpt.state},
                                 %rv: tensor<3xf32> {mpt.state}, %x: tensor<4x3xf32> {mpt.data})
    -> (tensor<3xf32> {mpt.next = 0}, tensor<3xf32> {mpt.next = 1}, tensor<3xf32> {mpt.next = 2})
    attributes {mpt.train_step} {
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %g, %rm, %rv : tensor<4x3xf32>, tensor<3xf32>
  %g2 = mpt.sgd %g, %mean {lr = 0.1 : f32} : tensor<3xf32>
  return %g2, %rv2, %rm2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// The optimizer updates a computed value, not the parameter argument.
// expected-error @+1 {{'func.func' op result #0 replaces argument #0 but returns an update of a value that is not an argument}}
func.func @update_of_non_argument(%w: tensor<2xf32> {mpt.param}, %g: tensor<2xf32> {mpt.data})
    -> (tensor<2xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %sum = arith.addf %w, %g : tensor<2xf32>
  %w2 = mpt.sgd %sum, %g {lr = 0.1 : f32} : tensor<2xf32>
  return %w2 : tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mpt.init and mpt.working_copy_of
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'func.func' op argument #0 has 'mpt.init' but is not 'mpt.state'}}
func.func @init_on_param(%w: tensor<2xf32> {mpt.param, mpt.init = dense<1.0> : tensor<2xf32>}, %g: tensor<2xf32> {mpt.data})
    -> (tensor<2xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<2xf32>
  return %w2 : tensor<2xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has 'mpt.init' but is not 'mpt.state'}}
func.func @init_on_data(%x: tensor<2xf32> {mpt.data, mpt.init = dense<1.0> : tensor<2xf32>}) attributes {mpt.train_step} {
  return
}

// -----

// expected-error @+1 {{'mpt.init' on argument #0 must be a dense elements attribute of the argument type 'tensor<2xf32>'}}
func.func @init_not_dense(%s: tensor<2xf32> {mpt.state, mpt.init = 1.0 : f32}) -> (tensor<2xf32> {mpt.next = 0})
    attributes {mpt.train_step} {
  return %s : tensor<2xf32>
}

// -----

// expected-error @+1 {{'mpt.init' on argument #0 must be a dense elements attribute of the argument type 'tensor<2xf32>'}}
func.func @init_wrong_type(%s: tensor<2xf32> {mpt.state, mpt.init = dense<0.0> : tensor<3xf32>}) -> (tensor<2xf32> {mpt.next = 0})
    attributes {mpt.train_step} {
  return %s : tensor<2xf32>
}

// -----

// expected-error @+1 {{'mpt.init' on argument #0 must be a dense elements attribute of the argument type 'tensor<i64>'}}
func.func @init_wrong_element_type(%s: tensor<i64> {mpt.state, mpt.init = dense<0> : tensor<i32>}) -> (tensor<i64> {mpt.next = 0})
    attributes {mpt.train_step} {
  return %s : tensor<i64>
}

// -----

// expected-error @+1 {{'func.func' op 'mpt.init' on argument #0 requires the function to be marked 'mpt.train_step'}}
func.func @init_without_train_step(%s: tensor<2xf32> {mpt.init = dense<0.0> : tensor<2xf32>}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #1 has 'mpt.working_copy_of = 0' but only a state argument can be the working copy of a parameter argument}}
func.func @working_copy_of_param(%w: tensor<2xf32> {mpt.param}, %v: tensor<2xf32> {mpt.param, mpt.working_copy_of = 0},
                                 %g: tensor<2xf32> {mpt.data})
    -> (tensor<2xf32> {mpt.next = 0}, tensor<2xf32> {mpt.next = 1}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<2xf32>
  %v2 = mpt.sgd %v, %g {lr = 0.1 : f32} : tensor<2xf32>
  return %w2, %v2 : tensor<2xf32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has 'mpt.working_copy_of = -1' but only a state argument can be the working copy of a parameter argument}}
func.func @working_copy_of_negative(%s: tensor<2xf16> {mpt.state, mpt.working_copy_of = -1})
    -> (tensor<2xf16> {mpt.next = 0}) attributes {mpt.train_step} {
  return %s : tensor<2xf16>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has 'mpt.working_copy_of = 1' but only a state argument can be the working copy of a parameter argument}}
func.func @working_copy_of_out_of_range(%s: tensor<2xf16> {mpt.state, mpt.working_copy_of = 1})
    -> (tensor<2xf16> {mpt.next = 0}) attributes {mpt.train_step} {
  return %s : tensor<2xf16>
}

// -----

// expected-error @+1 {{'func.func' op argument #1 has 'mpt.working_copy_of = 0' but only a state argument can be the working copy of a parameter argument}}
func.func @working_copy_of_state(%m: tensor<2xf32> {mpt.state}, %s: tensor<2xf16> {mpt.state, mpt.working_copy_of = 0})
    -> (tensor<2xf32> {mpt.next = 0}, tensor<2xf16> {mpt.next = 1}) attributes {mpt.train_step} {
  return %m, %s : tensor<2xf32>, tensor<2xf16>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has 'mpt.working_copy_of = 0' but only a state argument can be the working copy of a parameter argument}}
func.func @working_copy_of_self(%s: tensor<2xf16> {mpt.state, mpt.working_copy_of = 0})
    -> (tensor<2xf16> {mpt.next = 0}) attributes {mpt.train_step} {
  return %s : tensor<2xf16>
}

// -----

// expected-error @+1 {{'func.func' op working copy argument #1 of type 'tensor<3x2xf16>' does not have the shape of parameter #0 ('tensor<2x3xf32>')}}
func.func @working_copy_shape(%w: tensor<2x3xf32> {mpt.param}, %c: tensor<3x2xf16> {mpt.state, mpt.working_copy_of = 0},
                              %g: tensor<2x3xf32> {mpt.data})
    -> (tensor<2x3xf32> {mpt.next = 0}, tensor<3x2xf16> {mpt.next = 1}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<2x3xf32>
  return %w2, %c : tensor<2x3xf32>, tensor<3x2xf16>
}

// -----

// expected-error @+1 {{'mpt.working_copy_of' on argument #0 must be an i64 argument index}}
func.func @working_copy_of_not_integer(%s: tensor<2xf16> {mpt.working_copy_of = "w"}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'mpt.working_copy_of' on argument #0 requires the function to be marked 'mpt.train_step'}}
func.func @working_copy_of_without_train_step(%s: tensor<2xf16> {mpt.working_copy_of = 0}) {
  return
}

// -----

//===----------------------------------------------------------------------===//
// Argument and result attributes
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'func.func' op 'mpt.param' on argument #0 requires the function to be marked 'mpt.train_step'}}
func.func @param_without_train_step(%w: tensor<4xf32> {mpt.param}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'mpt.data' on argument #1 requires the function to be marked 'mpt.train_step'}}
func.func @data_without_train_step(%x: tensor<4xf32>, %y: tensor<4xf32> {mpt.data}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'mpt.next' on result #0 requires the function to be marked 'mpt.train_step'}}
func.func @next_without_train_step(%s: tensor<4xf32>) -> (tensor<4xf32> {mpt.next = 0}) {
  return %s : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'mpt.metric' on result #0 requires the function to be marked 'mpt.train_step'}}
func.func @metric_without_train_step(%s: tensor<f32>) -> (tensor<f32> {mpt.metric = "loss"}) {
  return %s : tensor<f32>
}

// -----

// expected-error @+1 {{'mpt.state' on argument #0 must be a unit attribute}}
func.func @role_not_unit(%w: tensor<4xf32> {mpt.state = 1 : i32}) -> (tensor<4xf32> {mpt.next = 0})
    attributes {mpt.train_step} {
  return %w : tensor<4xf32>
}

// -----

// expected-error @+1 {{'mpt.data' on argument #0 must be a unit attribute}}
func.func @data_not_unit(%x: tensor<4xf32> {mpt.data = "x"}) attributes {mpt.train_step} {
  return
}

// -----

// expected-error @+1 {{unknown mpt argument attribute 'mpt.trainable' on argument #0}}
func.func @unknown_argument_attr(%x: tensor<4xf32> {mpt.data, mpt.trainable}) attributes {mpt.train_step} {
  return
}

// -----

// expected-error @+1 {{unknown mpt argument attribute 'mpt.parm' on argument #0}}
func.func @unknown_argument_attr_plain(%x: tensor<4xf32> {mpt.parm}) {
  return
}

// -----

// expected-error @+1 {{unknown mpt result attribute 'mpt.scale' on result #0}}
func.func @unknown_result_attr(%x: tensor<f32> {mpt.data}) -> (tensor<f32> {mpt.metric = "loss", mpt.scale})
    attributes {mpt.train_step} {
  return %x : tensor<f32>
}

// -----

// expected-error @+1 {{'mpt.metric' on result #0 must be a non-empty string}}
func.func @metric_empty(%x: tensor<f32> {mpt.data}) -> (tensor<f32> {mpt.metric = ""}) attributes {mpt.train_step} {
  return %x : tensor<f32>
}

// -----

// expected-error @+1 {{'mpt.metric' on result #0 must be a non-empty string}}
func.func @metric_not_string(%x: tensor<f32>) -> (tensor<f32> {mpt.metric = 1 : i64}) {
  return %x : tensor<f32>
}

// -----

// expected-error @+1 {{'mpt.next' on result #0 must be an i64 argument index}}
func.func @next_not_integer(%x: tensor<f32>) -> (tensor<f32> {mpt.next = "0"}) {
  return %x : tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// Operation attributes
//===----------------------------------------------------------------------===//

func.func @unknown_op_attr(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown mpt attribute 'mpt.fused' on an operation}}
  %0 = mpt.relu %x {mpt.fused} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown mpt attribute 'mpt.trainstep' on an operation}}
func.func @unknown_func_attr() attributes {mpt.trainstep} {
  return
}

// -----

func.func @precision_not_precision(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mpt.precision' must be a #mpt.precision<...> attribute, got "fp32"}}
  %0 = mpt.relu %x {mpt.precision = "fp32"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @precision_on_return(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mpt.precision' pins the precision of a compute op, but 'func.return' has no precision policy}}
  return {mpt.precision = #mpt.precision<fp32>} %x : tensor<4xf32>
}

// -----

func.func @precision_on_constant() -> tensor<4xf32> {
  // expected-error @+1 {{'mpt.precision' pins the precision of a compute op, but 'arith.constant' has no precision policy}}
  %0 = arith.constant {mpt.precision = #mpt.precision<fp32>} dense<1.0> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'mpt.precision' pins the precision of a compute op, but 'func.func' has no precision policy}}
func.func @precision_on_func() attributes {mpt.precision = #mpt.precision<lower>} {
  return
}

// -----

// A bare return is func.return's error, not a crash of the conventions check.
func.func @bare_return(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  // expected-error @+1 {{'func.return' op has 0 operands, but enclosing function (@bare_return) returns 1}}
  return
}

// -----

// expected-error @+1 {{'func.func' op working copy argument #1 of type 'f16' does not have the shape of parameter #0 ('tensor<4xf32>')}}
func.func @working_copy_not_tensor(%w: tensor<4xf32> {mpt.param}, %c: f16 {mpt.state, mpt.working_copy_of = 0}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}, f16 {mpt.next = 1}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  return %w2, %c : tensor<4xf32>, f16
}

// -----

// expected-error @+1 {{'mpt.next' on result #0 must be an i64 argument index}}
func.func @next_too_wide(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 18446744073709551616 : i128}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'mpt.param' argument #0 is updated by more than one optimizer}}
func.func @two_optimizers(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  %w3 = mpt.sgd %w, %g {lr = 0.2 : f32} : tensor<4xf32>
  return %w3 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #0 returns argument #0 unchanged although an optimizer updates it}}
func.func @update_dropped(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

func.func @train(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  return %w2 : tensor<4xf32>
}
// expected-error @+1 {{'func.func' op argument #0 reads training-step argument #1, which is not a parameter or state argument}}
func.func @eval_reads_data(%g: tensor<4xf32> {mpt.state_of = 1}) attributes {mpt.eval_step} {
  return
}

// -----

func.func @train(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  return %w2 : tensor<4xf32>
}
// expected-error @+1 {{'func.func' op argument #0 has type 'tensor<4xf16>' but training-step argument #0 has type 'tensor<4xf32>'}}
func.func @eval_wrong_type(%w: tensor<4xf16> {mpt.state_of = 0}) attributes {mpt.eval_step} {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #1 must be either 'mpt.data' or 'mpt.state_of = <training-step argument>'}}
func.func @eval_no_role(%x: tensor<4xf32> {mpt.data}, %y: tensor<4xf32>) attributes {mpt.eval_step} {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'mpt.state_of' on argument #0 requires the function to be marked 'mpt.eval_step'}}
func.func @state_of_outside_eval(%x: tensor<4xf32> {mpt.state_of = 0}) {
  return
}

// -----

// The runtime runs one training step: a second one is rejected, not ignored.

func.func @train(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  return %w2 : tensor<4xf32>
}
// expected-error @+1 {{'func.func' op is a second 'mpt.train_step' function in the module (the first is @train); a module holds one training step and at most one evaluation step}}
func.func @train_again(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.2 : f32} : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

func.func @train(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  return %w2 : tensor<4xf32>
}
func.func @predict(%w: tensor<4xf32> {mpt.state_of = 0}) -> tensor<4xf32> attributes {mpt.eval_step} {
  return %w : tensor<4xf32>
}
// expected-error @+1 {{'func.func' op is a second 'mpt.eval_step' function in the module (the first is @predict); a module holds one training step and at most one evaluation step}}
func.func @predict_again(%w: tensor<4xf32> {mpt.state_of = 0}) -> tensor<4xf32> attributes {mpt.eval_step} {
  return %w : tensor<4xf32>
}

// -----

// mpt.carried_in_place: one argument index (or -1) per result.

// expected-error @+1 {{'mpt.carried_in_place' must be an array of i64 with one entry per result of a function}}
func.func @carried_count(%w: memref<4xf32>) -> memref<4xf32>
    attributes {mpt.carried_in_place = array<i64: 0, -1>} {
  return %w : memref<4xf32>
}

// -----

// expected-error @+1 {{'mpt.carried_in_place' names argument 1 of a function with 1 arguments}}
func.func @carried_out_of_range(%w: memref<4xf32>) -> memref<4xf32>
    attributes {mpt.carried_in_place = array<i64: 1>} {
  return %w : memref<4xf32>
}

// -----

// A frozen parameter (`mpt.frozen` beside `mpt.param`) is neither carried nor
// updated.

// expected-error @+1 {{'mpt.frozen' on argument #0 must be a unit attribute on an 'mpt.param' argument}}
func.func @frozen_state(%s: tensor<4xf32> {mpt.state, mpt.frozen})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  return %s : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #0 carries argument #0, which is 'mpt.frozen': a frozen parameter keeps its value}}
func.func @frozen_carried(%w: tensor<4xf32> {mpt.param, mpt.frozen})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  return %w : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 is 'mpt.frozen' but an optimizer updates it}}
func.func @frozen_updated(%w: tensor<4xf32> {mpt.param, mpt.frozen}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "w"}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 1.0e-01 : f32} : tensor<4xf32>
  %s = mpt.reduce_sum %w2 [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
