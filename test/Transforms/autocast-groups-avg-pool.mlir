// RUN: mpt-opt %s --mpt-autocast | FileCheck %s
// RUN: mpt-opt %s --mpt-autocast=compute-type=bf16 | FileCheck %s --check-prefix=BF16

// A grouped (depthwise) convolution is lower class, as any conv2d, keeping
// its groups; the average pooling after it follows its input's f16 and the
// matmul reads it without a cast.

// CHECK-LABEL: func @depthwise_avg_pool
// CHECK: %[[C:.*]] = mpt.conv2d %{{.*}}, %{{.*}} {groups = 4 : i64, padding = array<i64: 1, 1>} : tensor<2x4x6x5xf16>, tensor<4x1x3x3xf16> -> tensor<2x4x6x5xf16>
// CHECK-NEXT: %[[P:.*]] = mpt.avg_pool2d %[[C]] {count_include_pad = false, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<2x4x6x5xf16> -> tensor<2x4x3x3xf16>
// CHECK-NEXT: %[[F:.*]] = mpt.reshape %[[P]] : tensor<2x4x3x3xf16> -> tensor<2x36xf16>
// CHECK-NEXT: mpt.matmul %[[F]], %{{.*}} : tensor<2x36xf16>, tensor<36x3xf16> -> tensor<2x3xf16>

// BF16-LABEL: func @depthwise_avg_pool
// BF16: mpt.avg_pool2d %{{.*}} : tensor<2x4x6x5xbf16> -> tensor<2x4x3x3xbf16>
func.func @depthwise_avg_pool(%x: tensor<2x4x6x5xf32>, %f: tensor<4x1x3x3xf32>, %w: tensor<36x3xf32>) -> tensor<2x3xf32> {
  %0 = mpt.conv2d %x, %f {padding = array<i64: 1, 1>, groups = 4 : i64}
      : tensor<2x4x6x5xf32>, tensor<4x1x3x3xf32> -> tensor<2x4x6x5xf32>
  %1 = mpt.avg_pool2d %0 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>,
                          count_include_pad = false} : tensor<2x4x6x5xf32> -> tensor<2x4x3x3xf32>
  %2 = mpt.reshape %1 : tensor<2x4x3x3xf32> -> tensor<2x36xf32>
  %3 = mpt.matmul %2, %w : tensor<2x36xf32>, tensor<36x3xf32> -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}
