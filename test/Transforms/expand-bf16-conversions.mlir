// RUN: mpt-opt %s --mpt-expand-bf16-conversions --split-input-file | FileCheck %s

// Rounding to bf16: add 0x7fff plus the lowest kept bit, keep the high half;
// NaN becomes 0x7fc0.
// CHECK-LABEL: func.func @truncate
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-DAG: %[[BIAS:.*]] = arith.constant 32767 : i32
// CHECK-DAG: %[[QNAN:.*]] = arith.constant 32704 : i16
// CHECK-DAG: %[[SIXTEEN:.*]] = arith.constant 16 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[ISNAN:.*]] = arith.cmpf une, %[[X]], %[[X]] : f32
// CHECK-DAG: %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: %[[HIGH:.*]] = arith.shrui %[[BITS]], %[[SIXTEEN]] : i32
// CHECK: %[[LSB:.*]] = arith.andi %[[HIGH]], %[[ONE]] : i32
// CHECK: %[[ROUND:.*]] = arith.addi %[[LSB]], %[[BIAS]] : i32
// CHECK: %[[SUM:.*]] = arith.addi %[[BITS]], %[[ROUND]] : i32
// CHECK: %[[KEPT:.*]] = arith.shrui %[[SUM]], %[[SIXTEEN]] : i32
// CHECK: %[[NARROW:.*]] = arith.trunci %[[KEPT]] : i32 to i16
// CHECK: %[[RESULT:.*]] = arith.select %[[ISNAN]], %[[QNAN]], %[[NARROW]] : i16
// CHECK: %[[BF16:.*]] = arith.bitcast %[[RESULT]] : i16 to bf16
// CHECK: return %[[BF16]]
func.func @truncate(%x: f32) -> bf16 {
  %0 = arith.truncf %x : f32 to bf16
  return %0 : bf16
}

// -----

// Widening is a shift; vectors too.
// CHECK-LABEL: func.func @extend
// CHECK-SAME: (%[[X:.*]]: vector<8xbf16>)
// CHECK: %[[BITS:.*]] = arith.bitcast %[[X]] : vector<8xbf16> to vector<8xi16>
// CHECK: %[[WIDE:.*]] = arith.extui %[[BITS]] : vector<8xi16> to vector<8xi32>
// CHECK: %[[SHIFTED:.*]] = arith.shli %[[WIDE]], %{{.*}} : vector<8xi32>
// CHECK: %[[F32:.*]] = arith.bitcast %[[SHIFTED]] : vector<8xi32> to vector<8xf32>
// CHECK: return %[[F32]]
func.func @extend(%x: vector<8xbf16>) -> vector<8xf32> {
  %0 = arith.extf %x : vector<8xbf16> to vector<8xf32>
  return %0 : vector<8xf32>
}

// -----

// f16 casts and other arith ops stay: maximumf keeps the form in which LLVM
// recognizes a max reduction (arith-expand would turn it into selects).
// CHECK-LABEL: func.func @others
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.maximumf %{{.*}} : f32
// CHECK-NOT: arith.select
func.func @others(%x: f32, %y: f32) -> f32 {
  %0 = arith.truncf %x : f32 to f16
  %1 = arith.extf %0 : f16 to f32
  %2 = arith.maximumf %1, %y : f32
  return %2 : f32
}
