// RUN: mpt-opt %s --mpt-stack-scalar-accumulators --split-input-file | FileCheck %s

// With the accumulators on the stack, LLVM keeps them in registers and
// vectorizes the counts; reading and writing the out-parameters (which may alias
// the gradient and each other) on every element, it does neither.
// RUN: mpt-opt %S/Inputs/count-zeros.mlir --mpt-stack-scalar-accumulators \
// RUN:   --convert-linalg-to-loops --convert-math-to-llvm --convert-scf-to-cf --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir \
// RUN:   | opt -O3 -mtriple=x86_64-unknown-linux-gnu -mcpu=skylake-avx512 \
// RUN:       -pass-remarks=loop-vectorize -disable-output 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LLVM
// RUN: mpt-opt %S/Inputs/count-zeros.mlir \
// RUN:   --convert-linalg-to-loops --convert-math-to-llvm --convert-scf-to-cf --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir \
// RUN:   | opt -O3 -mtriple=x86_64-unknown-linux-gnu -mcpu=skylake-avx512 \
// RUN:       -pass-remarks=loop-vectorize -disable-output 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-STACK --allow-empty
// LLVM: vectorized loop
// NO-STACK-NOT: vectorized loop

// A reduction into a 0-d argument: the current value goes to a stack slot
// before the op, which accumulates there, and comes back after it.

// CHECK-LABEL: func.func @count_into_result
// CHECK-SAME: (%[[GRAD:.*]]: memref<8x16xf32>, %[[COUNT:.*]]: memref<i64>)
// CHECK: %[[SLOT:.*]] = memref.alloca() : memref<i64>
// CHECK: %[[BEFORE:.*]] = memref.load %[[COUNT]][] : memref<i64>
// CHECK: memref.store %[[BEFORE]], %[[SLOT]][] : memref<i64>
// CHECK: linalg.generic {{.*}} ins(%[[GRAD]] : memref<8x16xf32>) outs(%[[SLOT]] : memref<i64>)
// CHECK: %[[AFTER:.*]] = memref.load %[[SLOT]][] : memref<i64>
// CHECK: memref.store %[[AFTER]], %[[COUNT]][] : memref<i64>
// CHECK: return
func.func @count_into_result(%grad: memref<8x16xf32>, %count: memref<i64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%grad : memref<8x16xf32>) outs(%count : memref<i64>) {
  ^bb0(%g: f32, %acc: i64):
    %zero = arith.constant 0.0 : f32
    %is_zero = arith.cmpf oeq, %g, %zero : f32
    %one = arith.extui %is_zero : i1 to i64
    %sum = arith.addi %acc, %one : i64
    linalg.yield %sum : i64
  }
  return
}

// -----

// Unchanged: a reduction into rows (LLVM hoists out[i] from the inner loop
// itself when it can), an op without reductions, a reduction that also reads
// its accumulator as an input (it would read the stale memref), and ops on
// tensors.

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: memref.alloca
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: memref.alloca
func.func @left_alone(%x: memref<8x16xf32>, %rows: memref<8xf32>, %scalar: memref<f32>,
                      %t: tensor<16xf32>, %init: tensor<f32>) -> tensor<f32> {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x16xf32>) outs(%rows : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
                  iterator_types = []}
      ins(%scalar : memref<f32>) outs(%scalar : memref<f32>) {
  ^bb0(%a: f32, %out: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%rows, %scalar : memref<8xf32>, memref<f32>) outs(%scalar : memref<f32>) {
  ^bb0(%a: f32, %seen: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    %with_seen = arith.addf %s, %seen : f32
    linalg.yield %with_seen : f32
  }
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                         iterator_types = ["reduction"]}
      ins(%t : tensor<16xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %sum : tensor<f32>
}
