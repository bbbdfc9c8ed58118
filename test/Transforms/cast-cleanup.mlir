// RUN: mpt-opt %s -split-input-file --mpt-cast-cleanup | FileCheck %s

// A second run changes nothing.
// RUN: mpt-opt %s -split-input-file --mpt-cast-cleanup > %t.once.mlir
// RUN: mpt-opt %t.once.mlir -split-input-file --mpt-cast-cleanup | diff %t.once.mlir -

// mpt-autocast output is already clean.
// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-autocast > %t.mlp.mlir
// RUN: mpt-opt %t.mlp.mlir --mpt-cast-cleanup | diff %t.mlp.mlir -

//===----------------------------------------------------------------------===//
// truncf(extf(x)) -> x
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @trunc_of_ext
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>)
// CHECK-NOT: arith.
// CHECK: %[[R:.*]] = mpt.relu %[[X]] : tensor<4x8xf16>
// CHECK-NEXT: return %[[R]]
func.func @trunc_of_ext(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = arith.extf %x : tensor<4x8xf16> to tensor<4x8xf32>
  %1 = arith.truncf %0 : tensor<4x8xf32> to tensor<4x8xf16>
  %2 = mpt.relu %1 : tensor<4x8xf16>
  return %2 : tensor<4x8xf16>
}

// -----

// The widening stays while something else reads it.

// CHECK-LABEL: func @trunc_of_ext_with_other_reader
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>)
// CHECK-NEXT: %[[E:.*]] = arith.extf %[[X]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NOT: arith.truncf
// CHECK: %[[S:.*]] = mpt.softmax %[[E]] : tensor<4x8xf32>
// CHECK-NEXT: %[[R:.*]] = mpt.relu %[[X]] : tensor<4x8xf16>
// CHECK-NEXT: return %[[S]], %[[R]]
func.func @trunc_of_ext_with_other_reader(%x: tensor<4x8xf16>) -> (tensor<4x8xf32>, tensor<4x8xf16>) {
  %0 = arith.extf %x : tensor<4x8xf16> to tensor<4x8xf32>
  %1 = mpt.softmax %0 : tensor<4x8xf32>
  %2 = arith.truncf %0 : tensor<4x8xf32> to tensor<4x8xf16>
  %3 = mpt.relu %2 : tensor<4x8xf16>
  return %1, %3 : tensor<4x8xf32>, tensor<4x8xf16>
}

// -----

// Negative: bf16 -> f32 -> f16 is a real conversion, not a round trip.

// CHECK-LABEL: func @trunc_of_ext_other_type
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>)
// CHECK-NEXT: %[[E:.*]] = arith.extf %[[X]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[E]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: return %[[T]]
func.func @trunc_of_ext_other_type(%x: tensor<4x8xbf16>) -> tensor<4x8xf16> {
  %0 = arith.extf %x : tensor<4x8xbf16> to tensor<4x8xf32>
  %1 = arith.truncf %0 : tensor<4x8xf32> to tensor<4x8xf16>
  return %1 : tensor<4x8xf16>
}

// -----

//===----------------------------------------------------------------------===//
// extf(extf(x)) -> extf(x)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @ext_of_ext
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>)
// CHECK-NEXT: %[[E:.*]] = arith.extf %[[X]] : tensor<4x8xf16> to tensor<4x8xf64>
// CHECK-NEXT: return %[[E]] : tensor<4x8xf64>
func.func @ext_of_ext(%x: tensor<4x8xf16>) -> tensor<4x8xf64> {
  %0 = arith.extf %x : tensor<4x8xf16> to tensor<4x8xf32>
  %1 = arith.extf %0 : tensor<4x8xf32> to tensor<4x8xf64>
  return %1 : tensor<4x8xf64>
}

// -----

// The inner widening stays for its other reader; the outer one reads x.

// CHECK-LABEL: func @ext_of_ext_with_other_reader
// CHECK-SAME: (%[[X:.*]]: tensor<4xbf16>)
// CHECK-DAG: %[[E32:.*]] = arith.extf %[[X]] : tensor<4xbf16> to tensor<4xf32>
// CHECK-DAG: %[[E64:.*]] = arith.extf %[[X]] : tensor<4xbf16> to tensor<4xf64>
// CHECK-NOT: arith.extf
// CHECK: return %[[E32]], %[[E64]] : tensor<4xf32>, tensor<4xf64>
func.func @ext_of_ext_with_other_reader(%x: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xf64>) {
  %0 = arith.extf %x : tensor<4xbf16> to tensor<4xf32>
  %1 = arith.extf %0 : tensor<4xf32> to tensor<4xf64>
  return %0, %1 : tensor<4xf32>, tensor<4xf64>
}

// -----

// Negative: extf(truncf(x)) rounds x, so it is not folded.

// CHECK-LABEL: func @ext_of_trunc
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: %[[E:.*]] = arith.extf %[[T]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT: return %[[E]] : tensor<4x8xf32>
func.func @ext_of_trunc(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = arith.truncf %x : tensor<4x8xf32> to tensor<4x8xf16>
  %1 = arith.extf %0 : tensor<4x8xf16> to tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// One cast per value and type, right after its source.
//===----------------------------------------------------------------------===//

// Casts of arguments move to the function entry, casts of results right after
// the op that produces them; duplicates merge into the first.

// CHECK-LABEL: func @merge_and_hoist
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK-NEXT: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT: %[[R:.*]] = mpt.relu %[[X]] : tensor<4x8xf32>
// CHECK-NEXT: %[[R16:.*]] = arith.truncf %[[R]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: %[[S:.*]] = mpt.softmax %[[R]] : tensor<4x8xf32>
// CHECK-NEXT: %[[A:.*]] = mpt.matmul %[[R16]], %[[W16]] : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: %[[B:.*]] = mpt.matmul %[[R16]], %[[W16]] : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: return %[[A]], %[[B]], %[[S]]
func.func @merge_and_hoist(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf32>) {
  %r = mpt.relu %x : tensor<4x8xf32>
  %s = mpt.softmax %r : tensor<4x8xf32>
  %0 = arith.truncf %w : tensor<8x8xf32> to tensor<8x8xf16>
  %1 = arith.truncf %r : tensor<4x8xf32> to tensor<4x8xf16>
  %2 = mpt.matmul %1, %0 : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
  %3 = arith.truncf %w : tensor<8x8xf32> to tensor<8x8xf16>
  %4 = arith.truncf %r : tensor<4x8xf32> to tensor<4x8xf16>
  %5 = mpt.matmul %4, %3 : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
  return %2, %5, %s : tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf32>
}

// -----

// Widenings merge too, and entry casts of several arguments all sit at entry.

// CHECK-LABEL: func @merge_widenings
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf16>)
// CHECK-DAG: %[[B32:.*]] = arith.extf %[[B]] : tensor<4xf16> to tensor<4xf32>
// CHECK-DAG: %[[A16:.*]] = arith.truncf %[[A]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NOT: arith.
// CHECK: %[[R:.*]] = mpt.relu %[[A]] : tensor<4xf32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[B32]], %[[B32]] : tensor<4xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A16]], %[[B]] : tensor<4xf16>
// CHECK-NEXT: return %[[SUM]], %[[P]], %[[R]]
func.func @merge_widenings(%a: tensor<4xf32>, %b: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf16>, tensor<4xf32>) {
  %r = mpt.relu %a : tensor<4xf32>
  %0 = arith.extf %b : tensor<4xf16> to tensor<4xf32>
  %1 = arith.extf %b : tensor<4xf16> to tensor<4xf32>
  %2 = arith.addf %0, %1 : tensor<4xf32>
  %3 = arith.truncf %a : tensor<4xf32> to tensor<4xf16>
  %4 = arith.mulf %3, %b : tensor<4xf16>
  return %2, %4, %r : tensor<4xf32>, tensor<4xf16>, tensor<4xf32>
}

// -----

// Argument casts scattered among other ops and result casts line up at entry
// in program order, each behind the ones already moved; casts of a result line
// up after it the same way.

// CHECK-LABEL: func @hoist_interleaved
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[B16:.*]] = arith.truncf %[[B]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: %[[A16:.*]] = arith.truncf %[[A]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: %[[CBF:.*]] = arith.truncf %[[C]] : tensor<4xf32> to tensor<4xbf16>
// CHECK-NEXT: %[[ABF:.*]] = arith.truncf %[[A]] : tensor<4xf32> to tensor<4xbf16>
// CHECK-NEXT: %[[R:.*]] = mpt.relu %[[B16]] : tensor<4xf16>
// CHECK-NEXT: %[[R32:.*]] = arith.extf %[[R]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: %[[R64:.*]] = arith.extf %[[R]] : tensor<4xf16> to tensor<4xf64>
// CHECK-NEXT: %[[S:.*]] = mpt.relu %[[A16]] : tensor<4xf16>
// CHECK-NEXT: return %[[R32]], %[[CBF]], %[[R64]], %[[ABF]], %[[S]]
func.func @hoist_interleaved(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xf64>, tensor<4xbf16>, tensor<4xf16>) {
  %0 = arith.truncf %b : tensor<4xf32> to tensor<4xf16>
  %1 = mpt.relu %0 : tensor<4xf16>
  %2 = arith.truncf %a : tensor<4xf32> to tensor<4xf16>
  %3 = arith.extf %1 : tensor<4xf16> to tensor<4xf32>
  %4 = arith.truncf %c : tensor<4xf32> to tensor<4xbf16>
  %5 = arith.extf %1 : tensor<4xf16> to tensor<4xf64>
  %6 = arith.truncf %a : tensor<4xf32> to tensor<4xbf16>
  %7 = mpt.relu %2 : tensor<4xf16>
  return %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<4xbf16>, tensor<4xf64>, tensor<4xbf16>, tensor<4xf16>
}

// -----

// Casts of different results of one op line up after it in program order,
// as argument casts do: a cast of the second result stays behind one of the
// third (moving it in front would move it back on the next run).

// CHECK-LABEL: func @casts_of_results
// CHECK: %[[SUMS:.*]]:3 = scf.for
// CHECK: }
// CHECK-NEXT: %[[C16:.*]] = arith.truncf %[[SUMS]]#2 : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: %[[B16:.*]] = arith.truncf %[[SUMS]]#1 : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: %[[A16:.*]] = arith.truncf %[[SUMS]]#0 : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: return %[[A16]], %[[B16]], %[[C16]]
func.func @casts_of_results(%x: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %sums:3 = scf.for %k = %c0 to %c2 step %c1 iter_args(%a = %x, %b = %x, %c = %x)
      -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %a2 = arith.addf %a, %x : tensor<4xf32>
    scf.yield %a2, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  %c16 = arith.truncf %sums#2 : tensor<4xf32> to tensor<4xf16>
  %b16 = arith.truncf %sums#1 : tensor<4xf32> to tensor<4xf16>
  %a16 = arith.truncf %sums#0 : tensor<4xf32> to tensor<4xf16>
  return %a16, %b16, %c16 : tensor<4xf16>, tensor<4xf16>, tensor<4xf16>
}

// -----

// Negative: casts of one value to different types are not merged.

// CHECK-LABEL: func @different_types
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[H:.*]] = arith.truncf %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK-DAG: %[[BF:.*]] = arith.truncf %[[X]] : tensor<4xf32> to tensor<4xbf16>
// CHECK: return %[[H]], %[[BF]] : tensor<4xf16>, tensor<4xbf16>
func.func @different_types(%x: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xbf16>) {
  %0 = arith.truncf %x : tensor<4xf32> to tensor<4xf16>
  %1 = arith.truncf %x : tensor<4xf32> to tensor<4xbf16>
  return %0, %1 : tensor<4xf16>, tensor<4xbf16>
}

// -----

// Negative: no casts, nothing to do; other ops are not touched (no folding,
// no constant merging).

// CHECK-LABEL: func @no_casts
// CHECK-NEXT: %[[C0:.*]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[C1:.*]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[C0]], %[[C1]] : tensor<4xf32>
// CHECK-NEXT: return %[[S]]
func.func @no_casts() -> tensor<4xf32> {
  %c0 = arith.constant dense<1.0> : tensor<4xf32>
  %c1 = arith.constant dense<1.0> : tensor<4xf32>
  %0 = arith.addf %c0, %c1 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Casts that round differently are different casts.
// CHECK-LABEL: func @rounding_modes_differ
// CHECK-DAG: arith.truncf %arg0 to_nearest_away : tensor<4xf32> to tensor<4xf16>
// CHECK-DAG: arith.truncf %arg0 : tensor<4xf32> to tensor<4xf16>
func.func @rounding_modes_differ(%x: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf16>) {
  %a = arith.truncf %x to_nearest_away : tensor<4xf32> to tensor<4xf16>
  %b = arith.truncf %x : tensor<4xf32> to tensor<4xf16>
  return %a, %b : tensor<4xf16>, tensor<4xf16>
}
