// The whole rewrite on the regression step (silu, tanh, gelu's tanh
// approximation, sigmoid, mse_loss): the activations and their gradients
// follow the f16 flowing in, the loss and its gradient run in f32 on the
// widened prediction, and the backward stays scaled through every activation
// gradient: each gradient is unscaled only where it reaches its optimizer.
// RUN: mpt-opt %S/../CUDA/Inputs/regression_step.mlir --mpt-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[Y:[a-zA-Z0-9_]+]]: tensor<128x8xf32> {mpt.data}, %[[SCALE:[a-zA-Z0-9_]+]]: tensor<f32> {mpt.init = dense<6.553600e+04> : tensor<f32>, mpt.state}
// CHECK: %[[U1:.*]] = mpt.bias_add {{.*}} : tensor<128x32xf16>, tensor<32xf16>
// CHECK-NEXT: %[[H1:.*]] = mpt.silu %[[U1]] : tensor<128x32xf16>
// CHECK: %[[H2:.*]] = mpt.tanh %{{.*}} : tensor<128x32xf16>
// CHECK: %[[Z3:.*]] = mpt.matmul %[[H2]]
// CHECK-NEXT: %[[H3:.*]] = mpt.gelu %[[Z3]] {approximate} : tensor<128x32xf16>
// CHECK: %[[P:.*]] = mpt.sigmoid %{{.*}} : tensor<128x8xf16>
// CHECK-NEXT: %[[P32:.*]] = arith.extf %[[P]] : tensor<128x8xf16> to tensor<128x8xf32>
// CHECK-NEXT: %[[LOSS:.*]] = mpt.mse_loss %[[P32]], %[[Y]] : tensor<128x8xf32>
// CHECK-NEXT: %[[SEED:.*]] = mpt.loss_grad %[[LOSS]] scale %[[SCALE]]
// CHECK-NEXT: %[[DP32:.*]] = mpt.mse_loss_grad %[[SEED]], %[[P32]], %[[Y]] : tensor<128x8xf32>
// CHECK-NEXT: %[[DP:.*]] = arith.truncf %[[DP32]] : tensor<128x8xf32> to tensor<128x8xf16>
// CHECK-NEXT: mpt.sigmoid_grad %[[DP]], %[[P]] : tensor<128x8xf16>
// CHECK-NOT: mpt.unscale {{.*}} : tensor<128x
// CHECK: mpt.gelu_grad %{{.*}}, %[[Z3]] {approximate} : tensor<128x32xf16>
// CHECK-NOT: mpt.unscale {{.*}} : tensor<128x
// CHECK: mpt.tanh_grad %{{.*}}, %[[H2]] : tensor<128x32xf16>
// CHECK-NOT: mpt.unscale {{.*}} : tensor<128x
// CHECK: mpt.silu_grad %{{.*}}, %[[U1]] : tensor<128x32xf16>
// CHECK-COUNT-5: mpt.sgd {{.*}} : tensor<{{[0-9x]+}}xf32>
// CHECK: mpt.all_finite {{(%[0-9]+, ){4}%[0-9]+}} :
