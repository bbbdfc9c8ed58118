// RUN: mpt-opt %s --mpt-mark-gpu-reductions-uniform | FileCheck %s

// A block reduction that every thread reaches becomes uniform; one under a
// guard stays as it is.
// CHECK-LABEL: func.func @reductions
// CHECK: gpu.all_reduce add %{{.*}} uniform
// CHECK: scf.if
// CHECK: gpu.all_reduce add %{{.*}} {
// CHECK-NOT: uniform
func.func @reductions(%x: memref<256xf32>, %y: memref<f32>, %flag: i1) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c256, %s1 = %c1, %s2 = %c1) {
    %v = memref.load %x[%t0] : memref<256xf32>
    %s = gpu.all_reduce add %v {} : (f32) -> f32
    scf.if %flag {
      %u = gpu.all_reduce add %v {} : (f32) -> f32
      memref.store %u, %y[] : memref<f32>
    }
    memref.store %s, %y[] : memref<f32>
    gpu.terminator
  }
  return
}
