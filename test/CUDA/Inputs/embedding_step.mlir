// A bag-of-words classifier over learned token and position embeddings (the
// inputs of GPT), forward only: mpt-autodiff builds the backward, whose table
// gradient is mpt.embedding_grad's scatter-add. The ids repeat (step_main.py
// gives integer data index mod 10), so rows of the table sum several terms.
func.func @train_step(%tokens: tensor<16x32xf32> {mpt.param}, %positions: tensor<12x32xf32> {mpt.param},
                      %w: tensor<32x10xf32> {mpt.param}, %b: tensor<10xf32> {mpt.param},
                      %ids: tensor<8x12xi32> {mpt.data}, %y: tensor<8xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "adam", lr = 1.0e-2 : f32}} {
  %e = mpt.embedding %tokens, %ids : tensor<16x32xf32>, tensor<8x12xi32> -> tensor<8x12x32xf32>
  %p = mpt.broadcast %positions [0] : tensor<12x32xf32> -> tensor<8x12x32xf32>
  %h = arith.addf %e, %p : tensor<8x12x32xf32>
  %g = mpt.gelu %h : tensor<8x12x32xf32>
  %s = mpt.reduce_sum %g [1] : tensor<8x12x32xf32> -> tensor<8x32xf32>
  %z = mpt.matmul %s, %w : tensor<8x32xf32>, tensor<32x10xf32> -> tensor<8x10xf32>
  %l = mpt.bias_add %z, %b : tensor<8x10xf32>, tensor<10xf32>
  %loss = mpt.softmax_cross_entropy %l, %y : tensor<8x10xf32>, tensor<8xi32>
  return %loss : tensor<f32>
}
