// The data-parallel MLP lowered for the CPU and for CUDA GPUs. Each all-reduce
// bucket is a call of the runtime on one buffer, reduced in place, in the
// order of the step: the f32 bucket and the f16 one (sums, kind 0), then the
// finite flag (max, kind 1); what reads the gradients after a bucket reads
// that buffer. On CUDA the buffers are device memory; the call is host code.
// RUN: mpt-opt %examples/mlp.mlir --mpt-mixed-precision=data-parallel-world-size=2 > %t.mixed.mlir
// RUN: mpt-opt %t.mixed.mlir --mpt-lower-to-cpu --mlir-print-ir-after=one-shot-bufferize 2>&1 >/dev/null | FileCheck %s
// RUN: mpt-opt %t.mixed.mlir --mpt-lower-to-cpu | FileCheck %s --check-prefix=LLVM
// RUN: mpt-opt %t.mixed.mlir --mpt-lower-to-cuda="stop-at=gpu" | FileCheck %s --check-prefix=CUDA
// RUN: mpt-opt %t.mixed.mlir --mpt-lower-to-cuda="stop-at=cpu-loops" | FileCheck %s --check-prefix=LLVM

// CHECK-DAG: func.func private @mpt_step_all_reduce_f16(memref<?xf16, strided<[?], offset: ?>>, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @mpt_step_all_reduce_f32(memref<?xf32, strided<[?], offset: ?>>, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @train_step
// CHECK: %[[B32:.*]] = memref.alloc() {{.*}} : memref<394xf32>
// CHECK: %[[C32:.*]] = memref.cast %[[B32]] : memref<394xf32> to memref<?xf32, strided<[?], offset: ?>>
// CHECK: call @mpt_step_all_reduce_f32(%[[C32]], %[[SUM:.*]]) :
// CHECK: %[[B16:.*]] = memref.alloc() {{.*}} : memref<234752xf16>
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<200704xf16> to memref<200704xf16, strided<[1], offset: 34048>>
// CHECK: %[[C16:.*]] = memref.cast %[[B16]] : memref<234752xf16> to memref<?xf16, strided<[?], offset: ?>>
// CHECK: call @mpt_step_all_reduce_f16(%[[C16]], %[[SUM2:.*]]) :
// CHECK: memref.subview %[[B16]][34048] [200704] [1]
// CHECK: call @mpt_step_all_reduce_f32(%{{.*}}, %[[MAX:.*]]) :
// CHECK-NOT: call @mpt_step_all_reduce

// The declarations' wrappers pass the descriptor to the runtime's C
// interface, which the runtime binds.
// LLVM-DAG: llvm.func @_mlir_ciface_mpt_step_all_reduce_f16(!llvm.ptr, i64)
// LLVM-DAG: llvm.func @_mlir_ciface_mpt_step_all_reduce_f32(!llvm.ptr, i64)
// LLVM-LABEL: llvm.func @train_step(
// LLVM: llvm.call @mpt_step_all_reduce_f32(
// LLVM: llvm.call @mpt_step_all_reduce_f16(
// LLVM: llvm.call @mpt_step_all_reduce_f32(
// LLVM-NOT: llvm.call @mpt_step_all_reduce

// CUDA-LABEL: func.func @train_step
// CUDA: call @mpt_step_all_reduce_f32
// CUDA: call @mpt_step_all_reduce_f16
// CUDA: call @mpt_step_all_reduce_f32
