// The whole rewrite on the embedding step: the lookup follows its f32 table
// (PyTorch's autocast leaves embedding in the weight's type), and the table's
// gradient, a scatter-add in f32 of the scaled gradient that reaches it, stays
// in the scaled backward slice (embedding_grad is linear in it): it is
// unscaled once, where it leaves for the optimizer, like the other gradients.
// RUN: mpt-opt %S/../CUDA/Inputs/embedding_step.mlir --mpt-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[TOKENS:[a-zA-Z0-9_]+]]: tensor<16x32xf32> {mpt.param}
// CHECK-SAME: %[[IDS:[a-zA-Z0-9_]+]]: tensor<8x12xi32> {mpt.data}
// CHECK-SAME: %[[SCALE:[a-zA-Z0-9_]+]]: tensor<f32> {mpt.init = dense<6.553600e+04> : tensor<f32>, mpt.state}
// CHECK: mpt.embedding %[[TOKENS]], %[[IDS]] : tensor<16x32xf32>, tensor<8x12xi32> -> tensor<8x12x32xf32>
// CHECK: mpt.loss_grad %{{.*}} scale %[[SCALE]]
// CHECK: %[[DH:.*]] = arith.extf %{{.*}} : tensor<8x12x32xf16> to tensor<8x12x32xf32>
// CHECK-NOT: mpt.unscale {{.*}} : tensor<8x12x32x
// CHECK: %[[DT:.*]] = mpt.embedding_grad %[[DH]], %[[IDS]] : tensor<8x12x32xf32>, tensor<8x12xi32> -> tensor<16x32xf32>
// CHECK-NEXT: %[[DTU:.*]] = mpt.unscale %[[DT]], %[[SCALE]] : tensor<16x32xf32> -> tensor<16x32xf32>
// CHECK-NEXT: mpt.adam %[[TOKENS]], %[[DTU]]
// CHECK: mpt.all_finite %[[DTU]],
