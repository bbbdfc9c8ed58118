// RUN: mpt-opt %s -split-input-file -verify-diagnostics --mpt-round-data-in-caller

// A step whose symbol is used other than by a call cannot have its callers
// round its batch: the pass says where, and changes nothing.

func.func @train_step(%x: tensor<4xf32> {mpt.data}) -> tensor<4xf16> attributes {mpt.eval_step} {
  %x16 = arith.truncf %x : tensor<4xf32> to tensor<4xf16>
  return %x16 : tensor<4xf16>
}
func.func @take_address() -> ((tensor<4xf32>) -> tensor<4xf16>) {
  // expected-error @+1 {{'func.constant' op uses @train_step, whose data inputs its callers round, other than by a call}}
  %f = func.constant @train_step : (tensor<4xf32>) -> tensor<4xf16>
  return %f : (tensor<4xf32>) -> tensor<4xf16>
}
