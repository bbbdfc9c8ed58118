// RUN: mpt-opt %s --mpt-free-after-last-use | FileCheck %s

// Each buffer is freed right after the last op that reads or writes it or an
// alias: %a through its subview, %b inside the loop, which counts as one op.
// CHECK-LABEL: func.func @after_last_use
// CHECK:       %[[A:.*]] = memref.alloc()
// CHECK:       %[[VIEW:.*]] = memref.subview %[[A]]
// CHECK:       %[[B:.*]] = memref.alloc()
// CHECK:       memref.copy %[[VIEW]]
// CHECK-NEXT:  memref.dealloc %[[A]]
// CHECK-NEXT:  memref.copy %{{.*}}, %[[B]]
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    memref.copy %[[B]]
// CHECK-NEXT:  }
// CHECK-NEXT:  memref.dealloc %[[B]]
// CHECK-NEXT:  memref.copy
// CHECK-NEXT:  return
func.func @after_last_use(%in: memref<4xf32>, %out: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  memref.copy %in, %a : memref<4xf32> to memref<4xf32>
  %view = memref.subview %a[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
  %b = memref.alloc() : memref<4xf32>
  %half = memref.subview %out[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
  memref.copy %view, %half : memref<2xf32, strided<[1]>> to memref<2xf32, strided<[1]>>
  memref.copy %in, %b : memref<4xf32> to memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  }
  memref.copy %in, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

