// RUN: mpt-opt %s -split-input-file -verify-diagnostics

func.func @empty_bucket() {
  // expected-error @+1 {{'mpt.all_reduce' op reduces no tensor: a bucket needs at least one}}
  "mpt.all_reduce"() {kind = 0 : i32} : () -> ()
  return
}

// -----

func.func @result_type(%g: tensor<4xf16>) {
  // expected-error @+2 {{'mpt.all_reduce' op inferred type(s) 'tensor<4xf16>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'mpt.all_reduce' op failed to infer returned types}}
  %r = "mpt.all_reduce"(%g) {kind = 0 : i32} : (tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @unknown_kind(%g: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max]}}
  %r = mpt.all_reduce min %g : tensor<4xf32>
  return
}

// -----

func.func @integer(%g: tensor<4xi32>) {
  // expected-error @+1 {{'mpt.all_reduce' op operand #0 must be variadic of statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<4xi32>'}}
  %r = mpt.all_reduce sum %g : tensor<4xi32>
  return
}

// -----

func.func @world_size(%loss: tensor<f32>) {
  // expected-error @+1 {{'mpt.loss_grad' op attribute 'world_size' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %seed = mpt.loss_grad %loss {world_size = 0 : i64}
  return
}
