// Dropout under f16 mixed precision: it follows its input, so both the
// forward dropouts and their gradients (the same dropouts of the incoming
// gradients, scaled by the loss scale, which dropout keeps) run in f16; the
// dropout counter is state whose update, like every carried value, is
// selected on the finite flag, so a skipped step keeps it.
// RUN: mpt-opt %S/../Runtime/Inputs/mlp-dropout.mlir --mpt-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME:    %[[COUNTER:arg[0-9]+]]: tensor<i64> {mpt.state}
// CHECK:         mpt.dropout %{{.*}}, %[[COUNTER]] {p = 2.000000e-01 : f64} : tensor<128x256xf16>
// CHECK:         mpt.dropout %{{.*}}, %[[COUNTER]] {p = 5.000000e-01 : f64, stream = 1 : i64} : tensor<128x128xf16>
// CHECK:         mpt.loss_grad
// CHECK:         mpt.dropout %{{.*}}, %[[COUNTER]] {p = 5.000000e-01 : f64, stream = 1 : i64} : tensor<128x128xf16>
// CHECK:         mpt.dropout %{{.*}}, %[[COUNTER]] {p = 2.000000e-01 : f64} : tensor<128x256xf16>
// CHECK:         %[[NEXT:.*]] = arith.addi %[[COUNTER]], %{{.*}} : tensor<i64>
// CHECK:         %[[FINITE:.*]] = mpt.all_finite
// CHECK:         %[[FLAG:.*]] = tensor.extract %[[FINITE]][]
// CHECK:         arith.select %[[FLAG]], %[[NEXT]], %[[COUNTER]] : tensor<i64>
