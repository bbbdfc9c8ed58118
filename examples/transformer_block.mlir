// Pre-LN transformer block classifier, training step, forward only, FP32.
//
// Shapes: batch B = 8, sequence S = 32, model dim D = 64, H = 4 heads of
// Dh = 16, MLP hidden F = 256, C = 10 classes. The input x (B, S, D) is an
// already-embedded token sequence; tokens are processed as a (B*S, D) = 256x64
// matrix for the linear layers and as (B*H, S, Dh) = 32x32x16 batches for
// attention.
//
//   t    = reshape(x)                               256x64
//   a    = layer_norm(t; ln1_g, ln1_b)
//   q, k, v = a·wq, a·wk, a·wv                      (no q/k/v/o biases)
//   P    = softmax(q_h·k_h^T / sqrt(16))            per head, 32x32x32
//   r1   = t + merge_heads(P·v_h)·wo                residual
//   m    = layer_norm(r1; ln2_g, ln2_b)
//   r2   = r1 + gelu(m·w_fc1 + b_fc1)·w_fc2 + b_fc2 residual
//   pooled = mean over the sequence of r2           8x64
//   logits = pooled·w_cls + b_cls                   8x10
//   loss = mean softmax cross-entropy(logits, y)
//
// Every parameter is updated by Adam (lr 1e-3, PyTorch defaults otherwise):
// mpt-autodiff builds the backward pass and one mpt.adam per parameter, whose
// state (exp_avg, exp_avg_sq, step count) becomes arguments 16-57: parameter i
// has m at 16+3i, v at 17+3i, t at 18+3i. transformer_block_manual.mlir has
// the backward written by hand.
//
// Arguments:  0-13  ln1_g, ln1_b, wq, wk, wv, wo, ln2_g, ln2_b,
//                   w_fc1, b_fc1, w_fc2, b_fc2, w_cls, b_cls     (mpt.param)
//             14 x, 15 y                                          (mpt.data)
// Results:    the loss.
//
// @predict is the forward pass only; it returns the logits.

func.func @train_step(
    %ln1_g: tensor<64xf32> {mpt.param},
    %ln1_b: tensor<64xf32> {mpt.param},
    %wq: tensor<64x64xf32> {mpt.param},
    %wk: tensor<64x64xf32> {mpt.param},
    %wv: tensor<64x64xf32> {mpt.param},
    %wo: tensor<64x64xf32> {mpt.param},
    %ln2_g: tensor<64xf32> {mpt.param},
    %ln2_b: tensor<64xf32> {mpt.param},
    %w_fc1: tensor<64x256xf32> {mpt.param},
    %b_fc1: tensor<256xf32> {mpt.param},
    %w_fc2: tensor<256x64xf32> {mpt.param},
    %b_fc2: tensor<64xf32> {mpt.param},
    %w_cls: tensor<64x10xf32> {mpt.param},
    %b_cls: tensor<10xf32> {mpt.param},
    %x: tensor<8x32x64xf32> {mpt.data}, %y: tensor<8xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "adam", lr = 1.0e-03 : f32}} {
  %t = mpt.reshape %x : tensor<8x32x64xf32> -> tensor<256x64xf32>
  // attention sublayer (pre-LN)
  %a, %ln1_mean, %ln1_invstd = mpt.layer_norm %t, %ln1_g, %ln1_b {epsilon = 1.0e-05 : f32}
      : tensor<256x64xf32>, tensor<64xf32> -> tensor<256xf32>
  %q = mpt.matmul %a, %wq : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  %k = mpt.matmul %a, %wk : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  %v = mpt.matmul %a, %wv : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  // split heads: (B*S, H*Dh) -> (B, S, H, Dh) -> (B, H, S, Dh) -> (B*H, S, Dh)
  %q4 = mpt.reshape %q : tensor<256x64xf32> -> tensor<8x32x4x16xf32>
  %q4t = mpt.transpose %q4 [0, 2, 1, 3] : tensor<8x32x4x16xf32> -> tensor<8x4x32x16xf32>
  %qh = mpt.reshape %q4t : tensor<8x4x32x16xf32> -> tensor<32x32x16xf32>
  %k4 = mpt.reshape %k : tensor<256x64xf32> -> tensor<8x32x4x16xf32>
  %k4t = mpt.transpose %k4 [0, 2, 1, 3] : tensor<8x32x4x16xf32> -> tensor<8x4x32x16xf32>
  %kh = mpt.reshape %k4t : tensor<8x4x32x16xf32> -> tensor<32x32x16xf32>
  %v4 = mpt.reshape %v : tensor<256x64xf32> -> tensor<8x32x4x16xf32>
  %v4t = mpt.transpose %v4 [0, 2, 1, 3] : tensor<8x32x4x16xf32> -> tensor<8x4x32x16xf32>
  %vh = mpt.reshape %v4t : tensor<8x4x32x16xf32> -> tensor<32x32x16xf32>
  // scaled dot-product attention, per (batch, head)
  %scores = mpt.matmul %qh, %kh {transpose_b}
      : tensor<32x32x16xf32>, tensor<32x32x16xf32> -> tensor<32x32x32xf32>
  %att_scale = arith.constant dense<2.500000e-01> : tensor<32x32x32xf32>
  %scaled = arith.mulf %scores, %att_scale : tensor<32x32x32xf32>
  %probs = mpt.softmax %scaled : tensor<32x32x32xf32>
  %ctxh = mpt.matmul %probs, %vh : tensor<32x32x32xf32>, tensor<32x32x16xf32> -> tensor<32x32x16xf32>
  // merge heads: (B*H, S, Dh) -> (B, H, S, Dh) -> (B, S, H, Dh) -> (B*S, H*Dh)
  %ctx4t = mpt.reshape %ctxh : tensor<32x32x16xf32> -> tensor<8x4x32x16xf32>
  %ctx4 = mpt.transpose %ctx4t [0, 2, 1, 3] : tensor<8x4x32x16xf32> -> tensor<8x32x4x16xf32>
  %ctx = mpt.reshape %ctx4 : tensor<8x32x4x16xf32> -> tensor<256x64xf32>
  %attn = mpt.matmul %ctx, %wo : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  %r1 = arith.addf %t, %attn : tensor<256x64xf32>
  // MLP sublayer (pre-LN)
  %m, %ln2_mean, %ln2_invstd = mpt.layer_norm %r1, %ln2_g, %ln2_b {epsilon = 1.0e-05 : f32}
      : tensor<256x64xf32>, tensor<64xf32> -> tensor<256xf32>
  %u = mpt.matmul %m, %w_fc1 : tensor<256x64xf32>, tensor<64x256xf32> -> tensor<256x256xf32>
  %ub = mpt.bias_add %u, %b_fc1 : tensor<256x256xf32>, tensor<256xf32>
  %gl = mpt.gelu %ub : tensor<256x256xf32>
  %o = mpt.matmul %gl, %w_fc2 : tensor<256x256xf32>, tensor<256x64xf32> -> tensor<256x64xf32>
  %ob = mpt.bias_add %o, %b_fc2 : tensor<256x64xf32>, tensor<64xf32>
  %r2 = arith.addf %r1, %ob : tensor<256x64xf32>
  // mean pool over the sequence, classifier, loss
  %r2_3 = mpt.reshape %r2 : tensor<256x64xf32> -> tensor<8x32x64xf32>
  %pool_sum = mpt.reduce_sum %r2_3 [1] : tensor<8x32x64xf32> -> tensor<8x64xf32>
  %inv_seq = arith.constant dense<3.125000e-02> : tensor<8x64xf32>
  %pooled = arith.mulf %pool_sum, %inv_seq : tensor<8x64xf32>
  %cls = mpt.matmul %pooled, %w_cls : tensor<8x64xf32>, tensor<64x10xf32> -> tensor<8x10xf32>
  %logits = mpt.bias_add %cls, %b_cls : tensor<8x10xf32>, tensor<10xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<8x10xf32>, tensor<8xi32>
  return %loss : tensor<f32>
}

// Forward pass only: the logits of a batch, for test accuracy.
func.func @predict(
    %ln1_g: tensor<64xf32> {mpt.state_of = 0}, %ln1_b: tensor<64xf32> {mpt.state_of = 1},
    %wq: tensor<64x64xf32> {mpt.state_of = 2}, %wk: tensor<64x64xf32> {mpt.state_of = 3}, %wv: tensor<64x64xf32> {mpt.state_of = 4}, %wo: tensor<64x64xf32> {mpt.state_of = 5},
    %ln2_g: tensor<64xf32> {mpt.state_of = 6}, %ln2_b: tensor<64xf32> {mpt.state_of = 7},
    %w_fc1: tensor<64x256xf32> {mpt.state_of = 8}, %b_fc1: tensor<256xf32> {mpt.state_of = 9},
    %w_fc2: tensor<256x64xf32> {mpt.state_of = 10}, %b_fc2: tensor<64xf32> {mpt.state_of = 11},
    %w_cls: tensor<64x10xf32> {mpt.state_of = 12}, %b_cls: tensor<10xf32> {mpt.state_of = 13},
    %x: tensor<8x32x64xf32> {mpt.data}) -> tensor<8x10xf32> attributes {mpt.eval_step} {
  %t = mpt.reshape %x : tensor<8x32x64xf32> -> tensor<256x64xf32>
  // attention sublayer (pre-LN)
  %a, %ln1_mean, %ln1_invstd = mpt.layer_norm %t, %ln1_g, %ln1_b {epsilon = 1.0e-05 : f32}
      : tensor<256x64xf32>, tensor<64xf32> -> tensor<256xf32>
  %q = mpt.matmul %a, %wq : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  %k = mpt.matmul %a, %wk : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  %v = mpt.matmul %a, %wv : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  // split heads: (B*S, H*Dh) -> (B, S, H, Dh) -> (B, H, S, Dh) -> (B*H, S, Dh)
  %q4 = mpt.reshape %q : tensor<256x64xf32> -> tensor<8x32x4x16xf32>
  %q4t = mpt.transpose %q4 [0, 2, 1, 3] : tensor<8x32x4x16xf32> -> tensor<8x4x32x16xf32>
  %qh = mpt.reshape %q4t : tensor<8x4x32x16xf32> -> tensor<32x32x16xf32>
  %k4 = mpt.reshape %k : tensor<256x64xf32> -> tensor<8x32x4x16xf32>
  %k4t = mpt.transpose %k4 [0, 2, 1, 3] : tensor<8x32x4x16xf32> -> tensor<8x4x32x16xf32>
  %kh = mpt.reshape %k4t : tensor<8x4x32x16xf32> -> tensor<32x32x16xf32>
  %v4 = mpt.reshape %v : tensor<256x64xf32> -> tensor<8x32x4x16xf32>
  %v4t = mpt.transpose %v4 [0, 2, 1, 3] : tensor<8x32x4x16xf32> -> tensor<8x4x32x16xf32>
  %vh = mpt.reshape %v4t : tensor<8x4x32x16xf32> -> tensor<32x32x16xf32>
  // scaled dot-product attention, per (batch, head)
  %scores = mpt.matmul %qh, %kh {transpose_b}
      : tensor<32x32x16xf32>, tensor<32x32x16xf32> -> tensor<32x32x32xf32>
  %att_scale = arith.constant dense<2.500000e-01> : tensor<32x32x32xf32>
  %scaled = arith.mulf %scores, %att_scale : tensor<32x32x32xf32>
  %probs = mpt.softmax %scaled : tensor<32x32x32xf32>
  %ctxh = mpt.matmul %probs, %vh : tensor<32x32x32xf32>, tensor<32x32x16xf32> -> tensor<32x32x16xf32>
  // merge heads: (B*H, S, Dh) -> (B, H, S, Dh) -> (B, S, H, Dh) -> (B*S, H*Dh)
  %ctx4t = mpt.reshape %ctxh : tensor<32x32x16xf32> -> tensor<8x4x32x16xf32>
  %ctx4 = mpt.transpose %ctx4t [0, 2, 1, 3] : tensor<8x4x32x16xf32> -> tensor<8x32x4x16xf32>
  %ctx = mpt.reshape %ctx4 : tensor<8x32x4x16xf32> -> tensor<256x64xf32>
  %attn = mpt.matmul %ctx, %wo : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  %r1 = arith.addf %t, %attn : tensor<256x64xf32>
  // MLP sublayer (pre-LN)
  %m, %ln2_mean, %ln2_invstd = mpt.layer_norm %r1, %ln2_g, %ln2_b {epsilon = 1.0e-05 : f32}
      : tensor<256x64xf32>, tensor<64xf32> -> tensor<256xf32>
  %u = mpt.matmul %m, %w_fc1 : tensor<256x64xf32>, tensor<64x256xf32> -> tensor<256x256xf32>
  %ub = mpt.bias_add %u, %b_fc1 : tensor<256x256xf32>, tensor<256xf32>
  %gl = mpt.gelu %ub : tensor<256x256xf32>
  %o = mpt.matmul %gl, %w_fc2 : tensor<256x256xf32>, tensor<256x64xf32> -> tensor<256x64xf32>
  %ob = mpt.bias_add %o, %b_fc2 : tensor<256x64xf32>, tensor<64xf32>
  %r2 = arith.addf %r1, %ob : tensor<256x64xf32>
  // mean pool over the sequence, classifier
  %r2_3 = mpt.reshape %r2 : tensor<256x64xf32> -> tensor<8x32x64xf32>
  %pool_sum = mpt.reduce_sum %r2_3 [1] : tensor<8x32x64xf32> -> tensor<8x64xf32>
  %inv_seq = arith.constant dense<3.125000e-02> : tensor<8x64xf32>
  %pooled = arith.mulf %pool_sum, %inv_seq : tensor<8x64xf32>
  %cls = mpt.matmul %pooled, %w_cls : tensor<8x64xf32>, tensor<64x10xf32> -> tensor<8x10xf32>
  %logits = mpt.bias_add %cls, %b_cls : tensor<8x10xf32>, tensor<10xf32>
  return %logits : tensor<8x10xf32>
}
