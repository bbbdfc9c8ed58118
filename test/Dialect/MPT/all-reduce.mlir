// RUN: mpt-opt %s | mpt-opt | FileCheck %s
// The collective acts on the communicator: an unused one is not erased, two
// identical ones are not merged, and none moves past another.
// RUN: mpt-opt %s --canonicalize --cse | FileCheck %s --check-prefix=KEPT

// CHECK-LABEL: func.func @bucket
// CHECK: %[[R:.*]]:2 = mpt.all_reduce sum %arg0, %arg1 : tensor<8x4xf16>, tensor<4xf32>
// CHECK: mpt.all_reduce max %arg1 : tensor<4xf32>
// KEPT-LABEL: func.func @bucket
// KEPT: mpt.all_reduce sum %arg0, %arg1
// KEPT-NEXT: mpt.all_reduce max %arg1
// KEPT-NEXT: mpt.all_reduce max %arg1
// KEPT-NEXT: mpt.all_reduce sum %arg0
// KEPT-NEXT: return
func.func @bucket(%dw: tensor<8x4xf16>, %db: tensor<4xf32>) -> tensor<8x4xf16> {
  %sum:2 = mpt.all_reduce sum %dw, %db : tensor<8x4xf16>, tensor<4xf32>
  %m1 = mpt.all_reduce max %db : tensor<4xf32>
  %m2 = mpt.all_reduce max %db : tensor<4xf32>
  %unused = mpt.all_reduce sum %dw : tensor<8x4xf16>
  return %sum#0 : tensor<8x4xf16>
}
