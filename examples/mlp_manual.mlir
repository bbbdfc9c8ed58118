// MLP training step: 784-256-128-10 with ReLU, batch 128, FP32.
//
//   z1 = x·w1 + b1,  h1 = relu(z1)
//   z2 = h1·w2 + b2, h2 = relu(z2)
//   logits = h2·w3 + b3
//   loss = mean softmax cross-entropy(logits, y)
//
// Weights are stored (in, out). Every parameter is updated by SGD with momentum
// 0.9 and lr 0.02; its momentum buffer is a state argument carried by the
// second result of mpt.sgd.
//
// Arguments:  0-5  w1, b1, w2, b2, w3, b3            (mpt.param)
//             6-11 momentum buffers of w1 ... b3     (mpt.state)
//             12   x, 13 y                           (mpt.data)
// Results:    0-11 next values of arguments 0-11, then the loss.
//
// @predict runs the same forward pass without the loss and returns the logits
// (used for test accuracy).

func.func @train_step(
    %w1: tensor<784x256xf32> {mpt.param}, %b1: tensor<256xf32> {mpt.param},
    %w2: tensor<256x128xf32> {mpt.param}, %b2: tensor<128xf32> {mpt.param},
    %w3: tensor<128x10xf32> {mpt.param}, %b3: tensor<10xf32> {mpt.param},
    %mw1: tensor<784x256xf32> {mpt.state}, %mb1: tensor<256xf32> {mpt.state},
    %mw2: tensor<256x128xf32> {mpt.state}, %mb2: tensor<128xf32> {mpt.state},
    %mw3: tensor<128x10xf32> {mpt.state}, %mb3: tensor<10xf32> {mpt.state},
    %x: tensor<128x784xf32> {mpt.data}, %y: tensor<128xi32> {mpt.data})
    -> (tensor<784x256xf32> {mpt.next = 0}, tensor<256xf32> {mpt.next = 1},
        tensor<256x128xf32> {mpt.next = 2}, tensor<128xf32> {mpt.next = 3},
        tensor<128x10xf32> {mpt.next = 4}, tensor<10xf32> {mpt.next = 5},
        tensor<784x256xf32> {mpt.next = 6}, tensor<256xf32> {mpt.next = 7},
        tensor<256x128xf32> {mpt.next = 8}, tensor<128xf32> {mpt.next = 9},
        tensor<128x10xf32> {mpt.next = 10}, tensor<10xf32> {mpt.next = 11},
        tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  // forward
  %xw1 = mpt.matmul %x, %w1 : tensor<128x784xf32>, tensor<784x256xf32> -> tensor<128x256xf32>
  %z1 = mpt.bias_add %xw1, %b1 : tensor<128x256xf32>, tensor<256xf32>
  %h1 = mpt.relu %z1 : tensor<128x256xf32>
  %h1w2 = mpt.matmul %h1, %w2 : tensor<128x256xf32>, tensor<256x128xf32> -> tensor<128x128xf32>
  %z2 = mpt.bias_add %h1w2, %b2 : tensor<128x128xf32>, tensor<128xf32>
  %h2 = mpt.relu %z2 : tensor<128x128xf32>
  %h2w3 = mpt.matmul %h2, %w3 : tensor<128x128xf32>, tensor<128x10xf32> -> tensor<128x10xf32>
  %logits = mpt.bias_add %h2w3, %b3 : tensor<128x10xf32>, tensor<10xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<128x10xf32>, tensor<128xi32>

  // backward
  %seed = mpt.loss_grad %loss
  %dlogits = mpt.softmax_cross_entropy_grad %seed, %logits, %y : tensor<128x10xf32>, tensor<128xi32>
  // layer 3
  %dw3 = mpt.matmul %h2, %dlogits {transpose_a} : tensor<128x128xf32>, tensor<128x10xf32> -> tensor<128x10xf32>
  %db3 = mpt.reduce_sum %dlogits [0] : tensor<128x10xf32> -> tensor<10xf32>
  %dh2 = mpt.matmul %dlogits, %w3 {transpose_b} : tensor<128x10xf32>, tensor<128x10xf32> -> tensor<128x128xf32>
  // layer 2
  %dz2 = mpt.relu_grad %dh2, %z2 : tensor<128x128xf32>
  %dw2 = mpt.matmul %h1, %dz2 {transpose_a} : tensor<128x256xf32>, tensor<128x128xf32> -> tensor<256x128xf32>
  %db2 = mpt.reduce_sum %dz2 [0] : tensor<128x128xf32> -> tensor<128xf32>
  %dh1 = mpt.matmul %dz2, %w2 {transpose_b} : tensor<128x128xf32>, tensor<256x128xf32> -> tensor<128x256xf32>
  // layer 1 (no input gradient: x is data)
  %dz1 = mpt.relu_grad %dh1, %z1 : tensor<128x256xf32>
  %dw1 = mpt.matmul %x, %dz1 {transpose_a} : tensor<128x784xf32>, tensor<128x256xf32> -> tensor<784x256xf32>
  %db1 = mpt.reduce_sum %dz1 [0] : tensor<128x256xf32> -> tensor<256xf32>

  // optimizer: SGD, lr 0.02, momentum 0.9
  %w1_next, %mw1_next = mpt.sgd %w1, %dw1, %mw1 {lr = 2.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<784x256xf32>
  %b1_next, %mb1_next = mpt.sgd %b1, %db1, %mb1 {lr = 2.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<256xf32>
  %w2_next, %mw2_next = mpt.sgd %w2, %dw2, %mw2 {lr = 2.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<256x128xf32>
  %b2_next, %mb2_next = mpt.sgd %b2, %db2, %mb2 {lr = 2.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<128xf32>
  %w3_next, %mw3_next = mpt.sgd %w3, %dw3, %mw3 {lr = 2.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<128x10xf32>
  %b3_next, %mb3_next = mpt.sgd %b3, %db3, %mb3 {lr = 2.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<10xf32>

  return %w1_next, %b1_next, %w2_next, %b2_next, %w3_next, %b3_next,
         %mw1_next, %mb1_next, %mw2_next, %mb2_next, %mw3_next, %mb3_next, %loss
      : tensor<784x256xf32>, tensor<256xf32>, tensor<256x128xf32>, tensor<128xf32>,
        tensor<128x10xf32>, tensor<10xf32>,
        tensor<784x256xf32>, tensor<256xf32>, tensor<256x128xf32>, tensor<128xf32>,
        tensor<128x10xf32>, tensor<10xf32>, tensor<f32>
}

// Forward pass only: the logits of a batch, for test accuracy.
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
