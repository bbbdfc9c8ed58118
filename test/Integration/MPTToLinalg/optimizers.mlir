// Runs the optimizers (SGD with momentum, dampening, weight decay and
// nesterov; Adam; AdamW) and clip_grad_norm lowered to linalg on the CPU.
// They compute in f32. The expected values are an f32 transcription of the op
// descriptions (Adam and AdamW checked in float64 against PyTorch's update).
//
// RUN: mpt-opt %s --mpt-convert-to-linalg --convert-elementwise-to-linalg \
// RUN:   --linalg-fuse-elementwise-ops --canonicalize --cse \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   --buffer-deallocation-pipeline --convert-bufferization-to-memref \
// RUN:   --convert-linalg-to-loops \
// RUN:   --math-extend-to-supported-types="target-type=f32" \
// RUN:   --convert-math-to-libm \
// RUN:   --expand-strided-metadata --lower-affine --convert-scf-to-cf \
// RUN:   --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | sed -e 's/ {fastmath = #arith.fastmath<contract>}//g' \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s
//
// LLVM rounds f16/bf16 arithmetic after every op by itself. Not used:
// arith-emulate-unsupported-floats, whose extf/truncf pairs carry `contract`,
// which lets arith.extf(arith.truncf(x)) fold to x and drops the rounding
// between ops. The sed drops that `fastmath` attribute where
// math-extend-to-supported-types put it (around f16/bf16 math ops): the LLVM
// lowering carries it over verbatim and mlir-runner, which does not load the
// arith dialect, cannot parse it.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @sgd_momentum_nesterov_wd(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %p2, %m2 = mpt.sgd %p, %g, %m {lr = 1.000000e-01 : f32, momentum = 9.000000e-01 : f32, weight_decay = 0.00999999977 : f32, nesterov} : tensor<4xf32>
  return %p2, %m2 : tensor<4xf32>, tensor<4xf32>
}

func.func @sgd_momentum_dampening(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %p2, %m2 = mpt.sgd %p, %g, %m {lr = 5.000000e-01 : f32, momentum = 5.000000e-01 : f32, dampening = 2.500000e-01 : f32} : tensor<4xf32>
  return %p2, %m2 : tensor<4xf32>, tensor<4xf32>
}

func.func @sgd_plain_f16(%p: tensor<4xf16>, %g: tensor<4xf16>) -> tensor<4xf16> {
  %p2 = mpt.sgd %p, %g {lr = 1.000000e-01 : f32} : tensor<4xf16>
  return %p2 : tensor<4xf16>
}

func.func @adam(%p: tensor<3xf32>, %g: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %t: tensor<i64>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) {
  %p2, %m2, %v2, %t2 = mpt.adam %p, %g, %m, %v, %t {lr = 1.000000e-02 : f32, weight_decay = 1.000000e-01 : f32} : tensor<3xf32>, tensor<i64>
  return %p2, %m2, %v2, %t2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>
}

func.func @adamw(%p: tensor<3xf32>, %g: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %t: tensor<i64>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) {
  %p2, %m2, %v2, %t2 = mpt.adamw %p, %g, %m, %v, %t {lr = 1.000000e-02 : f32} : tensor<3xf32>, tensor<i64>
  return %p2, %m2, %v2, %t2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>
}

func.func @clip(%a: tensor<2x2xf32>, %b: tensor<3xf16>) -> (tensor<2x2xf32>, tensor<3xf16>, tensor<f32>) {
  %ca, %cb, %norm = mpt.clip_grad_norm %a, %b {max_norm = 1.000000e+00 : f32} : tensor<2x2xf32>, tensor<3xf16>
  return %ca, %cb, %norm : tensor<2x2xf32>, tensor<3xf16>, tensor<f32>
}
func.func @clip_small(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
  %ca, %norm = mpt.clip_grad_norm %a {max_norm = 1.000000e+01 : f32} : tensor<2xf32>
  return %ca, %norm : tensor<2xf32>, tensor<f32>
}

func.func @main() {
  %v1 = arith.constant dense<[1.0, -2.0, 0.5, 3.0]> : tensor<4xf32>
  %v2 = arith.constant dense<[0.5, 0.25, -1.0, 2.0]> : tensor<4xf32>
  %v3 = arith.constant dense<[0.1, 0.0, -0.2, 1.0]> : tensor<4xf32>
  // SGD, two steps each: the second step takes the first one's parameter
  // and momentum buffer. buf' = momentum * buf + (1 - dampening) * g.
  %v4:2 = call @sgd_momentum_nesterov_wd(%v1, %v2, %v3) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %v5:2 = call @sgd_momentum_nesterov_wd(%v4#0, %v2, %v4#1) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  // sgd momentum_nesterov_wd
  // CHECK: [0.749699, -2.10595, 0.989085, 1.91116]
  %v6 = tensor.cast %v5#0 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v6) : (tensor<*xf32>) -> ()
  // CHECK: [1.04895, 0.436563, -2.05045, 4.66233]
  %v7 = tensor.cast %v5#1 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v7) : (tensor<*xf32>) -> ()
  %v8:2 = call @sgd_momentum_dampening(%v1, %v2, %v3) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %v9:2 = call @sgd_momentum_dampening(%v8#0, %v2, %v8#1) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  // sgd momentum_dampening
  // CHECK: [0.49375, -2.23438, 1.5125, 0.75]
  %v10 = tensor.cast %v9#0 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v10) : (tensor<*xf32>) -> ()
  // CHECK: [0.5875, 0.28125, -1.175, 2.5]
  %v11 = tensor.cast %v9#1 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v11) : (tensor<*xf32>) -> ()
  // f16 parameter: the update runs in f32 and rounds once (2048 - 0.1 stays 2048).
  %v12 = arith.constant dense<[1.0, 2048.0, 0.5, -1.0]> : tensor<4xf16>
  %v13 = arith.constant dense<[1.0, 1.0, 0.001, 10.0]> : tensor<4xf16>
  // CHECK: [0.899902, 2048, 0.5, -2]
  %v14 = call @sgd_plain_f16(%v12, %v13) : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %v15 = arith.extf %v14 : tensor<4xf16> to tensor<4xf32>
  %v16 = tensor.cast %v15 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v16) : (tensor<*xf32>) -> ()
  
  // adam: two steps from step 0 (t = 1, then t = 2), zero moments.
  %v17 = arith.constant dense<[1.0, -0.5, 2.0]> : tensor<3xf32>
  %v18 = arith.constant dense<[0.1, -0.2, 0.0]> : tensor<3xf32>
  %v19 = arith.constant dense<[0.3, 0.1, -0.5]> : tensor<3xf32>
  %v20 = arith.constant dense<[0.0, 0.0, 0.0]> : tensor<3xf32>
  %v21 = arith.constant dense<0> : tensor<i64>
  %v22:4 = call @adam(%v17, %v18, %v20, %v20, %v21) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
  %v23:4 = call @adam(%v22#0, %v19, %v22#1, %v22#2, %v22#3) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
  // CHECK: [0.980346, -0.484923, 1.99249]
  %v24 = tensor.cast %v23#0 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v24) : (tensor<*xf32>) -> ()
  // CHECK: [0.0579, -0.0174, -0.0121]
  %v25 = tensor.cast %v23#1 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v25) : (tensor<*xf32>) -> ()
  // CHECK: [0.000199158, 6.50377e-05, 0.000130559]
  %v26 = tensor.cast %v23#2 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v26) : (tensor<*xf32>) -> ()
  // CHECK: [2]
  %v27 = tensor.cast %v23#3 : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%v27) : (tensor<*xi64>) -> ()
  
  // adamw: two steps from step 0 (t = 1, then t = 2), zero moments.
  %v28 = arith.constant dense<[1.0, -0.5, 2.0]> : tensor<3xf32>
  %v29 = arith.constant dense<[0.1, -0.2, 0.0]> : tensor<3xf32>
  %v30 = arith.constant dense<[0.3, 0.1, -0.5]> : tensor<3xf32>
  %v31 = arith.constant dense<[0.0, 0.0, 0.0]> : tensor<3xf32>
  %v32 = arith.constant dense<0> : tensor<i64>
  %v33:4 = call @adamw(%v28, %v29, %v31, %v31, %v32) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
  %v34:4 = call @adamw(%v33#0, %v30, %v33#1, %v33#2, %v33#3) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
  // CHECK: [0.980623, -0.487238, 2.00704]
  %v35 = tensor.cast %v34#0 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v35) : (tensor<*xf32>) -> ()
  // CHECK: [0.039, -0.008, -0.05]
  %v36 = tensor.cast %v34#1 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v36) : (tensor<*xf32>) -> ()
  // CHECK: [9.99887e-05, 4.99594e-05, 0.000249997]
  %v37 = tensor.cast %v34#2 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v37) : (tensor<*xf32>) -> ()
  // CHECK: [2]
  %v38 = tensor.cast %v34#3 : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%v38) : (tensor<*xi64>) -> ()
  
  // clip_grad_norm over an f32 and an f16 gradient: norm = sqrt(1+4+4+16+4) = 5.38516,
  // every gradient scaled by 1 / (norm + 1e-6) in f32; then a norm below max_norm.
  %v39 = arith.constant dense<[[1.0, 2.0], [2.0, 0.0]]> : tensor<2x2xf32>
  %v40 = arith.constant dense<[4.0, 0.0, -2.0]> : tensor<3xf16>
  %v41:3 = call @clip(%v39, %v40) : (tensor<2x2xf32>, tensor<3xf16>) -> (tensor<2x2xf32>, tensor<3xf16>, tensor<f32>)
  // CHECK: [0.185695, 0.371391, 0.371391, 0]
  %v42 = tensor.collapse_shape %v41#0 [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %v43 = tensor.cast %v42 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v43) : (tensor<*xf32>) -> ()
  // CHECK: [0.742676, 0, -0.371338]
  %v44 = arith.extf %v41#1 : tensor<3xf16> to tensor<3xf32>
  %v45 = tensor.cast %v44 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v45) : (tensor<*xf32>) -> ()
  // CHECK: [5.38516]
  %v46 = tensor.cast %v41#2 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v46) : (tensor<*xf32>) -> ()
  %v47 = arith.constant dense<[3.0, -4.0]> : tensor<2xf32>
  %v48:2 = call @clip_small(%v47) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>)
  // CHECK: [3, -4]
  %v49 = tensor.cast %v48#0 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v49) : (tensor<*xf32>) -> ()
  // CHECK: [5]
  %v50 = tensor.cast %v48#1 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v50) : (tensor<*xf32>) -> ()
  return
}
