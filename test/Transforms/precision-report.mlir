// The FP32-vs-mixed report on the MLP example: bytes per category are computed
// from the graph (784-256-128-10: 235,146 parameters = 940,584 bytes in f32).
// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-mixed-precision="report=%t.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json
// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-precision-report | FileCheck %s --check-prefix=STDOUT
// RUN: not mpt-opt %examples/mlp_manual.mlir --mpt-precision-report="output=%t.missing/dir/r.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// RUN: echo "not json" > %t.bad.json
// RUN: not mpt-opt %examples/mlp_manual.mlir --mpt-precision-report="output=%t.bad.json stage=mixed" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADFILE

// CHECK:      "fp32": {
// CHECK-NEXT:   "train_step": {
// CHECK-NEXT:     "bytes": {
// CHECK-NEXT:       "activations_peak": 1071660,
// CHECK-NEXT:       "gradients": 940584,
// CHECK-NEXT:       "loss_scale_state": 0,
// CHECK-NEXT:       "norm_statistics": 0,
// CHECK-NEXT:       "optimizer_state": 940584,
// CHECK-NEXT:       "total": 3893412,
// CHECK-NEXT:       "weights_f32": 940584,
// CHECK-NEXT:       "weights_low_precision": 0
// CHECK-NEXT:     },
// CHECK-NEXT:     "casts": {
// CHECK-NEXT:       "extf": 0,
// CHECK-NEXT:       "total": 0,
// CHECK-NEXT:       "truncf": 0
// CHECK-NEXT:     },
// CHECK-NEXT:     "ops_by_class": {
// CHECK-NEXT:       "follow": 7,
// CHECK-NEXT:       "fp32": 12,
// CHECK-NEXT:       "lower": 8
// CHECK-NEXT:     },
// CHECK-NEXT:     "ops_by_type": {
// CHECK-NEXT:       "f32": 27
// CHECK-NEXT:     }
// CHECK:      "mixed": {
// CHECK-NEXT:   "train_step": {
// CHECK-NEXT:     "bytes": {
// f16 activations, f16 weight gradients (f32 bias gradients), f16 working copies.
// CHECK-NEXT:       "activations_peak": 798724,
// CHECK-NEXT:       "gradients": 471080,
// CHECK-NEXT:       "loss_scale_state": 12,
// CHECK-NEXT:       "norm_statistics": 0,
// CHECK-NEXT:       "optimizer_state": 940584,
// CHECK-NEXT:       "total": 3621276,
// CHECK-NEXT:       "weights_f32": 940584,
// CHECK-NEXT:       "weights_low_precision": 470292
// CHECK-NEXT:     },
// CHECK-NEXT:     "casts": {
// CHECK-NEXT:       "extf": 3,
// CHECK-NEXT:       "total": 11,
// CHECK-NEXT:       "truncf": 8
// CHECK-NEXT:     },
// CHECK-NEXT:     "ops_by_class": {
// CHECK-NEXT:       "follow": 7,
// CHECK-NEXT:       "fp32": 21,
// CHECK-NEXT:       "lower": 8,
// CHECK-NEXT:       "promote": 12
// CHECK-NEXT:     },
// CHECK-NEXT:     "ops_by_type": {
// CHECK-NEXT:       "f16": 15,
// CHECK-NEXT:       "f32": 25
// CHECK-NEXT:     }

// STDOUT: "mixed": {
// STDOUT: "weights_f32": 940584,

// UNWRITABLE: error: mpt-precision-report: cannot write '{{.*}}missing/dir/r.json'
// BADFILE: error: mpt-precision-report: '{{.*}}bad.json' exists but is not a JSON object report
