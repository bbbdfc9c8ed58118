"""The three examples' training steps with their sizes as parameters.

At the examples' own sizes (mlp(128, 256, 128), transformer(8, 32, 64, 4),
cnn(64, 8, 16)) these are examples/mlp.mlir, transformer_block.mlir and
cnn_bn.mlir without their eval step; `gpu_step_vs_pytorch.py --validate`
checks that on the CPU (same losses, bit for bit). Scaled up they are the
models of issue 7's GPU benchmark.
"""


def mlp(batch, hidden1, hidden2):
    return f"""
func.func @train_step(
    %w1: tensor<784x{hidden1}xf32> {{mpt.param}}, %b1: tensor<{hidden1}xf32> {{mpt.param}},
    %w2: tensor<{hidden1}x{hidden2}xf32> {{mpt.param}}, %b2: tensor<{hidden2}xf32> {{mpt.param}},
    %w3: tensor<{hidden2}x10xf32> {{mpt.param}}, %b3: tensor<10xf32> {{mpt.param}},
    %x: tensor<{batch}x784xf32> {{mpt.data}}, %y: tensor<{batch}xi32> {{mpt.data}})
    -> (tensor<f32> {{mpt.metric = "loss"}})
    attributes {{mpt.train_step,
                mpt.optimizer = {{kind = "sgd", lr = 2.0e-02 : f32, momentum = 9.0e-01 : f32}}}} {{
  %xw1 = mpt.matmul %x, %w1 : tensor<{batch}x784xf32>, tensor<784x{hidden1}xf32> -> tensor<{batch}x{hidden1}xf32>
  %z1 = mpt.bias_add %xw1, %b1 : tensor<{batch}x{hidden1}xf32>, tensor<{hidden1}xf32>
  %h1 = mpt.relu %z1 : tensor<{batch}x{hidden1}xf32>
  %h1w2 = mpt.matmul %h1, %w2 : tensor<{batch}x{hidden1}xf32>, tensor<{hidden1}x{hidden2}xf32> -> tensor<{batch}x{hidden2}xf32>
  %z2 = mpt.bias_add %h1w2, %b2 : tensor<{batch}x{hidden2}xf32>, tensor<{hidden2}xf32>
  %h2 = mpt.relu %z2 : tensor<{batch}x{hidden2}xf32>
  %h2w3 = mpt.matmul %h2, %w3 : tensor<{batch}x{hidden2}xf32>, tensor<{hidden2}x10xf32> -> tensor<{batch}x10xf32>
  %logits = mpt.bias_add %h2w3, %b3 : tensor<{batch}x10xf32>, tensor<10xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<{batch}x10xf32>, tensor<{batch}xi32>
  return %loss : tensor<f32>
}}
"""


def transformer(batch, seq, d, heads):
    dh, rows, bh, ff = d // heads, batch * seq, batch * heads, 4 * d
    scale, inv_seq = f"{dh ** -0.5:.6e}", f"{1.0 / seq:.6e}"
    x2, x4, x4t, xh = (f"tensor<{rows}x{d}xf32>", f"tensor<{batch}x{seq}x{heads}x{dh}xf32>",
                       f"tensor<{batch}x{heads}x{seq}x{dh}xf32>", f"tensor<{bh}x{seq}x{dh}xf32>")
    dd, vec = f"tensor<{d}x{d}xf32>", f"tensor<{d}xf32>"
    heads_ir = ""
    for n in "qkv":
        heads_ir += f"""  %{n}4 = mpt.reshape %{n} : {x2} -> {x4}
  %{n}4t = mpt.transpose %{n}4 [0, 2, 1, 3] : {x4} -> {x4t}
  %{n}h = mpt.reshape %{n}4t : {x4t} -> {xh}
"""
    return f"""
func.func @train_step(
    %ln1_g: {vec} {{mpt.param}},
    %ln1_b: {vec} {{mpt.param}},
    %wq: {dd} {{mpt.param}},
    %wk: {dd} {{mpt.param}},
    %wv: {dd} {{mpt.param}},
    %wo: {dd} {{mpt.param}},
    %ln2_g: {vec} {{mpt.param}},
    %ln2_b: {vec} {{mpt.param}},
    %w_fc1: tensor<{d}x{ff}xf32> {{mpt.param}},
    %b_fc1: tensor<{ff}xf32> {{mpt.param}},
    %w_fc2: tensor<{ff}x{d}xf32> {{mpt.param}},
    %b_fc2: {vec} {{mpt.param}},
    %w_cls: tensor<{d}x10xf32> {{mpt.param}},
    %b_cls: tensor<10xf32> {{mpt.param}},
    %x: tensor<{batch}x{seq}x{d}xf32> {{mpt.data}}, %y: tensor<{batch}xi32> {{mpt.data}})
    -> (tensor<f32> {{mpt.metric = "loss"}})
    attributes {{mpt.train_step, mpt.optimizer = {{kind = "adam", lr = 1.0e-03 : f32}}}} {{
  %t = mpt.reshape %x : tensor<{batch}x{seq}x{d}xf32> -> {x2}
  %a, %ln1_mean, %ln1_invstd = mpt.layer_norm %t, %ln1_g, %ln1_b {{epsilon = 1.0e-05 : f32}}
      : {x2}, {vec} -> tensor<{rows}xf32>
  %q = mpt.matmul %a, %wq : {x2}, {dd} -> {x2}
  %k = mpt.matmul %a, %wk : {x2}, {dd} -> {x2}
  %v = mpt.matmul %a, %wv : {x2}, {dd} -> {x2}
{heads_ir}  %scores = mpt.matmul %qh, %kh {{transpose_b}}
      : {xh}, {xh} -> tensor<{bh}x{seq}x{seq}xf32>
  %att_scale = arith.constant dense<{scale}> : tensor<{bh}x{seq}x{seq}xf32>
  %scaled = arith.mulf %scores, %att_scale : tensor<{bh}x{seq}x{seq}xf32>
  %probs = mpt.softmax %scaled : tensor<{bh}x{seq}x{seq}xf32>
  %ctxh = mpt.matmul %probs, %vh : tensor<{bh}x{seq}x{seq}xf32>, {xh} -> {xh}
  %ctx4t = mpt.reshape %ctxh : {xh} -> {x4t}
  %ctx4 = mpt.transpose %ctx4t [0, 2, 1, 3] : {x4t} -> {x4}
  %ctx = mpt.reshape %ctx4 : {x4} -> {x2}
  %attn = mpt.matmul %ctx, %wo : {x2}, {dd} -> {x2}
  %r1 = arith.addf %t, %attn : {x2}
  %m, %ln2_mean, %ln2_invstd = mpt.layer_norm %r1, %ln2_g, %ln2_b {{epsilon = 1.0e-05 : f32}}
      : {x2}, {vec} -> tensor<{rows}xf32>
  %u = mpt.matmul %m, %w_fc1 : {x2}, tensor<{d}x{ff}xf32> -> tensor<{rows}x{ff}xf32>
  %ub = mpt.bias_add %u, %b_fc1 : tensor<{rows}x{ff}xf32>, tensor<{ff}xf32>
  %gl = mpt.gelu %ub : tensor<{rows}x{ff}xf32>
  %o = mpt.matmul %gl, %w_fc2 : tensor<{rows}x{ff}xf32>, tensor<{ff}x{d}xf32> -> {x2}
  %ob = mpt.bias_add %o, %b_fc2 : {x2}, {vec}
  %r2 = arith.addf %r1, %ob : {x2}
  %r2_3 = mpt.reshape %r2 : {x2} -> tensor<{batch}x{seq}x{d}xf32>
  %pool_sum = mpt.reduce_sum %r2_3 [1] : tensor<{batch}x{seq}x{d}xf32> -> tensor<{batch}x{d}xf32>
  %inv_seq = arith.constant dense<{inv_seq}> : tensor<{batch}x{d}xf32>
  %pooled = arith.mulf %pool_sum, %inv_seq : tensor<{batch}x{d}xf32>
  %cls = mpt.matmul %pooled, %w_cls : tensor<{batch}x{d}xf32>, tensor<{d}x10xf32> -> tensor<{batch}x10xf32>
  %logits = mpt.bias_add %cls, %b_cls : tensor<{batch}x10xf32>, tensor<10xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<{batch}x10xf32>, tensor<{batch}xi32>
  return %loss : tensor<f32>
}}
"""


def cnn(batch, c1, c2):
    x, a1, p1, a2, p2 = (f"tensor<{batch}x1x28x28xf32>", f"tensor<{batch}x{c1}x28x28xf32>",
                         f"tensor<{batch}x{c1}x14x14xf32>", f"tensor<{batch}x{c2}x14x14xf32>",
                         f"tensor<{batch}x{c2}x7x7xf32>")
    v1, v2, flat = f"tensor<{c1}xf32>", f"tensor<{c2}xf32>", c2 * 49
    return f"""
func.func @train_step(
    %wc1: tensor<{c1}x1x3x3xf32> {{mpt.param}}, %g1: {v1} {{mpt.param}},
    %be1: {v1} {{mpt.param}},
    %wc2: tensor<{c2}x{c1}x3x3xf32> {{mpt.param}}, %g2: {v2} {{mpt.param}},
    %be2: {v2} {{mpt.param}},
    %wf: tensor<{flat}x10xf32> {{mpt.param}}, %bf: tensor<10xf32> {{mpt.param}},
    %rm1: {v1} {{mpt.state}}, %rv1: {v1} {{mpt.state}},
    %rm2: {v2} {{mpt.state}}, %rv2: {v2} {{mpt.state}},
    %x: {x} {{mpt.data}}, %y: tensor<{batch}xi32> {{mpt.data}})
    -> ({v1} {{mpt.next = 8}}, {v1} {{mpt.next = 9}},
        {v2} {{mpt.next = 10}}, {v2} {{mpt.next = 11}},
        tensor<f32> {{mpt.metric = "loss"}})
    attributes {{mpt.train_step,
                mpt.optimizer = {{kind = "sgd", lr = 5.0e-02 : f32, momentum = 9.0e-01 : f32}}}} {{
  %c1 = mpt.conv2d %x, %wc1 {{padding = array<i64: 1, 1>}}
      : {x}, tensor<{c1}x1x3x3xf32> -> {a1}
  %n1, %mean1, %invstd1, %rm1_next, %rv1_next = mpt.batch_norm %c1, %g1, %be1, %rm1, %rv1
      {{momentum = 1.0e-01 : f32, epsilon = 1.0e-05 : f32}} : {a1}, {v1}
  %r1 = mpt.relu %n1 : {a1}
  %p1 = mpt.max_pool2d %r1 {{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}}
      : {a1} -> {p1}
  %c2 = mpt.conv2d %p1, %wc2 {{padding = array<i64: 1, 1>}}
      : {p1}, tensor<{c2}x{c1}x3x3xf32> -> {a2}
  %n2, %mean2, %invstd2, %rm2_next, %rv2_next = mpt.batch_norm %c2, %g2, %be2, %rm2, %rv2
      {{momentum = 1.0e-01 : f32, epsilon = 1.0e-05 : f32}} : {a2}, {v2}
  %r2 = mpt.relu %n2 : {a2}
  %p2 = mpt.max_pool2d %r2 {{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}}
      : {a2} -> {p2}
  %flat = mpt.reshape %p2 : {p2} -> tensor<{batch}x{flat}xf32>
  %fw = mpt.matmul %flat, %wf : tensor<{batch}x{flat}xf32>, tensor<{flat}x10xf32> -> tensor<{batch}x10xf32>
  %logits = mpt.bias_add %fw, %bf : tensor<{batch}x10xf32>, tensor<10xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<{batch}x10xf32>, tensor<{batch}xi32>
  return %rm1_next, %rv1_next, %rm2_next, %rv2_next, %loss
      : {v1}, {v1}, {v2}, {v2}, tensor<f32>
}}
"""
