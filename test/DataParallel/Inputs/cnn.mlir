// examples/cnn_bn.mlir without its batch norms, for data-parallel tests: a
// step whose forward depends only on each example, so that 2 ranks of batch
// 32 compute what one process of batch 64 does (batch norm's statistics
// would be each rank's own). Batch 64; the tests make the batch-32 step with
// sed, since no parameter's first dimension is 64.
func.func @train_step(
    %wc1: tensor<8x1x3x3xf32> {mpt.param}, %wc2: tensor<16x8x3x3xf32> {mpt.param},
    %wf: tensor<784x10xf32> {mpt.param}, %bf: tensor<10xf32> {mpt.param},
    %x: tensor<64x1x28x28xf32> {mpt.data}, %y: tensor<64xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step,
                mpt.optimizer = {kind = "sgd", lr = 5.0e-02 : f32, momentum = 9.0e-01 : f32}} {
  %c1 = mpt.conv2d %x, %wc1 {padding = array<i64: 1, 1>}
      : tensor<64x1x28x28xf32>, tensor<8x1x3x3xf32> -> tensor<64x8x28x28xf32>
  %r1 = mpt.relu %c1 : tensor<64x8x28x28xf32>
  %p1 = mpt.max_pool2d %r1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<64x8x28x28xf32> -> tensor<64x8x14x14xf32>
  %c2 = mpt.conv2d %p1, %wc2 {padding = array<i64: 1, 1>}
      : tensor<64x8x14x14xf32>, tensor<16x8x3x3xf32> -> tensor<64x16x14x14xf32>
  %r2 = mpt.relu %c2 : tensor<64x16x14x14xf32>
  %p2 = mpt.max_pool2d %r2 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<64x16x14x14xf32> -> tensor<64x16x7x7xf32>
  %flat = mpt.reshape %p2 : tensor<64x16x7x7xf32> -> tensor<64x784xf32>
  %fw = mpt.matmul %flat, %wf : tensor<64x784xf32>, tensor<784x10xf32> -> tensor<64x10xf32>
  %logits = mpt.bias_add %fw, %bf : tensor<64x10xf32>, tensor<10xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<64x10xf32>, tensor<64xi32>
  return %loss : tensor<f32>
}
