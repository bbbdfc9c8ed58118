// RUN: mpt-opt %s -split-input-file --mpt-carry-state-in-place | FileCheck %s
// RUN: mpt-opt %s -split-input-file --mpt-carry-state-in-place \
// RUN:   --mpt-convert-to-linalg --convert-elementwise-to-linalg --eliminate-empty-tensors \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --mpt-drop-carried-results --buffer-results-to-out-params=modify-public-functions=1 \
// RUN:   --canonicalize | FileCheck %s --check-prefix=BUFFERS

// An SGD step with momentum and a loss scale that a step reads, reports and
// replaces. The parameter and momentum updates are materialized in their
// arguments; the metric that returns the scale the step used gets its own
// copy, made on entry, before any state is overwritten; the data is not
// carried.

// CHECK-LABEL: func.func @sgd
// CHECK-SAME: (%[[W:[^:]*]]: tensor<4xf32> {mpt.state}, %[[M:[^:]*]]: tensor<4xf32> {mpt.state}, %[[S:[^:]*]]: tensor<f32> {mpt.state}, %[[G:[^:]*]]: tensor<4xf32> {mpt.data})
// CHECK-SAME: attributes {mpt.carried_in_place = array<i64: 0, 1, 2, -1>, mpt.train_step}
// CHECK-NEXT: %[[USED_S:.*]] = bufferization.alloc_tensor() copy(%[[S]]) : tensor<f32>
// CHECK: %[[NEW_M:.*]] = arith.addf %[[M]], %[[G]]
// CHECK: %[[NEW_W:.*]] = arith.subf %[[W]], %[[NEW_M]]
// CHECK: %[[NEW_S:.*]] = arith.mulf %[[S]], %{{.*}} : tensor<f32>
// CHECK: %[[IN_W:.*]] = bufferization.materialize_in_destination %[[NEW_W]] in %[[W]]
// CHECK: %[[IN_M:.*]] = bufferization.materialize_in_destination %[[NEW_M]] in %[[M]]
// CHECK: %[[IN_S:.*]] = bufferization.materialize_in_destination %[[NEW_S]] in %[[S]]
// CHECK: return %[[IN_W]], %[[IN_M]], %[[IN_S]], %[[USED_S]]

// Bufferized, every update writes into the buffer of the state it replaces,
// the scale's too, since the metric copied the old scale first; the step
// keeps only the metric's out-parameter.

// BUFFERS-LABEL: func.func @sgd
// BUFFERS-SAME: (%[[W:[^:]*]]: memref<4xf32>, %[[M:[^:]*]]: memref<4xf32>, %[[S:[^:]*]]: memref<f32>, %[[G:[^:]*]]: memref<4xf32>, %[[OUT:[^:]*]]: memref<f32>) {
// BUFFERS-NEXT: %[[USED_S:.*]] = memref.alloc()
// BUFFERS-NEXT: memref.copy %[[S]], %[[USED_S]]
// BUFFERS: linalg.generic {{.*}} ins(%[[M]], %[[G]] : memref<4xf32>, memref<4xf32>) outs(%[[M]] : memref<4xf32>)
// BUFFERS: linalg.generic {{.*}} ins(%[[W]], %[[M]] : memref<4xf32>, memref<4xf32>) outs(%[[W]] : memref<4xf32>)
// BUFFERS: linalg.generic {{.*}} ins(%[[S]], %{{.*}} : memref<f32>, memref<f32>) outs(%[[S]] : memref<f32>)
// BUFFERS-NOT: memref.alloc
// BUFFERS: memref.copy %[[USED_S]], %[[OUT]]
// BUFFERS-NEXT: return
func.func @sgd(%w: tensor<4xf32> {mpt.state}, %m: tensor<4xf32> {mpt.state},
               %s: tensor<f32> {mpt.state}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0 : i64}, tensor<4xf32> {mpt.next = 1 : i64},
        tensor<f32> {mpt.next = 2 : i64}, tensor<f32> {mpt.metric = "loss_scale"})
    attributes {mpt.train_step} {
  %two = arith.constant dense<2.0> : tensor<f32>
  %new_m = arith.addf %m, %g : tensor<4xf32>
  %new_w = arith.subf %w, %new_m : tensor<4xf32>
  %new_s = arith.mulf %s, %two : tensor<f32>
  return %new_w, %new_m, %new_s, %s : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>
}

// -----

// State carried unchanged needs nothing; a metric that is also carried (the
// new counter) reads its own copy. Functions other than the steps are left
// alone.

// CHECK-LABEL: func.func @counter
// CHECK-SAME: (%[[FROZEN:[^:]*]]: tensor<4xf32> {mpt.state}, %[[N:[^:]*]]: tensor<i64> {mpt.state})
// CHECK-SAME: attributes {mpt.carried_in_place = array<i64: 0, 1, -1>, mpt.train_step}
// CHECK: %[[NEXT:.*]] = arith.addi %[[N]]
// CHECK-NEXT: %[[REPORTED:.*]] = bufferization.alloc_tensor() copy(%[[NEXT]]) : tensor<i64>
// CHECK: %[[IN_N:.*]] = bufferization.materialize_in_destination %[[NEXT]] in %[[N]]
// CHECK: return %[[FROZEN]], %[[IN_N]], %[[REPORTED]]

// BUFFERS-LABEL: func.func @counter
// BUFFERS-SAME: (%[[FROZEN:[^:]*]]: memref<4xf32>, %[[N:[^:]*]]: memref<i64>, %[[OUT:[^:]*]]: memref<i64>) {
// BUFFERS: linalg.generic {{.*}} ins(%[[N]], %{{.*}} : memref<i64>, memref<i64>) outs(%[[N]] : memref<i64>)
// BUFFERS: %[[REPORTED:.*]] = memref.alloc()
// BUFFERS-NEXT: memref.copy %[[N]], %[[REPORTED]]
// BUFFERS-NEXT: memref.copy %[[REPORTED]], %[[OUT]]
// BUFFERS-NEXT: return
func.func @counter(%frozen: tensor<4xf32> {mpt.state}, %n: tensor<i64> {mpt.state})
    -> (tensor<4xf32> {mpt.next = 0 : i64}, tensor<i64> {mpt.next = 1 : i64},
        tensor<i64> {mpt.metric = "steps"})
    attributes {mpt.train_step} {
  %one = arith.constant dense<1> : tensor<i64>
  %next = arith.addi %n, %one : tensor<i64>
  return %frozen, %next, %next : tensor<4xf32>, tensor<i64>, tensor<i64>
}

// CHECK-LABEL: func.func @not_a_step
// CHECK-NOT: bufferization
// CHECK: return %arg0

// BUFFERS-LABEL: func.func @not_a_step
// BUFFERS-SAME: (%[[X:[^:]*]]: memref<4xf32>, %[[OUT:[^:]*]]: memref<4xf32>) {
// BUFFERS-NEXT: memref.copy %[[X]], %[[OUT]]
func.func @not_a_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// An eval step that returns one of its arguments gets a copy of it: the
// runtime passes a buffer for each of its results.

// CHECK-LABEL: func.func @identity
// CHECK-NOT: mpt.carried_in_place
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%arg0) : tensor<2x3xf32>
// CHECK: return %[[COPY]]

// BUFFERS-LABEL: func.func @identity
// BUFFERS-SAME: (%[[X:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>) {
// BUFFERS: memref.copy %[[X]], %{{.*}}
// BUFFERS: memref.copy %{{.*}}, %[[OUT]]
func.func @identity(%x: tensor<2x3xf32> {mpt.data}) -> tensor<2x3xf32>
    attributes {mpt.eval_step} {
  return %x : tensor<2x3xf32>
}

// -----

// State a loop carries from its argument to the result written back into it
// (running statistics updated once per micro-batch) enters the loop as a
// copy, which one-shot bufferization needs to bufferize the loop at all; the
// loop then updates the copy in place, which is copied back.

// CHECK-LABEL: func.func @carried_through_loop
// CHECK-SAME: (%[[RM:[^:]*]]: tensor<4xf32> {mpt.state}, %[[X:[^:]*]]: tensor<4xf32> {mpt.data})
// CHECK: %[[INIT:.*]] = bufferization.alloc_tensor() copy(%[[RM]]) : tensor<4xf32>
// CHECK-NEXT: %[[LOOP:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[INIT]])
// CHECK: %[[IN_RM:.*]] = bufferization.materialize_in_destination %[[LOOP]] in %[[RM]]
// CHECK: return %[[IN_RM]]

// BUFFERS-LABEL: func.func @carried_through_loop
// BUFFERS-SAME: (%[[RM:[^:]*]]: memref<4xf32>, %[[X:[^:]*]]: memref<4xf32>)
// BUFFERS: memref.copy %[[RM]], %[[INIT:.*]] :
// BUFFERS-NEXT: scf.for
// BUFFERS-NEXT: linalg.generic {{.*}} ins(%[[INIT]], %[[X]] : {{.*}}) outs(%[[INIT]] :
// BUFFERS: memref.copy %[[INIT]], %[[RM]]
// BUFFERS-NEXT: return
func.func @carried_through_loop(%rm: tensor<4xf32> {mpt.state}, %x: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %k = %c0 to %c2 step %c1 iter_args(%s = %rm) -> tensor<4xf32> {
    %n = arith.addf %s, %x : tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
