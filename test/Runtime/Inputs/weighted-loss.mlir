// Softmax regression whose loss is half the cross-entropy, trained with SGD
// at lr 0.2, its gradient norm reported (clipping at a norm it never reaches)
// and the cross-entropy itself as the metric "ce". The same step on the whole
// cross-entropy at lr 0.1 (weighted-loss.test makes it) takes exactly the
// same steps: halving is exact in floating point.
func.func @train_step(%w: tensor<784x10xf32> {mpt.param}, %x: tensor<32x784xf32> {mpt.data},
                      %y: tensor<32xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"}, tensor<f32> {mpt.metric = "ce"})
    attributes {mpt.train_step, mpt.clip_grad_norm = 1.0e+30 : f32,
                mpt.optimizer = {kind = "sgd", lr = 2.0e-01 : f32}} {
  %logits = mpt.matmul %x, %w : tensor<32x784xf32>, tensor<784x10xf32> -> tensor<32x10xf32>
  %ce = mpt.softmax_cross_entropy %logits, %y : tensor<32x10xf32>, tensor<32xi32>
  %weight = arith.constant dense<5.000000e-01> : tensor<f32>
  %loss = arith.mulf %weight, %ce : tensor<f32>
  return %loss, %ce : tensor<f32>, tensor<f32>
}
