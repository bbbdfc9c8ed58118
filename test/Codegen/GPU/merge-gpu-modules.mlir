// RUN: mpt-opt %s --split-input-file --mpt-merge-gpu-modules --verify-diagnostics | FileCheck %s

// Two outlined kernels end up in the first module, named after their old
// modules, and the launches follow them.
// CHECK-LABEL: gpu.module @step_kernel
// CHECK: gpu.func @step_kernel(
// CHECK: gpu.func @step_kernel_0(
// CHECK-NOT: gpu.module
// CHECK-LABEL: func.func @step
// CHECK: gpu.launch_func @step_kernel::@step_kernel blocks
// CHECK: gpu.launch_func @step_kernel::@step_kernel_0 blocks
module attributes {gpu.container_module} {
  gpu.module @step_kernel {
    gpu.func @step_kernel(%x: memref<4xf32>) kernel { gpu.return }
  }
  gpu.module @step_kernel_0 {
    gpu.func @step_kernel(%x: memref<4xf32>) kernel { gpu.return }
  }
  func.func @step(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @step_kernel::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    gpu.launch_func @step_kernel_0::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @a {
    gpu.func @b(%x: memref<4xf32>) kernel { gpu.return }
  }
  gpu.module @b {
    // expected-error @+1 {{would be named "b", which a has already; cannot merge GPU modules}}
    gpu.func @k(%x: memref<4xf32>) kernel { gpu.return }
  }
}
