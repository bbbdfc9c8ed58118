// A training step with user code between the backward pass and the optimizer:
// weight decay by hand (g + wd*w), a momentum buffer by hand (m' = 0.9 m + g,
// carried as state), and clipping by value at t = 1, rewritten with loss
// scaling (static S = 1024) and run on the CPU. Loss scaling must unscale the
// weight gradient where it leaves the backward pass, so all three see the true
// gradient and the result equals the FP32 step; unscaling at the optimizer's
// input instead loses the decay (it is divided by S), shrinks the buffer by S
// and clips at t*S. The same step in f16 mixed precision gives the same
// numbers (every value below is exact in f16). With S = 3e38 the scaled
// gradient overflows: the step is skipped and w and m come back unchanged.
//
// Closed form: w = m = ones(2x2), x = [[1, 3]], label 0. The logits x*w are
// [4, 4], so the loss is log 2 = 0.693147 and dlogits = [-0.5, 0.5];
// dw = x^T dlogits = [[-0.5, 0.5], [-1.5, 1.5]]. Then g = dw + 0.1 w =
// [[-0.4, 0.6], [-1.4, 1.6]], m' = 0.9 + g = [[0.5, 1.5], [-0.5, 2.5]],
// clip(m', -1, 1) = [[0.5, 1], [-0.5, 1]], and w' = w - 0.5 clip(m') =
// [[0.75, 0.5], [1.25, 0.5]].
//
// RUN: mpt-opt %s --mpt-loss-scaling="mode=static init-scale=1024" \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.fp32.mlir
// RUN: cat %t.fp32.mlir %S/Inputs/unscale-at-boundary-main.mlir \
// RUN:   | mpt-opt --mpt-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %S/Inputs/unscale-at-boundary-main.mlir
// RUN: mpt-opt %s --mpt-mixed-precision="compute-type=f16 loss-scale=static init-scale=1024" \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.f16.mlir
// RUN: cat %t.f16.mlir %S/Inputs/unscale-at-boundary-main.mlir \
// RUN:   | mpt-opt --mpt-lower-to-cpu \
// RUN:   | sed -e 's/ {fastmath = #arith.fastmath<contract>}//g' \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %S/Inputs/unscale-at-boundary-main.mlir

func.func @train_step(%w: tensor<2x2xf32> {mpt.param}, %m: tensor<2x2xf32> {mpt.state},
                      %x: tensor<1x2xf32> {mpt.data}, %y: tensor<1xi32> {mpt.data})
    -> (tensor<2x2xf32> {mpt.next = 0}, tensor<2x2xf32> {mpt.next = 1}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %o = mpt.matmul %x, %w : tensor<1x2xf32>, tensor<2x2xf32> -> tensor<1x2xf32>
  %loss = mpt.softmax_cross_entropy %o, %y : tensor<1x2xf32>, tensor<1xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o, %y : tensor<1x2xf32>, tensor<1xi32>
  %dw = mpt.matmul %x, %do {transpose_a} : tensor<1x2xf32>, tensor<1x2xf32> -> tensor<2x2xf32>
  %wd = arith.constant dense<0.1> : tensor<2x2xf32>
  %decay = arith.mulf %wd, %w : tensor<2x2xf32>
  %g = arith.addf %dw, %decay : tensor<2x2xf32>
  %beta = arith.constant dense<0.9> : tensor<2x2xf32>
  %mb = arith.mulf %beta, %m : tensor<2x2xf32>
  %m2 = arith.addf %mb, %g : tensor<2x2xf32>
  %lo = arith.constant dense<-1.0> : tensor<2x2xf32>
  %hi = arith.constant dense<1.0> : tensor<2x2xf32>
  %above = arith.maximumf %m2, %lo : tensor<2x2xf32>
  %clipped = arith.minimumf %above, %hi : tensor<2x2xf32>
  %w2 = mpt.sgd %w, %clipped {lr = 0.5 : f32} : tensor<2x2xf32>
  return %w2, %m2, %loss : tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>
}
