// CNN with batch norm, training step, forward only: 1x28x28 inputs, batch 64,
// FP32.
//
//   c1 = conv3x3(x, wc1, pad 1)           64x8x28x28   (no bias)
//   n1 = batch_norm(c1; g1, be1)          running stats rm1, rv1
//   r1 = relu(n1);  p1 = max_pool 2x2/2   64x8x14x14
//   c2 = conv3x3(p1, wc2, pad 1)          64x16x14x14  (no bias)
//   n2 = batch_norm(c2; g2, be2)          running stats rm2, rv2
//   r2 = relu(n2);  p2 = max_pool 2x2/2   64x16x7x7
//   flat = reshape(p2)                    64x784
//   logits = flat·wf + bf                 64x10
//   loss = mean softmax cross-entropy(logits, y)
//
// Batch norm: momentum 0.1, epsilon 1e-5 (PyTorch defaults); the running
// statistics are state carried by the forward pass and take no gradient.
// Every parameter is updated by SGD with lr 0.05 and momentum 0.9: mpt-autodiff
// builds the backward pass and the optimizer, whose momentum buffers become
// state arguments 14-21. cnn_bn_manual.mlir has the backward written by hand.
//
// Arguments:  0-7   wc1, g1, be1, wc2, g2, be2, wf, bf    (mpt.param)
//             8-11  rm1, rv1, rm2, rv2 (running stats)    (mpt.state)
//             12 x, 13 y                                  (mpt.data)
// Results:    0-3 next running statistics, then the loss.
//
// @predict is the evaluation forward pass: batch norm with the running
// statistics (mpt.batch_norm_inference); it returns the logits.

func.func @train_step(
    %wc1: tensor<8x1x3x3xf32> {mpt.param}, %g1: tensor<8xf32> {mpt.param},
    %be1: tensor<8xf32> {mpt.param},
    %wc2: tensor<16x8x3x3xf32> {mpt.param}, %g2: tensor<16xf32> {mpt.param},
    %be2: tensor<16xf32> {mpt.param},
    %wf: tensor<784x10xf32> {mpt.param}, %bf: tensor<10xf32> {mpt.param},
    %rm1: tensor<8xf32> {mpt.state}, %rv1: tensor<8xf32> {mpt.state},
    %rm2: tensor<16xf32> {mpt.state}, %rv2: tensor<16xf32> {mpt.state},
    %x: tensor<64x1x28x28xf32> {mpt.data}, %y: tensor<64xi32> {mpt.data})
    -> (tensor<8xf32> {mpt.next = 8}, tensor<8xf32> {mpt.next = 9},
        tensor<16xf32> {mpt.next = 10}, tensor<16xf32> {mpt.next = 11},
        tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step,
                mpt.optimizer = {kind = "sgd", lr = 5.0e-02 : f32, momentum = 9.0e-01 : f32}} {
  // block 1
  %c1 = mpt.conv2d %x, %wc1 {padding = array<i64: 1, 1>}
      : tensor<64x1x28x28xf32>, tensor<8x1x3x3xf32> -> tensor<64x8x28x28xf32>
  %n1, %mean1, %invstd1, %rm1_next, %rv1_next = mpt.batch_norm %c1, %g1, %be1, %rm1, %rv1
      {momentum = 1.0e-01 : f32, epsilon = 1.0e-05 : f32} : tensor<64x8x28x28xf32>, tensor<8xf32>
  %r1 = mpt.relu %n1 : tensor<64x8x28x28xf32>
  %p1 = mpt.max_pool2d %r1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<64x8x28x28xf32> -> tensor<64x8x14x14xf32>
  // block 2
  %c2 = mpt.conv2d %p1, %wc2 {padding = array<i64: 1, 1>}
      : tensor<64x8x14x14xf32>, tensor<16x8x3x3xf32> -> tensor<64x16x14x14xf32>
  %n2, %mean2, %invstd2, %rm2_next, %rv2_next = mpt.batch_norm %c2, %g2, %be2, %rm2, %rv2
      {momentum = 1.0e-01 : f32, epsilon = 1.0e-05 : f32} : tensor<64x16x14x14xf32>, tensor<16xf32>
  %r2 = mpt.relu %n2 : tensor<64x16x14x14xf32>
  %p2 = mpt.max_pool2d %r2 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<64x16x14x14xf32> -> tensor<64x16x7x7xf32>
  // classifier
  %flat = mpt.reshape %p2 : tensor<64x16x7x7xf32> -> tensor<64x784xf32>
  %fw = mpt.matmul %flat, %wf : tensor<64x784xf32>, tensor<784x10xf32> -> tensor<64x10xf32>
  %logits = mpt.bias_add %fw, %bf : tensor<64x10xf32>, tensor<10xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<64x10xf32>, tensor<64xi32>
  return %rm1_next, %rv1_next, %rm2_next, %rv2_next, %loss
      : tensor<8xf32>, tensor<8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>
}

// Evaluation forward pass: batch norm with the running statistics; returns the
// logits of a batch, for test accuracy.
func.func @predict(
    %wc1: tensor<8x1x3x3xf32> {mpt.state_of = 0}, %g1: tensor<8xf32> {mpt.state_of = 1}, %be1: tensor<8xf32> {mpt.state_of = 2},
    %wc2: tensor<16x8x3x3xf32> {mpt.state_of = 3}, %g2: tensor<16xf32> {mpt.state_of = 4}, %be2: tensor<16xf32> {mpt.state_of = 5},
    %wf: tensor<784x10xf32> {mpt.state_of = 6}, %bf: tensor<10xf32> {mpt.state_of = 7},
    %rm1: tensor<8xf32> {mpt.state_of = 8}, %rv1: tensor<8xf32> {mpt.state_of = 9},
    %rm2: tensor<16xf32> {mpt.state_of = 10}, %rv2: tensor<16xf32> {mpt.state_of = 11},
    %x: tensor<64x1x28x28xf32> {mpt.data}) -> tensor<64x10xf32> attributes {mpt.eval_step} {
  %c1 = mpt.conv2d %x, %wc1 {padding = array<i64: 1, 1>}
      : tensor<64x1x28x28xf32>, tensor<8x1x3x3xf32> -> tensor<64x8x28x28xf32>
  %n1 = mpt.batch_norm_inference %c1, %g1, %be1, %rm1, %rv1 {epsilon = 1.0e-05 : f32}
      : tensor<64x8x28x28xf32>, tensor<8xf32>
  %r1 = mpt.relu %n1 : tensor<64x8x28x28xf32>
  %p1 = mpt.max_pool2d %r1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<64x8x28x28xf32> -> tensor<64x8x14x14xf32>
  %c2 = mpt.conv2d %p1, %wc2 {padding = array<i64: 1, 1>}
      : tensor<64x8x14x14xf32>, tensor<16x8x3x3xf32> -> tensor<64x16x14x14xf32>
  %n2 = mpt.batch_norm_inference %c2, %g2, %be2, %rm2, %rv2 {epsilon = 1.0e-05 : f32}
      : tensor<64x16x14x14xf32>, tensor<16xf32>
  %r2 = mpt.relu %n2 : tensor<64x16x14x14xf32>
  %p2 = mpt.max_pool2d %r2 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<64x16x14x14xf32> -> tensor<64x16x7x7xf32>
  %flat = mpt.reshape %p2 : tensor<64x16x7x7xf32> -> tensor<64x784xf32>
  %fw = mpt.matmul %flat, %wf : tensor<64x784xf32>, tensor<784x10xf32> -> tensor<64x10xf32>
  %logits = mpt.bias_add %fw, %bf : tensor<64x10xf32>, tensor<10xf32>
  return %logits : tensor<64x10xf32>
}
