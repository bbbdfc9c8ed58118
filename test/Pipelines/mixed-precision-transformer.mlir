// The whole rewrite on the transformer block (Adam, layer norm, softmax, gelu).
// RUN: mpt-opt %examples/transformer_block_manual.mlir --mpt-mixed-precision | FileCheck %s
// RUN: mpt-opt %examples/transformer_block_manual.mlir --mpt-mixed-precision > %t.once.mlir
// RUN: mpt-opt %t.once.mlir --mpt-mixed-precision | diff %t.once.mlir -
// RUN: mpt-opt %examples/transformer_block_manual.mlir --mpt-mixed-precision=compute-type=f32 | diff <(mpt-opt %examples/transformer_block_manual.mlir) -

// CHECK-LABEL: func.func @train_step
// CHECK-NOT: mpt.matmul {{.*}}xf32>
// CHECK: mpt.layer_norm {{.*}} : tensor<256x64xf32>, tensor<64xf32> -> tensor<256xf32>
// CHECK-NOT: mpt.matmul {{.*}}xf32>
// CHECK: mpt.matmul {{.*}} : tensor<32x32x16xf16>, tensor<32x32x16xf16> -> tensor<32x32x32xf16>
// Softmax runs in f32.
// CHECK: mpt.softmax %{{.*}} : tensor<32x32x32xf32>
// CHECK: mpt.gelu %{{.*}} : tensor<256x256xf16>
// CHECK: mpt.softmax_grad %{{.*}} : tensor<32x32x32xf32>
// CHECK-COUNT-14: mpt.adam {{.*}} : tensor<{{[0-9x]+}}xf32>, tensor<i64>
// One check over the 14 gradients: each is unscaled where it reaches its
// optimizer, not earlier (a gradient broadcast by adding it to zeros stays in
// the scaled backward pass).
// CHECK: %[[OK:.*]] = mpt.all_finite {{(%[0-9]+, ){13}%[0-9]+}} :
// CHECK-NOT: mpt.all_finite
// CHECK: %[[FLAG:.*]] = tensor.extract %[[OK]][]
// 14 parameters, each with two moments and a step count.
// CHECK-COUNT-56: arith.select %[[FLAG]]
// CHECK-NOT: arith.select
// CHECK: mpt.update_loss_scale
