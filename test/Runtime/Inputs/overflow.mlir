// Softmax regression whose logits are amplified 1000x: at a loss scale of
// 65536 its f16 weight gradients overflow, at 4096 they fit.
func.func @train_step(%w: tensor<784x10xf32> {mpt.param}, %b: tensor<10xf32> {mpt.param},
                      %x: tensor<128x784xf32> {mpt.data}, %y: tensor<128xi32> {mpt.data})
    -> (tensor<784x10xf32> {mpt.next = 0}, tensor<10xf32> {mpt.next = 1},
        tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %k = arith.constant dense<1000.0> : tensor<128x10xf32>
  %h = mpt.matmul %x, %w : tensor<128x784xf32>, tensor<784x10xf32> -> tensor<128x10xf32>
  %hb = mpt.bias_add %h, %b : tensor<128x10xf32>, tensor<10xf32>
  %o = arith.mulf %hb, %k : tensor<128x10xf32>
  %loss = mpt.softmax_cross_entropy %o, %y : tensor<128x10xf32>, tensor<128xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o, %y : tensor<128x10xf32>, tensor<128xi32>
  %dhb = arith.mulf %do, %k : tensor<128x10xf32>
  %dw = mpt.matmul %x, %dhb {transpose_a} : tensor<128x784xf32>, tensor<128x10xf32> -> tensor<784x10xf32>
  %db = mpt.reduce_sum %dhb [0] : tensor<128x10xf32> -> tensor<10xf32>
  %w2 = mpt.sgd %w, %dw {lr = 1.0e-6 : f32} : tensor<784x10xf32>
  %b2 = mpt.sgd %b, %db {lr = 1.0e-6 : f32} : tensor<10xf32>
  return %w2, %b2, %loss : tensor<784x10xf32>, tensor<10xf32>, tensor<f32>
}
