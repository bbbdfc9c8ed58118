// A step written entirely in f16 (a model cast with .half()) gets f32 masters,
// f32 optimizer state and loss scaling.
// RUN: mpt-opt %s -split-input-file --mpt-mixed-precision | FileCheck %s
// RUN: mpt-opt %s -split-input-file --mpt-mixed-precision --mpt-lower-to-cpu \
// RUN:   | FileCheck %s --check-prefix=CPU

// CHECK-LABEL: func.func @half_step
// CHECK-SAME: %[[W:arg0]]: tensor<8x4xf32> {mpt.param}
// CHECK-SAME: %[[M:arg1]]: tensor<8x4xf32> {mpt.state}
// CHECK-SAME: -> (tensor<8x4xf32> {mpt.next = 0 : i64}, tensor<8x4xf32> {mpt.next = 1 : i64}
// CHECK: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK: mpt.matmul %arg2, %[[W16]]
// CHECK: %[[G:.*]] = mpt.unscale
// CHECK: mpt.sgd %[[W]], %[[G]], %[[M]] {{.*}} : tensor<8x4xf32>
func.func @half_step(%w: tensor<8x4xf16> {mpt.param}, %m: tensor<8x4xf16> {mpt.state},
                     %x: tensor<2x8xf16> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf16> {mpt.next = 0}, tensor<8x4xf16> {mpt.next = 1},
        tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %o = mpt.matmul %x, %w : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %o32 = arith.extf %o : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %do16 = arith.truncf %do : tensor<2x4xf32> to tensor<2x4xf16>
  %dw = mpt.matmul %x, %do16 {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
  %w2, %m2 = mpt.sgd %w, %dw, %m {lr = 0.1 : f32, momentum = 0.9 : f32} : tensor<8x4xf16>
  return %w2, %m2, %loss : tensor<8x4xf16>, tensor<8x4xf16>, tensor<f32>
}

// -----

// With an evaluation step: the f16 parameter and the f16 momentum buffer
// (initialized through mpt.init) become f32 state, their initial value is
// converted with them, and the evaluation step reads the f32 master, which it
// converts back to f16 at its entry so that it computes as written.

// CHECK-LABEL: func.func @half_step_with_eval
// CHECK-SAME: %[[W:arg0]]: tensor<2x2xf32> {mpt.param}
// CHECK-SAME: %[[M:arg1]]: tensor<2x2xf32> {mpt.init = dense<{{\[\[}}2.500000e-01, -5.000000e-01], [1.000000e+00, 0.000000e+00]]> : tensor<2x2xf32>, mpt.state}
// CHECK: mpt.sgd %[[W]], %{{.*}}, %[[M]] {{.*}} : tensor<2x2xf32>
// CHECK-LABEL: func.func @half_predict
// CHECK-SAME: (%[[EW:.*]]: tensor<2x2xf32> {mpt.state_of = 0 : i64}, %[[EX:.*]]: tensor<3x2xf16> {mpt.data})
// CHECK-SAME: -> tensor<3x2xf16>
// CHECK: %[[EW16:.*]] = arith.truncf %[[EW]] : tensor<2x2xf32> to tensor<2x2xf16>
// CHECK: %[[EO:.*]] = mpt.matmul %[[EX]], %[[EW16]] : tensor<3x2xf16>, tensor<2x2xf16> -> tensor<3x2xf16>
// CHECK: return %[[EO]]
// CPU-LABEL: llvm.func @half_step_with_eval
// CPU-LABEL: llvm.func @half_predict
func.func @half_step_with_eval(
    %w: tensor<2x2xf16> {mpt.param},
    %m: tensor<2x2xf16> {mpt.state, mpt.init = dense<[[0.25, -0.5], [1.0, 0.0]]> : tensor<2x2xf16>},
    %x: tensor<3x2xf16> {mpt.data}, %y: tensor<3xi32> {mpt.data})
    -> (tensor<2x2xf16> {mpt.next = 0}, tensor<2x2xf16> {mpt.next = 1},
        tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %o = mpt.matmul %x, %w : tensor<3x2xf16>, tensor<2x2xf16> -> tensor<3x2xf16>
  %o32 = arith.extf %o : tensor<3x2xf16> to tensor<3x2xf32>
  %loss = mpt.softmax_cross_entropy %o32, %y : tensor<3x2xf32>, tensor<3xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o32, %y : tensor<3x2xf32>, tensor<3xi32>
  %do16 = arith.truncf %do : tensor<3x2xf32> to tensor<3x2xf16>
  %dw = mpt.matmul %x, %do16 {transpose_a} : tensor<3x2xf16>, tensor<3x2xf16> -> tensor<2x2xf16>
  %w2, %m2 = mpt.sgd %w, %dw, %m {lr = 0.1 : f32, momentum = 0.9 : f32} : tensor<2x2xf16>
  return %w2, %m2, %loss : tensor<2x2xf16>, tensor<2x2xf16>, tensor<f32>
}

func.func @half_predict(%w: tensor<2x2xf16> {mpt.state_of = 0}, %x: tensor<3x2xf16> {mpt.data})
    -> tensor<3x2xf16> attributes {mpt.eval_step} {
  %o = mpt.matmul %x, %w : tensor<3x2xf16>, tensor<2x2xf16> -> tensor<3x2xf16>
  return %o : tensor<3x2xf16>
}

// -----

// f16 batch-norm statistics with an evaluation step: the running statistics
// become f32 state (the running variance's initial ones with them), and the
// evaluation step's batch_norm_inference reads them in f32 directly.

// CHECK-LABEL: func.func @half_bn_step
// CHECK-SAME: %[[RM:arg3]]: tensor<2xf32> {mpt.state}
// CHECK-SAME: %[[RV:arg4]]: tensor<2xf32> {mpt.init = dense<1.000000e+00> : tensor<2xf32>, mpt.state}
// CHECK: mpt.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %[[RM]], %[[RV]]
// CHECK-LABEL: func.func @half_bn_predict
// CHECK-SAME: (%[[EX:.*]]: tensor<3x2xf16> {mpt.data}, %[[EG:.*]]: tensor<2xf32> {mpt.state_of = 1 : i64}, %[[EB:.*]]: tensor<2xf32> {mpt.state_of = 2 : i64}, %[[ERM:.*]]: tensor<2xf32> {mpt.state_of = 3 : i64}, %[[ERV:.*]]: tensor<2xf32> {mpt.state_of = 4 : i64})
// CHECK-NOT: arith.truncf %[[ERM]]
// CHECK-NOT: arith.truncf %[[ERV]]
// CHECK: mpt.batch_norm_inference %[[EX]], %[[EG]], %[[EB]], %[[ERM]], %[[ERV]] {{.*}}: tensor<3x2xf16>, tensor<2xf32>
// CPU-LABEL: llvm.func @half_bn_step
// CPU-LABEL: llvm.func @half_bn_predict
func.func @half_bn_step(%x: tensor<3x2xf16> {mpt.data}, %g: tensor<2xf16> {mpt.param}, %b: tensor<2xf16> {mpt.param},
                        %rm: tensor<2xf16> {mpt.state},
                        %rv: tensor<2xf16> {mpt.state, mpt.init = dense<1.0> : tensor<2xf16>},
                        %y: tensor<3xi32> {mpt.data})
    -> (tensor<2xf16> {mpt.next = 1}, tensor<2xf16> {mpt.next = 2}, tensor<2xf16> {mpt.next = 3},
        tensor<2xf16> {mpt.next = 4}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %n, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm, %rv {momentum = 1.0e-01 : f32} : tensor<3x2xf16>, tensor<2xf16>
  %n32 = arith.extf %n : tensor<3x2xf16> to tensor<3x2xf32>
  %loss = mpt.softmax_cross_entropy %n32, %y : tensor<3x2xf32>, tensor<3xi32>
  %seed = mpt.loss_grad %loss
  %dn = mpt.softmax_cross_entropy_grad %seed, %n32, %y : tensor<3x2xf32>, tensor<3xi32>
  %dn16 = arith.truncf %dn : tensor<3x2xf32> to tensor<3x2xf16>
  %dx, %dg, %db = mpt.batch_norm_grad %dn16, %x, %g, %mean, %invstd : tensor<3x2xf16>, tensor<2xf16>
  %g2 = mpt.sgd %g, %dg {lr = 1.0e-01 : f32} : tensor<2xf16>
  %b2 = mpt.sgd %b, %db {lr = 1.0e-01 : f32} : tensor<2xf16>
  return %g2, %b2, %rm2, %rv2, %loss : tensor<2xf16>, tensor<2xf16>, tensor<2xf16>, tensor<2xf16>, tensor<f32>
}

func.func @half_bn_predict(%x: tensor<3x2xf16> {mpt.data}, %g: tensor<2xf16> {mpt.state_of = 1},
                           %b: tensor<2xf16> {mpt.state_of = 2}, %rm: tensor<2xf16> {mpt.state_of = 3},
                           %rv: tensor<2xf16> {mpt.state_of = 4})
    -> tensor<3x2xf16> attributes {mpt.eval_step} {
  %n = mpt.batch_norm_inference %x, %g, %b, %rm, %rv : tensor<3x2xf16>, tensor<2xf16>
  return %n : tensor<3x2xf16>
}
