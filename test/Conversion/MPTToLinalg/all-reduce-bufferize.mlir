// RUN: mpt-opt %s --one-shot-bufferize="bufferize-function-boundaries" --split-input-file --verify-diagnostics | FileCheck %s

// A vector is reduced in place: the call writes the buffer that the result
// then is, with the kind (0 sum, 1 max) after it.
// CHECK-LABEL: func.func @in_place
// CHECK-SAME: (%[[X:.*]]: memref<8xf16, strided<[?], offset: ?>>)
// CHECK: %[[C:.*]] = memref.cast %[[X]] : memref<8xf16, strided<[?], offset: ?>> to memref<?xf16, strided<[?], offset: ?>>
// CHECK: %[[MAX:.*]] = arith.constant 1 : i64
// CHECK: call @mpt_step_all_reduce_f16(%[[C]], %[[MAX]])
// CHECK: return %[[X]]
func.func @in_place(%x: tensor<8xf16>) -> tensor<8xf16> {
  %0 = mpt.all_reduce max %x : tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// A bucket of several tensors is mpt-convert-to-linalg's to pack first.
func.func @bucket(%x: tensor<8xf32>, %y: tensor<2xf32>) -> (tensor<8xf32>, tensor<2xf32>) {
  // expected-error @below {{'mpt.all_reduce' op must reduce one vector when bufferized (mpt-convert-to-linalg packs buckets)}}
  // expected-error @below {{failed to bufferize op}}
  %0:2 = mpt.all_reduce sum %x, %y : tensor<8xf32>, tensor<2xf32>
  return %0#0, %0#1 : tensor<8xf32>, tensor<2xf32>
}
