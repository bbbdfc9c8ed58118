func.func @train_step(%w: tensor<8x4xf32> {mpt.param}, %x: tensor<2x8xf16> {mpt.data},
                      %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %w16 = arith.truncf %w : tensor<8x4xf32> to tensor<8x4xf16>
  %o = mpt.matmul %x, %w16 : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %o32 = arith.extf %o : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %do16 = arith.truncf %do : tensor<2x4xf32> to tensor<2x4xf16>
  %dw = mpt.matmul %x, %do16 {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
  %dw32 = arith.extf %dw : tensor<8x4xf16> to tensor<8x4xf32>
  %w2 = mpt.sgd %w, %dw32 {lr = 0.1 : f32} : tensor<8x4xf32>
  return %w2, %loss : tensor<8x4xf32>, tensor<f32>
}
