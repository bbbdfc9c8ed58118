// Pre-LN transformer block classifier, training step, FP32.
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
// Every parameter is updated by Adam (lr 1e-3, PyTorch defaults otherwise); it
// has three state arguments: exp_avg (m), exp_avg_sq (v) and its step count
// (t, tensor<i64>, starts at 0).
//
// Arguments:  0-13  ln1_g, ln1_b, wq, wk, wv, wo, ln2_g, ln2_b,
//                   w_fc1, b_fc1, w_fc2, b_fc2, w_cls, b_cls     (mpt.param)
//             14-55 per parameter, in the same order: m, v, t     (mpt.state)
//                   (parameter i has m at 14+3i, v at 15+3i, t at 16+3i)
//             56 x, 57 y                                          (mpt.data)
// Results:    0-55 next values of arguments 0-55, then the loss.
//
// Broadcast: the dialect has no broadcast op, so the backward of the mean pool
// (every sequence position receives the pooled gradient / S) broadcasts with
// mpt.bias_add onto a zero tensor, then reshape + transpose.
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
    %ln1_g_m: tensor<64xf32> {mpt.state}, %ln1_g_v: tensor<64xf32> {mpt.state}, %ln1_g_t: tensor<i64> {mpt.state},
    %ln1_b_m: tensor<64xf32> {mpt.state}, %ln1_b_v: tensor<64xf32> {mpt.state}, %ln1_b_t: tensor<i64> {mpt.state},
    %wq_m: tensor<64x64xf32> {mpt.state}, %wq_v: tensor<64x64xf32> {mpt.state}, %wq_t: tensor<i64> {mpt.state},
    %wk_m: tensor<64x64xf32> {mpt.state}, %wk_v: tensor<64x64xf32> {mpt.state}, %wk_t: tensor<i64> {mpt.state},
    %wv_m: tensor<64x64xf32> {mpt.state}, %wv_v: tensor<64x64xf32> {mpt.state}, %wv_t: tensor<i64> {mpt.state},
    %wo_m: tensor<64x64xf32> {mpt.state}, %wo_v: tensor<64x64xf32> {mpt.state}, %wo_t: tensor<i64> {mpt.state},
    %ln2_g_m: tensor<64xf32> {mpt.state}, %ln2_g_v: tensor<64xf32> {mpt.state}, %ln2_g_t: tensor<i64> {mpt.state},
    %ln2_b_m: tensor<64xf32> {mpt.state}, %ln2_b_v: tensor<64xf32> {mpt.state}, %ln2_b_t: tensor<i64> {mpt.state},
    %w_fc1_m: tensor<64x256xf32> {mpt.state}, %w_fc1_v: tensor<64x256xf32> {mpt.state}, %w_fc1_t: tensor<i64> {mpt.state},
    %b_fc1_m: tensor<256xf32> {mpt.state}, %b_fc1_v: tensor<256xf32> {mpt.state}, %b_fc1_t: tensor<i64> {mpt.state},
    %w_fc2_m: tensor<256x64xf32> {mpt.state}, %w_fc2_v: tensor<256x64xf32> {mpt.state}, %w_fc2_t: tensor<i64> {mpt.state},
    %b_fc2_m: tensor<64xf32> {mpt.state}, %b_fc2_v: tensor<64xf32> {mpt.state}, %b_fc2_t: tensor<i64> {mpt.state},
    %w_cls_m: tensor<64x10xf32> {mpt.state}, %w_cls_v: tensor<64x10xf32> {mpt.state}, %w_cls_t: tensor<i64> {mpt.state},
    %b_cls_m: tensor<10xf32> {mpt.state}, %b_cls_v: tensor<10xf32> {mpt.state}, %b_cls_t: tensor<i64> {mpt.state},
    %x: tensor<8x32x64xf32> {mpt.data}, %y: tensor<8xi32> {mpt.data})
    -> (tensor<64xf32> {mpt.next = 0},
        tensor<64xf32> {mpt.next = 1},
        tensor<64x64xf32> {mpt.next = 2},
        tensor<64x64xf32> {mpt.next = 3},
        tensor<64x64xf32> {mpt.next = 4},
        tensor<64x64xf32> {mpt.next = 5},
        tensor<64xf32> {mpt.next = 6},
        tensor<64xf32> {mpt.next = 7},
        tensor<64x256xf32> {mpt.next = 8},
        tensor<256xf32> {mpt.next = 9},
        tensor<256x64xf32> {mpt.next = 10},
        tensor<64xf32> {mpt.next = 11},
        tensor<64x10xf32> {mpt.next = 12},
        tensor<10xf32> {mpt.next = 13},
        tensor<64xf32> {mpt.next = 14}, tensor<64xf32> {mpt.next = 15}, tensor<i64> {mpt.next = 16},
        tensor<64xf32> {mpt.next = 17}, tensor<64xf32> {mpt.next = 18}, tensor<i64> {mpt.next = 19},
        tensor<64x64xf32> {mpt.next = 20}, tensor<64x64xf32> {mpt.next = 21}, tensor<i64> {mpt.next = 22},
        tensor<64x64xf32> {mpt.next = 23}, tensor<64x64xf32> {mpt.next = 24}, tensor<i64> {mpt.next = 25},
        tensor<64x64xf32> {mpt.next = 26}, tensor<64x64xf32> {mpt.next = 27}, tensor<i64> {mpt.next = 28},
        tensor<64x64xf32> {mpt.next = 29}, tensor<64x64xf32> {mpt.next = 30}, tensor<i64> {mpt.next = 31},
        tensor<64xf32> {mpt.next = 32}, tensor<64xf32> {mpt.next = 33}, tensor<i64> {mpt.next = 34},
        tensor<64xf32> {mpt.next = 35}, tensor<64xf32> {mpt.next = 36}, tensor<i64> {mpt.next = 37},
        tensor<64x256xf32> {mpt.next = 38}, tensor<64x256xf32> {mpt.next = 39}, tensor<i64> {mpt.next = 40},
        tensor<256xf32> {mpt.next = 41}, tensor<256xf32> {mpt.next = 42}, tensor<i64> {mpt.next = 43},
        tensor<256x64xf32> {mpt.next = 44}, tensor<256x64xf32> {mpt.next = 45}, tensor<i64> {mpt.next = 46},
        tensor<64xf32> {mpt.next = 47}, tensor<64xf32> {mpt.next = 48}, tensor<i64> {mpt.next = 49},
        tensor<64x10xf32> {mpt.next = 50}, tensor<64x10xf32> {mpt.next = 51}, tensor<i64> {mpt.next = 52},
        tensor<10xf32> {mpt.next = 53}, tensor<10xf32> {mpt.next = 54}, tensor<i64> {mpt.next = 55},
        tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  // forward
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

  // backward
  %seed = mpt.loss_grad %loss
  %dlogits = mpt.softmax_cross_entropy_grad %seed, %logits, %y : tensor<8x10xf32>, tensor<8xi32>
  // classifier
  %dw_cls = mpt.matmul %pooled, %dlogits {transpose_a} : tensor<8x64xf32>, tensor<8x10xf32> -> tensor<64x10xf32>
  %db_cls = mpt.reduce_sum %dlogits [0] : tensor<8x10xf32> -> tensor<10xf32>
  %dpooled = mpt.matmul %dlogits, %w_cls {transpose_b} : tensor<8x10xf32>, tensor<64x10xf32> -> tensor<8x64xf32>
  // mean pool: dr2[b, s, :] = dpooled[b, :] / S for every s. Broadcast over s by
  // adding the (B*D) vector to a zero (S, B*D) tensor, then (S, B, D) -> (B, S, D).
  %dpool_sum = arith.mulf %dpooled, %inv_seq : tensor<8x64xf32>
  %dpool_vec = mpt.reshape %dpool_sum : tensor<8x64xf32> -> tensor<512xf32>
  %zeros_s_bd = arith.constant dense<0.000000e+00> : tensor<32x512xf32>
  %dr2_sbd = mpt.bias_add %zeros_s_bd, %dpool_vec : tensor<32x512xf32>, tensor<512xf32>
  %dr2_sb_d = mpt.reshape %dr2_sbd : tensor<32x512xf32> -> tensor<32x8x64xf32>
  %dr2_3 = mpt.transpose %dr2_sb_d [1, 0, 2] : tensor<32x8x64xf32> -> tensor<8x32x64xf32>
  %dr2 = mpt.reshape %dr2_3 : tensor<8x32x64xf32> -> tensor<256x64xf32>
  // MLP sublayer: r2 = r1 + ob, so dob = dr2 and dr2 also flows to r1
  %dw_fc2 = mpt.matmul %gl, %dr2 {transpose_a} : tensor<256x256xf32>, tensor<256x64xf32> -> tensor<256x64xf32>
  %db_fc2 = mpt.reduce_sum %dr2 [0] : tensor<256x64xf32> -> tensor<64xf32>
  %dgl = mpt.matmul %dr2, %w_fc2 {transpose_b} : tensor<256x64xf32>, tensor<256x64xf32> -> tensor<256x256xf32>
  %dub = mpt.gelu_grad %dgl, %ub : tensor<256x256xf32>
  %dw_fc1 = mpt.matmul %m, %dub {transpose_a} : tensor<256x64xf32>, tensor<256x256xf32> -> tensor<64x256xf32>
  %db_fc1 = mpt.reduce_sum %dub [0] : tensor<256x256xf32> -> tensor<256xf32>
  %dm = mpt.matmul %dub, %w_fc1 {transpose_b} : tensor<256x256xf32>, tensor<64x256xf32> -> tensor<256x64xf32>
  %dr1_ln, %dln2_g, %dln2_b = mpt.layer_norm_grad %dm, %r1, %ln2_g, %ln2_mean, %ln2_invstd
      : tensor<256x64xf32>, tensor<64xf32>, tensor<256xf32>
  %dr1 = arith.addf %dr2, %dr1_ln : tensor<256x64xf32>
  // attention sublayer: r1 = t + attn, so dattn = dr1
  %dwo = mpt.matmul %ctx, %dr1 {transpose_a} : tensor<256x64xf32>, tensor<256x64xf32> -> tensor<64x64xf32>
  %dctx = mpt.matmul %dr1, %wo {transpose_b} : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  // undo the head merge: (B*S, H*Dh) -> (B, S, H, Dh) -> (B, H, S, Dh) -> (B*H, S, Dh)
  %dctx4 = mpt.reshape %dctx : tensor<256x64xf32> -> tensor<8x32x4x16xf32>
  %dctx4t = mpt.transpose %dctx4 [0, 2, 1, 3] : tensor<8x32x4x16xf32> -> tensor<8x4x32x16xf32>
  %dctxh = mpt.reshape %dctx4t : tensor<8x4x32x16xf32> -> tensor<32x32x16xf32>
  // ctx_h = probs·v_h
  %dprobs = mpt.matmul %dctxh, %vh {transpose_b}
      : tensor<32x32x16xf32>, tensor<32x32x16xf32> -> tensor<32x32x32xf32>
  %dvh = mpt.matmul %probs, %dctxh {transpose_a}
      : tensor<32x32x32xf32>, tensor<32x32x16xf32> -> tensor<32x32x16xf32>
  // probs = softmax(scores * 0.25)
  %dscaled = mpt.softmax_grad %dprobs, %probs : tensor<32x32x32xf32>
  %dscores = arith.mulf %dscaled, %att_scale : tensor<32x32x32xf32>
  // scores = q_h·k_h^T
  %dqh = mpt.matmul %dscores, %kh : tensor<32x32x32xf32>, tensor<32x32x16xf32> -> tensor<32x32x16xf32>
  %dkh = mpt.matmul %dscores, %qh {transpose_a}
      : tensor<32x32x32xf32>, tensor<32x32x16xf32> -> tensor<32x32x16xf32>
  // undo the head split: (B*H, S, Dh) -> (B, H, S, Dh) -> (B, S, H, Dh) -> (B*S, H*Dh)
  %dq4t = mpt.reshape %dqh : tensor<32x32x16xf32> -> tensor<8x4x32x16xf32>
  %dq4 = mpt.transpose %dq4t [0, 2, 1, 3] : tensor<8x4x32x16xf32> -> tensor<8x32x4x16xf32>
  %dq = mpt.reshape %dq4 : tensor<8x32x4x16xf32> -> tensor<256x64xf32>
  %dk4t = mpt.reshape %dkh : tensor<32x32x16xf32> -> tensor<8x4x32x16xf32>
  %dk4 = mpt.transpose %dk4t [0, 2, 1, 3] : tensor<8x4x32x16xf32> -> tensor<8x32x4x16xf32>
  %dk = mpt.reshape %dk4 : tensor<8x32x4x16xf32> -> tensor<256x64xf32>
  %dv4t = mpt.reshape %dvh : tensor<32x32x16xf32> -> tensor<8x4x32x16xf32>
  %dv4 = mpt.transpose %dv4t [0, 2, 1, 3] : tensor<8x4x32x16xf32> -> tensor<8x32x4x16xf32>
  %dv = mpt.reshape %dv4 : tensor<8x32x4x16xf32> -> tensor<256x64xf32>
  // q, k, v projections
  %dwq = mpt.matmul %a, %dq {transpose_a} : tensor<256x64xf32>, tensor<256x64xf32> -> tensor<64x64xf32>
  %dwk = mpt.matmul %a, %dk {transpose_a} : tensor<256x64xf32>, tensor<256x64xf32> -> tensor<64x64xf32>
  %dwv = mpt.matmul %a, %dv {transpose_a} : tensor<256x64xf32>, tensor<256x64xf32> -> tensor<64x64xf32>
  %da_q = mpt.matmul %dq, %wq {transpose_b} : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  %da_k = mpt.matmul %dk, %wk {transpose_b} : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  %da_v = mpt.matmul %dv, %wv {transpose_b} : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  %da_qk = arith.addf %da_q, %da_k : tensor<256x64xf32>
  %da = arith.addf %da_qk, %da_v : tensor<256x64xf32>
  // first layer norm: only its gamma/beta gradients are used (x is data, so the
  // input gradient %dt_ln is dead)
  %dt_ln, %dln1_g, %dln1_b = mpt.layer_norm_grad %da, %t, %ln1_g, %ln1_mean, %ln1_invstd
      : tensor<256x64xf32>, tensor<64xf32>, tensor<256xf32>

  // optimizer: Adam, lr 1e-3 (betas 0.9/0.999, epsilon 1e-8)
  %ln1_g_next, %ln1_g_m_next, %ln1_g_v_next, %ln1_g_t_next = mpt.adam %ln1_g, %dln1_g, %ln1_g_m, %ln1_g_v, %ln1_g_t
      {lr = 1.0e-03 : f32} : tensor<64xf32>, tensor<i64>
  %ln1_b_next, %ln1_b_m_next, %ln1_b_v_next, %ln1_b_t_next = mpt.adam %ln1_b, %dln1_b, %ln1_b_m, %ln1_b_v, %ln1_b_t
      {lr = 1.0e-03 : f32} : tensor<64xf32>, tensor<i64>
  %wq_next, %wq_m_next, %wq_v_next, %wq_t_next = mpt.adam %wq, %dwq, %wq_m, %wq_v, %wq_t
      {lr = 1.0e-03 : f32} : tensor<64x64xf32>, tensor<i64>
  %wk_next, %wk_m_next, %wk_v_next, %wk_t_next = mpt.adam %wk, %dwk, %wk_m, %wk_v, %wk_t
      {lr = 1.0e-03 : f32} : tensor<64x64xf32>, tensor<i64>
  %wv_next, %wv_m_next, %wv_v_next, %wv_t_next = mpt.adam %wv, %dwv, %wv_m, %wv_v, %wv_t
      {lr = 1.0e-03 : f32} : tensor<64x64xf32>, tensor<i64>
  %wo_next, %wo_m_next, %wo_v_next, %wo_t_next = mpt.adam %wo, %dwo, %wo_m, %wo_v, %wo_t
      {lr = 1.0e-03 : f32} : tensor<64x64xf32>, tensor<i64>
  %ln2_g_next, %ln2_g_m_next, %ln2_g_v_next, %ln2_g_t_next = mpt.adam %ln2_g, %dln2_g, %ln2_g_m, %ln2_g_v, %ln2_g_t
      {lr = 1.0e-03 : f32} : tensor<64xf32>, tensor<i64>
  %ln2_b_next, %ln2_b_m_next, %ln2_b_v_next, %ln2_b_t_next = mpt.adam %ln2_b, %dln2_b, %ln2_b_m, %ln2_b_v, %ln2_b_t
      {lr = 1.0e-03 : f32} : tensor<64xf32>, tensor<i64>
  %w_fc1_next, %w_fc1_m_next, %w_fc1_v_next, %w_fc1_t_next = mpt.adam %w_fc1, %dw_fc1, %w_fc1_m, %w_fc1_v, %w_fc1_t
      {lr = 1.0e-03 : f32} : tensor<64x256xf32>, tensor<i64>
  %b_fc1_next, %b_fc1_m_next, %b_fc1_v_next, %b_fc1_t_next = mpt.adam %b_fc1, %db_fc1, %b_fc1_m, %b_fc1_v, %b_fc1_t
      {lr = 1.0e-03 : f32} : tensor<256xf32>, tensor<i64>
  %w_fc2_next, %w_fc2_m_next, %w_fc2_v_next, %w_fc2_t_next = mpt.adam %w_fc2, %dw_fc2, %w_fc2_m, %w_fc2_v, %w_fc2_t
      {lr = 1.0e-03 : f32} : tensor<256x64xf32>, tensor<i64>
  %b_fc2_next, %b_fc2_m_next, %b_fc2_v_next, %b_fc2_t_next = mpt.adam %b_fc2, %db_fc2, %b_fc2_m, %b_fc2_v, %b_fc2_t
      {lr = 1.0e-03 : f32} : tensor<64xf32>, tensor<i64>
  %w_cls_next, %w_cls_m_next, %w_cls_v_next, %w_cls_t_next = mpt.adam %w_cls, %dw_cls, %w_cls_m, %w_cls_v, %w_cls_t
      {lr = 1.0e-03 : f32} : tensor<64x10xf32>, tensor<i64>
  %b_cls_next, %b_cls_m_next, %b_cls_v_next, %b_cls_t_next = mpt.adam %b_cls, %db_cls, %b_cls_m, %b_cls_v, %b_cls_t
      {lr = 1.0e-03 : f32} : tensor<10xf32>, tensor<i64>

  return %ln1_g_next, %ln1_b_next, %wq_next, %wk_next, %wv_next, %wo_next, %ln2_g_next,
         %ln2_b_next, %w_fc1_next, %b_fc1_next, %w_fc2_next, %b_fc2_next, %w_cls_next, %b_cls_next,
         %ln1_g_m_next, %ln1_g_v_next, %ln1_g_t_next, %ln1_b_m_next, %ln1_b_v_next, %ln1_b_t_next,
         %wq_m_next, %wq_v_next, %wq_t_next, %wk_m_next, %wk_v_next, %wk_t_next,
         %wv_m_next, %wv_v_next, %wv_t_next, %wo_m_next, %wo_v_next, %wo_t_next,
         %ln2_g_m_next, %ln2_g_v_next, %ln2_g_t_next, %ln2_b_m_next, %ln2_b_v_next, %ln2_b_t_next,
         %w_fc1_m_next, %w_fc1_v_next, %w_fc1_t_next, %b_fc1_m_next, %b_fc1_v_next, %b_fc1_t_next,
         %w_fc2_m_next, %w_fc2_v_next, %w_fc2_t_next, %b_fc2_m_next, %b_fc2_v_next, %b_fc2_t_next,
         %w_cls_m_next, %w_cls_v_next, %w_cls_t_next, %b_cls_m_next, %b_cls_v_next, %b_cls_t_next,
         %loss
      : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>,
        tensor<64xf32>, tensor<64x256xf32>, tensor<256xf32>, tensor<256x64xf32>, tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>,
        tensor<64xf32>, tensor<64xf32>, tensor<i64>, tensor<64xf32>, tensor<64xf32>, tensor<i64>,
        tensor<64x64xf32>, tensor<64x64xf32>, tensor<i64>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<i64>,
        tensor<64x64xf32>, tensor<64x64xf32>, tensor<i64>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<i64>,
        tensor<64xf32>, tensor<64xf32>, tensor<i64>, tensor<64xf32>, tensor<64xf32>, tensor<i64>,
        tensor<64x256xf32>, tensor<64x256xf32>, tensor<i64>, tensor<256xf32>, tensor<256xf32>, tensor<i64>,
        tensor<256x64xf32>, tensor<256x64xf32>, tensor<i64>, tensor<64xf32>, tensor<64xf32>, tensor<i64>,
        tensor<64x10xf32>, tensor<64x10xf32>, tensor<i64>, tensor<10xf32>, tensor<10xf32>, tensor<i64>,
        tensor<f32>
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
