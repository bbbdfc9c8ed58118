// RUN: mpt-opt %s --split-input-file --mpt-export-signature --verify-diagnostics | FileCheck %s
// RUN: mpt-opt %examples/mlp.mlir --mpt-mixed-precision="compute-type=f16 persistent-working-copy=1" --mpt-export-signature | FileCheck %s --check-prefix=COPY
// RUN: mpt-opt %examples/mlp.mlir --mpt-autodiff --mpt-export-signature | FileCheck %s --check-prefix=AUTODIFF
// RUN: mpt-opt %examples/transformer_block.mlir --mpt-mixed-precision="compute-type=f16" --mpt-export-signature | FileCheck %s --check-prefix=ADAM
// RUN: mpt-opt %examples/mlp.mlir --mpt-mixed-precision="compute-type=f16 init-scale=512 min-scale=2 max-scale=1024" --mpt-export-signature | FileCheck %s --check-prefix=BOUNDS
// RUN: mpt-opt %examples/mlp.mlir --mpt-mixed-precision="compute-type=f16 loss-scale=static" --mpt-export-signature | FileCheck %s --check-prefix=STATIC
// RUN: mpt-opt %S/../../CUDA/Inputs/embedding_step.mlir --mpt-mixed-precision="compute-type=f16" --mpt-export-signature | FileCheck %s --check-prefix=EMBEDDING

// After the rewrite the forward pass reads f16 working copies, not the f32
// masters: the masters' fan-in comes through their copies (w3: 128 inputs),
// and the copies start as their master, rounded. The loss scale and its
// counter are named after what the rewrite added them for, with the range
// the step keeps them in: the scale within the scaler's bounds, the counter
// from 0 to 2^53.
// COPY: \22init\22:{\22bound\22:0.088388347648318433,\22fan_in\22:128,\22kind\22:\22uniform\22},\22name\22:\22arg4\22,\22role\22:\22param\22,\22shape\22:[128,10]}
// COPY-SAME: {\22dtype\22:\22F16\22,\22init\22:{\22kind\22:\22copy\22},\22name\22:\22arg4.working_copy\22,\22role\22:\22state\22,\22shape\22:[128,10],\22working_copy_of\22:4}
// COPY-SAME: {\22domain\22:{\22max\22:16777216,\22min\22:1},\22dtype\22:\22F32\22,\22init\22:{\22kind\22:\22value\22,\22values\22:[65536]},\22name\22:\22loss_scale\22,\22role\22:\22state\22,\22shape\22:[]}
// COPY-SAME: {\22domain\22:{\22max\22:9007199254740992,\22min\22:0},\22dtype\22:\22I64\22,\22init\22:{\22kind\22:\22value\22,\22values\22:[0]},\22name\22:\22loss_scale_growth_tracker\22
// The bounds are the pass's options; a static scale is any positive finite
// f32.
// BOUNDS: {\22domain\22:{\22max\22:1024,\22min\22:2},\22dtype\22:\22F32\22,\22init\22:{\22kind\22:\22value\22,\22values\22:[512]},\22name\22:\22loss_scale\22
// STATIC: {\22domain\22:{\22max\22:3.4028234663852886e+38,\22min\22:1.4012984643248171e-45},\22dtype\22:\22F32\22,\22init\22:{\22kind\22:\22value\22,\22values\22:[65536]},\22name\22:\22loss_scale\22

// An embedding table starts standard normal, as nn.Embedding's; the learned
// position embedding, added through a broadcast, is an ordinary weight
// (Kaiming-uniform over its 32 columns), and the ids carry the table's rows.
// EMBEDDING: {\22dtype\22:\22F32\22,\22init\22:{\22kind\22:\22normal\22},\22name\22:\22arg0\22,\22role\22:\22param\22,\22shape\22:[16,32]}
// EMBEDDING-SAME: {\22dtype\22:\22F32\22,\22init\22:{\22bound\22:0.17677669529663687,\22fan_in\22:32,\22kind\22:\22uniform\22},\22name\22:\22arg1\22,\22role\22:\22param\22,\22shape\22:[12,32]}
// EMBEDDING-SAME: {\22dtype\22:\22I32\22,\22name\22:\22arg4\22,\22role\22:\22data\22,\22shape\22:[8,12],\22table_rows\22:16}

// The optimizer state mpt-autodiff creates for a forward-only step is named
// after its parameter as PyTorch's state_dict keys it, also without source
// names (mpt-opt attaches none, so parameters are arg<N>); a zero splat is one
// value, and optimizer_state_of gives its parameter. Adam's i64 step counters
// and the loss scale's growth tracker (both i64 scalars) keep distinct names;
// a step counter counts from 0 to 2^53.
// AUTODIFF: \22name\22:\22arg7\22,\22role\22:\22data\22
// AUTODIFF-SAME: {\22dtype\22:\22F32\22,\22init\22:{\22kind\22:\22value\22,\22values\22:[0]},\22name\22:\22arg0.momentum_buffer\22,\22optimizer_state_of\22:0,\22role\22:\22state\22,\22shape\22:[784,256]}
// AUTODIFF-SAME: \22name\22:\22arg5.momentum_buffer\22,\22optimizer_state_of\22:5,\22role\22:\22state\22,\22shape\22:[10]}]
// ADAM: \22name\22:\22arg0.exp_avg\22,\22optimizer_state_of\22:0,\22role\22:\22state\22,\22shape\22:[64]}
// ADAM-SAME: \22name\22:\22arg0.exp_avg_sq\22,\22optimizer_state_of\22:0,\22role\22:\22state\22,\22shape\22:[64]}
// ADAM-SAME: {\22domain\22:{\22max\22:9007199254740992,\22min\22:0},\22dtype\22:\22I64\22,\22init\22:{\22kind\22:\22zeros\22},\22name\22:\22arg0.step\22,\22optimizer_state_of\22:0,\22role\22:\22state\22,\22shape\22:[]}
// ADAM-SAME: \22name\22:\22arg13.step\22
// ADAM-SAME: \22name\22:\22loss_scale\22
// ADAM-SAME: \22name\22:\22loss_scale_growth_tracker\22

// PyTorch-layout weights: nn.Linear stores (out, in) and computes x*W^T, so
// fan_in is the contraction size (in = 3), not dim 0 (out = 4); the backward
// dX = dY*W (no transpose) would wrongly give 4. The bias takes its layer's
// bound 1/sqrt(3); the conv filter (F, C, KH, KW) has fan_in C*KH*KW = 2*3*3.
// Batch-norm scale, shift and running statistics start at 1, 0, 0 and 1; the
// momentum buffer at 0; the labels read by the loss have 4 classes. Names are
// the NameLocs the runtime's parser attaches (written out here).
// CHECK-LABEL: module attributes {mpt.signature = "{
// CHECK-SAME: \22format\22:\22mpt-signature-2\22
// CHECK-SAME: \22train\22:{\22arguments\22:[
// CHECK-SAME: {\22dtype\22:\22F32\22,\22init\22:{\22bound\22:0.57735026918962584,\22fan_in\22:3,\22kind\22:\22uniform\22},\22name\22:\22w\22,\22role\22:\22param\22,\22shape\22:[4,3]}
// CHECK-SAME: {\22dtype\22:\22F32\22,\22init\22:{\22bound\22:0.57735026918962584,\22fan_in\22:3,\22kind\22:\22uniform\22},\22name\22:\22b\22,\22role\22:\22param\22,\22shape\22:[4]}
// CHECK-SAME: {\22dtype\22:\22F32\22,\22init\22:{\22bound\22:0.23570226039551587,\22fan_in\22:18,\22kind\22:\22uniform\22},\22name\22:\22filter\22,\22role\22:\22param\22,\22shape\22:[5,2,3,3]}
// CHECK-SAME: {\22dtype\22:\22F32\22,\22init\22:{\22kind\22:\22ones\22},\22name\22:\22gamma\22,\22role\22:\22param\22,\22shape\22:[5]}
// CHECK-SAME: {\22dtype\22:\22F32\22,\22init\22:{\22kind\22:\22zeros\22},\22name\22:\22beta\22,\22role\22:\22param\22,\22shape\22:[5]}
// CHECK-SAME: {\22dtype\22:\22F32\22,\22init\22:{\22kind\22:\22zeros\22},\22name\22:\22mean\22,\22role\22:\22state\22,\22shape\22:[5]}
// CHECK-SAME: {\22dtype\22:\22F32\22,\22init\22:{\22kind\22:\22ones\22},\22name\22:\22var\22,\22role\22:\22state\22,\22shape\22:[5]}
// CHECK-SAME: {\22dtype\22:\22F32\22,\22init\22:{\22kind\22:\22zeros\22},\22name\22:\22mw\22,\22optimizer_state_of\22:0,\22role\22:\22state\22,\22shape\22:[4,3]}
// CHECK-SAME: {\22dtype\22:\22I64\22,\22init\22:{\22kind\22:\22value\22,\22values\22:[7]},\22name\22:\22count\22,\22role\22:\22state\22,\22shape\22:[]}
// CHECK-SAME: {\22dtype\22:\22F32\22,\22name\22:\22x\22,\22role\22:\22data\22,\22shape\22:[2,3]}
// CHECK-SAME: {\22classes\22:4,\22dtype\22:\22I32\22,\22name\22:\22y\22,\22role\22:\22data\22,\22shape\22:[2]}
// CHECK-SAME: {\22dtype\22:\22F32\22,\22name\22:\22image\22,\22role\22:\22data\22,\22shape\22:[1,2,4,4]}
// CHECK-SAME: \22function\22:\22train_step\22
// CHECK-SAME: \22results\22:[{\22dtype\22:\22F32\22,\22next\22:0,\22shape\22:[4,3]},{\22dtype\22:\22F32\22,\22next\22:7,\22shape\22:[4,3]},{\22dtype\22:\22F32\22,\22next\22:6,\22shape\22:[5]},{\22dtype\22:\22F32\22,\22metric\22:\22loss\22,\22shape\22:[]},
// The same JSON, NUL-terminated, survives lowering as a global constant.
// CHECK: llvm.mlir.global external constant @__mpt_signature("{\22format\22:\22mpt-signature-2\22,{{.*}}\00")
func.func @train_step(
    %w: tensor<4x3xf32> {mpt.param} loc("w"), %b: tensor<4xf32> {mpt.param} loc("b"),
    %filter: tensor<5x2x3x3xf32> {mpt.param} loc("filter"),
    %gamma: tensor<5xf32> {mpt.param} loc("gamma"), %beta: tensor<5xf32> {mpt.param} loc("beta"),
    %mean: tensor<5xf32> {mpt.state} loc("mean"), %var: tensor<5xf32> {mpt.state} loc("var"),
    %mw: tensor<4x3xf32> {mpt.state} loc("mw"),
    %count: tensor<i64> {mpt.state, mpt.init = dense<7> : tensor<i64>} loc("count"),
    %x: tensor<2x3xf32> {mpt.data} loc("x"), %y: tensor<2xi32> {mpt.data} loc("y"),
    %image: tensor<1x2x4x4xf32> {mpt.data} loc("image"))
    -> (tensor<4x3xf32> {mpt.next = 0}, tensor<4x3xf32> {mpt.next = 7},
        tensor<5xf32> {mpt.next = 6}, tensor<f32> {mpt.metric = "loss"},
        tensor<4xf32> {mpt.next = 1}, tensor<5x2x3x3xf32> {mpt.next = 2},
        tensor<5xf32> {mpt.next = 3}, tensor<5xf32> {mpt.next = 4},
        tensor<5xf32> {mpt.next = 5}, tensor<i64> {mpt.next = 8})
    attributes {mpt.train_step} {
  %xw = mpt.matmul %x, %w {transpose_b} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %logits = mpt.bias_add %xw, %b : tensor<2x4xf32>, tensor<4xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<2x4xf32>, tensor<2xi32>
  %c = mpt.conv2d %image, %filter {padding = array<i64: 1, 1>}
      : tensor<1x2x4x4xf32>, tensor<5x2x3x3xf32> -> tensor<1x5x4x4xf32>
  %n, %bm, %bi, %rm, %rv = mpt.batch_norm %c, %gamma, %beta, %mean, %var
      : tensor<1x5x4x4xf32>, tensor<5xf32>
  %seed = mpt.loss_grad %loss
  %dlogits = mpt.softmax_cross_entropy_grad %seed, %logits, %y : tensor<2x4xf32>, tensor<2xi32>
  %dw = mpt.matmul %dlogits, %x {transpose_a} : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  // The backward use of w: contracts over 4, which must not count.
  %dx = mpt.matmul %dlogits, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %w_next, %mw_next = mpt.sgd %w, %dw, %mw {lr = 1.0e-01 : f32, momentum = 9.0e-01 : f32} : tensor<4x3xf32>
  // Updates of the other parameters; their gradients do not matter here.
  %db = mpt.reduce_sum %dlogits [0] : tensor<2x4xf32> -> tensor<4xf32>
  %b_next = mpt.sgd %b, %db {lr = 1.0e-01 : f32} : tensor<4xf32>
  %filter_next = mpt.sgd %filter, %filter {lr = 1.0e-01 : f32} : tensor<5x2x3x3xf32>
  %gamma_next = mpt.sgd %gamma, %gamma {lr = 1.0e-01 : f32} : tensor<5xf32>
  %beta_next = mpt.sgd %beta, %beta {lr = 1.0e-01 : f32} : tensor<5xf32>
  return %w_next, %mw_next, %rv, %loss, %b_next, %filter_next, %gamma_next, %beta_next, %rm, %count
      : tensor<4x3xf32>, tensor<4x3xf32>, tensor<5xf32>, tensor<f32>, tensor<4xf32>,
        tensor<5x2x3x3xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<i64>
}

// -----

// Without NameLocs: argument numbers; the eval step's state arguments take
// the names of what they read, and its one result is the logits.
// CHECK-LABEL: module attributes {mpt.signature = "{\22eval\22:{\22arguments\22:[{\22dtype\22:\22F32\22,\22name\22:\22arg0\22,\22role\22:\22state\22,\22shape\22:[3,2],\22state_of\22:0},{\22dtype\22:\22F32\22,\22name\22:\22input1\22,\22role\22:\22data\22,\22shape\22:[2,3]}],\22function\22:\22predict\22,\22results\22:[{\22dtype\22:\22F32\22,\22name\22:\22logits\22,\22shape\22:[2,2]}]}
// CHECK-SAME: {\22classes\22:2,\22dtype\22:\22I32\22,\22name\22:\22arg2\22,\22role\22:\22data\22,\22shape\22:[2]}
func.func @train_step(%w: tensor<3x2xf32> {mpt.state}, %x: tensor<2x3xf32> {mpt.data},
                      %y: tensor<2xi32> {mpt.data})
    -> (tensor<3x2xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %logits = mpt.matmul %x, %w : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<2x2xf32>, tensor<2xi32>
  return %w, %loss : tensor<3x2xf32>, tensor<f32>
}
func.func @predict(%w: tensor<3x2xf32> {mpt.state_of = 0}, %x: tensor<2x3xf32> {mpt.data})
    -> tensor<2x2xf32> attributes {mpt.eval_step} {
  %logits = mpt.matmul %x, %w : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  return %logits : tensor<2x2xf32>
}

// -----

// Ids an embedding looks up, in the training step (the lookup and its
// gradient) and the eval step, carry the table's rows, which the runtime
// checks them against; the labels keep their classes.
// CHECK-LABEL: module attributes {mpt.signature = "{\22eval\22:{\22arguments\22:[{\22dtype\22:\22F32\22,\22name\22:\22arg0\22,\22role\22:\22state\22,\22shape\22:[5,2],\22state_of\22:0},{\22dtype\22:\22I32\22,\22name\22:\22input1\22,\22role\22:\22data\22,\22shape\22:[2,3],\22table_rows\22:5}]
// CHECK-SAME: {\22dtype\22:\22I32\22,\22name\22:\22arg1\22,\22role\22:\22data\22,\22shape\22:[2,3],\22table_rows\22:5}
// CHECK-SAME: {\22classes\22:2,\22dtype\22:\22I32\22,\22name\22:\22arg2\22,\22role\22:\22data\22,\22shape\22:[2]}
func.func @train_step(%table: tensor<5x2xf32> {mpt.state}, %ids: tensor<2x3xi32> {mpt.data},
                      %y: tensor<2xi32> {mpt.data})
    -> (tensor<5x2xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %e = mpt.embedding %table, %ids : tensor<5x2xf32>, tensor<2x3xi32> -> tensor<2x3x2xf32>
  %logits = mpt.reduce_sum %e [1] : tensor<2x3x2xf32> -> tensor<2x2xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<2x2xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %dlogits = mpt.softmax_cross_entropy_grad %seed, %logits, %y : tensor<2x2xf32>, tensor<2xi32>
  %de = mpt.broadcast %dlogits [1] : tensor<2x2xf32> -> tensor<2x3x2xf32>
  %dtable = mpt.embedding_grad %de, %ids : tensor<2x3x2xf32>, tensor<2x3xi32> -> tensor<5x2xf32>
  %next = mpt.sgd %table, %dtable {lr = 1.0e-01 : f32} : tensor<5x2xf32>
  return %next, %loss : tensor<5x2xf32>, tensor<f32>
}
func.func @predict(%table: tensor<5x2xf32> {mpt.state_of = 0}, %ids: tensor<2x3xi32> {mpt.data})
    -> tensor<2x2xf32> attributes {mpt.eval_step} {
  %e = mpt.embedding %table, %ids : tensor<5x2xf32>, tensor<2x3xi32> -> tensor<2x3x2xf32>
  %logits = mpt.reduce_sum %e [1] : tensor<2x3x2xf32> -> tensor<2x2xf32>
  return %logits : tensor<2x2xf32>
}

// -----

// expected-error @below {{data argument #1 is read as ids of 4 and of 5 table rows}}
func.func @train_step(%a: tensor<5x2xf32> {mpt.state}, %ids: tensor<3xi32> {mpt.data},
                      %b: tensor<4x2xf32> {mpt.state})
    -> (tensor<5x2xf32> {mpt.next = 0}, tensor<4x2xf32> {mpt.next = 2},
        tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %ea = mpt.embedding %a, %ids : tensor<5x2xf32>, tensor<3xi32> -> tensor<3x2xf32>
  %eb = mpt.embedding %b, %ids : tensor<4x2xf32>, tensor<3xi32> -> tensor<3x2xf32>
  %sum = arith.addf %ea, %eb : tensor<3x2xf32>
  %loss = mpt.reduce_sum %sum [0, 1] : tensor<3x2xf32> -> tensor<f32>
  return %a, %b, %loss : tensor<5x2xf32>, tensor<4x2xf32>, tensor<f32>
}

// -----

// A module without a training step is left alone.
// CHECK-LABEL: module {
// CHECK-NOT: mpt.signature
// CHECK-NOT: __mpt_signature
func.func @plain(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// The eval step's logits must be as wide as the loss has classes.
func.func @train_step(%w: tensor<3x2xf32> {mpt.state}, %x: tensor<2x3xf32> {mpt.data},
                      %y: tensor<2xi32> {mpt.data})
    -> (tensor<3x2xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %logits = mpt.matmul %x, %w : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<2x2xf32>, tensor<2xi32>
  return %w, %loss : tensor<3x2xf32>, tensor<f32>
}
// expected-error @below {{the eval step returns 'tensor<2x16xf32>', but the loss of @train_step has 2 classes: logits must be (batch, 2)}}
func.func @predict(%x: tensor<2x3xf32> {mpt.data}) -> tensor<2x16xf32>
    attributes {mpt.eval_step} {
  %z = arith.constant dense<0.0> : tensor<2x16xf32>
  return %z : tensor<2x16xf32>
}


// -----

// expected-error @below {{the runtime holds statically shaped tensors of f32, f16, bf16, i64, i32 or i1; argument #0 has type 'tensor<?xf32>'}}
func.func @train_step(%w: tensor<?xf32> {mpt.state}) -> (tensor<?xf32> {mpt.next = 0})
    attributes {mpt.train_step} {
  return %w : tensor<?xf32>
}

// -----

// expected-error @below {{arguments #0 and #1 are both named 'w'}}
func.func @train_step(%w: tensor<3xf32> {mpt.state} loc("w"), %v: tensor<3xf32> {mpt.state} loc("w"))
    -> (tensor<3xf32> {mpt.next = 0}, tensor<3xf32> {mpt.next = 1})
    attributes {mpt.train_step} {
  return %w, %v : tensor<3xf32>, tensor<3xf32>
}

// -----

// JSON has no nan or inf: a non-finite initial value is an error here, not
// a signature the runtime cannot parse.
// expected-error @below {{argument #0 ('s') has a non-finite mpt.init value (nan); the runtime starts state at finite values only}}
func.func @train_step(%s: tensor<f32> {mpt.state, mpt.init = dense<0x7FC00000> : tensor<f32>} loc("s"))
    -> (tensor<f32> {mpt.next = 0})
    attributes {mpt.train_step} {
  return %s : tensor<f32>
}

// -----

// Labels of a loss that ignores a label (ignore_index, PyTorch's -100) carry
// it, which the runtime then accepts besides [0, classes).
// CHECK-LABEL: module attributes {mpt.signature =
// CHECK-SAME: {\22classes\22:2,\22dtype\22:\22I64\22,\22ignored_label\22:-100,\22name\22:\22arg1\22,\22role\22:\22data\22,\22shape\22:[2]}
func.func @train_step(%logits: tensor<2x2xf32> {mpt.state}, %y: tensor<2xi64> {mpt.data})
    -> (tensor<2x2xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %loss = mpt.softmax_cross_entropy %logits, %y {ignore_index = -100} : tensor<2x2xf32>, tensor<2xi64>
  %seed = mpt.loss_grad %loss
  %grad = mpt.softmax_cross_entropy_grad %seed, %logits, %y {ignore_index = -100} : tensor<2x2xf32>, tensor<2xi64>
  return %grad, %loss : tensor<2x2xf32>, tensor<f32>
}

// -----

// expected-error @below {{data argument #1 is read as labels by losses that ignore different labels}}
func.func @train_step(%logits: tensor<2x2xf32> {mpt.state}, %y: tensor<2xi64> {mpt.data})
    -> (tensor<2x2xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "loss"}, tensor<f32> {mpt.metric = "other"})
    attributes {mpt.train_step} {
  %loss = mpt.softmax_cross_entropy %logits, %y {ignore_index = -100} : tensor<2x2xf32>, tensor<2xi64>
  %other = mpt.softmax_cross_entropy %logits, %y : tensor<2x2xf32>, tensor<2xi64>
  return %logits, %loss, %other : tensor<2x2xf32>, tensor<f32>, tensor<f32>
}
