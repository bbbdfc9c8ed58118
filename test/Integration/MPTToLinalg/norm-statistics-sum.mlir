// Batch-norm statistics over 64x32x32 = 65536 values per channel must not be
// one sequential f32 sum: past 2^24 its running total cannot hold the eighths
// of these inputs, x[n, 0, h, w] = 1024 + ((n*1024 + h*32 + w) mod 8) / 8,
// and the mean comes out as 1024.111 (relative error 3.2e-4) instead of the
// closed form 1024.4375. Summed one dimension at a time (64, then 32, then
// 32 values), every partial sum is exact, so the mean, the variance
// 63/768 (x - mean is a multiple of 1/16) and the bias gradient sum(dy) for
// dy = x are exact too. The flags check a relative error <= 1e-6 against the
// closed forms: 1/sqrt(63/768 + 1e-5) = 3.49127345 for invstd, 65536 *
// 1024.4375 = 67137536 for sum(dy).
//
// RUN: mpt-opt %s --mpt-convert-to-linalg --convert-elementwise-to-linalg \
// RUN:   --mpt-fuse-elementwise --canonicalize --cse \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   --buffer-deallocation-pipeline --convert-bufferization-to-memref \
// RUN:   --convert-linalg-to-loops \
// RUN:   --expand-strided-metadata --lower-affine --convert-scf-to-cf \
// RUN:   --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)

func.func @bn(%x: tensor<64x1x32x32xf32>, %g: tensor<1xf32>, %b: tensor<1xf32>, %rm: tensor<1xf32>, %rv: tensor<1xf32>)
    -> (tensor<1xf32>, tensor<1xf32>) {
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm, %rv {momentum = 0.1 : f32, epsilon = 1.000000e-05 : f32} : tensor<64x1x32x32xf32>, tensor<1xf32>
  return %mean, %invstd : tensor<1xf32>, tensor<1xf32>
}

func.func @bn_grad(%dy: tensor<64x1x32x32xf32>, %x: tensor<64x1x32x32xf32>, %g: tensor<1xf32>, %mean: tensor<1xf32>, %invstd: tensor<1xf32>) -> tensor<1xf32> {
  %dx, %dg, %db = mpt.batch_norm_grad %dy, %x, %g, %mean, %invstd : tensor<64x1x32x32xf32>, tensor<1xf32>
  return %db : tensor<1xf32>
}

/// 1 if |value - expected| <= 1e-6 * |expected|, else 0.
func.func @close(%value: f32, %expected: f32) -> i32 {
  %difference = arith.subf %value, %expected : f32
  %error = math.absf %difference : f32
  %magnitude = math.absf %expected : f32
  %tolerance = arith.constant 1.0e-6 : f32
  %bound = arith.mulf %magnitude, %tolerance : f32
  %ok = arith.cmpf ole, %error, %bound : f32
  %flag = arith.extui %ok : i1 to i32
  return %flag : i32
}

func.func @main() {
  %x = tensor.generate {
  ^bb0(%n: index, %c: index, %h: index, %w: index):
    %c1024 = arith.constant 1024 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %nn = arith.muli %n, %c1024 : index
    %hh = arith.muli %h, %c32 : index
    %flat0 = arith.addi %nn, %hh : index
    %flat = arith.addi %flat0, %w : index
    %k = arith.remui %flat, %c8 : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %eighth = arith.constant 0.125 : f32
    %offset = arith.constant 1024.0 : f32
    %fraction = arith.mulf %kf, %eighth : f32
    %value = arith.addf %offset, %fraction : f32
    tensor.yield %value : f32
  } : tensor<64x1x32x32xf32>
  %ones = arith.constant dense<1.0> : tensor<1xf32>
  %zeros = arith.constant dense<0.0> : tensor<1xf32>
  %mean, %invstd = call @bn(%x, %ones, %zeros, %zeros, %ones)
      : (tensor<64x1x32x32xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1xf32>, tensor<1xf32>)
  %db = call @bn_grad(%x, %x, %ones, %mean, %invstd)
      : (tensor<64x1x32x32xf32>, tensor<64x1x32x32xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>

  %i0 = arith.constant 0 : index
  %m = tensor.extract %mean[%i0] : tensor<1xf32>
  %s = tensor.extract %invstd[%i0] : tensor<1xf32>
  %d = tensor.extract %db[%i0] : tensor<1xf32>
  %m_ref = arith.constant 1024.4375 : f32
  %s_ref = arith.constant 3.49127345 : f32
  %d_ref = arith.constant 67137536.0 : f32
  %m_ok = call @close(%m, %m_ref) : (f32, f32) -> i32
  %s_ok = call @close(%s, %s_ref) : (f32, f32) -> i32
  %d_ok = call @close(%d, %d_ref) : (f32, f32) -> i32
  %flags = tensor.from_elements %m_ok, %s_ok, %d_ok : tensor<3xi32>
  %values = tensor.from_elements %m, %s, %d : tensor<3xf32>

  // CHECK: [1,  1,  1]
  %flags_u = tensor.cast %flags : tensor<3xi32> to tensor<*xi32>
  call @printMemrefI32(%flags_u) : (tensor<*xi32>) -> ()
  // CHECK: [1024.44,  3.49127,  6.71375e+07]
  %values_u = tensor.cast %values : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%values_u) : (tensor<*xf32>) -> ()
  return
}
