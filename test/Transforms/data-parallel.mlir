// RUN: mpt-opt %s --mpt-data-parallel=world-size=2 | FileCheck %s
// RUN: mpt-opt %s "--mpt-data-parallel=world-size=2 bucket-bytes=64" | FileCheck %s --check-prefix=BUCKETS
// RUN: mpt-opt %s "--mpt-data-parallel=world-size=2 reduce-type=f32" | FileCheck %s --check-prefix=F32
// RUN: mpt-opt %s --mpt-data-parallel=world-size=2 --mpt-loss-scaling | FileCheck %s --check-prefix=SCALED
// Running it again changes nothing.
// RUN: mpt-opt %s --mpt-data-parallel=world-size=2 > %t.once.mlir
// RUN: mpt-opt %t.once.mlir --mpt-data-parallel=world-size=2 | diff %t.once.mlir -

// An f16 step after autocast and master weights: the weight gradient is f16,
// the bias gradient (a reduction) f32, and both are clipped.

// The seed carries 1/N; one bucket, after the last gradient; each gradient is
// summed in its own type; clipping reads the sums.
// CHECK-LABEL: func.func @clipped_step
// CHECK: %[[SEED:.*]] = mpt.loss_grad %{{.*}} {world_size = 2 : i64}
// CHECK: %[[DW:.*]] = mpt.matmul %{{.*}} {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[DB:.*]] = mpt.reduce_sum
// CHECK-NEXT: %[[SUM:.*]]:2 = mpt.all_reduce sum %[[DW]], %[[DB]] : tensor<8x4xf16>, tensor<4xf32>
// CHECK-NEXT: %[[DW32:.*]] = arith.extf %[[SUM]]#0 : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: mpt.clip_grad_norm %[[DW32]], %[[SUM]]#1
// CHECK-NOT: mpt.all_reduce

// At 64 bytes the 8x4 f16 weight gradient fills a bucket of its own, reduced
// as soon as it is produced.
// BUCKETS-LABEL: func.func @clipped_step
// BUCKETS: %[[DW:.*]] = mpt.matmul %{{.*}} {transpose_a}
// BUCKETS-NEXT: %[[SDW:.*]] = mpt.all_reduce sum %[[DW]] : tensor<8x4xf16>
// BUCKETS-NEXT: %[[DW32:.*]] = arith.extf %[[SDW]]
// BUCKETS-NEXT: %[[DB:.*]] = mpt.reduce_sum
// BUCKETS-NEXT: %[[SDB:.*]] = mpt.all_reduce sum %[[DB]] : tensor<4xf32>
// BUCKETS-NEXT: mpt.clip_grad_norm %[[DW32]], %[[SDB]]

// In f32 the f16 gradient is widened once, and clipping reads the f32 sum.
// F32-LABEL: func.func @clipped_step
// F32: %[[DW:.*]] = mpt.matmul %{{.*}} {transpose_a}
// F32-NEXT: %[[DB:.*]] = mpt.reduce_sum
// F32-NEXT: %[[DW32:.*]] = arith.extf %[[DW]] : tensor<8x4xf16> to tensor<8x4xf32>
// F32-NEXT: %[[SUM:.*]]:2 = mpt.all_reduce sum %[[DW32]], %[[DB]] : tensor<8x4xf32>, tensor<4xf32>
// F32-NEXT: mpt.clip_grad_norm %[[SUM]]#0, %[[SUM]]#1
// F32-NOT: arith.extf

// Loss scaling unscales after the sum, so the finite check sees the summed
// f16 gradient (a sum that overflows f16 is inf), and the ranks agree on the
// flag through a max.
// SCALED-LABEL: func.func @clipped_step
// SCALED-SAME: %[[S:[a-z0-9]+]]: tensor<f32> {mpt.init = dense<6.553600e+04> : tensor<f32>, mpt.state}
// SCALED: mpt.loss_grad %{{.*}} scale %[[S]] {world_size = 2 : i64}
// SCALED: %[[SUM:.*]]:2 = mpt.all_reduce sum %{{.*}}, %{{.*}} : tensor<8x4xf16>, tensor<4xf32>
// SCALED-DAG: %[[DWU:.*]] = mpt.unscale %[[SUM]]#0, %[[S]] : tensor<8x4xf16> -> tensor<8x4xf32>
// SCALED-DAG: %[[DBU:.*]] = mpt.unscale %[[SUM]]#1, %[[S]] : tensor<4xf32> -> tensor<4xf32>
// SCALED: %[[LOCAL:.*]] = mpt.all_finite %[[DWU]], %[[DBU]]
// SCALED-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// SCALED-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// SCALED: %[[BAD:.*]] = arith.select %[[LOCAL]], %[[ZERO]], %[[ONE]] : tensor<i1>, tensor<f32>
// SCALED-NEXT: %[[ANYBAD:.*]] = mpt.all_reduce max %[[BAD]] : tensor<f32>
// SCALED-NEXT: %[[OK:.*]] = arith.cmpf oeq, %[[ANYBAD]], %[[ZERO]] : tensor<f32>
// SCALED: %[[FLAG:.*]] = tensor.extract %[[OK]][] : tensor<i1>
// SCALED: arith.select %[[FLAG]]
// SCALED: mpt.update_loss_scale %[[S]], %{{.*}}, %[[OK]]
func.func @clipped_step(%w: tensor<8x4xf32> {mpt.param}, %b: tensor<4xf32> {mpt.param},
                %m: tensor<8x4xf32> {mpt.state},
                %x: tensor<2x8xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf32> {mpt.next = 0}, tensor<4xf32> {mpt.next = 1},
        tensor<8x4xf32> {mpt.next = 2}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %x16 = arith.truncf %x : tensor<2x8xf32> to tensor<2x8xf16>
  %w16 = arith.truncf %w : tensor<8x4xf32> to tensor<8x4xf16>
  %h = mpt.matmul %x16, %w16 : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %h32 = arith.extf %h : tensor<2x4xf16> to tensor<2x4xf32>
  %o = mpt.bias_add %h32, %b : tensor<2x4xf32>, tensor<4xf32>
  %loss = mpt.softmax_cross_entropy %o, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o, %y : tensor<2x4xf32>, tensor<2xi32>
  %do16 = arith.truncf %do : tensor<2x4xf32> to tensor<2x4xf16>
  %dw = mpt.matmul %x16, %do16 {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
  %dw32 = arith.extf %dw : tensor<8x4xf16> to tensor<8x4xf32>
  %db = mpt.reduce_sum %do [0] : tensor<2x4xf32> -> tensor<4xf32>
  %dwc, %dbc, %norm = mpt.clip_grad_norm %dw32, %db {max_norm = 1.0 : f32} : tensor<8x4xf32>, tensor<4xf32>
  %w2, %m2 = mpt.sgd %w, %dwc, %m {lr = 0.1 : f32, momentum = 0.9 : f32} : tensor<8x4xf32>
  %b2 = mpt.sgd %b, %dbc {lr = 0.1 : f32} : tensor<4xf32>
  return %w2, %b2, %m2, %loss : tensor<8x4xf32>, tensor<4xf32>, tensor<8x4xf32>, tensor<f32>
}
