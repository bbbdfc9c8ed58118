// RUN: mpt-opt %s --split-input-file --mpt-convert-memref-to-gpu-memory --verify-diagnostics | FileCheck %s

// Host buffers become device buffers, contiguous copies device copies, and a
// constant gets a device copy for the function's duration.
// CHECK-LABEL: func.func @buffers
// CHECK-SAME: (%[[X:.*]]: memref<16xf32>, %[[Y:.*]]: memref<16xf32>)
// CHECK: %[[G:.*]] = memref.get_global @table
// CHECK: %[[D:.*]] = gpu.alloc () : memref<16xf32>
// CHECK: gpu.memcpy %[[D]], %[[G]]
// CHECK: %[[T:.*]] = gpu.alloc () : memref<16xf32>
// CHECK: gpu.launch
// CHECK: memref.load %[[D]]
// CHECK: gpu.memcpy %[[Y]], %[[T]]
// CHECK: gpu.dealloc %[[T]]
// CHECK: gpu.dealloc %[[D]]
// CHECK-NEXT: return
memref.global "private" constant @table : memref<16xf32> = dense<2.0>
func.func @buffers(%x: memref<16xf32>, %y: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %g = memref.get_global @table : memref<16xf32>
  %t = memref.alloc() : memref<16xf32>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c16, %s1 = %c1, %s2 = %c1) {
    %v = memref.load %g[%t0] : memref<16xf32>
    %w = memref.load %x[%t0] : memref<16xf32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %t[%t0] : memref<16xf32>
    gpu.terminator
  }
  memref.copy %t, %y : memref<16xf32> to memref<16xf32>
  memref.dealloc %t : memref<16xf32>
  return
}

// -----

func.func @host_read(%x: memref<16xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{reads or writes a buffer element on the host; in the CUDA lowering buffers live in device memory, so only kernels may access them}}
  %v = memref.load %x[%c0] : memref<16xf32>
  return %v : f32
}

// -----

func.func @strided_copy(%x: memref<16x16xf32>, %y: memref<16x8xf32>) {
  %s = memref.subview %x[0, 0] [16, 8] [1, 2] : memref<16x16xf32> to memref<16x8xf32, strided<[16, 2]>>
  // expected-error @+1 {{copies a strided view on the host; mpt-convert-linalg-to-gpu-loops turns such copies into kernels and must run first}}
  memref.copy %s, %y : memref<16x8xf32, strided<[16, 2]>> to memref<16x8xf32>
  return
}
