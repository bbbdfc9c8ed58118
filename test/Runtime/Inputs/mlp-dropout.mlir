// examples/mlp.mlir with dropout after each hidden layer (p = 0.2 and 0.5):
// mpt-autodiff adds the step's dropout counter as state. @predict has none.
func.func @train_step(
    %w1: tensor<784x256xf32> {mpt.param}, %b1: tensor<256xf32> {mpt.param},
    %w2: tensor<256x128xf32> {mpt.param}, %b2: tensor<128xf32> {mpt.param},
    %w3: tensor<128x10xf32> {mpt.param}, %b3: tensor<10xf32> {mpt.param},
    %x: tensor<128x784xf32> {mpt.data}, %y: tensor<128xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step,
                mpt.optimizer = {kind = "sgd", lr = 2.0e-02 : f32, momentum = 9.0e-01 : f32}} {
  %xw1 = mpt.matmul %x, %w1 : tensor<128x784xf32>, tensor<784x256xf32> -> tensor<128x256xf32>
  %z1 = mpt.bias_add %xw1, %b1 : tensor<128x256xf32>, tensor<256xf32>
  %h1 = mpt.relu %z1 : tensor<128x256xf32>
  %d1 = mpt.dropout %h1 {p = 0.2 : f64} : tensor<128x256xf32>
  %h1w2 = mpt.matmul %d1, %w2 : tensor<128x256xf32>, tensor<256x128xf32> -> tensor<128x128xf32>
  %z2 = mpt.bias_add %h1w2, %b2 : tensor<128x128xf32>, tensor<128xf32>
  %h2 = mpt.relu %z2 : tensor<128x128xf32>
  %d2 = mpt.dropout %h2 {p = 0.5 : f64} : tensor<128x128xf32>
  %h2w3 = mpt.matmul %d2, %w3 : tensor<128x128xf32>, tensor<128x10xf32> -> tensor<128x10xf32>
  %logits = mpt.bias_add %h2w3, %b3 : tensor<128x10xf32>, tensor<10xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<128x10xf32>, tensor<128xi32>
  return %loss : tensor<f32>
}

func.func @predict(
    %w1: tensor<784x256xf32> {mpt.state_of = 0}, %b1: tensor<256xf32> {mpt.state_of = 1},
    %w2: tensor<256x128xf32> {mpt.state_of = 2}, %b2: tensor<128xf32> {mpt.state_of = 3},
    %w3: tensor<128x10xf32> {mpt.state_of = 4}, %b3: tensor<10xf32> {mpt.state_of = 5},
    %x: tensor<128x784xf32> {mpt.data}) -> tensor<128x10xf32> attributes {mpt.eval_step} {
  %xw1 = mpt.matmul %x, %w1 : tensor<128x784xf32>, tensor<784x256xf32> -> tensor<128x256xf32>
  %z1 = mpt.bias_add %xw1, %b1 : tensor<128x256xf32>, tensor<256xf32>
  %h1 = mpt.relu %z1 : tensor<128x256xf32>
  %h1w2 = mpt.matmul %h1, %w2 : tensor<128x256xf32>, tensor<256x128xf32> -> tensor<128x128xf32>
  %z2 = mpt.bias_add %h1w2, %b2 : tensor<128x128xf32>, tensor<128xf32>
  %h2 = mpt.relu %z2 : tensor<128x128xf32>
  %h2w3 = mpt.matmul %h2, %w3 : tensor<128x128xf32>, tensor<128x10xf32> -> tensor<128x10xf32>
  %logits = mpt.bias_add %h2w3, %b3 : tensor<128x10xf32>, tensor<10xf32>
  return %logits : tensor<128x10xf32>
}
