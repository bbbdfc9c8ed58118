// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-mixed-precision --mpt-mark-buffer-contents --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// What each op of the f16 step computes, in its location: the rounded batch
// and the forward values are activations, a parameter's rounding its working
// copy, the products that give weight gradients and the sums that give bias
// gradients are gradients, with their unscaling; the backward's other values
// are activations, and the optimizer keeps its location.
// CHECK:      arith.truncf %arg12 {{.*}} loc(fused<"mpt.holds.activations">[
// CHECK-NEXT: arith.truncf %arg0 {{.*}} loc(fused<"mpt.holds.working_copies">[
// CHECK:      mpt.relu {{.*}} loc(fused<"mpt.holds.activations">[
// CHECK:      mpt.matmul %12, %19 {transpose_a} {{.*}} loc(fused<"mpt.holds.gradients">[
// CHECK-NEXT: mpt.unscale %20, {{.*}} loc(fused<"mpt.holds.gradients">[
// CHECK-NEXT: mpt.reduce_sum %18 [0] {{.*}} loc(fused<"mpt.holds.gradients">[
// CHECK:      mpt.relu_grad {{.*}} loc(fused<"mpt.holds.activations">[
// CHECK:      mpt.sgd {{.*}} loc("{{.*}}mlp_manual.mlir":{{[0-9]+}}:{{[0-9]+}})
