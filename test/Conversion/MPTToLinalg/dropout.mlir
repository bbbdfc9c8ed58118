// RUN: mpt-opt %s --mpt-convert-to-linalg --canonicalize --split-input-file -verify-diagnostics | FileCheck %s

// One elementwise linalg.generic reads the counter as a 0-d input and hashes
// it with the seed and stream (folded into one constant) and the row-major
// index of each element (i * 8 + j) into its mask: kept where the hash is at
// least floor(0.25 * 2^64) = 2^62. Kept elements are scaled in f32
// (1 / f32(0.75)) and rounded once to bf16, the others are 0.
// CHECK-LABEL: func.func @dropout(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xbf16>, %[[COUNTER:.*]]: tensor<i64>)
// CHECK-DAG:     %[[SEED_STREAM:.*]] = arith.constant -5528608851982440055 : i64
// CHECK-DAG:     %[[THRESHOLD:.*]] = arith.constant 4611686018427387904 : i64
// CHECK-DAG:     %[[SCALE:.*]] = arith.constant 1.33333337 : f32
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[COUNTER]] : tensor<4x8xbf16>, tensor<i64>)
// CHECK:         ^bb0(%[[IN:.*]]: bf16, %[[C:.*]]: i64, %{{.*}}: bf16):
// CHECK:           %[[C1:.*]] = arith.addi %[[C]], %{{.*}} : i64
// CHECK:           %[[CG:.*]] = arith.muli %[[C1]], %{{.*}} : i64
// CHECK:           arith.addi %[[CG]], %[[SEED_STREAM]] : i64
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK:           %[[ROW:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK:           %[[J:.*]] = linalg.index 1 : index
// CHECK:           arith.addi %[[ROW]], %[[J]] : index
// CHECK:           %[[KEEP:.*]] = arith.cmpi uge, %{{.*}}, %[[THRESHOLD]] : i64
// CHECK:           %[[WIDE:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK:           %[[SCALED:.*]] = arith.mulf %[[WIDE]], %[[SCALE]] : f32
// CHECK:           %[[ROUNDED:.*]] = arith.truncf %[[SCALED]] : f32 to bf16
// CHECK:           arith.select %[[KEEP]], %[[ROUNDED]], %{{.*}} : bf16
func.func @dropout(%x: tensor<4x8xbf16>, %counter: tensor<i64>) -> tensor<4x8xbf16> {
  %y = mpt.dropout %x, %counter {p = 0.25 : f64, seed = 3, stream = 1} : tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

// Without a counter (a forward-only step before mpt-autodiff) there is no
// mask to draw.
func.func @no_counter(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{failed to legalize operation 'mpt.dropout'}}
  // expected-error @+1 {{'mpt.dropout' op has no counter operand: run mpt-autodiff on the forward-only step, or pass the step's dropout counter (an i64 state argument)}}
  %y = mpt.dropout %x {p = 0.5 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}
