// A linear classifier of 784 pixels into 3 classes, batch 16, trained by
// Adam: mpt-autodiff adds the backward pass and the optimizer state
// (w.exp_avg, w.exp_avg_sq and the step count w.step).
func.func @train_step(%w: tensor<784x3xf32> {mpt.param}, %x: tensor<16x784xf32> {mpt.data},
                      %y: tensor<16xi32> {mpt.data}) -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "adam", lr = 1.0e-03 : f32}} {
  %logits = mpt.matmul %x, %w : tensor<16x784xf32>, tensor<784x3xf32> -> tensor<16x3xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<16x3xf32>, tensor<16xi32>
  return %loss : tensor<f32>
}
