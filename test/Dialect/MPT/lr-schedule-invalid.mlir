// RUN: mpt-opt %s --split-input-file --verify-diagnostics

func.func @negative_base_lr(%t: tensor<i64>) {
  // expected-error @+1 {{'mpt.lr_schedule' op expected base_lr to be non-negative and finite, got -1.000000e-01}}
  %lr, %t2 = mpt.lr_schedule %t {base_lr = -0.1 : f64, schedule = {kind = "constant"}} : tensor<i64>
  return
}

// -----

func.func @unknown_field(%t: tensor<i64>) {
  // expected-error @+1 {{'mpt.lr_schedule' op lr_schedule of kind 'table' has no field 'gamma'}}
  %lr, %t2 = mpt.lr_schedule %t {base_lr = 0.1 : f64, schedule = {kind = "table", values = [0.1], gamma = 0.5}} : tensor<i64>
  return
}

// -----

func.func @warmup_without_total(%t: tensor<i64>) {
  // expected-error @+1 {{'mpt.lr_schedule' op lr_schedule of kind 'warmup_cosine': field 'total_steps' is required}}
  %lr, %t2 = mpt.lr_schedule %t {base_lr = 0.1 : f64, schedule = {kind = "warmup_cosine", warmup_steps = 2}} : tensor<i64>
  return
}
