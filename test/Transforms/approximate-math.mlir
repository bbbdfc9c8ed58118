// RUN: mpt-opt %s -split-input-file --mpt-approximate-math | FileCheck %s

// erf, exp and tanh become arithmetic (fma and selects, no call left); log
// and sqrt stay.
// CHECK-LABEL: func @f32_ops
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-NOT: math.erf
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: math.fma
// CHECK: %[[LOG:.*]] = math.log %[[X]] : f32
// CHECK: %[[SQRT:.*]] = math.sqrt %[[X]] : f32
// CHECK-NOT: math.erf
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: return
func.func @f32_ops(%x: f32) -> (f32, f32, f32, f32, f32) {
  %0 = math.erf %x : f32
  %1 = math.exp %x : f32
  %2 = math.tanh %x : f32
  %3 = math.log %x : f32
  %4 = math.sqrt %x : f32
  return %0, %1, %2, %3, %4 : f32, f32, f32, f32, f32
}

// -----

// f16 and bf16 widen to f32, evaluate the f32 approximation and round once.
// CHECK-LABEL: func @low_precision
// CHECK-SAME: (%[[H:.*]]: f16, %[[B:.*]]: bf16)
// CHECK: %[[HW:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK-NOT: math.erf
// CHECK: math.fma {{.*}} : f32
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: %[[BW:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NOT: math.exp
// CHECK: math.fma {{.*}} : f32
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK: return
func.func @low_precision(%h: f16, %b: bf16) -> (f16, bf16) {
  %0 = math.erf %h : f16
  %1 = math.exp %b : bf16
  return %0, %1 : f16, bf16
}
