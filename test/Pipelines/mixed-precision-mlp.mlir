// The whole rewrite on the MLP example.
// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-mixed-precision | FileCheck %s
// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-mixed-precision=compute-type=bf16 | FileCheck %s --check-prefix=BF16

// Idempotence: the pipeline applied twice equals the pipeline applied once.
// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-mixed-precision > %t.once.mlir
// RUN: mpt-opt %t.once.mlir --mpt-mixed-precision > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// Identity: with compute type f32 nothing changes.
// RUN: mpt-opt %examples/mlp_manual.mlir > %t.plain.mlir
// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-mixed-precision=compute-type=f32 > %t.f32.mlir
// RUN: diff %t.plain.mlir %t.f32.mlir

// CHECK-LABEL: func.func @train_step
// The loss scale and its growth tracker are state, carried by the last next results.
// CHECK-SAME: %[[S:arg14]]: tensor<f32> {mpt.init = dense<6.553600e+04> : tensor<f32>, mpt.state}
// CHECK-SAME: %[[N:arg15]]: tensor<i64> {mpt.init = dense<0> : tensor<i64>, mpt.state}
// CHECK-SAME: tensor<f32> {mpt.next = 14 : i64}, tensor<i64> {mpt.next = 15 : i64}, tensor<f32> {mpt.metric = "loss_scale"}, tensor<i1> {mpt.metric = "skipped"}
// Master weights stay f32 arguments; each is truncated once, at entry.
// CHECK-COUNT-7: arith.truncf %arg{{[0-9]+}} : tensor<{{.*}}xf32> to tensor<{{.*}}xf16>
// Every matmul reads and writes f16.
// CHECK-NOT: mpt.matmul {{.*}}xf32>
// CHECK: mpt.matmul {{.*}} : tensor<128x784xf16>, tensor<784x256xf16> -> tensor<128x256xf16>
// CHECK-NOT: mpt.matmul {{.*}}xf32>
// CHECK: %[[LOGITS:.*]] = arith.extf %{{.*}} : tensor<128x10xf16> to tensor<128x10xf32>
// The loss runs in f32 and the seed is the scale.
// CHECK: %[[LOSS:.*]] = mpt.softmax_cross_entropy %[[LOGITS]], %arg13 : tensor<128x10xf32>, tensor<128xi32>
// CHECK: mpt.loss_grad %[[LOSS]] scale %[[S]]
// CHECK-NOT: mpt.matmul {{.*}}xf32>
// CHECK-COUNT-6: mpt.unscale
// CHECK-NOT: mpt.matmul {{.*}}xf32>
// Optimizers update f32 masters from f32 gradients.
// CHECK-COUNT-6: mpt.sgd %arg{{[0-9]+}}, %{{[0-9]+}}, %arg{{[0-9]+}} {{.*}} : tensor<{{[0-9x]+}}xf32>
// Exactly one finite check, and every carried state goes through it.
// CHECK: %[[OK:.*]] = mpt.all_finite
// CHECK-NOT: mpt.all_finite
// CHECK: %[[FLAG:.*]] = tensor.extract %[[OK]][]
// CHECK-COUNT-12: arith.select %[[FLAG]],
// CHECK: mpt.update_loss_scale %[[S]], %[[N]], %[[OK]]
// CHECK: return

// CHECK-LABEL: func.func @predict
// CHECK: mpt.matmul {{.*}} : tensor<128x784xf16>, tensor<784x256xf16> -> tensor<128x256xf16>
// CHECK: return %{{.*}} : tensor<128x10xf32>

// bf16: same casts, and no loss scaling.
// BF16-LABEL: func.func @train_step
// BF16-NOT: mpt.init
// BF16: mpt.matmul {{.*}} : tensor<128x784xbf16>, tensor<784x256xbf16> -> tensor<128x256xbf16>
// BF16: mpt.loss_grad %{{[0-9]+}}{{$}}
// BF16-NOT: mpt.unscale
// BF16-NOT: mpt.all_finite
// BF16: return
