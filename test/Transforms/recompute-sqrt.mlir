// RUN: mpt-opt %s --mpt-autodiff --mpt-recompute | FileCheck %s --check-prefix=SQRT
// RUN: mpt-opt %s --mpt-autodiff --mpt-recompute=policy=sqrt --cse --canonicalize | FileCheck %s --check-prefix=SQRT

// policy=sqrt on a chain of 10 ops of 16 KiB each, every one read by the
// backward: about sqrt(10) segments, ended where the fewest bytes cross (any
// op here). It ends them after %h2 and %h5, which are kept; the backward
// recomputes %h3, %h4 from %h2 and %h0, %h1 from %x and %w, and reads the
// last segment's (%h5 to %h8) as they are.

// SQRT-LABEL: func.func @chain
// SQRT-SAME: (%[[W:.*]]: tensor<64x64xf32> {mpt.param}, %[[X:.*]]: tensor<64x64xf32> {mpt.data})
// SQRT: %[[H0:.*]] = mpt.matmul %[[X]], %[[W]] :
// SQRT: %[[H1:.*]] = mpt.gelu %[[H0]]
// SQRT: %[[H2:.*]] = mpt.gelu %[[H1]]
// SQRT: %[[H3:.*]] = mpt.gelu %[[H2]]
// SQRT: %[[H4:.*]] = mpt.gelu %[[H3]]
// SQRT: %[[H5:.*]] = mpt.gelu %[[H4]]
// SQRT: %[[H6:.*]] = mpt.gelu %[[H5]]
// SQRT: %[[H7:.*]] = mpt.gelu %[[H6]]
// SQRT: %[[H8:.*]] = mpt.gelu %[[H7]]
// SQRT: mpt.loss_grad
// SQRT: %[[D8:.*]] = mpt.gelu_grad %{{.*}}, %[[H8]]
// SQRT-NEXT: %[[D7:.*]] = mpt.gelu_grad %[[D8]], %[[H7]]
// SQRT-NEXT: %[[D6:.*]] = mpt.gelu_grad %[[D7]], %[[H6]]
// SQRT-NEXT: %[[D5:.*]] = mpt.gelu_grad %[[D6]], %[[H5]]
// SQRT-NEXT: %[[K2:.*]] = mpt.recompute_barrier %[[H2]]
// SQRT-NEXT: %[[C3:.*]] = mpt.gelu %[[K2]]
// SQRT-NEXT: %[[C4:.*]] = mpt.gelu %[[C3]]
// SQRT-NEXT: %[[D4:.*]] = mpt.gelu_grad %[[D5]], %[[C4]]
// SQRT-NEXT: %[[D3:.*]] = mpt.gelu_grad %[[D4]], %[[C3]]
// SQRT-NEXT: %[[D2:.*]] = mpt.gelu_grad %[[D3]], %[[H2]]
// SQRT-NEXT: %[[KX:.*]] = mpt.recompute_barrier %[[X]]
// SQRT-NEXT: %[[KW:.*]] = mpt.recompute_barrier %[[W]]
// SQRT-NEXT: %[[C0:.*]] = mpt.matmul %[[KX]], %[[KW]]
// SQRT-NEXT: %[[C1:.*]] = mpt.gelu %[[C0]]
// SQRT-NEXT: %[[D1:.*]] = mpt.gelu_grad %[[D2]], %[[C1]]
// SQRT-NEXT: mpt.gelu_grad %[[D1]], %[[C0]]
func.func @chain(%w: tensor<64x64xf32> {mpt.param}, %x: tensor<64x64xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 0.1 : f32}} {
  %h0 = mpt.matmul %x, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %h1 = mpt.gelu %h0 : tensor<64x64xf32>
  %h2 = mpt.gelu %h1 : tensor<64x64xf32>
  %h3 = mpt.gelu %h2 : tensor<64x64xf32>
  %h4 = mpt.gelu %h3 : tensor<64x64xf32>
  %h5 = mpt.gelu %h4 : tensor<64x64xf32>
  %h6 = mpt.gelu %h5 : tensor<64x64xf32>
  %h7 = mpt.gelu %h6 : tensor<64x64xf32>
  %h8 = mpt.gelu %h7 : tensor<64x64xf32>
  %h9 = mpt.gelu %h8 : tensor<64x64xf32>
  %loss = mpt.reduce_sum %h9 [0, 1] : tensor<64x64xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
