// A small CNN step with the convolutions and pooling that do not go through
// the im2col GEMM: a grouped convolution (6 channels, 4 filters, 2 groups, a
// 3x2 window, padding only along H) on a non-square image, a strided
// depthwise convolution, and average pooling with the padding out of and in
// the divisor. Forward only: mpt-autodiff builds the backward
// (conv2d_input_grad and conv2d_filter_grad in groups, avg_pool2d_grad).
func.func @train_step(%w1: tensor<4x3x3x2xf32> {mpt.param}, %w2: tensor<4x1x3x3xf32> {mpt.param},
                      %wf: tensor<24x5xf32> {mpt.param},
                      %x: tensor<4x6x9x7xf32> {mpt.data}, %y: tensor<4xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 1.0e-2 : f32}} {
  %c1 = mpt.conv2d %x, %w1 {padding = array<i64: 1, 0>, groups = 2 : i64}
      : tensor<4x6x9x7xf32>, tensor<4x3x3x2xf32> -> tensor<4x4x9x6xf32>
  %r1 = mpt.relu %c1 : tensor<4x4x9x6xf32>
  %c2 = mpt.conv2d %r1, %w2 {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, groups = 4 : i64}
      : tensor<4x4x9x6xf32>, tensor<4x1x3x3xf32> -> tensor<4x4x5x3xf32>
  %p1 = mpt.avg_pool2d %c2 {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>,
                            padding = array<i64: 1, 1>, count_include_pad = false}
      : tensor<4x4x5x3xf32> -> tensor<4x4x5x3xf32>
  %p2 = mpt.avg_pool2d %p1 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                            padding = array<i64: 1, 1>}
      : tensor<4x4x5x3xf32> -> tensor<4x4x3x2xf32>
  %flat = mpt.reshape %p2 : tensor<4x4x3x2xf32> -> tensor<4x24xf32>
  %logits = mpt.matmul %flat, %wf : tensor<4x24xf32>, tensor<24x5xf32> -> tensor<4x5xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<4x5xf32>, tensor<4xi32>
  return %loss : tensor<f32>
}
