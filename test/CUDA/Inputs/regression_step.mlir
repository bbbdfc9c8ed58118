// A small regression network with every activation mpt has besides relu and
// exact gelu (silu, tanh, tanh-approximated gelu, sigmoid) and the mean
// squared error against float data, forward only: mpt-autodiff builds the
// backward (silu_grad, tanh_grad, gelu_grad, sigmoid_grad, mse_loss_grad).
func.func @train_step(%w1: tensor<64x32xf32> {mpt.param}, %b1: tensor<32xf32> {mpt.param},
                      %w2: tensor<32x32xf32> {mpt.param}, %w3: tensor<32x32xf32> {mpt.param},
                      %w4: tensor<32x8xf32> {mpt.param},
                      %x: tensor<128x64xf32> {mpt.data}, %y: tensor<128x8xf32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 1.0e-2 : f32}} {
  %z1 = mpt.matmul %x, %w1 : tensor<128x64xf32>, tensor<64x32xf32> -> tensor<128x32xf32>
  %u1 = mpt.bias_add %z1, %b1 : tensor<128x32xf32>, tensor<32xf32>
  %h1 = mpt.silu %u1 : tensor<128x32xf32>
  %z2 = mpt.matmul %h1, %w2 : tensor<128x32xf32>, tensor<32x32xf32> -> tensor<128x32xf32>
  %h2 = mpt.tanh %z2 : tensor<128x32xf32>
  %z3 = mpt.matmul %h2, %w3 : tensor<128x32xf32>, tensor<32x32xf32> -> tensor<128x32xf32>
  %h3 = mpt.gelu %z3 {approximate} : tensor<128x32xf32>
  %z4 = mpt.matmul %h3, %w4 : tensor<128x32xf32>, tensor<32x8xf32> -> tensor<128x8xf32>
  %p = mpt.sigmoid %z4 : tensor<128x8xf32>
  %loss = mpt.mse_loss %p, %y : tensor<128x8xf32>
  return %loss : tensor<f32>
}
