// The textbook f16 facts, on the code mpt compiles: exact IEEE f16 (max 65504,
// smallest normal 6.10e-5, smallest subnormal 5.96e-8), no flush to zero.
// - A gradient of 1e-8 is below half the smallest subnormal: in f16 without
//   scaling it is exactly 0. Scaled by 1024 it survives (as the subnormal
//   172 * 2^-24) and unscaled in f32 it is 1.0012e-8, one subnormal step
//   (0.12%) from 1e-8; scaled by 65536 it is a normal f16 and comes back
//   within f16's relative precision (0.03%).
// - A gradient of 1e-7 survives unscaled only as the subnormal 2 * 2^-24 =
//   1.19e-7, 19% off; scaled by 1024 it is accurate to f16 precision.
// - Lost update: with w = 0.5 and lr * g = 3e-7, an f16 weight does not move
//   (its spacing at 0.5 is 4.9e-4), while the f32 master does.
//
// RUN: mpt-opt %s --mpt-convert-to-linalg --convert-elementwise-to-linalg \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   --buffer-deallocation-pipeline --convert-bufferization-to-memref \
// RUN:   --convert-linalg-to-loops --expand-strided-metadata --lower-affine \
// RUN:   --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print(%t: tensor<2xf32>) {
  %u = tensor.cast %t : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

// The backward pass's f32 gradient, rounded to f16 after scaling by S, then
// unscaled in f32 by the op the loss-scaling pass inserts.
func.func @through_f16(%g: tensor<2xf32>, %s: tensor<f32>) -> tensor<2xf32> {
  %s2 = tensor.extract %s[] : tensor<f32>
  %splat = tensor.splat %s2 : tensor<2xf32>
  %scaled = arith.mulf %g, %splat : tensor<2xf32>
  %g16 = arith.truncf %scaled : tensor<2xf32> to tensor<2xf16>
  %u = mpt.unscale %g16, %s : tensor<2xf16> -> tensor<2xf32>
  return %u : tensor<2xf32>
}

func.func @main() {
  %g = arith.constant dense<[1.0e-8, 1.0e-7]> : tensor<2xf32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %s1024 = arith.constant dense<1024.0> : tensor<f32>
  %s65536 = arith.constant dense<65536.0> : tensor<f32>

  // CHECK: [0,  1.19209e-07]
  %unscaled = func.call @through_f16(%g, %one) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  func.call @print(%unscaled) : (tensor<2xf32>) -> ()
  // CHECK: [1.00117e-08,  1.00001e-07]
  %by1024 = func.call @through_f16(%g, %s1024) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  func.call @print(%by1024) : (tensor<2xf32>) -> ()
  // CHECK: [9.99717e-09,  1.00001e-07]
  %by65536 = func.call @through_f16(%g, %s65536) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  func.call @print(%by65536) : (tensor<2xf32>) -> ()

  // Lost update: lr = 1, g = 3e-7, in an f16 weight and in an f32 master;
  // printed is how far the weight moved (in f32).
  %half = arith.constant dense<0.5> : tensor<2xf32>
  %w16 = arith.constant dense<0.5> : tensor<2xf16>
  %g16 = arith.constant dense<3.0e-7> : tensor<2xf16>
  %w16n = mpt.sgd %w16, %g16 {lr = 1.0 : f32} : tensor<2xf16>
  %w16n32 = arith.extf %w16n : tensor<2xf16> to tensor<2xf32>
  %moved16 = arith.subf %w16n32, %half : tensor<2xf32>
  // CHECK: [0,  0]
  func.call @print(%moved16) : (tensor<2xf32>) -> ()
  %g32 = arith.constant dense<3.0e-7> : tensor<2xf32>
  %w32n = mpt.sgd %half, %g32 {lr = 1.0 : f32} : tensor<2xf32>
  %moved32 = arith.subf %w32n, %half : tensor<2xf32>
  // CHECK: [-2.98023e-07,  -2.98023e-07]
  func.call @print(%moved32) : (tensor<2xf32>) -> ()
  return
}
