// Softmax regression whose loss is weighted by 1e6: its f16 weight gradients
// overflow at loss scales 1 and 0.5 and fit at 0.25. The learning rate keeps
// the weights (almost) where they start, so every step overflows alike.
func.func @train_step(%w: tensor<784x10xf32> {mpt.param}, %x: tensor<128x784xf32> {mpt.data},
                      %y: tensor<128xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 1.0e-12 : f32}} {
  %logits = mpt.matmul %x, %w : tensor<128x784xf32>, tensor<784x10xf32> -> tensor<128x10xf32>
  %ce = mpt.softmax_cross_entropy %logits, %y : tensor<128x10xf32>, tensor<128xi32>
  %weight = arith.constant dense<1.0e+06> : tensor<f32>
  %loss = arith.mulf %weight, %ce : tensor<f32>
  return %loss : tensor<f32>
}
