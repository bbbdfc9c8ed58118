// RUN: mpt-opt %s -split-input-file --mpt-check-mixed-precision -verify-diagnostics

//===----------------------------------------------------------------------===//
// Scaled gradients: everything computed from `mpt.loss_grad ... scale` up to
// mpt.unscale is still multiplied by the loss scale.
//===----------------------------------------------------------------------===//

func.func @clip_scaled_gradient(%w: tensor<8x4xf32>, %x: tensor<2x8xf16>, %y: tensor<2xi32>, %s: tensor<f32>)
    -> (tensor<8x4xf16>, tensor<f32>) {
  %w16 = arith.truncf %w : tensor<8x4xf32> to tensor<8x4xf16>
  %o = mpt.matmul %x, %w16 : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %o32 = arith.extf %o : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss scale %s
  %do = mpt.softmax_cross_entropy_grad %seed, %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %do16 = arith.truncf %do : tensor<2x4xf32> to tensor<2x4xf16>
  %dw = mpt.matmul %x, %do16 {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
  // expected-error @+1 {{clips gradient #0 while it is still multiplied by the loss scale: the norm and max_norm are off by the scale; unscale the gradient first (mpt.unscale)}}
  %c, %n = mpt.clip_grad_norm %dw {max_norm = 1.0 : f32} : tensor<8x4xf16>
  return %c, %n : tensor<8x4xf16>, tensor<f32>
}

// -----

// Only the gradient that was not unscaled is reported.

func.func @clip_one_of_two_scaled(%x: tensor<2x8xf32>, %y: tensor<2xi32>, %s: tensor<f32>)
    -> (tensor<8x8xf32>, tensor<8xf32>, tensor<f32>) {
  %loss = mpt.softmax_cross_entropy %x, %y : tensor<2x8xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss scale %s
  %g = mpt.softmax_cross_entropy_grad %seed, %x, %y : tensor<2x8xf32>, tensor<2xi32>
  %dw = mpt.matmul %x, %g {transpose_a} : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<8x8xf32>
  %dwu = mpt.unscale %dw, %s : tensor<8x8xf32> -> tensor<8x8xf32>
  %db = mpt.reduce_sum %g [0] : tensor<2x8xf32> -> tensor<8xf32>
  // expected-error @+1 {{clips gradient #1 while it is still multiplied by the loss scale}}
  %c0, %c1, %n = mpt.clip_grad_norm %dwu, %db {max_norm = 1.0 : f32} : tensor<8x8xf32>, tensor<8xf32>
  return %c0, %c1, %n : tensor<8x8xf32>, tensor<8xf32>, tensor<f32>
}

// -----

func.func @optimizer_reads_scaled_gradient(%w: tensor<8x4xf32>, %x: tensor<2x8xf16>, %y: tensor<2xi32>, %s: tensor<f32>)
    -> tensor<8x4xf32> {
  %w16 = arith.truncf %w : tensor<8x4xf32> to tensor<8x4xf16>
  %o = mpt.matmul %x, %w16 : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %o32 = arith.extf %o : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss scale %s
  %do = mpt.softmax_cross_entropy_grad %seed, %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %do16 = arith.truncf %do : tensor<2x4xf32> to tensor<2x4xf16>
  %dw = mpt.matmul %x, %do16 {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
  %dw32 = arith.extf %dw : tensor<8x4xf16> to tensor<8x4xf32>
  // expected-error @+1 {{updates from a gradient that is still multiplied by the loss scale; unscale it first (mpt.unscale)}}
  %w2 = mpt.sgd %w, %dw32 {lr = 1.0e-01 : f32} : tensor<8x4xf32>
  return %w2 : tensor<8x4xf32>
}

// -----

// Negative: with an unscaled seed (no loss scaling) the same graph is fine.

func.func @unscaled_seed(%w: tensor<8x4xf32>, %x: tensor<2x8xf16>, %y: tensor<2xi32>)
    -> (tensor<8x4xf32>, tensor<f32>) {
  %w16 = arith.truncf %w : tensor<8x4xf32> to tensor<8x4xf16>
  %o = mpt.matmul %x, %w16 : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %o32 = arith.extf %o : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %do16 = arith.truncf %do : tensor<2x4xf32> to tensor<2x4xf16>
  %dw = mpt.matmul %x, %do16 {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
  %dw32 = arith.extf %dw : tensor<8x4xf16> to tensor<8x4xf32>
  %c, %n = mpt.clip_grad_norm %dw32 {max_norm = 1.0 : f32} : tensor<8x4xf32>
  %w2 = mpt.sgd %w, %c {lr = 1.0e-01 : f32} : tensor<8x4xf32>
  return %w2, %n : tensor<8x4xf32>, tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// Optimizers: f32 master, f32 state.
//===----------------------------------------------------------------------===//

func.func @optimizer_f16_param(%w: tensor<8x4xf16>, %g: tensor<8x4xf16>) -> tensor<8x4xf16> {
  // expected-error @+1 {{updates a parameter of type 'tensor<8x4xf16>' without an f32 master: small updates round away; keep the parameter in f32 (mpt-master-weights)}}
  %w2 = mpt.sgd %w, %g {lr = 1.0e-01 : f32} : tensor<8x4xf16>
  return %w2 : tensor<8x4xf16>
}

// -----

// Widening the f16 parameter for the update does not make it a master.

func.func @optimizer_widened_f16_param(%w: tensor<8x4xf16>, %g: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %w32 = arith.extf %w : tensor<8x4xf16> to tensor<8x4xf32>
  // expected-error @+1 {{updates a parameter of type 'tensor<8x4xf16>' without an f32 master}}
  %w2 = mpt.sgd %w32, %g {lr = 1.0e-01 : f32} : tensor<8x4xf32>
  return %w2 : tensor<8x4xf32>
}

// -----

// Pure f16 SGD with momentum: both the parameter and the buffer are reported.

func.func @pure_f16_sgd_momentum(%w: tensor<8x4xf16>, %g: tensor<8x4xf16>, %m: tensor<8x4xf16>)
    -> (tensor<8x4xf16>, tensor<8x4xf16>) {
  // expected-error @+2 {{updates a parameter of type 'tensor<8x4xf16>' without an f32 master}}
  // expected-error @+1 {{keeps optimizer state #0 in 'f16'; optimizer state must be f32}}
  %w2, %m2 = mpt.sgd %w, %g, %m {lr = 1.0e-01 : f32, momentum = 9.0e-01 : f32} : tensor<8x4xf16>
  return %w2, %m2 : tensor<8x4xf16>, tensor<8x4xf16>
}

// -----

func.func @sgd_f16_momentum_buffer(%w: tensor<8x4xf32>, %g: tensor<8x4xf32>, %m: tensor<8x4xf16>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %m32 = arith.extf %m : tensor<8x4xf16> to tensor<8x4xf32>
  // expected-error @+1 {{keeps optimizer state #0 in 'f16'; optimizer state must be f32}}
  %w2, %m2 = mpt.sgd %w, %g, %m32 {lr = 1.0e-01 : f32, momentum = 9.0e-01 : f32} : tensor<8x4xf32>
  return %w2, %m2 : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// Adam: each low-precision moment is reported; the integer step is not state
// in a float type.

func.func @adam_low_precision_moments(%w: tensor<8x4xf32>, %g: tensor<8x4xf32>, %m: tensor<8x4xbf16>,
                                      %v: tensor<8x4xf16>, %t: tensor<i64>) -> tensor<8x4xf32> {
  %m32 = arith.extf %m : tensor<8x4xbf16> to tensor<8x4xf32>
  %v32 = arith.extf %v : tensor<8x4xf16> to tensor<8x4xf32>
  // expected-error @+2 {{keeps optimizer state #0 in 'bf16'; optimizer state must be f32}}
  // expected-error @+1 {{keeps optimizer state #1 in 'f16'; optimizer state must be f32}}
  %w2, %m2, %v2, %t2 = mpt.adam %w, %g, %m32, %v32, %t {lr = 1.0e-03 : f32} : tensor<8x4xf32>, tensor<i64>
  return %w2 : tensor<8x4xf32>
}

// -----

// Negative: f32 master and f32 moments.

func.func @adam_f32(%w: tensor<8x4xf32>, %g: tensor<8x4xf32>, %m: tensor<8x4xf32>,
                    %v: tensor<8x4xf32>, %t: tensor<i64>) -> tensor<8x4xf32> {
  %w2, %m2, %v2, %t2 = mpt.adamw %w, %g, %m, %v, %t {lr = 1.0e-03 : f32} : tensor<8x4xf32>, tensor<i64>
  return %w2 : tensor<8x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Running statistics.
//===----------------------------------------------------------------------===//

func.func @batch_norm_f16_running_stats(%x: tensor<2x4xf16>, %g: tensor<4xf16>, %b: tensor<4xf16>,
                                        %rm: tensor<4xf16>, %rv: tensor<4xf16>) -> tensor<2x4xf16> {
  // expected-error @+1 {{keeps running statistics in 'f16'; they must be f32 (mpt-norm-stats-fp32)}}
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm, %rv : tensor<2x4xf16>, tensor<4xf16>
  return %y : tensor<2x4xf16>
}

// -----

// Widened for the op, the statistics are still stored in bf16.

func.func @batch_norm_widened_running_stats(%x: tensor<2x4xf16>, %g: tensor<4xf32>, %b: tensor<4xf32>,
                                            %rm: tensor<4xbf16>, %rv: tensor<4xbf16>) -> tensor<2x4xf16> {
  %rm32 = arith.extf %rm : tensor<4xbf16> to tensor<4xf32>
  %rv32 = arith.extf %rv : tensor<4xbf16> to tensor<4xf32>
  // expected-error @+1 {{keeps running statistics in 'bf16'; they must be f32 (mpt-norm-stats-fp32)}}
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm32, %rv32 : tensor<2x4xf16>, tensor<4xf32>
  return %y : tensor<2x4xf16>
}

// -----

//===----------------------------------------------------------------------===//
// lower ops left in f32.
//===----------------------------------------------------------------------===//

func.func @pinned_fp32_matmul(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>, %v: tensor<4x4xf16>)
    -> (tensor<2x4xf32>, tensor<4x4xf16>) {
  // expected-remark @+1 {{pinned to f32: runs without low-precision tensor cores}}
  %0 = mpt.matmul %x, %w {mpt.precision = #mpt.precision<fp32>} : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = mpt.relu %v : tensor<4x4xf16>
  return %0, %1 : tensor<2x4xf32>, tensor<4x4xf16>
}

// -----

func.func @unpinned_f32_matmul(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>, %v: tensor<4x4xf16>)
    -> (tensor<2x4xf32>, tensor<4x4xf16>) {
  // expected-warning @+1 {{runs in f32 in a low-precision graph although nothing pins it there}}
  %0 = mpt.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = mpt.relu %v : tensor<4x4xf16>
  return %0, %1 : tensor<2x4xf32>, tensor<4x4xf16>
}

// -----

func.func @unpinned_f32_conv(%x: tensor<1x2x4x4xf32>, %f: tensor<2x2x1x1xf32>, %v: tensor<4xbf16>)
    -> (tensor<1x2x4x4xf32>, tensor<4xbf16>) {
  // expected-warning @+1 {{runs in f32 in a low-precision graph although nothing pins it there}}
  %0 = mpt.conv2d %x, %f : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %1 = mpt.relu %v : tensor<4xbf16>
  return %0, %1 : tensor<1x2x4x4xf32>, tensor<4xbf16>
}

// -----

// Negative: an f32 graph has no low-precision values, so an f32 matmul,
// pinned or not, is what it asks for.

func.func @f32_graph(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = mpt.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = mpt.matmul %x, %w {mpt.precision = #mpt.precision<fp32>} : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Loss scaling with bf16.
//===----------------------------------------------------------------------===//

func.func @bf16_loss_scaling(%x: tensor<2x8xbf16>, %w: tensor<8x4xbf16>, %y: tensor<2xi32>, %s: tensor<f32>)
    -> tensor<2x4xf32> {
  %o = mpt.matmul %x, %w : tensor<2x8xbf16>, tensor<8x4xbf16> -> tensor<2x4xbf16>
  %o32 = arith.extf %o : tensor<2x4xbf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  // expected-warning @+1 {{loss scaling a bf16 graph: bf16 has the exponent range of f32 and rarely needs a loss scale}}
  %seed = mpt.loss_grad %loss scale %s
  %do = mpt.softmax_cross_entropy_grad %seed, %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  // expected-error @+1 {{returns result #0 while it is still multiplied by the loss scale; unscale it first (mpt.unscale)}}
  return %do : tensor<2x4xf32>
}

// -----

// Negative: a bf16 graph without loss scaling.

func.func @bf16_no_loss_scaling(%x: tensor<2x8xbf16>, %w: tensor<8x4xbf16>, %y: tensor<2xi32>)
    -> tensor<2x4xf32> {
  %o = mpt.matmul %x, %w : tensor<2x8xbf16>, tensor<8x4xbf16> -> tensor<2x4xbf16>
  %o32 = arith.extf %o : tensor<2x4xbf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  return %do : tensor<2x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// A clean mixed-precision training step: f16 compute, f32 masters, momentum
// and running statistics, dynamic loss scale, gradients unscaled before the
// finite check, the clipping and the optimizer. No diagnostics.
//===----------------------------------------------------------------------===//

func.func @clean_mixed_step(%w: tensor<8x4xf32> {mpt.param}, %m: tensor<8x4xf32> {mpt.state},
                            %g: tensor<4xf32> {mpt.param}, %b: tensor<4xf32> {mpt.param},
                            %rm: tensor<4xf32> {mpt.state}, %rv: tensor<4xf32> {mpt.state},
                            %s: tensor<f32> {mpt.state},
                            %x: tensor<2x8xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf32> {mpt.next = 0}, tensor<8x4xf32> {mpt.next = 1},
        tensor<4xf32> {mpt.next = 2}, tensor<4xf32> {mpt.next = 3},
        tensor<4xf32> {mpt.next = 4}, tensor<4xf32> {mpt.next = 5},
        tensor<f32> {mpt.next = 6}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %x16 = arith.truncf %x : tensor<2x8xf32> to tensor<2x8xf16>
  %w16 = arith.truncf %w : tensor<8x4xf32> to tensor<8x4xf16>
  %o = mpt.matmul %x16, %w16 : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %h, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %o, %g, %b, %rm, %rv : tensor<2x4xf16>, tensor<4xf32>
  %h32 = arith.extf %h : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %h32, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss scale %s
  %dh32 = mpt.softmax_cross_entropy_grad %seed, %h32, %y : tensor<2x4xf32>, tensor<2xi32>
  %dh = arith.truncf %dh32 : tensor<2x4xf32> to tensor<2x4xf16>
  %do, %dg, %db = mpt.batch_norm_grad %dh, %o, %g, %mean, %invstd : tensor<2x4xf16>, tensor<4xf32>
  %dw = mpt.matmul %x16, %do {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
  %dwu = mpt.unscale %dw, %s : tensor<8x4xf16> -> tensor<8x4xf32>
  %dgu = mpt.unscale %dg, %s : tensor<4xf32> -> tensor<4xf32>
  %dbu = mpt.unscale %db, %s : tensor<4xf32> -> tensor<4xf32>
  %ok = mpt.all_finite %dwu, %dgu, %dbu : tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>
  %cw, %cg, %cb, %norm = mpt.clip_grad_norm %dwu, %dgu, %dbu {max_norm = 1.0 : f32} : tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>
  %w2, %m2 = mpt.sgd %w, %cw, %m {lr = 1.0e-01 : f32, momentum = 9.0e-01 : f32} : tensor<8x4xf32>
  %g2 = mpt.sgd %g, %cg {lr = 1.0e-01 : f32} : tensor<4xf32>
  %b2 = mpt.sgd %b, %cb {lr = 1.0e-01 : f32} : tensor<4xf32>
  %zero = arith.constant dense<0> : tensor<i64>
  %s2, %n2 = mpt.update_loss_scale %s, %zero, %ok : tensor<i64>
  return %w2, %m2, %g2, %b2, %rm2, %rv2, %s2, %loss
      : tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// Scaled values meeting unscaled ones: the result is neither scaled nor not.
//===----------------------------------------------------------------------===//

// Weight decay written by hand adds the unscaled decay to the scaled gradient.
// The backward ops before it (a matmul with the forward weight, relu_grad
// with a forward activation) keep the scale and are fine.

func.func @hand_weight_decay_on_scaled(%w: tensor<8x4xf32>, %x: tensor<2x8xf32>, %y: tensor<2xi32>, %s: tensor<f32>)
    -> tensor<8x4xf32> {
  %h = mpt.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %a = mpt.relu %h : tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %a, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss scale %s
  %da = mpt.softmax_cross_entropy_grad %seed, %a, %y : tensor<2x4xf32>, tensor<2xi32>
  %dh = mpt.relu_grad %da, %h : tensor<2x4xf32>
  %dx = mpt.matmul %dh, %w {transpose_b} : tensor<2x4xf32>, tensor<8x4xf32> -> tensor<2x8xf32>
  %dw = mpt.matmul %x, %dh {transpose_a} : tensor<2x8xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
  %wd = arith.constant dense<1.0e-2> : tensor<8x4xf32>
  %decay = arith.mulf %wd, %w : tensor<8x4xf32>
  // expected-error @+1 {{reads operand #0, which is still multiplied by the loss scale, in a way that does not scale with it (e.g. adds an unscaled value such as weight decay or an accumulation buffer); unscale it first (mpt.unscale)}}
  %g = arith.addf %dw, %decay : tensor<8x4xf32>
  %w2 = mpt.sgd %w, %g {lr = 1.0e-01 : f32} : tensor<8x4xf32>
  return %w2 : tensor<8x4xf32>
}

// -----

// Scaled gradients summed over micro-batches (mpt-accumulate-gradients): a
// sum that starts at zero stays scaled and is unscaled after the loop; one
// that starts at an unscaled value mixes it with the scale.

func.func @micro_batch_sums(%x: tensor<8x4xf32>, %y: tensor<8xi32>, %s: tensor<f32>,
                            %acc: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %sums:2 = scf.for %k = %c0 to %c2 step %c1 iter_args(%sum = %zero, %onto = %acc)
      -> (tensor<4xf32>, tensor<4xf32>) {
    %loss = mpt.softmax_cross_entropy %x, %y : tensor<8x4xf32>, tensor<8xi32>
    %seed = mpt.loss_grad %loss scale %s {micro_batches = 2 : i64}
    %dx = mpt.softmax_cross_entropy_grad %seed, %x, %y : tensor<8x4xf32>, tensor<8xi32>
    %db = mpt.reduce_sum %dx [0] : tensor<8x4xf32> -> tensor<4xf32>
    %next = arith.addf %sum, %db : tensor<4xf32>
    // expected-error @+1 {{reads operand #1, which is still multiplied by the loss scale}}
    %wrong = arith.addf %onto, %db : tensor<4xf32>
    scf.yield %next, %wrong : tensor<4xf32>, tensor<4xf32>
  }
  %g = mpt.unscale %sums#0, %s : tensor<4xf32> -> tensor<4xf32>
  return %g, %sums#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// An accumulation buffer of scaled gradients, and clipping by value.

func.func @accumulate_and_clip_scaled(%acc: tensor<4xf32>, %x: tensor<2x4xf32>, %y: tensor<2xi32>, %s: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %loss = mpt.softmax_cross_entropy %x, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss scale %s
  %dx = mpt.softmax_cross_entropy_grad %seed, %x, %y : tensor<2x4xf32>, tensor<2xi32>
  %db = mpt.reduce_sum %dx [0] : tensor<2x4xf32> -> tensor<4xf32>
  // expected-error @+1 {{reads operand #1, which is still multiplied by the loss scale}}
  %acc2 = arith.addf %acc, %db : tensor<4xf32>
  %t = arith.constant dense<1.0> : tensor<4xf32>
  // expected-error @+1 {{clips or thresholds operand #0, which is still multiplied by the loss scale: the threshold is off by the scale; unscale it first (mpt.unscale)}}
  %clipped = arith.minimumf %db, %t : tensor<4xf32>
  // expected-error @+1 {{clips or thresholds operand #0, which is still multiplied by the loss scale}}
  %over = arith.cmpf ogt, %db, %t : tensor<4xf32>
  %u = mpt.unscale %db, %s : tensor<4xf32> -> tensor<4xf32>
  // Negative: unscaled first.
  %clipped2 = arith.minimumf %u, %t : tensor<4xf32>
  return %acc2, %clipped, %clipped2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Scaledness flows through scf.if: a scaled gradient chosen in a region
// reaches the optimizer still scaled, and clipping inside a region is seen.

func.func @scaled_through_if(%w: tensor<4xf32>, %x: tensor<2x4xf32>, %y: tensor<2xi32>, %s: tensor<f32>, %c: i1)
    -> tensor<4xf32> {
  %loss = mpt.softmax_cross_entropy %x, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss scale %s
  %dx = mpt.softmax_cross_entropy_grad %seed, %x, %y : tensor<2x4xf32>, tensor<2xi32>
  %db = mpt.reduce_sum %dx [0] : tensor<2x4xf32> -> tensor<4xf32>
  %g = scf.if %c -> tensor<4xf32> {
    %t = arith.constant dense<1.0> : tensor<4xf32>
    // expected-error @+1 {{clips or thresholds operand #0, which is still multiplied by the loss scale}}
    %clipped = arith.minimumf %db, %t : tensor<4xf32>
    scf.yield %clipped : tensor<4xf32>
  } else {
    %two = arith.constant dense<2.0> : tensor<4xf32>
    %doubled = arith.mulf %db, %two : tensor<4xf32>
    scf.yield %doubled : tensor<4xf32>
  }
  // expected-error @+1 {{updates from a gradient that is still multiplied by the loss scale; unscale it first (mpt.unscale)}}
  %w2 = mpt.sgd %w, %g {lr = 1.0e-01 : f32} : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Scaling by hand: the seed multiplied by a constant instead of the `scale`
// operand. Gradients are never unscaled and overflowing steps are not skipped.

func.func @hand_scaled_seed(%w: tensor<4xf32>, %x: tensor<2x4xf32>, %y: tensor<2xi32>) -> tensor<4xf32> {
  %loss = mpt.softmax_cross_entropy %x, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %big = arith.constant dense<1024.0> : tensor<f32>
  // expected-error @+1 {{scales the backward seed by hand: gradients stay multiplied by the factor, and non-finite steps are not skipped; give mpt.loss_grad a `scale` operand (mpt-loss-scaling) instead}}
  %scaled = arith.mulf %seed, %big : tensor<f32>
  %dx = mpt.softmax_cross_entropy_grad %scaled, %x, %y : tensor<2x4xf32>, tensor<2xi32>
  %db = mpt.reduce_sum %dx [0] : tensor<2x4xf32> -> tensor<4xf32>
  %w2 = mpt.sgd %w, %db {lr = 1.0e-01 : f32} : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// The chain rule of a weighted loss multiplies the seed by the loss's own
// weight: accepted. A factor the loss does not have is still scaling by hand.

func.func @weighted_loss_seed(%w: tensor<4xf32>, %x: tensor<2x4xf32>, %y: tensor<2xi32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ce = mpt.softmax_cross_entropy %x, %y : tensor<2x4xf32>, tensor<2xi32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %loss = arith.mulf %half, %ce : tensor<f32>
  %seed = mpt.loss_grad %loss
  %weighted = arith.mulf %seed, %half : tensor<f32>
  %dx = mpt.softmax_cross_entropy_grad %weighted, %x, %y : tensor<2x4xf32>, tensor<2xi32>
  %db = mpt.reduce_sum %dx [0] : tensor<2x4xf32> -> tensor<4xf32>
  %w2 = mpt.sgd %w, %db {lr = 1.0e-01 : f32} : tensor<4xf32>
  %big = arith.constant dense<1024.0> : tensor<f32>
  // expected-error @+1 {{scales the backward seed by hand}}
  %scaled = arith.mulf %seed, %big : tensor<f32>
  %dx2 = mpt.softmax_cross_entropy_grad %scaled, %x, %y : tensor<2x4xf32>, tensor<2xi32>
  %db2 = mpt.reduce_sum %dx2 [0] : tensor<2x4xf32> -> tensor<4xf32>
  %w3 = mpt.sgd %w, %db2 {lr = 1.0e-01 : f32} : tensor<4xf32>
  return %w2, %w3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The loss multiplied by a constant above 1 right before the seed may be loss
// scaling by hand or a weighted loss: a warning. Averaging (0.5) is not.

func.func @hand_scaled_loss(%w: tensor<4xf32>, %x: tensor<2x4xf32>, %y: tensor<2xi32>) -> (tensor<4xf32>, tensor<f32>) {
  %loss = mpt.softmax_cross_entropy %x, %y : tensor<2x4xf32>, tensor<2xi32>
  %big = arith.constant dense<1024.0> : tensor<f32>
  // expected-warning @+1 {{multiplies the loss by 1024 before mpt.loss_grad: if this scales the loss by hand, the gradients stay multiplied by it and non-finite steps are not skipped; give mpt.loss_grad a `scale` operand (mpt-loss-scaling) instead}}
  %scaled = arith.mulf %loss, %big : tensor<f32>
  %seed = mpt.loss_grad %scaled
  %dx = mpt.softmax_cross_entropy_grad %seed, %x, %y : tensor<2x4xf32>, tensor<2xi32>
  %db = mpt.reduce_sum %dx [0] : tensor<2x4xf32> -> tensor<4xf32>
  %w2 = mpt.sgd %w, %db {lr = 1.0e-01 : f32} : tensor<4xf32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %mean = arith.mulf %loss, %half : tensor<f32>
  %seed2 = mpt.loss_grad %mean
  return %w2, %seed2 : tensor<4xf32>, tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// State updated by hand in low precision.
//===----------------------------------------------------------------------===//

// A running mean kept in f16 and updated by hand (0.9 m + 0.1 mean).

func.func @hand_running_mean_f16(%x: tensor<2x4xf16> {mpt.data}, %rm: tensor<4xf16> {mpt.state})
    -> (tensor<4xf16> {mpt.next = 1}) attributes {mpt.train_step} {
  %x32 = arith.extf %x : tensor<2x4xf16> to tensor<2x4xf32>
  %sum = mpt.reduce_sum %x32 [0] : tensor<2x4xf32> -> tensor<4xf32>
  %sum16 = arith.truncf %sum : tensor<4xf32> to tensor<4xf16>
  %a = arith.constant dense<0.9> : tensor<4xf16>
  %b = arith.constant dense<0.05> : tensor<4xf16>
  %old = arith.mulf %a, %rm : tensor<4xf16>
  %new = arith.mulf %b, %sum16 : tensor<4xf16>
  // expected-error @+1 {{updates state argument #1 (result #0) by hand in 'f16': running statistics and buffers accumulated in low precision lose every update smaller than half their spacing; keep the state in f32}}
  %rm2 = arith.addf %old, %new : tensor<4xf16>
  return %rm2 : tensor<4xf16>
}

// -----

// Negative: the same update in f32, and an f16 working copy produced from the
// updated f32 master (not from its own previous value), are fine.

func.func @f32_running_mean_and_working_copy(%x: tensor<2x4xf16> {mpt.data}, %rm: tensor<4xf32> {mpt.state},
                                             %w: tensor<4xf32> {mpt.param},
                                             %w16: tensor<4xf16> {mpt.state, mpt.working_copy_of = 2})
    -> (tensor<4xf32> {mpt.next = 1}, tensor<4xf32> {mpt.next = 2}, tensor<4xf16> {mpt.next = 3})
    attributes {mpt.train_step} {
  %x32 = arith.extf %x : tensor<2x4xf16> to tensor<2x4xf32>
  %sum = mpt.reduce_sum %x32 [0] : tensor<2x4xf32> -> tensor<4xf32>
  %a = arith.constant dense<0.9> : tensor<4xf32>
  %old = arith.mulf %a, %rm : tensor<4xf32>
  %rm2 = arith.addf %old, %sum : tensor<4xf32>
  %g16 = arith.mulf %w16, %w16 : tensor<4xf16>
  %g = arith.extf %g16 : tensor<4xf16> to tensor<4xf32>
  %w2 = mpt.sgd %w, %g {lr = 1.0e-01 : f32} : tensor<4xf32>
  %w2c = arith.truncf %w2 : tensor<4xf32> to tensor<4xf16>
  return %rm2, %w2, %w2c : tensor<4xf32>, tensor<4xf32>, tensor<4xf16>
}
