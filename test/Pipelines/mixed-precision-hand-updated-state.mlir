// RUN: mpt-opt %s --mpt-mixed-precision -verify-diagnostics
// A running mean that batch norm reads (so mpt-norm-stats-fp32 keeps it in
// f32 from one step to the next) but that the step updates by hand in f16:
// the promoted state still loses every update below half an f16 spacing,
// and mpt-check-mixed-precision, last in the pipeline, rejects it there as
// it does on the source (test/Transforms/check-mixed-precision.mlir).

func.func @train_step(%x: tensor<2x4x3x3xf16> {mpt.data}, %g: tensor<4xf16> {mpt.param}, %b: tensor<4xf16> {mpt.param},
                      %rm: tensor<4xf16> {mpt.state}, %rv: tensor<4xf16> {mpt.state}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"}, tensor<4xf16> {mpt.next = 3}, tensor<4xf16> {mpt.next = 4})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 1.0e-01 : f32}} {
  %n, %mean, %invstd, %rm_next, %rv_next = mpt.batch_norm %x, %g, %b, %rm, %rv {momentum = 1.0e-01 : f32} : tensor<2x4x3x3xf16>, tensor<4xf16>
  %pooled = mpt.reduce_sum %n [2, 3] : tensor<2x4x3x3xf16> -> tensor<2x4xf16>
  %logits = arith.extf %pooled : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<2x4xf32>, tensor<2xi32>
  %mean16 = arith.addf %mean, %mean : tensor<4xf16>
  %keep = arith.constant dense<0.9> : tensor<4xf16>
  %take = arith.constant dense<0.1> : tensor<4xf16>
  %old = arith.mulf %keep, %rm : tensor<4xf16>
  %new = arith.mulf %take, %mean16 : tensor<4xf16>
  // expected-error @+1 {{updates state argument #3 (result #1) by hand in 'f16': running statistics and buffers accumulated in low precision lose every update smaller than half their spacing; keep the state in f32}}
  %rm_by_hand = arith.addf %old, %new : tensor<4xf16>
  return %loss, %rm_by_hand, %rv_next : tensor<f32>, tensor<4xf16>, tensor<4xf16>
}
