// RUN: mpt-opt %s -split-input-file --mpt-round-data-in-caller | FileCheck %s

// The batch x, only rounded to f16, becomes an f16 input and the caller
// rounds it; the labels (integers) and the f32 parameter stay. The eval step
// rounds its own batch to bf16: it takes bf16.
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[W:.*]]: tensor<4x3xf32> {mpt.param}, %[[X:.*]]: tensor<2x4xf16> {mpt.data}, %[[Y:.*]]: tensor<2xi32> {mpt.data})
// CHECK-NOT: arith.truncf %[[X]]
// CHECK: %[[W16:.*]] = arith.truncf %[[W]]
// CHECK: mpt.matmul %[[X]], %[[W16]]
// CHECK-LABEL: func.func @predict(
// CHECK-SAME: %{{.*}}: tensor<4x3xf32> {mpt.state_of = 0 : i64}, %[[EX:.*]]: tensor<2x4xbf16> {mpt.data})
// CHECK-NOT: arith.truncf %[[EX]]
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[MW:.*]]: tensor<4x3xf32>, %[[MX:.*]]: tensor<2x4xf32>, %[[MY:.*]]: tensor<2xi32>)
// CHECK: %[[R:.*]] = arith.truncf %[[MX]] : tensor<2x4xf32> to tensor<2x4xf16>
// CHECK: call @train_step(%[[MW]], %[[R]], %[[MY]])
// CHECK: %[[RB:.*]] = arith.truncf %[[MX]] : tensor<2x4xf32> to tensor<2x4xbf16>
// CHECK: call @predict(%{{.*}}, %[[RB]])
func.func @train_step(%w: tensor<4x3xf32> {mpt.param}, %x: tensor<2x4xf32> {mpt.data},
                      %y: tensor<2xi32> {mpt.data})
    -> (tensor<4x3xf32> {mpt.next = 0 : i64}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %x16 = arith.truncf %x : tensor<2x4xf32> to tensor<2x4xf16>
  %w16 = arith.truncf %w : tensor<4x3xf32> to tensor<4x3xf16>
  %o = mpt.matmul %x16, %w16 : tensor<2x4xf16>, tensor<4x3xf16> -> tensor<2x3xf16>
  %o32 = arith.extf %o : tensor<2x3xf16> to tensor<2x3xf32>
  %loss = mpt.softmax_cross_entropy %o32, %y : tensor<2x3xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o32, %y : tensor<2x3xf32>, tensor<2xi32>
  %do16 = arith.truncf %do : tensor<2x3xf32> to tensor<2x3xf16>
  %dw = mpt.matmul %x16, %do16 {transpose_a} : tensor<2x4xf16>, tensor<2x3xf16> -> tensor<4x3xf16>
  %dw32 = arith.extf %dw : tensor<4x3xf16> to tensor<4x3xf32>
  %w2 = mpt.sgd %w, %dw32 {lr = 0.1 : f32} : tensor<4x3xf32>
  return %w2, %loss : tensor<4x3xf32>, tensor<f32>
}
func.func @predict(%w: tensor<4x3xf32> {mpt.state_of = 0 : i64}, %x: tensor<2x4xf32> {mpt.data})
    -> tensor<2x3xf32> attributes {mpt.eval_step} {
  %x16 = arith.truncf %x : tensor<2x4xf32> to tensor<2x4xbf16>
  %w16 = arith.truncf %w : tensor<4x3xf32> to tensor<4x3xbf16>
  %o = mpt.matmul %x16, %w16 : tensor<2x4xbf16>, tensor<4x3xbf16> -> tensor<2x3xbf16>
  %o32 = arith.extf %o : tensor<2x3xbf16> to tensor<2x3xf32>
  return %o32 : tensor<2x3xf32>
}
func.func @main(%w: tensor<4x3xf32>, %x: tensor<2x4xf32>, %y: tensor<2xi32>) -> (tensor<4x3xf32>, tensor<2x3xf32>) {
  %w2, %loss = call @train_step(%w, %x, %y) : (tensor<4x3xf32>, tensor<2x4xf32>, tensor<2xi32>) -> (tensor<4x3xf32>, tensor<f32>)
  %p = call @predict(%w2, %x) : (tensor<4x3xf32>, tensor<2x4xf32>) -> tensor<2x3xf32>
  return %w2, %p : tensor<4x3xf32>, tensor<2x3xf32>
}

// -----

// A batch also read in f32, or rounded to two types, stays f32.
// CHECK-LABEL: func.func @mixed_uses(
// CHECK-SAME: %{{.*}}: tensor<4xf32> {mpt.data}, %{{.*}}: tensor<4xf32> {mpt.data})
// CHECK-COUNT-3: arith.truncf
func.func @mixed_uses(%a: tensor<4xf32> {mpt.data}, %b: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32>, tensor<4xf16>, tensor<4xf16>, tensor<4xbf16>)
    attributes {mpt.eval_step} {
  %a16 = arith.truncf %a : tensor<4xf32> to tensor<4xf16>
  %b16 = arith.truncf %b : tensor<4xf32> to tensor<4xf16>
  %bb16 = arith.truncf %b : tensor<4xf32> to tensor<4xbf16>
  return %a, %a16, %b16, %bb16 : tensor<4xf32>, tensor<4xf16>, tensor<4xf16>, tensor<4xbf16>
}

// -----

// A step that accumulates gradients rounds each micro-batch's slice of its
// batch: the batch becomes f16 all the same, and so do the slices. A slice
// also read in f32 keeps its batch f32.
// CHECK-LABEL: func.func @micro_batches(
// CHECK-SAME: %[[X:.*]]: tensor<8x4xf16> {mpt.data}, %[[Z:.*]]: tensor<8x4xf32> {mpt.data})
// CHECK: scf.for
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[X]][%{{.*}}, 0] [2, 4] [1, 1] : tensor<8x4xf16> to tensor<2x4xf16>
// CHECK-NOT: arith.truncf %[[SLICE]]
// CHECK: %[[ZSLICE:.*]] = tensor.extract_slice %[[Z]][%{{.*}}, 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf32>
// CHECK: arith.truncf %[[ZSLICE]]
// CHECK: scf.yield
func.func @micro_batches(%x: tensor<8x4xf32> {mpt.data}, %z: tensor<8x4xf32> {mpt.data})
    -> (tensor<2x4xf16>, tensor<2x4xf32>) attributes {mpt.eval_step} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %init = arith.constant dense<0.0> : tensor<2x4xf16>
  %init32 = arith.constant dense<0.0> : tensor<2x4xf32>
  %r:2 = scf.for %k = %c0 to %c4 step %c1 iter_args(%sum = %init, %sum32 = %init32)
      -> (tensor<2x4xf16>, tensor<2x4xf32>) {
    %row = arith.muli %k, %c2 : index
    %slice = tensor.extract_slice %x[%row, 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf32>
    %slice16 = arith.truncf %slice : tensor<2x4xf32> to tensor<2x4xf16>
    %next = arith.addf %sum, %slice16 : tensor<2x4xf16>
    %zslice = tensor.extract_slice %z[%row, 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf32>
    %zslice16 = arith.truncf %zslice : tensor<2x4xf32> to tensor<2x4xf16>
    %next32 = arith.addf %sum32, %zslice : tensor<2x4xf32>
    scf.yield %next, %next32 : tensor<2x4xf16>, tensor<2x4xf32>
  }
  return %r#0, %r#1 : tensor<2x4xf16>, tensor<2x4xf32>
}
