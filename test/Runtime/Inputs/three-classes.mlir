// A linear classifier of 784 pixels into 3 classes, batch 16.
func.func @train_step(%w: tensor<784x3xf32> {mpt.param}, %x: tensor<16x784xf32> {mpt.data},
                      %y: tensor<16xi32> {mpt.data})
    -> (tensor<784x3xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %logits = mpt.matmul %x, %w : tensor<16x784xf32>, tensor<784x3xf32> -> tensor<16x3xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<16x3xf32>, tensor<16xi32>
  %seed = mpt.loss_grad %loss
  %dlogits = mpt.softmax_cross_entropy_grad %seed, %logits, %y : tensor<16x3xf32>, tensor<16xi32>
  %dw = mpt.matmul %x, %dlogits {transpose_a} : tensor<16x784xf32>, tensor<16x3xf32> -> tensor<784x3xf32>
  %w2 = mpt.sgd %w, %dw {lr = 0.01 : f32} : tensor<784x3xf32>
  return %w2, %loss : tensor<784x3xf32>, tensor<f32>
}
