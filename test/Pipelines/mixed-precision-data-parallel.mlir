// Data parallelism in the whole rewrite, on the MLP example.
// RUN: mpt-opt %examples/mlp.mlir --mpt-mixed-precision=data-parallel-world-size=2 | FileCheck %s
// RUN: mpt-opt %examples/mlp.mlir "--mpt-mixed-precision=compute-type=bf16 data-parallel-world-size=4" | FileCheck %s --check-prefix=BF16
// RUN: mpt-opt %examples/mlp.mlir "--mpt-mixed-precision=compute-type=f32 data-parallel-world-size=2" | FileCheck %s --check-prefix=F32
// RUN: not mpt-opt %examples/mlp.mlir --mpt-mixed-precision=data-parallel-world-size=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// Idempotence: the pipeline applied twice equals the pipeline applied once.
// RUN: mpt-opt %examples/mlp.mlir --mpt-mixed-precision=data-parallel-world-size=2 > %t.once.mlir
// RUN: mpt-opt %t.once.mlir --mpt-mixed-precision=data-parallel-world-size=2 | diff %t.once.mlir -

// f16: the six gradients, in the order the backward produces them, in one
// 25 MiB bucket after the first layer's weight gradient, each in its own
// type; loss scaling unscales the sums, checks them, and the ranks agree on
// the flag.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[S:arg14]]: tensor<f32> {mpt.init = dense<6.553600e+04> : tensor<f32>, mpt.state}
// CHECK: mpt.loss_grad %{{.*}} scale %[[S]] {world_size = 2 : i64}
// CHECK: %[[DW1:.*]] = mpt.matmul %{{.*}} {transpose_a} : tensor<128x784xf16>, tensor<128x256xf16> -> tensor<784x256xf16>
// CHECK-NEXT: %[[SUM:.*]]:6 = mpt.all_reduce sum %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DW1]] : tensor<10xf32>, tensor<128x10xf16>, tensor<128xf32>, tensor<256x128xf16>, tensor<256xf32>, tensor<784x256xf16>
// CHECK-NOT: mpt.all_reduce sum
// CHECK: %[[DW1U:.*]] = mpt.unscale %[[SUM]]#5, %[[S]] : tensor<784x256xf16> -> tensor<784x256xf32>
// CHECK: %[[OK:.*]] = mpt.all_finite %[[DW1U]],
// CHECK: mpt.all_reduce max %{{.*}} : tensor<f32>

// bf16: summed in f32, without loss scaling (nothing to agree on).
// BF16-LABEL: func.func @train_step
// BF16: mpt.loss_grad %{{.*}} {world_size = 4 : i64}
// BF16: mpt.all_reduce sum {{.*}} : tensor<10xf32>, tensor<128x10xf32>, tensor<128xf32>, tensor<256x128xf32>, tensor<256xf32>, tensor<784x256xf32>
// BF16-NOT: mpt.all_reduce

// F32-LABEL: func.func @train_step
// F32: mpt.loss_grad %{{.*}} {world_size = 2 : i64}
// F32: mpt.all_reduce sum {{.*}} : tensor<10xf32>, tensor<128x10xf32>, tensor<128xf32>, tensor<256x128xf32>, tensor<256xf32>, tensor<784x256xf32>
// F32-NOT: mpt.all_reduce

// NEGATIVE: error: mpt-data-parallel: world-size must be at least 1, got -1
