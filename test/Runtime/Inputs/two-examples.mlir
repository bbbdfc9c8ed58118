// Two float data inputs: mpt-run's data sources give one batch of examples.
func.func @train_step(%w: tensor<8x4xf32> {mpt.param}, %x: tensor<2x8xf32> {mpt.data},
                      %x2: tensor<2x8xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %xs = arith.addf %x, %x2 : tensor<2x8xf32>
  %o = mpt.matmul %xs, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o, %y : tensor<2x4xf32>, tensor<2xi32>
  %dw = mpt.matmul %xs, %do {transpose_a} : tensor<2x8xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
  %w2 = mpt.sgd %w, %dw {lr = 0.1 : f32} : tensor<8x4xf32>
  return %w2, %loss : tensor<8x4xf32>, tensor<f32>
}
