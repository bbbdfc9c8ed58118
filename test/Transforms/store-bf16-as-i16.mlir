// RUN: mpt-opt %s --pass-pipeline='builtin.module(llvm.func(mpt-store-bf16-as-i16))' --split-input-file | FileCheck %s

// A stored constant becomes its bits (1.0 is 0x3f80), scalar or vector.
// CHECK-LABEL: llvm.func @constants
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(16256 : i16) : i16
// CHECK-DAG: %[[TWOS:.*]] = llvm.mlir.constant(dense<16384> : vector<8xi16>) : vector<8xi16>
// CHECK: llvm.store %[[ONE]], %{{.*}} : i16, !llvm.ptr
// CHECK: llvm.store %[[TWOS]], %{{.*}} : vector<8xi16>, !llvm.ptr
llvm.func @constants(%p: !llvm.ptr) {
  %one = llvm.mlir.constant(1.0 : bf16) : bf16
  %twos = llvm.mlir.constant(dense<2.0> : vector<8xbf16>) : vector<8xbf16>
  llvm.store %one, %p : bf16, !llvm.ptr
  llvm.store %twos, %p : vector<8xbf16>, !llvm.ptr
  llvm.return
}

// -----

// A copy loads and stores i16, keeping the load's attributes; a select
// between a loaded value and zero selects bits; a bitcast of a load to its
// bits is a load of i16.
// CHECK-LABEL: llvm.func @copy_select_cast
// CHECK-SAME: (%[[C:.*]]: i1, %[[P:.*]]: !llvm.ptr, %[[Q:.*]]: !llvm.ptr)
// CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i16) : i16
// CHECK: %[[V:.*]] = llvm.load %[[P]] {alignment = 2 : i64, nontemporal} : !llvm.ptr -> i16
// CHECK: llvm.store %[[V]], %[[Q]] : i16, !llvm.ptr
// CHECK: %[[S:.*]] = llvm.select %[[C]], %[[V]], %[[ZERO]] : i1, i16
// CHECK: llvm.store %[[S]], %[[Q]] : i16, !llvm.ptr
// CHECK: llvm.return %[[V]] : i16
// CHECK-NOT: bf16
llvm.func @copy_select_cast(%c: i1, %p: !llvm.ptr, %q: !llvm.ptr) -> i16 {
  %zero = llvm.mlir.constant(0.0 : bf16) : bf16
  %v = llvm.load %p {alignment = 2 : i64, nontemporal} : !llvm.ptr -> bf16
  llvm.store %v, %q : bf16, !llvm.ptr
  %s = llvm.select %c, %v, %zero : i1, bf16
  llvm.store %s, %q : bf16, !llvm.ptr
  %bits = llvm.bitcast %v : bf16 to i16
  llvm.return %bits : i16
}

// -----

// A value from elsewhere (an argument) is left: a bitcast before the store
// would be folded back by LLVM.
// CHECK-LABEL: llvm.func @argument
// CHECK: llvm.store %{{.*}}, %{{.*}} : bf16, !llvm.ptr
// f32 is not touched.
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
llvm.func @argument(%x: bf16, %y: f32, %p: !llvm.ptr) {
  llvm.store %x, %p : bf16, !llvm.ptr
  llvm.store %y, %p : f32, !llvm.ptr
  llvm.return
}
