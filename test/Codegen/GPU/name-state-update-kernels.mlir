// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-name-state-update-kernels))" | FileCheck %s

// Kernels that write state (an argument the step reads before writing it)
// are named @<function>_update; the others keep outlining's default.
// - the update of %w (loads and stores it) and the write of %copy, which a
//   library call read first, are update kernels;
// - %loss is a result: first filled, then accumulated (load and store):
//   neither kernel is one; nor is the kernel that writes %seen, a copy's
//   target;
// - a launch that already has a name keeps it.
// CHECK-LABEL: func.func @step
// CHECK: gpu.launch {{.*}} %c1) {{[{]$}}
// CHECK-NEXT: memref.store %{{.*}}, %arg2
// CHECK: gpu.launch {{.*}} %c1) {{[{]$}}
// CHECK-NEXT: memref.load %arg2
// CHECK: gpu.launch {{.*}} function(@step_update) {{[{]$}}
// CHECK: memref.store %{{.*}}, %arg0
// CHECK: gpu.launch {{.*}} function(@step_update) {{[{]$}}
// CHECK: memref.store %{{.*}}, %arg1
// CHECK: gpu.memcpy
// CHECK: gpu.launch {{.*}} %c1) {{[{]$}}
// CHECK-NEXT: memref.store %{{.*}}, %arg3
// CHECK: gpu.launch {{.*}} function(@named) {{[{]$}}
func.func private @gemm(memref<4xf16>)
func.func @step(%w: memref<4xf32>, %copy: memref<4xf16>, %loss: memref<f32>, %seen: memref<f32>, %scale: memref<f32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  call @gemm(%copy) : (memref<4xf16>) -> ()
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    memref.store %zero, %loss[] : memref<f32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    %v = memref.load %loss[] : memref<f32>
    %s = arith.addf %v, %v : f32
    memref.store %s, %loss[] : memref<f32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    %v = memref.load %w[%tx] : memref<4xf32>
    %s = arith.addf %v, %v : f32
    memref.store %s, %w[%tx] : memref<4xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    %v = memref.load %w[%tx] : memref<4xf32>
    %h = arith.truncf %v : f32 to f16
    memref.store %h, %copy[%tx] : memref<4xf16>
    gpu.terminator
  }
  gpu.memcpy %seen, %scale : memref<f32>, memref<f32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    memref.store %zero, %seen[] : memref<f32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) function(@named) {
    %v = memref.load %scale[] : memref<f32>
    memref.store %v, %scale[] : memref<f32>
    gpu.terminator
  }
  return
}
