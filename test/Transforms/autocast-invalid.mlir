// Option errors of mpt-autocast, reported at the function it runs on.
//
// Every RUN line runs one group of cases (from its `// CASE:` line to the
// next one) with the options that group is about; the other groups would
// fail differently under those options. Expected diagnostics use relative
// line offsets, so they hold in the extracted text; `grep ''` fails the RUN
// line when its group is missing.
//
// An unknown compute type (f64 is a float type, but not a compute type) is an
// error of the option's parser, before any function.
// RUN: not mpt-opt %s --mpt-autocast=compute-type=f8 2>&1 | FileCheck %s --check-prefix=F8
// RUN: not mpt-opt %s --mpt-autocast=compute-type=f64 2>&1 | FileCheck %s --check-prefix=F64
// RUN: sed -n '/^\/\/ CASE: no-policy$/,/^\/\/ CASE:/p' %s | grep '' | mpt-opt -split-input-file --mpt-autocast=fp32-ops=func.return -verify-diagnostics
// RUN: sed -n '/^\/\/ CASE: misspelled$/,/^\/\/ CASE:/p' %s | grep '' | mpt-opt -split-input-file --mpt-autocast=lower-ops=mpt.matmull -verify-diagnostics
// RUN: sed -n '/^\/\/ CASE: two-classes$/,/^\/\/ CASE:/p' %s | grep '' | mpt-opt -split-input-file '--mpt-autocast=fp32-ops=mpt.gelu lower-ops=mpt.gelu' -verify-diagnostics
// RUN: sed -n '/^\/\/ CASE: same-class-twice$/,/^\/\/ CASE:/p' %s | grep '' | mpt-opt -split-input-file --mpt-autocast=fp32-ops=mpt.gelu,mpt.gelu -verify-diagnostics | FileCheck %s --check-prefix=TWICE

// F8: mpt-opt: for the --compute-type option: Cannot find option named 'f8'!
// F64: mpt-opt: for the --compute-type option: Cannot find option named 'f64'!

// CASE: no-policy

// func.return is a registered op, but it has no precision policy.
// expected-error @+1 {{mpt-autocast: 'func.return' in fp32-ops is not an op with a precision policy}}
func.func @op_without_policy(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CASE: misspelled

// expected-error @+1 {{mpt-autocast: 'mpt.matmull' in lower-ops is not an op with a precision policy}}
func.func @misspelled_op(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CASE: two-classes

// expected-error @+1 {{mpt-autocast: 'mpt.gelu' is listed in more than one class}}
func.func @two_classes(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = mpt.gelu %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// CASE: same-class-twice

// Negative: the same op listed twice in one class is not an error, and the
// option applies: gelu runs in f32 after the f16 matmul.
// TWICE-LABEL: func @same_class_twice
// TWICE: %[[MM:.*]] = mpt.matmul {{.*}} -> tensor<4x8xf16>
// TWICE-NEXT: %[[MM32:.*]] = arith.extf %[[MM]] : tensor<4x8xf16> to tensor<4x8xf32>
// TWICE-NEXT: mpt.gelu %[[MM32]] : tensor<4x8xf32>
func.func @same_class_twice(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = mpt.gelu %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// CASE: end
