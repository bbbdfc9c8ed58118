// RUN: mpt-opt %s -split-input-file -verify-diagnostics

func.func @p_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mpt.dropout' op expects p, the probability of zeroing an element, in [0, 1), got 1.000000e+00}}
  %y = mpt.dropout %x {p = 1.0 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @p_negative(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mpt.dropout' op expects p, the probability of zeroing an element, in [0, 1), got -5.000000e-01}}
  %y = mpt.dropout %x {p = -0.5 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @p_nan(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mpt.dropout' op expects p, the probability of zeroing an element, in [0, 1), got nan}}
  %y = mpt.dropout %x {p = 0x7FF8000000000000 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @result_shape(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'mpt.dropout' op failed to verify that all of {input, result} have same type}}
  %y = "mpt.dropout"(%x) {p = 0.5 : f64} : (tensor<4xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @result_type(%x: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'mpt.dropout' op failed to verify that all of {input, result} have same type}}
  %y = "mpt.dropout"(%x) {p = 0.5 : f64} : (tensor<4xf16>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @counter_shape(%x: tensor<4xf32>, %counter: tensor<1xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{'mpt.dropout' op operand #1 must be 0D tensor of 64-bit signless integer values}}
  %y = "mpt.dropout"(%x, %counter) {p = 0.5 : f64} : (tensor<4xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @counter_type(%x: tensor<4xf32>, %counter: tensor<i32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mpt.dropout' op operand #1 must be 0D tensor of 64-bit signless integer values}}
  %y = "mpt.dropout"(%x, %counter) {p = 0.5 : f64} : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @integer_input(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'mpt.dropout' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float values}}
  %y = "mpt.dropout"(%x) {p = 0.5 : f64} : (tensor<4xi32>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

func.func @predict(%x: tensor<4xf32> {mpt.data}) -> tensor<4xf32> attributes {mpt.eval_step} {
  // expected-error @+1 {{'mpt.dropout' op in 'predict', marked 'mpt.eval_step': evaluation runs without dropout (the identity)}}
  %y = mpt.dropout %x {p = 0.5 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}
