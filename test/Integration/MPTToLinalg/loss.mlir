// Runs softmax, softmax_grad, softmax_cross_entropy (+grad) and loss_grad
// lowered to linalg on the CPU. They run in f32 whatever the input type. The
// expected values are an f32 transcription of the formulas (the losses checked
// against a float64 log-sum-exp and finite differences).
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

func.func @softmax(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = mpt.softmax %x : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
func.func @softmax_grad(%g: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %dx = mpt.softmax_grad %g, %y : tensor<2x4xf32>
  return %dx : tensor<2x4xf32>
}
func.func @softmax_f16(%x: tensor<2x2x3xf16>) -> tensor<2x2x3xf16> {
  %y = mpt.softmax %x : tensor<2x2x3xf16>
  return %y : tensor<2x2x3xf16>
}
func.func @sce(%x: tensor<3x4xf32>, %l: tensor<3xi32>) -> tensor<f32> {
  %loss = mpt.softmax_cross_entropy %x, %l : tensor<3x4xf32>, tensor<3xi32>
  return %loss : tensor<f32>
}
func.func @sce_grad(%seed: tensor<f32>, %x: tensor<3x4xf32>, %l: tensor<3xi32>) -> tensor<3x4xf32> {
  %dx = mpt.softmax_cross_entropy_grad %seed, %x, %l : tensor<3x4xf32>, tensor<3xi32>
  return %dx : tensor<3x4xf32>
}
func.func @sce_f16(%x: tensor<2x3xf16>, %l: tensor<2xi64>) -> tensor<f32> {
  %loss = mpt.softmax_cross_entropy %x, %l : tensor<2x3xf16>, tensor<2xi64>
  return %loss : tensor<f32>
}
func.func @sce_grad_f16(%seed: tensor<f32>, %x: tensor<2x3xf16>, %l: tensor<2xi64>) -> tensor<2x3xf16> {
  %dx = mpt.softmax_cross_entropy_grad %seed, %x, %l : tensor<2x3xf16>, tensor<2xi64>
  return %dx : tensor<2x3xf16>
}
func.func @seed(%loss: tensor<f32>) -> tensor<f32> {
  %s = mpt.loss_grad %loss
  return %s : tensor<f32>
}
func.func @scaled_seed(%loss: tensor<f32>, %scale: tensor<f32>) -> tensor<f32> {
  %s = mpt.loss_grad %loss scale %scale
  return %s : tensor<f32>
}

func.func @main() {
  // softmax: the second row overflows exp() unless shifted by its max.
  %v1 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [1000.0, 1001.0, 999.0, -1000.0]]> : tensor<2x4xf32>
  %v2 = arith.constant dense<[[1.0, -1.0, 0.5, 2.0], [0.0, 1.0, -2.0, 3.0]]> : tensor<2x4xf32>
  %v3 = call @softmax(%v1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %v4 = call @softmax_grad(%v2, %v3) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: [-0.0112585, -0.204892, -0.201631, 0.417782, -0.118737, 0.342479, -0.223742, 0]
  %v5 = tensor.collapse_shape %v4 [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %v6 = tensor.cast %v5 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v6) : (tensor<*xf32>) -> ()
  // CHECK: [0.0320586, 0.0871443, 0.236883, 0.643914, 0.244728, 0.665241, 0.0900306, 0]
  %v7 = tensor.collapse_shape %v3 [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %v8 = tensor.cast %v7 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v8) : (tensor<*xf32>) -> ()
  // f16 softmax runs in f32 and rounds once: 60000 and 60001 are the same
  // f16 value (60000), so that row is [0.5, 0.5, 0].
  %v9 = arith.constant dense<[[[0.0, 1.0, 2.0], [10.0, 10.0, 10.0]], [[-5.0, 0.0, 5.0], [60000.0, 60001.0, 0.0]]]> : tensor<2x2x3xf16>
  // CHECK: [0.0900269, 0.244751, 0.665039, 0.333252, 0.333252, 0.333252, 4.51207e-05, 0.00669098, 0.993164, 0.5, 0.5, 0]
  %v10 = call @softmax_f16(%v9) : (tensor<2x2x3xf16>) -> tensor<2x2x3xf16>
  %v11 = arith.extf %v10 : tensor<2x2x3xf16> to tensor<2x2x3xf32>
  %v12 = tensor.collapse_shape %v11 [[0, 1, 2]] : tensor<2x2x3xf32> into tensor<12xf32>
  %v13 = tensor.cast %v12 : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%v13) : (tensor<*xf32>) -> ()
  
  // softmax_cross_entropy: mean over the batch of -log_softmax at the label;
  // the last row (label logit 200 below the max) needs the log-sum-exp form.
  %v14 = arith.constant dense<[[2.0, 1.0, 0.1, -1.0], [0.5, 0.5, 0.5, 0.5], [100.0, -100.0, 50.0, 0.0]]> : tensor<3x4xf32>
  %v15 = arith.constant dense<[0, 3, 1]> : tensor<3xi32>
  %v16 = call @sce(%v14, %v15) : (tensor<3x4xf32>, tensor<3xi32>) -> tensor<f32>
  %v17 = arith.constant dense<4.0> : tensor<f32>
  // softmax_cross_entropy_grad with seed 4: 4 * (softmax - onehot) / 3 (the
  // last entry is an f32 subnormal: nothing is flushed).
  // CHECK: [-0.482578, 0.312975, 0.127246, 0.0423566, 0.333333, 0.333333, 0.333333, -1, 1.33333, -1.33333, 2.57167e-22, 5.04467e-44]
  %v18 = call @sce_grad(%v17, %v14, %v15) : (tensor<f32>, tensor<3x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  %v19 = tensor.collapse_shape %v18 [[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
  %v20 = tensor.cast %v19 : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%v20) : (tensor<*xf32>) -> ()
  // CHECK: [67.2785]
  %v21 = tensor.cast %v16 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v21) : (tensor<*xf32>) -> ()
  
  // f16 logits, i64 labels: the loss is f32, the gradient rounds once to f16.
  %v22 = arith.constant dense<[[1.0, 2.0, 3.0], [-1.0, 0.0, 8.0]]> : tensor<2x3xf16>
  %v23 = arith.constant dense<[2, 0]> : tensor<2xi64>
  // CHECK: [4.70403]
  %v24 = call @sce_f16(%v22, %v23) : (tensor<2x3xf16>, tensor<2xi64>) -> tensor<f32>
  %v25 = tensor.cast %v24 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v25) : (tensor<*xf32>) -> ()
  %v26 = arith.constant dense<1.0> : tensor<f32>
  // CHECK: [0.0450134, 0.122375, -0.167358, -0.5, 0.000167608, 0.499756]
  %v27 = call @sce_grad_f16(%v26, %v22, %v23) : (tensor<f32>, tensor<2x3xf16>, tensor<2xi64>) -> tensor<2x3xf16>
  %v28 = arith.extf %v27 : tensor<2x3xf16> to tensor<2x3xf32>
  %v29 = tensor.collapse_shape %v28 [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %v30 = tensor.cast %v29 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%v30) : (tensor<*xf32>) -> ()
  
  // loss_grad: 1.0, or the loss scale when it has one.
  %v31 = arith.constant dense<2.5> : tensor<f32>
  %v32 = arith.constant dense<65536.0> : tensor<f32>
  // CHECK: [1]
  %v33 = call @seed(%v31) : (tensor<f32>) -> tensor<f32>
  %v34 = tensor.cast %v33 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v34) : (tensor<*xf32>) -> ()
  // CHECK: [65536]
  %v35 = call @scaled_seed(%v31, %v32) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %v36 = tensor.cast %v35 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v36) : (tensor<*xf32>) -> ()
  return
}
