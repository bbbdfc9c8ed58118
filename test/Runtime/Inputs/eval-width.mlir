// An eval step whose logits are wider than the loss has classes.
func.func @train_step(%w: tensor<3x2xf32> {mpt.param}, %x: tensor<2x3xf32> {mpt.data},
                      %y: tensor<2xi32> {mpt.data})
    -> (tensor<3x2xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %logits = mpt.matmul %x, %w : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<2x2xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %dlogits = mpt.softmax_cross_entropy_grad %seed, %logits, %y : tensor<2x2xf32>, tensor<2xi32>
  %dw = mpt.matmul %x, %dlogits {transpose_a} : tensor<2x3xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %w2 = mpt.sgd %w, %dw {lr = 0.1 : f32} : tensor<3x2xf32>
  return %w2, %loss : tensor<3x2xf32>, tensor<f32>
}
func.func @predict(%w: tensor<3x2xf32> {mpt.state_of = 0}, %x: tensor<2x3xf32> {mpt.data})
    -> tensor<2x16xf32> attributes {mpt.eval_step} {
  %z = arith.constant dense<0.0> : tensor<2x16xf32>
  return %z : tensor<2x16xf32>
}
