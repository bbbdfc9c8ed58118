// RUN: mpt-opt %s -split-input-file --mpt-autocast | FileCheck %s
// RUN: mpt-opt %s -split-input-file --mpt-autocast=compute-type=bf16 | FileCheck %s --check-prefix=BF16
// RUN: mpt-opt %s -split-input-file --mpt-autocast=fp32-ops=mpt.matmul | FileCheck %s --check-prefix=FP32MM
// RUN: mpt-opt %s -split-input-file '--mpt-autocast=lower-ops=mpt.softmax follow-ops=mpt.reduce_sum' | FileCheck %s --check-prefix=OPTS

// Running the pass twice gives the same IR as running it once.
// RUN: mpt-opt %s -split-input-file --mpt-autocast > %t.once.mlir
// RUN: mpt-opt %t.once.mlir -split-input-file --mpt-autocast | diff %t.once.mlir -
// RUN: mpt-opt %s -split-input-file --mpt-autocast | mpt-opt -split-input-file --mpt-autocast | FileCheck %s

// compute-type=f32 changes nothing.
// RUN: mpt-opt %s -split-input-file > %t.plain.mlir
// RUN: mpt-opt %s -split-input-file --mpt-autocast=compute-type=f32 | diff %t.plain.mlir -

//===----------------------------------------------------------------------===//
// lower: matmul and conv run in the compute type.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @matmul
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[X16:.*]] = arith.truncf %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK-NEXT: %[[MM:.*]] = mpt.matmul %[[X16]], %[[W16]] : tensor<4x8xf16>, tensor<8x16xf16> -> tensor<4x16xf16>
// CHECK-NEXT: %[[R:.*]] = arith.extf %[[MM]] : tensor<4x16xf16> to tensor<4x16xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x16xf32>

// BF16-LABEL: func @matmul
// BF16-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x16xf32>) -> tensor<4x16xf32>
// BF16-NEXT: %[[X16:.*]] = arith.truncf %[[X]] : tensor<4x8xf32> to tensor<4x8xbf16>
// BF16-NEXT: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x16xf32> to tensor<8x16xbf16>
// BF16-NEXT: %[[MM:.*]] = mpt.matmul %[[X16]], %[[W16]] : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
// BF16-NEXT: %[[R:.*]] = arith.extf %[[MM]] : tensor<4x16xbf16> to tensor<4x16xf32>
// BF16-NEXT: return %[[R]] : tensor<4x16xf32>

// fp32-ops=mpt.matmul keeps the matmul in f32: no cast at all.
// FP32MM-LABEL: func @matmul
// FP32MM-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x16xf32>)
// FP32MM-NOT: arith.truncf
// FP32MM: %[[MM:.*]] = mpt.matmul %[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
// FP32MM-NOT: arith.extf
// FP32MM: return %[[MM]] : tensor<4x16xf32>
func.func @matmul(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = mpt.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func @conv2d
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8x8xf32>, %[[F:.*]]: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
// CHECK-NEXT: %[[X16:.*]] = arith.truncf %[[X]] : tensor<2x3x8x8xf32> to tensor<2x3x8x8xf16>
// CHECK-NEXT: %[[F16:.*]] = arith.truncf %[[F]] : tensor<4x3x3x3xf32> to tensor<4x3x3x3xf16>
// CHECK-NEXT: %[[C:.*]] = mpt.conv2d %[[X16]], %[[F16]] : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16> -> tensor<2x4x6x6xf16>
// CHECK-NEXT: %[[R:.*]] = arith.extf %[[C]] : tensor<2x4x6x6xf16> to tensor<2x4x6x6xf32>
// CHECK-NEXT: return %[[R]]

// BF16-LABEL: func @conv2d
// BF16: mpt.conv2d %{{.*}}, %{{.*}} : tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16> -> tensor<2x4x6x6xbf16>
func.func @conv2d(%x: tensor<2x3x8x8xf32>, %f: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  %0 = mpt.conv2d %x, %f : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

// Negative: a graph without lower ops has nothing to run in f16.

// CHECK-LABEL: func @no_lower_ops
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: %[[S:.*]] = mpt.softmax %{{.*}} : tensor<4x8xf32>
// CHECK: %[[R:.*]] = mpt.relu %[[S]] : tensor<4x8xf32>
// CHECK: arith.addf %[[R]], %{{.*}} : tensor<4x8xf32>
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: return
func.func @no_lower_ops(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.softmax %x : tensor<4x8xf32>
  %1 = mpt.relu %0 : tensor<4x8xf32>
  %2 = arith.addf %1, %x : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// fp32: f32 inputs, and the original f32 value rather than extf(truncf(x)).
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @fp32_ops_read_original
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>, %[[M:.*]]: tensor<8x8xf32>, %[[Y:.*]]: tensor<4xi32>)
// CHECK-DAG: %[[X16:.*]] = arith.truncf %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-DAG: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK: %[[MM:.*]] = mpt.matmul %[[X16]], %[[W16]] : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: %[[MM32:.*]] = arith.extf %[[MM]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NOT: arith.extf %[[X16]]
// CHECK-NOT: arith.extf %[[W16]]
// CHECK: mpt.softmax %[[X]] : tensor<4x8xf32>
// CHECK: math.exp %[[X]] : tensor<4x8xf32>
// CHECK: mpt.softmax_cross_entropy %[[MM32]], %[[Y]] : tensor<4x8xf32>, tensor<4xi32>
// CHECK: mpt.reduce_sum %[[MM32]] [0] : tensor<4x8xf32> -> tensor<8xf32>
// CHECK: %[[DW:.*]] = mpt.matmul %[[X16]], %[[MM]] {transpose_a} : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<8x8xf16>
// CHECK-NEXT: %[[DW32:.*]] = arith.extf %[[DW]] : tensor<8x8xf16> to tensor<8x8xf32>
// CHECK-NEXT: %{{.*}}, %{{.*}} = mpt.sgd %[[W]], %[[DW32]], %[[M]] {{.*}} : tensor<8x8xf32>
// CHECK-NOT: arith.extf
// CHECK: return
func.func @fp32_ops_read_original(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %m: tensor<8x8xf32>, %y: tensor<4xi32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = mpt.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = mpt.softmax %x : tensor<4x8xf32>
  %2 = math.exp %x : tensor<4x8xf32>
  %3 = mpt.softmax_cross_entropy %0, %y : tensor<4x8xf32>, tensor<4xi32>
  %4 = mpt.reduce_sum %0 [0] : tensor<4x8xf32> -> tensor<8xf32>
  %dw = mpt.matmul %x, %0 {transpose_a} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  %w2, %m2 = mpt.sgd %w, %dw, %m {lr = 1.0e-01 : f32, momentum = 9.0e-01 : f32} : tensor<8x8xf32>
  return %1, %2, %3, %4, %w2, %m2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// An fp32 op reading a value the graph itself truncated from f32 reads the
// f32 value, not extf(truncf(x)).

// CHECK-LABEL: func @fp32_op_reads_source_of_truncf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>
// CHECK-NOT: arith.extf
// CHECK: mpt.softmax %[[X]] : tensor<4x8xf32>
func.func @fp32_op_reads_source_of_truncf(%x: tensor<4x8xf32>, %w: tensor<8x8xf16>) -> (tensor<4x8xf16>, tensor<4x8xf16>) {
  %x16 = arith.truncf %x : tensor<4x8xf32> to tensor<4x8xf16>
  %0 = mpt.matmul %x16, %w : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
  %1 = mpt.softmax %x16 : tensor<4x8xf16>
  return %0, %1 : tensor<4x8xf16>, tensor<4x8xf16>
}

// -----

// fp32 ops on low-precision values widen them once.

// CHECK-LABEL: func @fp32_ops_widen_once
// CHECK: %[[MM:.*]] = mpt.matmul {{.*}} -> tensor<4x8xf16>
// CHECK-NEXT: %[[MM32:.*]] = arith.extf %[[MM]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT: mpt.softmax %[[MM32]] : tensor<4x8xf32>
// CHECK-NEXT: math.exp %[[MM32]] : tensor<4x8xf32>
// CHECK-NOT: arith.extf
// CHECK: return
func.func @fp32_ops_widen_once(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = mpt.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = mpt.softmax %0 : tensor<4x8xf32>
  %2 = math.exp %0 : tensor<4x8xf32>
  return %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// follow: elementwise and shape ops between two lower ops stay low precision.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @follow_between_matmuls
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W1:.*]]: tensor<8x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[W2:.*]]: tensor<8x8xf32>)
// CHECK-DAG: %[[X16:.*]] = arith.truncf %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-DAG: %[[W116:.*]] = arith.truncf %[[W1]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-DAG: %[[B16:.*]] = arith.truncf %[[B]] : tensor<8xf32> to tensor<8xf16>
// CHECK-DAG: %[[W216:.*]] = arith.truncf %[[W2]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK: %[[H:.*]] = mpt.matmul %[[X16]], %[[W116]] : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: %[[HB:.*]] = mpt.bias_add %[[H]], %[[B16]] : tensor<4x8xf16>, tensor<8xf16>
// CHECK-NEXT: %[[A:.*]] = mpt.relu %[[HB]] : tensor<4x8xf16>
// CHECK-NEXT: %[[O:.*]] = mpt.matmul %[[A]], %[[W216]] : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: %[[R:.*]] = arith.extf %[[O]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x8xf32>
func.func @follow_between_matmuls(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %b: tensor<8xf32>, %w2: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = mpt.bias_add %0, %b : tensor<4x8xf32>, tensor<8xf32>
  %2 = mpt.relu %1 : tensor<4x8xf32>
  %3 = mpt.matmul %2, %w2 : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func @follow_conv_pool_reshape
// CHECK: %[[C:.*]] = mpt.conv2d {{.*}} -> tensor<2x2x4x4xf16>
// CHECK-NEXT: %[[CB:.*]] = mpt.bias_add %[[C]], %{{.*}} {axis = 1 : i64} : tensor<2x2x4x4xf16>, tensor<2xf16>
// CHECK-NEXT: %[[A:.*]] = mpt.relu %[[CB]] : tensor<2x2x4x4xf16>
// CHECK-NEXT: %[[P:.*]] = mpt.max_pool2d %[[A]] {{.*}} : tensor<2x2x4x4xf16> -> tensor<2x2x2x2xf16>
// CHECK-NEXT: %[[F:.*]] = mpt.reshape %[[P]] : tensor<2x2x2x2xf16> -> tensor<2x8xf16>
// CHECK-NEXT: %[[O:.*]] = mpt.matmul %[[F]], %{{.*}} : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
// CHECK-NEXT: arith.extf %[[O]] : tensor<2x4xf16> to tensor<2x4xf32>
func.func @follow_conv_pool_reshape(%x: tensor<2x2x4x4xf32>, %f: tensor<2x2x1x1xf32>, %b: tensor<2xf32>, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %0 = mpt.conv2d %x, %f : tensor<2x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<2x2x4x4xf32>
  %1 = mpt.bias_add %0, %b {axis = 1 : i64} : tensor<2x2x4x4xf32>, tensor<2xf32>
  %2 = mpt.relu %1 : tensor<2x2x4x4xf32>
  %3 = mpt.max_pool2d %2 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x2x4x4xf32> -> tensor<2x2x2x2xf32>
  %4 = mpt.reshape %3 : tensor<2x2x2x2xf32> -> tensor<2x8xf32>
  %5 = mpt.matmul %4, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  return %5 : tensor<2x4xf32>
}

// -----

// Negative: a follow op whose inputs are all f32 stays f32, even when the same
// value also feeds a matmul.

// CHECK-LABEL: func @follow_f32_inputs
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>
// CHECK: %[[R:.*]] = mpt.relu %[[X]] : tensor<4x8xf32>
// CHECK-NOT: arith.extf
// CHECK: return %{{.*}}, %[[R]] : tensor<4x8xf32>, tensor<4x8xf32>
func.func @follow_f32_inputs(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = mpt.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = mpt.relu %x : tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// promote: the widest input type.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @promote
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>, %[[Z:.*]]: tensor<4x8xf32>)
// CHECK: %[[MM:.*]] = mpt.matmul {{.*}} -> tensor<4x8xf16>
// CHECK-NEXT: %[[MM32:.*]] = arith.extf %[[MM]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT: %[[MIXED:.*]] = arith.addf %[[MM32]], %[[Z]] : tensor<4x8xf32>
// CHECK-NEXT: %[[LOW:.*]] = arith.addf %[[MM]], %[[MM]] : tensor<4x8xf16>
// CHECK-NEXT: %[[LOW32:.*]] = arith.extf %[[LOW]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT: %[[WIDE:.*]] = arith.mulf %[[Z]], %[[Z]] : tensor<4x8xf32>
// CHECK-NEXT: return %[[MIXED]], %[[LOW32]], %[[WIDE]]
func.func @promote(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %z: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = mpt.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = arith.addf %0, %z : tensor<4x8xf32>
  %2 = arith.addf %0, %0 : tensor<4x8xf32>
  %3 = arith.mulf %z, %z : tensor<4x8xf32>
  return %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Each value is cast at most once per type; argument casts sit at entry.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @truncate_once
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>, %[[V:.*]]: tensor<8x8xf32>)
// CHECK-COUNT-1: arith.truncf %[[X]] :
// CHECK-NOT: arith.truncf %[[X]] :
// CHECK: %[[S:.*]] = mpt.softmax %[[X]] : tensor<4x8xf32>
// CHECK-NEXT: %[[S16:.*]] = arith.truncf %[[S]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NOT: arith.truncf
// CHECK: mpt.matmul %[[S16]], %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16>
// CHECK: mpt.matmul %[[S16]], %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16>
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @truncate_once(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %v: tensor<8x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = mpt.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = mpt.matmul %x, %v : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %s = mpt.softmax %x : tensor<4x8xf32>
  %2 = mpt.matmul %s, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %3 = mpt.matmul %s, %v : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %4 = mpt.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// The cast of an argument first read late in the function is placed at entry.

// CHECK-LABEL: func @argument_casts_at_entry
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK-NEXT: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT: %[[S:.*]] = mpt.softmax %[[X]] : tensor<4x8xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[S]] : tensor<4x8xf32>
// CHECK-NEXT: %[[E16:.*]] = arith.truncf %[[E]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: mpt.matmul %[[E16]], %[[W16]] : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
func.func @argument_casts_at_entry(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.softmax %x : tensor<4x8xf32>
  %1 = math.exp %0 : tensor<4x8xf32>
  %2 = mpt.matmul %1, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// A training step keeps its signature: results are converted back for the
// return, and the optimizer reads the f32 parameter.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @train_step
// CHECK-SAME: (%[[W:.*]]: tensor<8x4xf32> {mpt.param}, %[[M:.*]]: tensor<8x4xf32> {mpt.state}, %[[X:.*]]: tensor<2x8xf32> {mpt.data}, %[[Y:.*]]: tensor<2xi32> {mpt.data})
// CHECK-SAME: -> (tensor<8x4xf32> {mpt.next = 0 : i64}, tensor<8x4xf32> {mpt.next = 1 : i64}, tensor<f32> {mpt.metric = "loss"})
// CHECK-SAME: attributes {mpt.train_step}
// CHECK-DAG: %[[X16:.*]] = arith.truncf %[[X]] : tensor<2x8xf32> to tensor<2x8xf16>
// CHECK-DAG: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK: %[[O:.*]] = mpt.matmul %[[X16]], %[[W16]] : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
// CHECK-NEXT: %[[O32:.*]] = arith.extf %[[O]] : tensor<2x4xf16> to tensor<2x4xf32>
// CHECK-NEXT: %[[LOSS:.*]] = mpt.softmax_cross_entropy %[[O32]], %[[Y]] : tensor<2x4xf32>, tensor<2xi32>
// CHECK-NEXT: %[[SEED:.*]] = mpt.loss_grad %[[LOSS]]
// CHECK-NEXT: %[[DO:.*]] = mpt.softmax_cross_entropy_grad %[[SEED]], %[[O32]], %[[Y]] : tensor<2x4xf32>, tensor<2xi32>
// CHECK-NEXT: %[[DO16:.*]] = arith.truncf %[[DO]] : tensor<2x4xf32> to tensor<2x4xf16>
// CHECK-NEXT: %[[DW:.*]] = mpt.matmul %[[X16]], %[[DO16]] {transpose_a} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[DW32:.*]] = arith.extf %[[DW]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[WN:.*]], %[[MN:.*]] = mpt.sgd %[[W]], %[[DW32]], %[[M]] {{.*}} : tensor<8x4xf32>
// CHECK-NEXT: return %[[WN]], %[[MN]], %[[LOSS]] : tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>
func.func @train_step(%w: tensor<8x4xf32> {mpt.param}, %m: tensor<8x4xf32> {mpt.state},
                      %x: tensor<2x8xf32> {mpt.data}, %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf32> {mpt.next = 0}, tensor<8x4xf32> {mpt.next = 1},
        tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %o = mpt.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o, %y : tensor<2x4xf32>, tensor<2xi32>
  %dw = mpt.matmul %x, %do {transpose_a} : tensor<2x8xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
  %w2, %m2 = mpt.sgd %w, %dw, %m {lr = 1.0e-01 : f32, momentum = 9.0e-01 : f32} : tensor<8x4xf32>
  return %w2, %m2, %loss : tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// batch_norm: activations follow, statistics keep their f32 type.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @batch_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x3x3xf32>, %[[F:.*]]: tensor<4x4x1x1xf32>, %[[G:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[RM:.*]]: tensor<4xf32>, %[[RV:.*]]: tensor<4xf32>)
// CHECK-NOT: arith.truncf %[[G]]
// CHECK-NOT: arith.truncf %[[B]]
// CHECK-NOT: arith.truncf %[[RM]]
// CHECK-NOT: arith.truncf %[[RV]]
// CHECK: %[[C:.*]] = mpt.conv2d {{.*}} -> tensor<2x4x3x3xf16>
// CHECK-NEXT: %[[Y:.*]], %{{.*}}, %{{.*}}, %[[RM2:.*]], %[[RV2:.*]] = mpt.batch_norm %[[C]], %[[G]], %[[B]], %[[RM]], %[[RV]] : tensor<2x4x3x3xf16>, tensor<4xf32>
// CHECK-NEXT: %[[A:.*]] = mpt.relu %[[Y]] : tensor<2x4x3x3xf16>
// CHECK-NEXT: %[[A32:.*]] = arith.extf %[[A]] : tensor<2x4x3x3xf16> to tensor<2x4x3x3xf32>
// CHECK-NEXT: return %[[A32]], %[[RM2]], %[[RV2]] : tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>
func.func @batch_norm(%x: tensor<2x4x3x3xf32>, %f: tensor<4x4x1x1xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>,
                      %rm: tensor<4xf32>, %rv: tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c = mpt.conv2d %x, %f : tensor<2x4x3x3xf32>, tensor<4x4x1x1xf32> -> tensor<2x4x3x3xf32>
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %c, %g, %b, %rm, %rv : tensor<2x4x3x3xf32>, tensor<4xf32>
  %r = mpt.relu %y : tensor<2x4x3x3xf32>
  return %r, %rm2, %rv2 : tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Pins and class options.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @pinned_fp32
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK: %[[P:.*]] = mpt.matmul %[[X]], %[[W]] {mpt.precision = #mpt.precision<fp32>} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[U:.*]] = mpt.matmul %{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: %[[U32:.*]] = arith.extf %[[U]]
// CHECK-NEXT: return %[[P]], %[[U32]]
func.func @pinned_fp32(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = mpt.matmul %x, %w {mpt.precision = #mpt.precision<fp32>} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = mpt.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// By default softmax and reduce_sum run in f32 after the f16 gelu; with
// lower-ops=mpt.softmax follow-ops=mpt.reduce_sum both run in f16.

// CHECK-LABEL: func @class_options
// CHECK: %[[G:.*]] = mpt.gelu %{{.*}} : tensor<4x8xf16>
// CHECK-NEXT: %[[G32:.*]] = arith.extf %[[G]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT: mpt.softmax %[[G32]] : tensor<4x8xf32>
// CHECK-NEXT: mpt.reduce_sum %[[G32]] [0] : tensor<4x8xf32> -> tensor<8xf32>

// OPTS-LABEL: func @class_options
// OPTS: %[[G:.*]] = mpt.gelu %{{.*}} : tensor<4x8xf16>
// OPTS-NEXT: %[[S:.*]] = mpt.softmax %[[G]] : tensor<4x8xf16>
// OPTS-NEXT: %[[S32:.*]] = arith.extf %[[S]] : tensor<4x8xf16> to tensor<4x8xf32>
// OPTS-NEXT: %[[R:.*]] = mpt.reduce_sum %[[G]] [0] : tensor<4x8xf16> -> tensor<8xf16>
// OPTS-NEXT: %[[R32:.*]] = arith.extf %[[R]] : tensor<8xf16> to tensor<8xf32>
// OPTS-NEXT: return %[[S32]], %[[R32]] : tensor<4x8xf32>, tensor<8xf32>
func.func @class_options(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  %0 = mpt.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = mpt.gelu %0 : tensor<4x8xf32>
  %2 = mpt.softmax %1 : tensor<4x8xf32>
  %3 = mpt.reduce_sum %1 [0] : tensor<4x8xf32> -> tensor<8xf32>
  return %2, %3 : tensor<4x8xf32>, tensor<8xf32>
}

// -----

// follow-ops on an f32-only op: reduce_sum of an f32 value stays f32 (negative
// case for follow-ops=mpt.reduce_sum).

// OPTS-LABEL: func @follow_option_f32_input
// OPTS-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// OPTS-NEXT: %[[R:.*]] = mpt.reduce_sum %[[X]] [0] : tensor<4x8xf32> -> tensor<8xf32>
// OPTS-NEXT: return %[[R]] : tensor<8xf32>
func.func @follow_option_f32_input(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %0 = mpt.reduce_sum %x [0] : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
