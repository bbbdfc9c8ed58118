// RUN: mpt-opt %s --mpt-convert-linalg-to-cpu-kernels | FileCheck %s

// The im2col kernel computes one group; a grouped (here depthwise)
// convolution stays a linalg op for the generated loops, next to an ungrouped
// one that becomes the kernel call.

// CHECK-LABEL: func.func @grouped_and_plain
// CHECK: linalg.conv_2d_ngchw_gfchw {{.*}} ins(%{{.*}}, %{{.*}} : memref<2x4x1x9x9xf32>, memref<4x1x1x3x3xf32>) outs(%{{.*}} : memref<2x4x1x7x7xf32>)
// CHECK: call @mpt_cpu_conv2d_f32(
// CHECK-NOT: call @mpt_cpu_conv2d_f32(
func.func @grouped_and_plain(%x: memref<2x4x1x9x9xf32>, %w: memref<4x1x1x3x3xf32>, %y: memref<2x4x1x7x7xf32>,
                             %xp: memref<2x4x9x9xf32>, %wp: memref<3x4x3x3xf32>, %yp: memref<2x3x7x7xf32>) {
  linalg.conv_2d_ngchw_gfchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<2x4x1x9x9xf32>, memref<4x1x1x3x3xf32>) outs(%y : memref<2x4x1x7x7xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%xp, %wp : memref<2x4x9x9xf32>, memref<3x4x3x3xf32>) outs(%yp : memref<2x3x7x7xf32>)
  return
}
