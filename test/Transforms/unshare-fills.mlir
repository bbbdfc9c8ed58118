// RUN: mpt-opt %s -split-input-file --mpt-unshare-fills | FileCheck %s
// RUN: mpt-opt %s -split-input-file --mpt-unshare-fills --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUFFERS
// RUN: mpt-opt %s -split-input-file --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=SHARED

// Two matmuls accumulate into one zero fill (as CSE leaves them): the second
// gets its own tensor.empty and fill. Bufferized, each product fills its own
// buffer; without the pass, one of them copies the filled buffer.

// CHECK-LABEL: func.func @two_accumulators
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x6xf32>, %[[C:.*]]: tensor<8x6xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.0
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x6xf32>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4x6xf32>)
// CHECK: linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[FILL]] : tensor<4x6xf32>)
// CHECK: %[[EMPTY2:.*]] = tensor.empty() : tensor<4x6xf32>
// CHECK: %[[FILL2:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY2]] : tensor<4x6xf32>)
// CHECK: linalg.matmul ins(%[[A]], %[[C]] : {{.*}}) outs(%[[FILL2]] : tensor<4x6xf32>)
// BUFFERS-LABEL: func.func @two_accumulators
// BUFFERS-COUNT-2: linalg.fill
// BUFFERS-NOT: memref.copy
// SHARED-LABEL: func.func @two_accumulators
// SHARED: linalg.fill
// SHARED-NOT: linalg.fill
// SHARED: memref.copy
func.func @two_accumulators(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<8x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x6xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x6xf32>) -> tensor<4x6xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x6xf32>) outs(%fill : tensor<4x6xf32>) -> tensor<4x6xf32>
  %ac = linalg.matmul ins(%a, %c : tensor<4x8xf32>, tensor<8x6xf32>) outs(%fill : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %ab, %ac : tensor<4x6xf32>, tensor<4x6xf32>
}

// -----

// A fill with one user, and a fill of an argument rather than of a
// tensor.empty (its copies fill that argument's tensor again), are left as
// they are and cloned respectively.

// CHECK-LABEL: func.func @one_user
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT: linalg.fill
// CHECK-LABEL: func.func @fill_of_argument
// CHECK-SAME: (%[[INIT:.*]]: tensor<6xf32>, %[[X:.*]]: tensor<4x6xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[INIT]] : tensor<6xf32>)
// CHECK: linalg.reduce
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[INIT]] : tensor<6xf32>)
// CHECK: linalg.reduce
func.func @one_user(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x6xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x6xf32>) -> tensor<4x6xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x6xf32>) outs(%fill : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %ab : tensor<4x6xf32>
}
func.func @fill_of_argument(%init: tensor<6xf32>, %x: tensor<4x6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %zero = arith.constant 0.0 : f32
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.reduce ins(%x : tensor<4x6xf32>) outs(%fill : tensor<6xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %acc, %in : f32
      linalg.yield %s : f32
    }
  %max = linalg.reduce ins(%x : tensor<4x6xf32>) outs(%fill : tensor<6xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %acc, %in : f32
      linalg.yield %m : f32
    }
  return %sum, %max : tensor<6xf32>, tensor<6xf32>
}

// -----

// Two transposes write into one tensor.empty (as CSE leaves them): each gets
// its own, made right before it. Bufferized, each then allocates where it
// writes instead of the second reusing the first's buffer, which kept that
// buffer allocated from the first write to the second.

// CHECK-LABEL: func.func @shared_empty
// CHECK-SAME: (%[[A:.*]]: tensor<4x6xf32>, %[[B:.*]]: tensor<4x6xf32>)
// CHECK-NEXT: %[[EMPTY:.*]] = tensor.empty() : tensor<6x4xf32>
// CHECK-NEXT: %[[AT:.*]] = linalg.transpose ins(%[[A]] : tensor<4x6xf32>) outs(%[[EMPTY]] : tensor<6x4xf32>)
// CHECK-NEXT: %[[SUM:.*]] = linalg.add ins(%[[AT]], %[[AT]] : {{.*}}) outs(%[[AT]] : tensor<6x4xf32>)
// CHECK-NEXT: %[[EMPTY2:.*]] = tensor.empty() : tensor<6x4xf32>
// CHECK-NEXT: %[[BT:.*]] = linalg.transpose ins(%[[B]] : tensor<4x6xf32>) outs(%[[EMPTY2]] : tensor<6x4xf32>)
// CHECK-NOT: tensor.empty
// CHECK: return %[[SUM]], %[[BT]]
func.func @shared_empty(%a: tensor<4x6xf32>, %b: tensor<4x6xf32>) -> (tensor<6x4xf32>, tensor<6x4xf32>) {
  %empty = tensor.empty() : tensor<6x4xf32>
  %at = linalg.transpose ins(%a : tensor<4x6xf32>) outs(%empty : tensor<6x4xf32>) permutation = [1, 0]
  %sum = linalg.add ins(%at, %at : tensor<6x4xf32>, tensor<6x4xf32>) outs(%at : tensor<6x4xf32>) -> tensor<6x4xf32>
  %bt = linalg.transpose ins(%b : tensor<4x6xf32>) outs(%empty : tensor<6x4xf32>) permutation = [1, 0]
  return %sum, %bt : tensor<6x4xf32>, tensor<6x4xf32>
}
