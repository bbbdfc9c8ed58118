// RUN: mpt-opt %s --mpt-fold-rounded-compares --split-input-file | FileCheck %s
// Exactness over all orderings and tie cases: fold-rounded-compares-exact.mlir.

// A ReLU on a rounded value: the compare reads x against half the smallest
// bf16 subnormal (2^-134, which rounds to zero), the select moves before the
// rounding, and one truncf is left.
// CHECK-LABEL: func.func @relu
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[HALF_SUBNORMAL:.*]] = arith.constant 4.591770e-41 : f32
// CHECK: %[[POSITIVE:.*]] = arith.cmpf ugt, %[[X]], %[[HALF_SUBNORMAL]] : f32
// CHECK: %[[SELECTED:.*]] = arith.select %[[POSITIVE]], %[[X]], %[[ZERO]] : f32
// CHECK: %[[ROUNDED:.*]] = arith.truncf %[[SELECTED]] : f32 to bf16
// CHECK: return %[[ROUNDED]]
func.func @relu(%x: f32) -> bf16 {
  %zero = arith.constant 0.0 : bf16
  %rounded = arith.truncf %x : f32 to bf16
  %positive = arith.cmpf ugt, %rounded, %zero : bf16
  %relu = arith.select %positive, %rounded, %zero : bf16
  return %relu : bf16
}

// -----

// f16 1.0 = 0x3C00 is even: the ties 1 + 2^-11 and 1 - 2^-12 round to it, so
// > excludes the upper one and >= includes the lower one. 0x3C01 is odd: the
// tie below it rounds down, so < includes it. With the constant first, the
// predicate swaps. The fastmath flags stay.
// CHECK-LABEL: func.func @orderings
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-DAG: %[[TIE_ABOVE_ONE:.*]] = arith.constant 1.00048828 : f32
// CHECK-DAG: %[[TIE_BELOW_ONE:.*]] = arith.constant 0.999755859 : f32
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[TIE_ABOVE_ONE]] fastmath<nnan> : f32
// CHECK: %[[GE:.*]] = arith.cmpf uge, %[[X]], %[[TIE_BELOW_ONE]] : f32
// CHECK: %[[LT:.*]] = arith.cmpf ole, %[[X]], %[[TIE_ABOVE_ONE]] : f32
// CHECK: %[[SWAPPED:.*]] = arith.cmpf ogt, %[[X]], %[[TIE_ABOVE_ONE]] : f32
// CHECK: return %[[GT]], %[[GE]], %[[LT]], %[[SWAPPED]]
func.func @orderings(%x: f32) -> (i1, i1, i1, i1) {
  %one = arith.constant 1.0 : f16
  %odd = arith.constant 0x3C01 : f16
  %rounded = arith.truncf %x : f32 to f16
  %gt = arith.cmpf ogt, %rounded, %one fastmath<nnan> : f16
  %ge = arith.cmpf uge, %rounded, %one : f16
  %lt = arith.cmpf olt, %rounded, %odd : f16
  %swapped = arith.cmpf olt, %one, %rounded : f16
  return %gt, %ge, %lt, %swapped : i1, i1, i1, i1
}

// -----

// Vectors compare against a splat.
// CHECK-LABEL: func.func @vector
// CHECK-SAME: (%[[X:.*]]: vector<8xf32>)
// CHECK: %[[BOUNDARY:.*]] = arith.constant dense<4.591770e-41> : vector<8xf32>
// CHECK: arith.cmpf ogt, %[[X]], %[[BOUNDARY]] : vector<8xf32>
func.func @vector(%x: vector<8xf32>) -> vector<8xi1> {
  %zero = arith.constant dense<0.0> : vector<8xbf16>
  %rounded = arith.truncf %x : vector<8xf32> to vector<8xbf16>
  %positive = arith.cmpf ogt, %rounded, %zero : vector<8xbf16>
  return %positive : vector<8xi1>
}

// -----

// Left alone: equality (two boundaries), a constant whose neighbour on the
// side looked at is infinite (the largest bf16, 0x7F7F; infinity), a value
// that is not a constant, and a truncf with another rounding
// mode. Only the explicit to_nearest_even one folds.
// CHECK-LABEL: func.func @unfolded
// CHECK-COUNT-2: arith.truncf
// CHECK-NOT: arith.truncf
// CHECK: arith.cmpf oeq, %{{.*}}, %{{.*}} : bf16
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : bf16
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : bf16
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : bf16
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : bf16
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
func.func @unfolded(%x: f32, %y: bf16) -> (i1, i1, i1, i1, i1, i1) {
  %zero = arith.constant 0.0 : bf16
  %largest = arith.constant 0x7F7F : bf16
  %inf = arith.constant 0x7F80 : bf16
  %rounded = arith.truncf %x : f32 to bf16
  %downward = arith.truncf %x downward : f32 to bf16
  %nearest = arith.truncf %x to_nearest_even : f32 to bf16
  %eq = arith.cmpf oeq, %rounded, %zero : bf16
  %above_largest = arith.cmpf ogt, %rounded, %largest : bf16
  %below_inf = arith.cmpf olt, %rounded, %inf : bf16
  %above_y = arith.cmpf ogt, %rounded, %y : bf16
  %rounded_down = arith.cmpf ogt, %downward, %zero : bf16
  %rounded_nearest = arith.cmpf ogt, %nearest, %zero : bf16
  return %eq, %above_largest, %below_inf, %above_y, %rounded_down, %rounded_nearest : i1, i1, i1, i1, i1, i1
}

// -----

// The select stays narrow where the rounded value has another use, which
// would then round twice.
// CHECK-LABEL: func.func @shared_rounding
// CHECK: %[[ROUNDED:.*]] = arith.truncf
// CHECK: %[[SELECTED:.*]] = arith.select %{{.*}}, %[[ROUNDED]], %{{.*}} : bf16
// CHECK: return %[[SELECTED]], %[[ROUNDED]]
func.func @shared_rounding(%x: f32, %condition: i1) -> (bf16, bf16) {
  %zero = arith.constant 0.0 : bf16
  %rounded = arith.truncf %x : f32 to bf16
  %selected = arith.select %condition, %rounded, %zero : bf16
  return %selected, %rounded : bf16, bf16
}

// -----

// The constant first: the select still moves, its operands in their order.
// CHECK-LABEL: func.func @constant_first
// CHECK-SAME: (%[[X:.*]]: f32, %[[CONDITION:.*]]: i1)
// CHECK: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[SELECTED:.*]] = arith.select %[[CONDITION]], %[[TWO]], %[[X]] : f32
// CHECK: arith.truncf %[[SELECTED]] : f32 to f16
func.func @constant_first(%x: f32, %condition: i1) -> f16 {
  %two = arith.constant 2.0 : f16
  %rounded = arith.truncf %x : f32 to f16
  %selected = arith.select %condition, %two, %rounded : f16
  return %selected : f16
}
