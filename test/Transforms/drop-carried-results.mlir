// RUN: mpt-opt %s -split-input-file -verify-diagnostics --mpt-drop-carried-results | FileCheck %s

// The carried result leaves the step and its call, whose users read the
// argument the step wrote; the metric stays.

// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[W:.*]]: memref<4xf32>, %[[S:.*]]: memref<f32>) -> memref<f32> {
// CHECK: %[[METRIC:.*]] = memref.alloc
// CHECK: return %[[METRIC]] : memref<f32>
func.func @step(%w: memref<4xf32>, %s: memref<f32>) -> (memref<4xf32>, memref<f32>)
    attributes {mpt.carried_in_place = array<i64: 0, -1>} {
  %metric = memref.alloc() : memref<f32>
  memref.copy %s, %metric : memref<f32> to memref<f32>
  return %w, %metric : memref<4xf32>, memref<f32>
}

// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%[[W:.*]]: memref<4xf32>, %[[S:.*]]: memref<f32>)
// CHECK: %[[METRIC:.*]] = call @step(%[[W]], %[[S]]) : (memref<4xf32>, memref<f32>) -> memref<f32>
// CHECK: return %[[W]], %[[METRIC]]
func.func @caller(%w: memref<4xf32>, %s: memref<f32>) -> (memref<4xf32>, memref<f32>) {
  %0:2 = call @step(%w, %s) : (memref<4xf32>, memref<f32>) -> (memref<4xf32>, memref<f32>)
  return %0#0, %0#1 : memref<4xf32>, memref<f32>
}

// -----

// A carried result that bufferization did not write into its argument.

func.func @out_of_place(%w: memref<4xf32>) -> memref<4xf32>
    attributes {mpt.carried_in_place = array<i64: 0>} {
  %new = memref.alloc() : memref<4xf32>
  memref.copy %w, %new : memref<4xf32> to memref<4xf32>
  // expected-error @below {{result #0 carries argument #0 but was not bufferized into its buffer}}
  return %new : memref<4xf32>
}

// -----

// Into the wrong argument.

func.func @swapped(%a: memref<4xf32>, %b: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
    attributes {mpt.carried_in_place = array<i64: 0, 1>} {
  // expected-error @below {{result #0 carries argument #0 but was not bufferized into its buffer}}
  return %b, %a : memref<4xf32>, memref<4xf32>
}

// -----

// expected-error @+1 {{mpt-drop-carried-results: expected a function with one block}}
func.func @branches(%w: memref<4xf32>, %c: i1) -> memref<4xf32>
    attributes {mpt.carried_in_place = array<i64: 0>} {
  cf.cond_br %c, ^a, ^b
^a:
  return %w : memref<4xf32>
^b:
  return %w : memref<4xf32>
}
