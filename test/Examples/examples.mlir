// Verifies the example training steps in examples/ and checks their shape:
// the training-step signature, the backward ops and one optimizer update per
// parameter. Each example must also print and re-parse to the same text.

// RUN: mpt-opt %examples/mlp_manual.mlir | FileCheck %s --check-prefix=MLP
// RUN: mpt-opt %examples/mlp_manual.mlir > %t.mlp.mlir && mpt-opt %t.mlp.mlir | diff %t.mlp.mlir -
// RUN: mpt-opt --mlir-print-op-generic %examples/mlp_manual.mlir | mpt-opt | diff %t.mlp.mlir -

// RUN: mpt-opt %examples/cnn_bn_manual.mlir | FileCheck %s --check-prefix=CNN
// RUN: mpt-opt %examples/cnn_bn_manual.mlir > %t.cnn.mlir && mpt-opt %t.cnn.mlir | diff %t.cnn.mlir -
// RUN: mpt-opt --mlir-print-op-generic %examples/cnn_bn_manual.mlir | mpt-opt | diff %t.cnn.mlir -

// RUN: mpt-opt %examples/transformer_block_manual.mlir | FileCheck %s --check-prefix=TF
// RUN: mpt-opt %examples/transformer_block_manual.mlir > %t.tf.mlir && mpt-opt %t.tf.mlir | diff %t.tf.mlir -
// RUN: mpt-opt --mlir-print-op-generic %examples/transformer_block_manual.mlir | mpt-opt | diff %t.tf.mlir -

//===----------------------------------------------------------------------===//
// mlp.mlir: 784-256-128-10 ReLU MLP, SGD with momentum.
//===----------------------------------------------------------------------===//

// MLP-LABEL: func.func @train_step(
// MLP-SAME: %arg0: tensor<784x256xf32> {mpt.param}
// MLP-SAME: %arg5: tensor<10xf32> {mpt.param}
// MLP-SAME: %arg6: tensor<784x256xf32> {mpt.state}
// MLP-SAME: %arg11: tensor<10xf32> {mpt.state}
// MLP-SAME: %arg12: tensor<128x784xf32> {mpt.data}, %arg13: tensor<128xi32> {mpt.data})
// MLP-SAME: -> (tensor<784x256xf32> {mpt.next = 0 : i64}
// MLP-SAME: tensor<10xf32> {mpt.next = 11 : i64}, tensor<f32> {mpt.metric = "loss"})
// MLP-SAME: attributes {mpt.train_step}
// MLP: %[[LOSS:.*]] = mpt.softmax_cross_entropy %{{.*}}, %arg13 : tensor<128x10xf32>, tensor<128xi32>
// MLP: %[[SEED:.*]] = mpt.loss_grad %[[LOSS]]
// MLP: mpt.softmax_cross_entropy_grad %[[SEED]]
// MLP-COUNT-2: mpt.relu_grad
// First-layer weight gradient from the data; no input gradient is computed for it.
// MLP: mpt.matmul %arg12, %{{.*}} {transpose_a} : tensor<128x784xf32>, tensor<128x256xf32> -> tensor<784x256xf32>
// MLP-NOT: mpt.matmul
// MLP-COUNT-6: mpt.sgd %arg{{[0-9]+}}, %{{[0-9]+}}, %arg{{[0-9]+}} {lr = 2.000000e-02 : f32, momentum = 0.899999976 : f32}
// MLP-NOT: mpt.sgd
// MLP: return {{.*}}, %[[LOSS]] :
// MLP-LABEL: func.func @predict(
// MLP-SAME: %arg0: tensor<784x256xf32> {mpt.state_of = 0 : i64}
// MLP-SAME: %arg5: tensor<10xf32> {mpt.state_of = 5 : i64}
// MLP-SAME: %arg6: tensor<128x784xf32> {mpt.data}) -> tensor<128x10xf32> attributes {mpt.eval_step} {
// MLP-NOT: mpt.loss_grad
// MLP-NOT: mpt.sgd
// MLP: return %{{.*}} : tensor<128x10xf32>

//===----------------------------------------------------------------------===//
// cnn_bn.mlir: two conv + batch norm + relu + max-pool blocks, linear head.
//===----------------------------------------------------------------------===//

// CNN-LABEL: func.func @train_step(
// CNN-SAME: %arg0: tensor<8x1x3x3xf32> {mpt.param}
// CNN-SAME: %arg7: tensor<10xf32> {mpt.param}
// CNN-SAME: %arg8: tensor<8x1x3x3xf32> {mpt.state}
// CNN-SAME: %arg16: tensor<8xf32> {mpt.state}, %arg17: tensor<8xf32> {mpt.state}, %arg18: tensor<16xf32> {mpt.state}, %arg19: tensor<16xf32> {mpt.state}
// CNN-SAME: %arg20: tensor<64x1x28x28xf32> {mpt.data}, %arg21: tensor<64xi32> {mpt.data})
// CNN-SAME: tensor<8xf32> {mpt.next = 16 : i64}, tensor<8xf32> {mpt.next = 17 : i64}, tensor<16xf32> {mpt.next = 18 : i64}, tensor<16xf32> {mpt.next = 19 : i64}, tensor<f32> {mpt.metric = "loss"})
// CNN-SAME: attributes {mpt.train_step}
// CNN: mpt.conv2d %arg20, %arg0 {padding = array<i64: 1, 1>}
// CNN: %{{.*}}, %[[MEAN1:.*]], %[[INVSTD1:.*]], %[[RM1:.*]], %[[RV1:.*]] = mpt.batch_norm %{{.*}}, %arg1, %arg2, %arg16, %arg17 : tensor<64x8x28x28xf32>, tensor<8xf32>
// CNN: mpt.max_pool2d
// CNN: %{{.*}}, %[[MEAN2:.*]], %[[INVSTD2:.*]], %[[RM2:.*]], %[[RV2:.*]] = mpt.batch_norm %{{.*}}, %arg4, %arg5, %arg18, %arg19 : tensor<64x16x14x14xf32>, tensor<16xf32>
// CNN: mpt.reshape %{{.*}} : tensor<64x16x7x7xf32> -> tensor<64x784xf32>
// CNN: %[[LOSS:.*]] = mpt.softmax_cross_entropy
// CNN: mpt.loss_grad %[[LOSS]]
// CNN: mpt.reshape %{{.*}} : tensor<64x784xf32> -> tensor<64x16x7x7xf32>
// CNN: mpt.max_pool2d_grad
// CNN: mpt.relu_grad
// CNN: mpt.batch_norm_grad %{{.*}}, %{{.*}}, %arg4, %[[MEAN2]], %[[INVSTD2]]
// CNN: mpt.conv2d_filter_grad {{.*}} -> tensor<16x8x3x3xf32>
// CNN: mpt.conv2d_input_grad {{.*}} -> tensor<64x8x14x14xf32>
// CNN: mpt.max_pool2d_grad
// CNN: mpt.relu_grad
// CNN: mpt.batch_norm_grad %{{.*}}, %{{.*}}, %arg1, %[[MEAN1]], %[[INVSTD1]]
// No input gradient for the first convolution.
// CNN-NOT: mpt.conv2d_input_grad
// CNN: mpt.conv2d_filter_grad %arg20, {{.*}} -> tensor<8x1x3x3xf32>
// CNN-COUNT-8: mpt.sgd {{.*}} {lr = 5.000000e-02 : f32, momentum = 0.899999976 : f32}
// CNN-NOT: mpt.sgd
// CNN: return {{.*}}, %[[RM1]], %[[RV1]], %[[RM2]], %[[RV2]], %[[LOSS]] :
// CNN-LABEL: func.func @predict(
// CNN-SAME: %arg8: tensor<8xf32> {mpt.state_of = 16 : i64}, %arg9: tensor<8xf32> {mpt.state_of = 17 : i64}
// CNN-SAME: %arg12: tensor<64x1x28x28xf32> {mpt.data}) -> tensor<64x10xf32> attributes {mpt.eval_step} {
// CNN-NOT: mpt.batch_norm %
// CNN: mpt.batch_norm_inference %{{.*}}, %arg1, %arg2, %arg8, %arg9 : tensor<64x8x28x28xf32>, tensor<8xf32>
// CNN: mpt.batch_norm_inference %{{.*}}, %arg4, %arg5, %arg10, %arg11 : tensor<64x16x14x14xf32>, tensor<16xf32>
// CNN-NOT: mpt.batch_norm %
// CNN: return %{{.*}} : tensor<64x10xf32>

//===----------------------------------------------------------------------===//
// transformer_block.mlir: pre-LN block, 4 heads, mean pool, Adam.
//===----------------------------------------------------------------------===//

// TF-LABEL: func.func @train_step(
// TF-SAME: %arg0: tensor<64xf32> {mpt.param}
// TF-SAME: %arg13: tensor<10xf32> {mpt.param}
// TF-SAME: %arg14: tensor<64xf32> {mpt.state}, %arg15: tensor<64xf32> {mpt.state}, %arg16: tensor<i64> {mpt.state}
// TF-SAME: %arg55: tensor<i64> {mpt.state}
// TF-SAME: %arg56: tensor<8x32x64xf32> {mpt.data}, %arg57: tensor<8xi32> {mpt.data})
// TF-SAME: tensor<i64> {mpt.next = 55 : i64}, tensor<f32> {mpt.metric = "loss"})
// TF-SAME: attributes {mpt.train_step}
// TF: mpt.layer_norm
// TF: mpt.transpose %{{.*}} [0, 2, 1, 3] : tensor<8x32x4x16xf32> -> tensor<8x4x32x16xf32>
// TF: mpt.matmul %{{.*}}, %{{.*}} {transpose_b} : tensor<32x32x16xf32>, tensor<32x32x16xf32> -> tensor<32x32x32xf32>
// TF: %[[PROBS:.*]] = mpt.softmax
// TF: mpt.layer_norm
// TF: mpt.gelu
// TF: %[[LOSS:.*]] = mpt.softmax_cross_entropy %{{.*}}, %arg57 : tensor<8x10xf32>, tensor<8xi32>
// TF: mpt.loss_grad %[[LOSS]]
// TF: mpt.gelu_grad
// TF: mpt.layer_norm_grad
// TF: mpt.softmax_grad %{{.*}}, %[[PROBS]] : tensor<32x32x32xf32>
// TF: mpt.layer_norm_grad
// TF-COUNT-14: mpt.adam {{.*}} {lr = 1.000000e-03 : f32}
// TF-NOT: mpt.adam
// TF: return {{.*}}, %[[LOSS]] :
// TF-LABEL: func.func @predict(
// TF-SAME: %arg13: tensor<10xf32> {mpt.state_of = 13 : i64}
// TF-SAME: %arg14: tensor<8x32x64xf32> {mpt.data}) -> tensor<8x10xf32> attributes {mpt.eval_step} {
// TF-NOT: mpt.loss_grad
// TF: return %{{.*}} : tensor<8x10xf32>
