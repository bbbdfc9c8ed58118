// CNN with batch norm training step: 1x28x28 inputs, batch 64, FP32.
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
// Batch norm: momentum 0.1, epsilon 1e-5 (PyTorch defaults). Every parameter is
// updated by SGD with lr 0.05 and momentum 0.9 (momentum buffers are state).
//
// Arguments:  0-7   wc1, g1, be1, wc2, g2, be2, wf, bf    (mpt.param)
//             8-15  momentum buffers of wc1 ... bf        (mpt.state)
//             16-19 rm1, rv1, rm2, rv2 (running stats)    (mpt.state)
//             20 x, 21 y                                  (mpt.data)
// Results:    0-19 next values of arguments 0-19, then the loss.
//
// @predict is the evaluation forward pass: batch norm with the running
// statistics (mpt.batch_norm_inference); it returns the logits.

func.func @train_step(
    %wc1: tensor<8x1x3x3xf32> {mpt.param}, %g1: tensor<8xf32> {mpt.param},
    %be1: tensor<8xf32> {mpt.param},
    %wc2: tensor<16x8x3x3xf32> {mpt.param}, %g2: tensor<16xf32> {mpt.param},
    %be2: tensor<16xf32> {mpt.param},
    %wf: tensor<784x10xf32> {mpt.param}, %bf: tensor<10xf32> {mpt.param},
    %mwc1: tensor<8x1x3x3xf32> {mpt.state}, %mg1: tensor<8xf32> {mpt.state},
    %mbe1: tensor<8xf32> {mpt.state},
    %mwc2: tensor<16x8x3x3xf32> {mpt.state}, %mg2: tensor<16xf32> {mpt.state},
    %mbe2: tensor<16xf32> {mpt.state},
    %mwf: tensor<784x10xf32> {mpt.state}, %mbf: tensor<10xf32> {mpt.state},
    %rm1: tensor<8xf32> {mpt.state}, %rv1: tensor<8xf32> {mpt.state},
    %rm2: tensor<16xf32> {mpt.state}, %rv2: tensor<16xf32> {mpt.state},
    %x: tensor<64x1x28x28xf32> {mpt.data}, %y: tensor<64xi32> {mpt.data})
    -> (tensor<8x1x3x3xf32> {mpt.next = 0}, tensor<8xf32> {mpt.next = 1},
        tensor<8xf32> {mpt.next = 2},
        tensor<16x8x3x3xf32> {mpt.next = 3}, tensor<16xf32> {mpt.next = 4},
        tensor<16xf32> {mpt.next = 5},
        tensor<784x10xf32> {mpt.next = 6}, tensor<10xf32> {mpt.next = 7},
        tensor<8x1x3x3xf32> {mpt.next = 8}, tensor<8xf32> {mpt.next = 9},
        tensor<8xf32> {mpt.next = 10},
        tensor<16x8x3x3xf32> {mpt.next = 11}, tensor<16xf32> {mpt.next = 12},
        tensor<16xf32> {mpt.next = 13},
        tensor<784x10xf32> {mpt.next = 14}, tensor<10xf32> {mpt.next = 15},
        tensor<8xf32> {mpt.next = 16}, tensor<8xf32> {mpt.next = 17},
        tensor<16xf32> {mpt.next = 18}, tensor<16xf32> {mpt.next = 19},
        tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  // forward
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

  // backward
  %seed = mpt.loss_grad %loss
  %dlogits = mpt.softmax_cross_entropy_grad %seed, %logits, %y : tensor<64x10xf32>, tensor<64xi32>
  // classifier
  %dwf = mpt.matmul %flat, %dlogits {transpose_a} : tensor<64x784xf32>, tensor<64x10xf32> -> tensor<784x10xf32>
  %dbf = mpt.reduce_sum %dlogits [0] : tensor<64x10xf32> -> tensor<10xf32>
  %dflat = mpt.matmul %dlogits, %wf {transpose_b} : tensor<64x10xf32>, tensor<784x10xf32> -> tensor<64x784xf32>
  %dp2 = mpt.reshape %dflat : tensor<64x784xf32> -> tensor<64x16x7x7xf32>
  // block 2
  %dr2 = mpt.max_pool2d_grad %dp2, %r2 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<64x16x7x7xf32>, tensor<64x16x14x14xf32>
  %dn2 = mpt.relu_grad %dr2, %n2 : tensor<64x16x14x14xf32>
  %dc2, %dg2, %dbe2 = mpt.batch_norm_grad %dn2, %c2, %g2, %mean2, %invstd2
      : tensor<64x16x14x14xf32>, tensor<16xf32>
  %dwc2 = mpt.conv2d_filter_grad %p1, %dc2 {padding = array<i64: 1, 1>}
      : tensor<64x8x14x14xf32>, tensor<64x16x14x14xf32> -> tensor<16x8x3x3xf32>
  %dp1 = mpt.conv2d_input_grad %dc2, %wc2 {padding = array<i64: 1, 1>}
      : tensor<64x16x14x14xf32>, tensor<16x8x3x3xf32> -> tensor<64x8x14x14xf32>
  // block 1 (no input gradient for the first conv: x is data)
  %dr1 = mpt.max_pool2d_grad %dp1, %r1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<64x8x14x14xf32>, tensor<64x8x28x28xf32>
  %dn1 = mpt.relu_grad %dr1, %n1 : tensor<64x8x28x28xf32>
  %dc1, %dg1, %dbe1 = mpt.batch_norm_grad %dn1, %c1, %g1, %mean1, %invstd1
      : tensor<64x8x28x28xf32>, tensor<8xf32>
  %dwc1 = mpt.conv2d_filter_grad %x, %dc1 {padding = array<i64: 1, 1>}
      : tensor<64x1x28x28xf32>, tensor<64x8x28x28xf32> -> tensor<8x1x3x3xf32>

  // optimizer: SGD, lr 0.05, momentum 0.9
  %wc1_next, %mwc1_next = mpt.sgd %wc1, %dwc1, %mwc1 {lr = 5.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<8x1x3x3xf32>
  %g1_next, %mg1_next = mpt.sgd %g1, %dg1, %mg1 {lr = 5.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<8xf32>
  %be1_next, %mbe1_next = mpt.sgd %be1, %dbe1, %mbe1 {lr = 5.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<8xf32>
  %wc2_next, %mwc2_next = mpt.sgd %wc2, %dwc2, %mwc2 {lr = 5.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<16x8x3x3xf32>
  %g2_next, %mg2_next = mpt.sgd %g2, %dg2, %mg2 {lr = 5.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<16xf32>
  %be2_next, %mbe2_next = mpt.sgd %be2, %dbe2, %mbe2 {lr = 5.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<16xf32>
  %wf_next, %mwf_next = mpt.sgd %wf, %dwf, %mwf {lr = 5.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<784x10xf32>
  %bf_next, %mbf_next = mpt.sgd %bf, %dbf, %mbf {lr = 5.0e-02 : f32, momentum = 9.0e-01 : f32} : tensor<10xf32>

  return %wc1_next, %g1_next, %be1_next, %wc2_next, %g2_next, %be2_next, %wf_next, %bf_next,
         %mwc1_next, %mg1_next, %mbe1_next, %mwc2_next, %mg2_next, %mbe2_next, %mwf_next, %mbf_next,
         %rm1_next, %rv1_next, %rm2_next, %rv2_next, %loss
      : tensor<8x1x3x3xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<16x8x3x3xf32>, tensor<16xf32>, tensor<16xf32>,
        tensor<784x10xf32>, tensor<10xf32>,
        tensor<8x1x3x3xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<16x8x3x3xf32>, tensor<16xf32>, tensor<16xf32>,
        tensor<784x10xf32>, tensor<10xf32>,
        tensor<8xf32>, tensor<8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>
}

// Evaluation forward pass: batch norm with the running statistics; returns the
// logits of a batch, for test accuracy.
func.func @predict(
    %wc1: tensor<8x1x3x3xf32> {mpt.state_of = 0}, %g1: tensor<8xf32> {mpt.state_of = 1}, %be1: tensor<8xf32> {mpt.state_of = 2},
    %wc2: tensor<16x8x3x3xf32> {mpt.state_of = 3}, %g2: tensor<16xf32> {mpt.state_of = 4}, %be2: tensor<16xf32> {mpt.state_of = 5},
    %wf: tensor<784x10xf32> {mpt.state_of = 6}, %bf: tensor<10xf32> {mpt.state_of = 7},
    %rm1: tensor<8xf32> {mpt.state_of = 16}, %rv1: tensor<8xf32> {mpt.state_of = 17},
    %rm2: tensor<16xf32> {mpt.state_of = 18}, %rv2: tensor<16xf32> {mpt.state_of = 19},
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
