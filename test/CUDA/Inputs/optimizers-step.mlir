// A forward-only MLP step whose parameters use RMSprop (centered, with
// momentum), Adagrad (learning-rate decay, a non-zero initial accumulator),
// Adadelta and plain RMSprop: one update kernel of each kind.

func.func @train_step(
    %w1: tensor<32x64xf32> {mpt.param, mpt.optimizer = {momentum = 0.9, centered}},
    %b1: tensor<64xf32> {mpt.param, mpt.optimizer = {kind = "adagrad", lr_decay = 0.01, initial_accumulator_value = 0.1}},
    %w2: tensor<64x10xf32> {mpt.param, mpt.optimizer = {kind = "adadelta", lr = 1.0}},
    %b2: tensor<10xf32> {mpt.param},
    %x: tensor<64x32xf32> {mpt.data}, %y: tensor<64xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "rmsprop", lr = 1.0e-2 : f32, weight_decay = 1.0e-2 : f32}} {
  %xw1 = mpt.matmul %x, %w1 : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  %z1 = mpt.bias_add %xw1, %b1 : tensor<64x64xf32>, tensor<64xf32>
  %h1 = mpt.relu %z1 : tensor<64x64xf32>
  %h1w2 = mpt.matmul %h1, %w2 : tensor<64x64xf32>, tensor<64x10xf32> -> tensor<64x10xf32>
  %logits = mpt.bias_add %h1w2, %b2 : tensor<64x10xf32>, tensor<10xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<64x10xf32>, tensor<64xi32>
  return %loss : tensor<f32>
}
