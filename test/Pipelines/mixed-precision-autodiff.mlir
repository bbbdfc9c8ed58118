// mpt-mixed-precision runs mpt-autodiff first: a forward-only step comes out
// as the mixed-precision training step of its hand-written form.
// RUN: mpt-opt %examples/mlp.mlir --mpt-mixed-precision | FileCheck %s
// RUN: mpt-opt %examples/mlp.mlir --mpt-mixed-precision=compute-type=f32 \
// RUN:   | diff <(mpt-opt %examples/mlp.mlir --mpt-autodiff) -

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME:    attributes {mpt.train_step} {
// CHECK:         mpt.matmul {{.*}} : tensor<128x784xf16>, tensor<784x256xf16> -> tensor<128x256xf16>
// CHECK:         %[[SEED:.*]] = mpt.loss_grad %{{.*}} scale %[[SCALE:[^ ]*]]
// CHECK:         mpt.softmax_cross_entropy_grad %[[SEED]]
// CHECK:         mpt.unscale %{{.*}}, %[[SCALE]]
// CHECK-COUNT-6: mpt.sgd
// CHECK-NOT:     mpt.sgd
// CHECK:         mpt.all_finite
// CHECK:         mpt.update_loss_scale %[[SCALE]]
