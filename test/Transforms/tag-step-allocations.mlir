// RUN: mpt-opt %s --mpt-tag-step-allocations | FileCheck %s

// Allocations whose location says what the buffer holds, even inside other
// fused locations, call that kind's allocation function, declared once with
// a noalias result; the others keep aligned_alloc (workspace).
// CHECK-DAG:   llvm.func @mpt_cpu_step_alloc_gradients(i64, i64) -> (!llvm.ptr {llvm.noalias})
// CHECK-DAG:   llvm.func @mpt_cpu_step_alloc_activations(i64, i64) -> (!llvm.ptr {llvm.noalias})
// CHECK-DAG:   llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr
// CHECK-LABEL: llvm.func @step
// CHECK-NEXT:    llvm.mlir.constant
// CHECK-NEXT:    llvm.call @mpt_cpu_step_alloc_gradients(
// CHECK-NEXT:    llvm.call @mpt_cpu_step_alloc_activations(
// CHECK-NEXT:    llvm.call @mpt_cpu_step_alloc_gradients(
// CHECK-NEXT:    llvm.call @aligned_alloc(
module {
  llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr
  llvm.func @step(%bytes: i64) {
    %alignment = llvm.mlir.constant(64 : i64) : i64
    %0 = llvm.call @aligned_alloc(%alignment, %bytes) : (i64, i64) -> !llvm.ptr loc(fused<"mpt.holds.gradients">["step.mlir":1:1])
    %1 = llvm.call @aligned_alloc(%alignment, %bytes) : (i64, i64) -> !llvm.ptr loc(fused[fused<"mpt.holds.activations">["step.mlir":2:1], "step.mlir":3:1])
    %2 = llvm.call @aligned_alloc(%alignment, %bytes) : (i64, i64) -> !llvm.ptr loc(fused<"mpt.holds.gradients">["step.mlir":4:1])
    %3 = llvm.call @aligned_alloc(%alignment, %bytes) : (i64, i64) -> !llvm.ptr loc("step.mlir":5:1)
    llvm.return
  }
}
