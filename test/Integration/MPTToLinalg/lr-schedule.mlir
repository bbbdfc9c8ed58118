// Runs mpt.lr_schedule lowered to linalg on the CPU at step counts on both
// sides of each schedule's boundaries, and the optimizers reading the rate it
// gives. The expected rates are PyTorch's closed forms (StepLR, LinearLR then
// CosineAnnealingLR) in Python floats, rounded to f32.
//
// RUN: mpt-opt %s --mpt-convert-to-linalg --convert-elementwise-to-linalg \
// RUN:   --linalg-fuse-elementwise-ops --canonicalize --cse \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   --buffer-deallocation-pipeline --convert-bufferization-to-memref \
// RUN:   --convert-linalg-to-loops \
// RUN:   --convert-math-to-libm \
// RUN:   --expand-strided-metadata --lower-affine --convert-scf-to-cf \
// RUN:   --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @step(%t: tensor<i64>) -> (tensor<f32>, tensor<i64>) {
  %lr, %t2 = mpt.lr_schedule %t {base_lr = 1.0e-01 : f64, schedule = {kind = "step", step_size = 3, gamma = 0.5}} : tensor<i64>
  return %lr, %t2 : tensor<f32>, tensor<i64>
}

func.func @warmup_cosine(%t: tensor<i64>) -> tensor<f32> {
  %lr, %t2 = mpt.lr_schedule %t {base_lr = 1.0e-03 : f64, schedule = {kind = "warmup_cosine", warmup_steps = 2, total_steps = 10, start_factor = 0.1, min_lr = 1.0e-05}} : tensor<i64>
  return %lr : tensor<f32>
}

func.func @table(%t: tensor<i64>) -> tensor<f32> {
  %lr, %t2 = mpt.lr_schedule %t {base_lr = 1.0 : f64, schedule = {kind = "table", values = [0.3, 0.2, 0.1]}} : tensor<i64>
  return %lr : tensor<f32>
}

func.func @sgd(%p: tensor<2xf32>, %g: tensor<2xf32>, %t: tensor<i64>) -> tensor<2xf32> {
  %lr, %t2 = mpt.lr_schedule %t {base_lr = 1.0e-01 : f64, schedule = {kind = "step", step_size = 3, gamma = 0.5}} : tensor<i64>
  %p2 = mpt.sgd %p, %g scheduled_lr(%lr) {lr = 1.0e-01 : f32} : tensor<2xf32>
  return %p2 : tensor<2xf32>
}

// The same update with a constant and with a scheduled rate of 0.01 (the
// scheduled op's attribute says 1.0, which it must not read).
func.func @adamw_constant(%p: tensor<3xf32>, %g: tensor<3xf32>, %m: tensor<3xf32>, %t: tensor<i64>) -> tensor<3xf32> {
  %p2, %m2, %v2, %t2 = mpt.adamw %p, %g, %m, %m, %t {lr = 1.0e-02 : f32, weight_decay = 0.5 : f32} : tensor<3xf32>, tensor<i64>
  return %p2 : tensor<3xf32>
}

func.func @adamw_scheduled(%p: tensor<3xf32>, %g: tensor<3xf32>, %m: tensor<3xf32>, %t: tensor<i64>) -> tensor<3xf32> {
  %lr, %n = mpt.lr_schedule %t {base_lr = 1.0e-02 : f64, schedule = {kind = "constant"}} : tensor<i64>
  %p2, %m2, %v2, %t2 = mpt.adamw %p, %g, %m, %m, %t scheduled_lr(%lr) {lr = 1.0 : f32, weight_decay = 0.5 : f32} : tensor<3xf32>, tensor<i64>
  return %p2 : tensor<3xf32>
}

// RMSprop (with momentum), Adagrad (with lr_decay, from step 2) and Adadelta
// with a constant and with a scheduled rate of 0.5.
func.func @others_constant(%p: tensor<3xf32>, %g: tensor<3xf32>, %s: tensor<3xf32>, %t: tensor<i64>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %p1, %v1, %b1 = mpt.rmsprop %p, %g, %s momentum_buffer(%s) {lr = 0.5 : f32, momentum = 0.9 : f32} : tensor<3xf32>
  %p2, %s2, %t2 = mpt.adagrad %p, %g, %s, %t {lr = 0.5 : f32, lr_decay = 0.25 : f32} : tensor<3xf32>, tensor<i64>
  %p3, %v3, %u3 = mpt.adadelta %p, %g, %s, %s {lr = 0.5 : f32} : tensor<3xf32>
  return %p1, %p2, %p3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

func.func @others_scheduled(%p: tensor<3xf32>, %g: tensor<3xf32>, %s: tensor<3xf32>, %t: tensor<i64>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %lr, %n = mpt.lr_schedule %t {base_lr = 1.0 : f64, schedule = {kind = "table", values = [0.5]}} : tensor<i64>
  %p1, %v1, %b1 = mpt.rmsprop %p, %g, %s momentum_buffer(%s) scheduled_lr(%lr) {lr = 1.0 : f32, momentum = 0.9 : f32} : tensor<3xf32>
  %p2, %s2, %t2 = mpt.adagrad %p, %g, %s, %t scheduled_lr(%lr) {lr = 1.0 : f32, lr_decay = 0.25 : f32} : tensor<3xf32>, tensor<i64>
  %p3, %v3, %u3 = mpt.adadelta %p, %g, %s, %s scheduled_lr(%lr) {lr = 1.0 : f32} : tensor<3xf32>
  return %p1, %p2, %p3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

func.func @print(%x: tensor<f32>) {
  %u = tensor.cast %x : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %c0 = arith.constant dense<0> : tensor<i64>
  %c1 = arith.constant dense<1> : tensor<i64>
  %c2 = arith.constant dense<2> : tensor<i64>
  %c3 = arith.constant dense<3> : tensor<i64>
  %c5 = arith.constant dense<5> : tensor<i64>
  %c6 = arith.constant dense<6> : tensor<i64>
  %c7 = arith.constant dense<7> : tensor<i64>
  %c10 = arith.constant dense<10> : tensor<i64>
  %c12 = arith.constant dense<12> : tensor<i64>

  // StepLR(step_size=3, gamma=0.5) from 0.1: steps 0, 2, 3, 7.
  // CHECK: [0.1]
  // CHECK: [0.1]
  // CHECK: [0.05]
  // CHECK: [0.025]
  %s0:2 = call @step(%c0) : (tensor<i64>) -> (tensor<f32>, tensor<i64>)
  call @print(%s0#0) : (tensor<f32>) -> ()
  %s2:2 = call @step(%c2) : (tensor<i64>) -> (tensor<f32>, tensor<i64>)
  call @print(%s2#0) : (tensor<f32>) -> ()
  %s3:2 = call @step(%c3) : (tensor<i64>) -> (tensor<f32>, tensor<i64>)
  call @print(%s3#0) : (tensor<f32>) -> ()
  %s7:2 = call @step(%c7) : (tensor<i64>) -> (tensor<f32>, tensor<i64>)
  call @print(%s7#0) : (tensor<f32>) -> ()
  // The count after step 7.
  // CHECK: [8]
  %n = tensor.cast %s7#1 : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%n) : (tensor<*xi64>) -> ()

  // Warmup from 0.1 * 1e-3 over 2 steps, then a cosine to 1e-5 at step 10,
  // held after it: steps 0, 1, 2, 6 (half way: (1e-3 + 1e-5) / 2), 10, 12.
  // CHECK: [0.0001]
  // CHECK: [0.00055]
  // CHECK: [0.001]
  // CHECK: [0.000505]
  // CHECK: [1e-05]
  // CHECK: [1e-05]
  %w0 = call @warmup_cosine(%c0) : (tensor<i64>) -> tensor<f32>
  call @print(%w0) : (tensor<f32>) -> ()
  %w1 = call @warmup_cosine(%c1) : (tensor<i64>) -> tensor<f32>
  call @print(%w1) : (tensor<f32>) -> ()
  %w2 = call @warmup_cosine(%c2) : (tensor<i64>) -> tensor<f32>
  call @print(%w2) : (tensor<f32>) -> ()
  %w6 = call @warmup_cosine(%c6) : (tensor<i64>) -> tensor<f32>
  call @print(%w6) : (tensor<f32>) -> ()
  %w10 = call @warmup_cosine(%c10) : (tensor<i64>) -> tensor<f32>
  call @print(%w10) : (tensor<f32>) -> ()
  %w12 = call @warmup_cosine(%c12) : (tensor<i64>) -> tensor<f32>
  call @print(%w12) : (tensor<f32>) -> ()

  // The table's entries, then its last one held: steps 0, 1, 5.
  // CHECK: [0.3]
  // CHECK: [0.2]
  // CHECK: [0.1]
  %t0 = call @table(%c0) : (tensor<i64>) -> tensor<f32>
  call @print(%t0) : (tensor<f32>) -> ()
  %t1 = call @table(%c1) : (tensor<i64>) -> tensor<f32>
  call @print(%t1) : (tensor<f32>) -> ()
  %t5 = call @table(%c5) : (tensor<i64>) -> tensor<f32>
  call @print(%t5) : (tensor<f32>) -> ()

  // SGD at step 3 of the step schedule: p - 0.05 * g.
  // CHECK: [0.95, 1.9]
  %p = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %g = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %p2 = call @sgd(%p, %g, %c3) : (tensor<2xf32>, tensor<2xf32>, tensor<i64>) -> tensor<2xf32>
  %p2u = tensor.cast %p2 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%p2u) : (tensor<*xf32>) -> ()

  // AdamW's decoupled decay reads the scheduled rate as it reads a constant.
  // CHECK: {{^}}[[ADAMW:\[0\.9.*]]
  // CHECK: {{^}}[[ADAMW]]{{$}}
  %q = arith.constant dense<[1.0, -0.5, 2.0]> : tensor<3xf32>
  %h = arith.constant dense<[0.1, -0.2, 0.0]> : tensor<3xf32>
  %z = arith.constant dense<[0.0, 0.0, 0.0]> : tensor<3xf32>
  %a = call @adamw_constant(%q, %h, %z, %c0) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> tensor<3xf32>
  %au = tensor.cast %a : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%au) : (tensor<*xf32>) -> ()
  %b = call @adamw_scheduled(%q, %h, %z, %c0) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> tensor<3xf32>
  %bu = tensor.cast %b : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%bu) : (tensor<*xf32>) -> ()

  // RMSprop, Adagrad and Adadelta: the same parameters either way.
  // CHECK: {{^}}[[RMSPROP:\[0\..*]]
  // CHECK: {{^}}[[ADAGRAD:\[0\..*]]
  // CHECK: {{^}}[[ADADELTA:\[0\..*]]
  // CHECK: {{^}}[[RMSPROP]]{{$}}
  // CHECK: {{^}}[[ADAGRAD]]{{$}}
  // CHECK: {{^}}[[ADADELTA]]{{$}}
  %s = arith.constant dense<[0.25, 0.5, 1.0]> : tensor<3xf32>
  %o:3 = call @others_constant(%q, %h, %s, %c2) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %r:3 = call @others_scheduled(%q, %h, %s, %c2) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %o0 = tensor.cast %o#0 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%o0) : (tensor<*xf32>) -> ()
  %o1 = tensor.cast %o#1 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%o1) : (tensor<*xf32>) -> ()
  %o2 = tensor.cast %o#2 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%o2) : (tensor<*xf32>) -> ()
  %r0 = tensor.cast %r#0 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%r0) : (tensor<*xf32>) -> ()
  %r1 = tensor.cast %r#1 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%r1) : (tensor<*xf32>) -> ()
  %r2 = tensor.cast %r#2 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%r2) : (tensor<*xf32>) -> ()
  return
}
