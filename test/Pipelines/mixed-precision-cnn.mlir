// The whole rewrite on the CNN with batch norm.
// RUN: mpt-opt %examples/cnn_bn_manual.mlir --mpt-mixed-precision | FileCheck %s
// RUN: mpt-opt %examples/cnn_bn_manual.mlir --mpt-mixed-precision > %t.once.mlir
// RUN: mpt-opt %t.once.mlir --mpt-mixed-precision | diff %t.once.mlir -
// RUN: mpt-opt %examples/cnn_bn_manual.mlir --mpt-mixed-precision=compute-type=f32 | diff <(mpt-opt %examples/cnn_bn_manual.mlir) -

// CHECK-LABEL: func.func @train_step
// Running statistics stay f32 state.
// CHECK-SAME: %[[RM1:arg16]]: tensor<8xf32> {mpt.state}, %[[RV1:arg17]]: tensor<8xf32> {mpt.state}
// CHECK-SAME: %[[S:arg22]]: tensor<f32> {mpt.init = dense<6.553600e+04> : tensor<f32>, mpt.state}
// Convolutions run in f16.
// CHECK: mpt.conv2d %{{.*}} : tensor<64x1x28x28xf16>, tensor<8x1x3x3xf16> -> tensor<64x8x28x28xf16>
// Batch norm: f16 activations, f32 statistics.
// CHECK: %{{.*}}, %[[MEAN1:.*]], %[[INVSTD1:.*]], %[[NRM1:.*]], %[[NRV1:.*]] = mpt.batch_norm %{{.*}}, %arg1, %arg2, %[[RM1]], %[[RV1]] : tensor<64x8x28x28xf16>, tensor<8xf32>
// CHECK: mpt.conv2d %{{.*}} : tensor<64x8x14x14xf16>, tensor<16x8x3x3xf16> -> tensor<64x16x14x14xf16>
// CHECK: mpt.batch_norm {{.*}} : tensor<64x16x14x14xf16>, tensor<16xf32>
// CHECK: mpt.softmax_cross_entropy %{{.*}} : tensor<64x10xf32>, tensor<64xi32>
// CHECK: mpt.batch_norm_grad {{.*}} : tensor<64x16x14x14xf16>, tensor<16xf32>
// CHECK: mpt.conv2d_filter_grad {{.*}} -> tensor<16x8x3x3xf16>
// CHECK: mpt.conv2d_input_grad {{.*}} -> tensor<64x8x14x14xf16>
// CHECK: mpt.batch_norm_grad %{{.*}}, %{{.*}}, %arg1, %[[MEAN1]], %[[INVSTD1]] : tensor<64x8x28x28xf16>, tensor<8xf32>
// CHECK: %[[OK:.*]] = mpt.all_finite
// CHECK-NOT: mpt.all_finite
// CHECK: %[[FLAG:.*]] = tensor.extract %[[OK]][]
// 8 parameters, 8 momentum buffers, 4 running statistics.
// CHECK-COUNT-16: arith.select %[[FLAG]]
// CHECK-NEXT: arith.select %[[FLAG]], %[[NRM1]], %[[RM1]] : tensor<8xf32>
// CHECK-NEXT: arith.select %[[FLAG]], %[[NRV1]], %[[RV1]] : tensor<8xf32>
// CHECK-COUNT-2: arith.select %[[FLAG]]
// CHECK-NOT: arith.select
// CHECK: mpt.update_loss_scale %[[S]]

// Evaluation uses the f32 running statistics.
// CHECK-LABEL: func.func @predict
// CHECK: mpt.batch_norm_inference {{.*}} : tensor<64x8x28x28xf16>, tensor<8xf32>
