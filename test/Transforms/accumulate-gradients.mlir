// RUN: mpt-opt %s --split-input-file --mpt-accumulate-gradients=micro-batches=4 | FileCheck %s
// One micro-batch changes nothing, and neither does running the pass again.
// RUN: mpt-opt %s --split-input-file > %t.step.mlir
// RUN: mpt-opt %t.step.mlir --split-input-file --mpt-accumulate-gradients=micro-batches=1 | diff %t.step.mlir -
// RUN: mpt-opt %s --split-input-file --mpt-accumulate-gradients=micro-batches=4 > %t.once.mlir
// RUN: mpt-opt %t.once.mlir --split-input-file --mpt-accumulate-gradients=micro-batches=4 | diff %t.once.mlir -

// A loss-scaled f16 step as mpt-mixed-precision leaves it: the f16 weight
// gradient and the f32 bias gradient leave the scaled backward at
// mpt.unscale. The step, written for 2 rows, takes 8; the working copy of w
// is rounded once, before the loop; each iteration reads 2 rows of x and y,
// sums the gradients in f32 and the loss; after the loop the f16 sum is
// rounded back to f16 for unscaling, and the finite check, the update and
// the skipped-step select run once, on the sums.
// CHECK-LABEL: func.func @scaled_f16_step
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4x3xf32> {mpt.param}
// CHECK-SAME: %[[B:[a-z0-9]+]]: tensor<3xf32> {mpt.param}
// CHECK-SAME: %[[S:[a-z0-9]+]]: tensor<f32> {mpt.init = dense<1.024000e+03> : tensor<f32>, mpt.state}
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x4xf32> {mpt.data}
// CHECK-SAME: %[[Y:[a-z0-9]+]]: tensor<8xi32> {mpt.data}
// CHECK: %[[WH:.*]] = arith.truncf %[[W]] : tensor<4x3xf32> to tensor<4x3xf16>
// CHECK-DAG: %[[ZW:.*]] = arith.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK-DAG: %[[ZB:.*]] = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[ZL:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[LOOP:.*]]:3 = scf.for %[[K:.*]] = %[[C0]] to %[[C4]] step %[[C1]] iter_args(%[[SDW:.*]] = %[[ZW]], %[[SDB:.*]] = %[[ZB]], %[[SL:.*]] = %[[ZL]]) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<f32>) {
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[ROW:.*]] = arith.muli %[[K]], %[[C2]] : index
// CHECK: %[[XK:.*]] = tensor.extract_slice %[[X]][%[[ROW]], 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf32>
// CHECK: %[[XH:.*]] = arith.truncf %[[XK]] : tensor<2x4xf32> to tensor<2x4xf16>
// CHECK: mpt.matmul %[[XH]], %[[WH]]
// CHECK: %[[YK:.*]] = tensor.extract_slice %[[Y]][%[[ROW]]] [2] [1] : tensor<8xi32> to tensor<2xi32>
// CHECK: %[[LOSS:.*]] = mpt.softmax_cross_entropy %{{.*}}, %[[YK]]
// CHECK: %[[SEED:.*]] = mpt.loss_grad %[[LOSS]] scale %[[S]] {micro_batches = 4 : i64}
// CHECK: %[[DZ:.*]] = mpt.softmax_cross_entropy_grad %[[SEED]]
// CHECK: %[[DB:.*]] = mpt.reduce_sum %[[DZ]] [0]
// CHECK: %[[DW:.*]] = mpt.matmul %[[XH]], %{{.*}} {transpose_a} : tensor<2x4xf16>, tensor<2x3xf16> -> tensor<4x3xf16>
// CHECK-NEXT: %[[DW32:.*]] = arith.extf %[[DW]] : tensor<4x3xf16> to tensor<4x3xf32>
// CHECK: %[[NDW:.*]] = arith.addf %[[SDW]], %[[DW32]] : tensor<4x3xf32>
// CHECK: %[[NDB:.*]] = arith.addf %[[SDB]], %[[DB]] : tensor<3xf32>
// CHECK: %[[NL:.*]] = arith.addf %[[SL]], %[[LOSS]] : tensor<f32>
// CHECK: scf.yield %[[NDW]], %[[NDB]], %[[NL]]
// CHECK: }
// CHECK: %[[SUMW:.*]] = arith.truncf %[[LOOP]]#0 : tensor<4x3xf32> to tensor<4x3xf16>
// CHECK: %[[K4:.*]] = arith.constant dense<4.000000e+00> : tensor<f32>
// CHECK: %[[MEAN:.*]] = arith.divf %[[LOOP]]#2, %[[K4]] : tensor<f32>
// CHECK: %[[GW:.*]] = mpt.unscale %[[SUMW]], %[[S]] : tensor<4x3xf16> -> tensor<4x3xf32>
// CHECK: %[[GB:.*]] = mpt.unscale %[[LOOP]]#1, %[[S]] : tensor<3xf32> -> tensor<3xf32>
// CHECK: %[[FINITE:.*]] = mpt.all_finite %[[GW]], %[[GB]]
// CHECK: %[[NEWW:.*]] = mpt.sgd %[[W]], %[[GW]]
// CHECK: %[[NEWB:.*]] = mpt.sgd %[[B]], %[[GB]]
// CHECK: %[[FLAG:.*]] = tensor.extract %[[FINITE]][]
// CHECK: %[[KEPTW:.*]] = arith.select %[[FLAG]], %[[NEWW]], %[[W]]
// CHECK: %[[KEPTB:.*]] = arith.select %[[FLAG]], %[[NEWB]], %[[B]]
// CHECK: return %[[MEAN]], %[[KEPTW]], %[[KEPTB]]
// CHECK-NOT: scf.for
func.func @scaled_f16_step(%w: tensor<4x3xf32> {mpt.param}, %b: tensor<3xf32> {mpt.param},
    %s: tensor<f32> {mpt.state, mpt.init = dense<1024.0> : tensor<f32>},
    %x: tensor<2x4xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"}, tensor<4x3xf32> {mpt.next = 0},
        tensor<3xf32> {mpt.next = 1}, tensor<f32> {mpt.next = 2})
    attributes {mpt.train_step} {
  %xh = arith.truncf %x : tensor<2x4xf32> to tensor<2x4xf16>
  %wh = arith.truncf %w : tensor<4x3xf32> to tensor<4x3xf16>
  %z = mpt.matmul %xh, %wh : tensor<2x4xf16>, tensor<4x3xf16> -> tensor<2x3xf16>
  %zf = arith.extf %z : tensor<2x3xf16> to tensor<2x3xf32>
  %logits = mpt.bias_add %zf, %b : tensor<2x3xf32>, tensor<3xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<2x3xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss scale %s
  %dz = mpt.softmax_cross_entropy_grad %seed, %logits, %y : tensor<2x3xf32>, tensor<2xi32>
  %db = mpt.reduce_sum %dz [0] : tensor<2x3xf32> -> tensor<3xf32>
  %dzh = arith.truncf %dz : tensor<2x3xf32> to tensor<2x3xf16>
  %dw = mpt.matmul %xh, %dzh {transpose_a} : tensor<2x4xf16>, tensor<2x3xf16> -> tensor<4x3xf16>
  %gw = mpt.unscale %dw, %s : tensor<4x3xf16> -> tensor<4x3xf32>
  %gb = mpt.unscale %db, %s : tensor<3xf32> -> tensor<3xf32>
  %finite = mpt.all_finite %gw, %gb : tensor<4x3xf32>, tensor<3xf32>
  %w2 = mpt.sgd %w, %gw {lr = 0.1 : f32} : tensor<4x3xf32>
  %b2 = mpt.sgd %b, %gb {lr = 0.1 : f32} : tensor<3xf32>
  %flag = tensor.extract %finite[] : tensor<i1>
  %w3 = arith.select %flag, %w2, %w : tensor<4x3xf32>
  %b3 = arith.select %flag, %b2, %b : tensor<3xf32>
  return %loss, %w3, %b3, %s : tensor<f32>, tensor<4x3xf32>, tensor<3xf32>, tensor<f32>
}

// -----

// A hand-written FP32 step with batch norm and weight decay: the gradients are cut where they leave the backward,
// so the decay is added once, after the loop, to the summed gradient; the
// running statistics are carried through the loop, updated once per
// micro-batch.
// CHECK-LABEL: func.func @batch_norm_step
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4x3xf32> {mpt.param}
// CHECK-SAME: %[[RM:[a-z0-9]+]]: tensor<3xf32> {mpt.state}
// CHECK-SAME: %[[RV:[a-z0-9]+]]: tensor<3xf32> {mpt.state}
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<16x4xf32> {mpt.data}
// CHECK-SAME: %[[Y:[a-z0-9]+]]: tensor<16xi32> {mpt.data}
// CHECK: %[[LOOP:.*]]:6 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[IRM:.*]] = %[[RM]], %[[IRV:.*]] = %[[RV]]) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>) {
// CHECK: tensor.extract_slice %[[X]][%{{.*}}, 0] [4, 4] [1, 1] : tensor<16x4xf32> to tensor<4x4xf32>
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %[[NRM:.*]], %[[NRV:.*]] = mpt.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %[[IRM]], %[[IRV]]
// CHECK: mpt.loss_grad %{{.*}} {micro_batches = 4 : i64}
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NRM]], %[[NRV]]
// CHECK: }
// CHECK: %[[DECAY:.*]] = arith.mulf %[[W]], %{{.*}} : tensor<4x3xf32>
// CHECK: %[[GW:.*]] = arith.addf %[[LOOP]]#0, %[[DECAY]] : tensor<4x3xf32>
// CHECK: mpt.sgd %[[W]], %[[GW]]
// CHECK: return %[[LOOP]]#4, %[[LOOP]]#5, %{{.*}}
func.func @batch_norm_step(%w: tensor<4x3xf32> {mpt.param},
    %g: tensor<3xf32> {mpt.param}, %be: tensor<3xf32> {mpt.param},
    %rm: tensor<3xf32> {mpt.state}, %rv: tensor<3xf32> {mpt.state},
    %x: tensor<4x4xf32> {mpt.data}, %y: tensor<4xi32> {mpt.data})
    -> (tensor<3xf32> {mpt.next = 3}, tensor<3xf32> {mpt.next = 4},
        tensor<f32> {mpt.metric = "loss"}, tensor<4x3xf32> {mpt.next = 0},
        tensor<3xf32> {mpt.next = 1}, tensor<3xf32> {mpt.next = 2})
    attributes {mpt.train_step} {
  %z = mpt.matmul %x, %w : tensor<4x4xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  %n, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %z, %g, %be, %rm, %rv
      {momentum = 1.0e-01 : f32, epsilon = 1.0e-05 : f32} : tensor<4x3xf32>, tensor<3xf32>
  %loss = mpt.softmax_cross_entropy %n, %y : tensor<4x3xf32>, tensor<4xi32>
  %seed = mpt.loss_grad %loss
  %dn = mpt.softmax_cross_entropy_grad %seed, %n, %y : tensor<4x3xf32>, tensor<4xi32>
  %dz, %dg, %dbe = mpt.batch_norm_grad %dn, %z, %g, %mean, %invstd
      : tensor<4x3xf32>, tensor<3xf32>
  %dw = mpt.matmul %x, %dz {transpose_a} : tensor<4x4xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  %decay = arith.constant dense<1.0e-04> : tensor<4x3xf32>
  %wd = arith.mulf %w, %decay : tensor<4x3xf32>
  %gw = arith.addf %dw, %wd : tensor<4x3xf32>
  %w2 = mpt.sgd %w, %gw {lr = 0.1 : f32} : tensor<4x3xf32>
  %g2 = mpt.sgd %g, %dg {lr = 0.1 : f32} : tensor<3xf32>
  %be2 = mpt.sgd %be, %dbe {lr = 0.1 : f32} : tensor<3xf32>
  return %rm2, %rv2, %loss, %w2, %g2, %be2
      : tensor<3xf32>, tensor<3xf32>, tensor<f32>, tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// An op that reads carried state without reading data (here a scaled running
// mean the forward adds) runs per micro-batch too, on the state the previous
// micro-batch left, not once before the loop on the step's first value.
// CHECK-LABEL: func.func @reads_carried_state
// CHECK-SAME: %[[RM:[a-z0-9]+]]: tensor<3xf32> {mpt.state}
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[IRM:.*]] = %[[RM]], %[[IRV:.*]] = %{{.*}})
// CHECK-NEXT: %[[HALF:.*]] = arith.mulf %[[IRM]], %{{.*}} : tensor<3xf32>
// CHECK: mpt.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %[[IRM]], %[[IRV]]
// CHECK-NEXT: mpt.bias_add %{{.*}}, %[[HALF]]
// CHECK: scf.yield
func.func @reads_carried_state(%w: tensor<4x3xf32> {mpt.param},
    %g: tensor<3xf32> {mpt.param}, %be: tensor<3xf32> {mpt.param},
    %rm: tensor<3xf32> {mpt.state}, %rv: tensor<3xf32> {mpt.state},
    %x: tensor<4x4xf32> {mpt.data}, %y: tensor<4xi32> {mpt.data})
    -> (tensor<3xf32> {mpt.next = 3}, tensor<3xf32> {mpt.next = 4},
        tensor<f32> {mpt.metric = "loss"}, tensor<4x3xf32> {mpt.next = 0},
        tensor<3xf32> {mpt.next = 1}, tensor<3xf32> {mpt.next = 2})
    attributes {mpt.train_step} {
  %half = arith.constant dense<5.0e-01> : tensor<3xf32>
  %rm_half = arith.mulf %rm, %half : tensor<3xf32>
  %z = mpt.matmul %x, %w : tensor<4x4xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  %n, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %z, %g, %be, %rm, %rv
      {momentum = 1.0e-01 : f32, epsilon = 1.0e-05 : f32} : tensor<4x3xf32>, tensor<3xf32>
  %nb = mpt.bias_add %n, %rm_half : tensor<4x3xf32>, tensor<3xf32>
  %loss = mpt.softmax_cross_entropy %nb, %y : tensor<4x3xf32>, tensor<4xi32>
  %seed = mpt.loss_grad %loss
  %dn = mpt.softmax_cross_entropy_grad %seed, %nb, %y : tensor<4x3xf32>, tensor<4xi32>
  %dz, %dg, %dbe = mpt.batch_norm_grad %dn, %z, %g, %mean, %invstd
      : tensor<4x3xf32>, tensor<3xf32>
  %dw = mpt.matmul %x, %dz {transpose_a} : tensor<4x4xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  %w2 = mpt.sgd %w, %dw {lr = 0.1 : f32} : tensor<4x3xf32>
  %g2 = mpt.sgd %g, %dg {lr = 0.1 : f32} : tensor<3xf32>
  %be2 = mpt.sgd %be, %dbe {lr = 0.1 : f32} : tensor<3xf32>
  return %rm2, %rv2, %loss, %w2, %g2, %be2
      : tensor<3xf32>, tensor<3xf32>, tensor<f32>, tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// A gradient accumulated by hand into carried state (a buffer summed over
// steps) still reads the gradient of the whole step: the buffer's add reads
// the unscaled sum of the micro-batches, once, after the loop.
// CHECK-LABEL: func.func @hand_written_accumulation
// CHECK-SAME: %[[ACC:[a-z0-9]+]]: tensor<4x3xf32> {mpt.state}
// CHECK: %[[LOOP:.*]]:2 = scf.for
// CHECK: }
// CHECK: %[[SUM:.*]] = arith.truncf %[[LOOP]]#0 : tensor<4x3xf32> to tensor<4x3xf16>
// CHECK: %[[G:.*]] = mpt.unscale %[[SUM]], %{{.*}} : tensor<4x3xf16> -> tensor<4x3xf32>
// CHECK: %[[ACC2:.*]] = arith.addf %[[ACC]], %[[G]] : tensor<4x3xf32>
// CHECK: %[[FINITE:.*]] = mpt.all_finite %[[G]]
// CHECK: %[[FLAG:.*]] = tensor.extract %[[FINITE]][]
// CHECK: %[[KEPT:.*]] = arith.select %[[FLAG]], %[[ACC2]], %[[ACC]]
// CHECK: return {{.*}}, %[[KEPT]]
func.func @hand_written_accumulation(%w: tensor<4x3xf32> {mpt.param},
    %acc: tensor<4x3xf32> {mpt.state},
    %s: tensor<f32> {mpt.state, mpt.init = dense<1024.0> : tensor<f32>},
    %x: tensor<2x4xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"}, tensor<4x3xf32> {mpt.next = 0},
        tensor<4x3xf32> {mpt.next = 1}, tensor<f32> {mpt.next = 2})
    attributes {mpt.train_step} {
  %xh = arith.truncf %x : tensor<2x4xf32> to tensor<2x4xf16>
  %wh = arith.truncf %w : tensor<4x3xf32> to tensor<4x3xf16>
  %z = mpt.matmul %xh, %wh : tensor<2x4xf16>, tensor<4x3xf16> -> tensor<2x3xf16>
  %zf = arith.extf %z : tensor<2x3xf16> to tensor<2x3xf32>
  %loss = mpt.softmax_cross_entropy %zf, %y : tensor<2x3xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss scale %s
  %dz = mpt.softmax_cross_entropy_grad %seed, %zf, %y : tensor<2x3xf32>, tensor<2xi32>
  %dzh = arith.truncf %dz : tensor<2x3xf32> to tensor<2x3xf16>
  %dw = mpt.matmul %xh, %dzh {transpose_a} : tensor<2x4xf16>, tensor<2x3xf16> -> tensor<4x3xf16>
  %gw = mpt.unscale %dw, %s : tensor<4x3xf16> -> tensor<4x3xf32>
  %acc2 = arith.addf %acc, %gw : tensor<4x3xf32>
  %finite = mpt.all_finite %gw : tensor<4x3xf32>
  %w2 = mpt.sgd %w, %gw {lr = 0.1 : f32} : tensor<4x3xf32>
  %flag = tensor.extract %finite[] : tensor<i1>
  %w3 = arith.select %flag, %w2, %w : tensor<4x3xf32>
  %acc3 = arith.select %flag, %acc2, %acc : tensor<4x3xf32>
  return %loss, %w3, %acc3, %s : tensor<f32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>
}
