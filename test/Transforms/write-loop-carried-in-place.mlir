// RUN: mpt-opt %s -split-input-file --mpt-write-loop-carried-in-place | FileCheck %s
// RUN: mpt-opt %s -split-input-file --mpt-write-loop-carried-in-place \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops" \
// RUN:   | FileCheck %s --check-prefix=BUFFERS

// A sum carried through a loop, computed into a new tensor: it is computed
// into the iteration argument instead, and bufferizes to one buffer that the
// loop updates in place, where it would otherwise allocate a buffer per
// iteration (one-shot bufferization rejects that loop without
// allow-return-allocs-from-loops).

// CHECK-LABEL: func.func @sum
// CHECK: scf.for %{{.*}} iter_args(%[[SUM:.*]] = %{{.*}})
// CHECK: linalg.generic {{.*}} ins(%[[SUM]], %{{.*}} : tensor<4xf32>, tensor<4xf32>) outs(%[[SUM]] : tensor<4xf32>)

// BUFFERS-LABEL: func.func @sum
// BUFFERS-SAME: (%[[X:.*]]: memref<4xf32>)
// BUFFERS: %[[ZERO:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// BUFFERS: %[[RESULT:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (memref<4xf32>) {
// BUFFERS-NEXT: linalg.generic {{.*}} ins(%[[ACC]], %[[X]] : memref<4xf32>, memref<4xf32>) outs(%[[ACC]] : memref<4xf32>)
// BUFFERS-NOT: memref.alloc
// BUFFERS: scf.yield %[[ACC]]
// BUFFERS: return %[[RESULT]]
#map = affine_map<(d0) -> (d0)>
func.func @sum(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%sum = %zero) -> tensor<4xf32> {
    %empty = tensor.empty() : tensor<4xf32>
    %next = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
        ins(%sum, %x : tensor<4xf32>, tensor<4xf32>) outs(%empty : tensor<4xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Negative: an output the payload reads keeps its value.

// CHECK-LABEL: func.func @reads_output
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.generic {{.*}} outs(%[[EMPTY]] : tensor<4xf32>)
#map = affine_map<(d0) -> (d0)>
func.func @reads_output(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%max = %zero) -> tensor<4xf32> {
    %empty = tensor.empty() : tensor<4xf32>
    %next = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%empty : tensor<4xf32>) {
    ^bb0(%b: f32, %out: f32):
      %m = arith.maximumf %b, %out : f32
      linalg.yield %m : f32
    } -> tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
