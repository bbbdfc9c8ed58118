// Gradient accumulation in the whole rewrite, on the MLP example (written for
// a batch of 128, so micro-batches of 128).
// RUN: mpt-opt %examples/mlp.mlir "--mpt-mixed-precision=data-parallel-world-size=2 micro-batches=4" | FileCheck %s
// RUN: mpt-opt %examples/mlp.mlir "--mpt-mixed-precision=compute-type=bf16 data-parallel-world-size=2 micro-batches=2" | FileCheck %s --check-prefix=BF16
// RUN: mpt-opt %examples/mlp.mlir "--mpt-mixed-precision=compute-type=f32 micro-batches=2" | FileCheck %s --check-prefix=F32
// RUN: mpt-opt %examples/cnn_bn.mlir "--mpt-mixed-precision=micro-batches=2" | FileCheck %s --check-prefix=BN
// RUN: not mpt-opt %examples/mlp.mlir --mpt-mixed-precision=micro-batches=0 2>&1 | FileCheck %s --check-prefix=ZERO

// Idempotence: the pipeline applied twice equals the pipeline applied once.
// RUN: mpt-opt %examples/mlp.mlir "--mpt-mixed-precision=data-parallel-world-size=2 micro-batches=4" > %t.once.mlir
// RUN: mpt-opt %t.once.mlir "--mpt-mixed-precision=data-parallel-world-size=2 micro-batches=4" | diff %t.once.mlir -
// RUN: mpt-opt %examples/cnn_bn.mlir "--mpt-mixed-precision=micro-batches=2" > %t.bn.mlir
// RUN: mpt-opt %t.bn.mlir "--mpt-mixed-precision=micro-batches=2" | diff %t.bn.mlir -

// f16, two ranks, four micro-batches: the step takes 4x128 rows; the seed
// carries 1/N and 1/K; the loop sums the six f16-scaled gradients in f32; after
// it the f16 ones are rounded back to f16 and all six are summed across the
// ranks once, in one bucket, then unscaled, checked and agreed on once.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %{{.*}}: tensor<512x784xf32> {mpt.data}, %{{.*}}: tensor<512xi32> {mpt.data}
// CHECK-SAME: %[[S:arg14]]: tensor<f32> {mpt.init = dense<6.553600e+04> : tensor<f32>, mpt.state}
// CHECK: %[[LOOP:.*]]:7 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (tensor<10xf32>, tensor<128x10xf32>, tensor<128xf32>, tensor<256x128xf32>, tensor<256xf32>, tensor<784x256xf32>, tensor<f32>) {
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [128, 784] [1, 1] : tensor<512x784xf32> to tensor<128x784xf32>
// CHECK: mpt.loss_grad %{{.*}} scale %[[S]] {micro_batches = 4 : i64, world_size = 2 : i64}
// CHECK-NOT: mpt.all_reduce
// CHECK-NOT: mpt.unscale
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[DW3:.*]] = arith.truncf %[[LOOP]]#1 : tensor<128x10xf32> to tensor<128x10xf16>
// CHECK-NEXT: %[[DW2:.*]] = arith.truncf %[[LOOP]]#3 : tensor<256x128xf32> to tensor<256x128xf16>
// CHECK-NEXT: %[[DW1:.*]] = arith.truncf %[[LOOP]]#5 : tensor<784x256xf32> to tensor<784x256xf16>
// CHECK: %[[LOSS:.*]] = arith.divf %[[LOOP]]#6, %{{.*}} : tensor<f32>
// CHECK: %[[SUM:.*]]:6 = mpt.all_reduce sum %[[LOOP]]#0, %[[DW3]], %[[LOOP]]#2, %[[DW2]], %[[LOOP]]#4, %[[DW1]] : tensor<10xf32>, tensor<128x10xf16>, tensor<128xf32>, tensor<256x128xf16>, tensor<256xf32>, tensor<784x256xf16>
// CHECK-NOT: mpt.all_reduce sum
// CHECK: %[[DW1U:.*]] = mpt.unscale %[[SUM]]#5, %[[S]] : tensor<784x256xf16> -> tensor<784x256xf32>
// CHECK: %[[OK:.*]] = mpt.all_finite %[[DW1U]],
// CHECK: mpt.all_reduce max %{{.*}} : tensor<f32>
// CHECK: mpt.update_loss_scale
// CHECK: return %[[LOSS]],
// CHECK-NOT: scf.for

// bf16: summed in f32 across the ranks, so the f32 sums are reduced as they
// are, without rounding.
// BF16-LABEL: func.func @train_step
// BF16: %[[LOOP:.*]]:7 = scf.for
// BF16: mpt.loss_grad %{{.*}} {micro_batches = 2 : i64, world_size = 2 : i64}
// BF16: }
// BF16-NOT: arith.truncf %[[LOOP]]
// BF16: mpt.all_reduce sum %[[LOOP]]#0, %[[LOOP]]#1, %[[LOOP]]#2, %[[LOOP]]#3, %[[LOOP]]#4, %[[LOOP]]#5 : tensor<10xf32>, tensor<128x10xf32>, tensor<128xf32>, tensor<256x128xf32>, tensor<256xf32>, tensor<784x256xf32>

// f32: the optimizers read the sums.
// F32-LABEL: func.func @train_step
// F32-SAME: %{{.*}}: tensor<256x784xf32> {mpt.data}, %{{.*}}: tensor<256xi32> {mpt.data}
// F32: %[[LOOP:.*]]:7 = scf.for
// F32: mpt.loss_grad %{{.*}} {micro_batches = 2 : i64}
// F32: }
// F32: mpt.sgd %{{.*}}, %[[LOOP]]#0, %{{.*}} {{.*}} : tensor<784x256xf32>

// Batch norm: the four running statistics are carried through the loop, and
// the skipped-step selects keep them or take the loop's.
// BN-LABEL: func.func @train_step
// BN-SAME: %[[RM1:arg8]]: tensor<8xf32> {mpt.state}, %[[RV1:arg9]]: tensor<8xf32> {mpt.state}
// BN-SAME: tensor<128x1x28x28xf32> {mpt.data}
// BN: %[[LOOP:.*]]:13 = scf.for {{.*}} iter_args({{.*}}, %{{.*}} = %[[RM1]], %{{.*}} = %[[RV1]], %{{.*}} = %arg10, %{{.*}} = %arg11)
// BN: }
// BN: arith.select %{{.*}}, %[[LOOP]]#9, %[[RM1]] : tensor<8xf32>
// BN: arith.select %{{.*}}, %[[LOOP]]#10, %[[RV1]] : tensor<8xf32>

// ZERO: error: mpt-accumulate-gradients: micro-batches must be at least 1, got 0
