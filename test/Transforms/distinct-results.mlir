// RUN: mpt-opt %s -split-input-file --mpt-distinct-results | FileCheck %s
// RUN: mpt-opt %s -split-input-file --mpt-lower-to-cpu | FileCheck %s --check-prefix=CPU

// A step counter returned as the next state and as a metric: the second use
// gets its own copy, so each result bufferizes to its own buffer.

// CHECK-LABEL: func.func @counter_twice
// CHECK: %[[N:.*]] = arith.addi
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[N]]) : tensor<i64>
// CHECK: return %[[N]], %[[COPY]] : tensor<i64>, tensor<i64>
// CPU-LABEL: llvm.func @counter_twice
func.func @counter_twice(%c: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
  %one = arith.constant dense<1> : tensor<i64>
  %n = arith.addi %c, %one : tensor<i64>
  return %n, %n : tensor<i64>, tensor<i64>
}

// -----

// Three uses: two copies. Returned arguments and constants are left alone
// (bufferization copies them into their out-parameters), as are non-tensors.

// CHECK-LABEL: func.func @loss_three_names
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: index)
// CHECK: %[[CST:.*]] = arith.constant
// CHECK: %[[Y:.*]] = arith.mulf
// CHECK: %[[C1:.*]] = bufferization.alloc_tensor() copy(%[[Y]]) : tensor<4xf32>
// CHECK: %[[C2:.*]] = bufferization.alloc_tensor() copy(%[[Y]]) : tensor<4xf32>
// CHECK-NOT: alloc_tensor
// CHECK: return %[[Y]], %[[C1]], %[[X]], %[[CST]], %[[C2]], %[[I]], %[[I]]
// CPU-LABEL: llvm.func @loss_three_names
func.func @loss_three_names(%x: tensor<4xf32>, %i: index)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, index, index) {
  %two = arith.constant dense<2.0> : tensor<4xf32>
  %y = arith.mulf %x, %two : tensor<4xf32>
  return %y, %y, %x, %two, %y, %i, %i : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, index, index
}

// -----

// Negative: distinct results are left alone.

// CHECK-LABEL: func.func @distinct
// CHECK-NOT: alloc_tensor
// CHECK: return %arg0, %arg1
func.func @distinct(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
