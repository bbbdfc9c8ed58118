// Runs softmax_cross_entropy (+grad) with label smoothing and ignore_index
// lowered to linalg on the CPU. The expected values are PyTorch's
// F.cross_entropy(reduction="mean") in float64 on the same logits, and its
// gradient times the seed, to the 6 digits printed; f32 rounds two of them
// the other way in the last digit (PyTorch's 0.0039041649 and -0.0060958351
// print as 0.00390417 and -0.00609583). A NaN's sign is not checked.
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

func.func private @printMemrefF32(tensor<*xf32>)

func.func @smoothed(%x: tensor<4x5xf32>, %l: tensor<4xi32>) -> tensor<f32> {
  %loss = mpt.softmax_cross_entropy %x, %l {label_smoothing = 0.1} : tensor<4x5xf32>, tensor<4xi32>
  return %loss : tensor<f32>
}
func.func @smoothed_grad(%seed: tensor<f32>, %x: tensor<4x5xf32>, %l: tensor<4xi32>) -> tensor<4x5xf32> {
  %dx = mpt.softmax_cross_entropy_grad %seed, %x, %l {label_smoothing = 0.1} : tensor<4x5xf32>, tensor<4xi32>
  return %dx : tensor<4x5xf32>
}
func.func @ignoring(%x: tensor<4x5xf32>, %l: tensor<4xi64>) -> tensor<f32> {
  %loss = mpt.softmax_cross_entropy %x, %l {label_smoothing = 0.2, ignore_index = -100} : tensor<4x5xf32>, tensor<4xi64>
  return %loss : tensor<f32>
}
func.func @ignoring_grad(%seed: tensor<f32>, %x: tensor<4x5xf32>, %l: tensor<4xi64>) -> tensor<4x5xf32> {
  %dx = mpt.softmax_cross_entropy_grad %seed, %x, %l {label_smoothing = 0.2, ignore_index = -100} : tensor<4x5xf32>, tensor<4xi64>
  return %dx : tensor<4x5xf32>
}
func.func @ignoring_a_class(%x: tensor<4x5xf32>, %l: tensor<4xi32>) -> tensor<f32> {
  %loss = mpt.softmax_cross_entropy %x, %l {ignore_index = 2} : tensor<4x5xf32>, tensor<4xi32>
  return %loss : tensor<f32>
}
func.func @ignoring_a_class_grad(%seed: tensor<f32>, %x: tensor<4x5xf32>, %l: tensor<4xi32>) -> tensor<4x5xf32> {
  %dx = mpt.softmax_cross_entropy_grad %seed, %x, %l {ignore_index = 2} : tensor<4x5xf32>, tensor<4xi32>
  return %dx : tensor<4x5xf32>
}
func.func @uniform(%x: tensor<4x5xf32>, %l: tensor<4xi32>) -> tensor<f32> {
  %loss = mpt.softmax_cross_entropy %x, %l {label_smoothing = 1.0, ignore_index = 3} : tensor<4x5xf32>, tensor<4xi32>
  return %loss : tensor<f32>
}
func.func @uniform_grad(%seed: tensor<f32>, %x: tensor<4x5xf32>, %l: tensor<4xi32>) -> tensor<4x5xf32> {
  %dx = mpt.softmax_cross_entropy_grad %seed, %x, %l {label_smoothing = 1.0, ignore_index = 3} : tensor<4x5xf32>, tensor<4xi32>
  return %dx : tensor<4x5xf32>
}

func.func @print(%t: tensor<f32>) {
  %u = tensor.cast %t : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
func.func @print_grad(%t: tensor<4x5xf32>) {
  %flat = tensor.collapse_shape %t [[0, 1]] : tensor<4x5xf32> into tensor<20xf32>
  %u = tensor.cast %flat : tensor<20xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  // The third row's labelled logits lie far below its max: log-sum-exp form.
  %x = arith.constant dense<[[2.0, 1.0, 0.1, -1.0, 0.5], [0.5, 0.5, 0.5, 0.5, 0.5], [100.0, -100.0, 50.0, 0.0, 3.0], [-3.0, 4.0, 1.0, 2.0, -2.0]]> : tensor<4x5xf32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %two = arith.constant dense<2.0> : tensor<f32>

  // Smoothing 0.1, nothing ignored; the gradient with seed 2.
  %labels = arith.constant dense<[0, 3, 1, 4]> : tensor<4xi32>
  // CHECK: [49.3031]
  %l1 = call @smoothed(%x, %labels) : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  call @print(%l1) : (tensor<f32>) -> ()
  // CHECK: [-0.180727, 0.0927387, 0.0317704, 0.00390417, 0.0523141, 0.09, 0.09, 0.09, -0.36, 0.09, 0.49, -0.46, -0.01, -0.01, -0.01, -0.00961638, 0.410694, 0.0109451, 0.0469347, -0.458957]
  %g1 = call @smoothed_grad(%two, %x, %labels) : (tensor<f32>, tensor<4x5xf32>, tensor<4xi32>) -> tensor<4x5xf32>
  call @print_grad(%g1) : (tensor<4x5xf32>) -> ()

  // PyTorch's -100 at two of four rows, smoothing 0.2: the mean is over the
  // other two, the ignored rows' gradient zero.
  %padded = arith.constant dense<[1, -100, 3, -100]> : tensor<4xi64>
  // CHECK: [49.7792]
  %l2 = call @ignoring(%x, %padded) : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
  call @print(%l2) : (tensor<f32>) -> ()
  // CHECK: [0.259273, -0.317261, 0.0217704, -0.00609583, 0.0423141, 0, 0, 0, 0, 0, 0.48, -0.02, -0.02, -0.42, -0.02, 0, 0, 0, 0, 0]
  %g2 = call @ignoring_grad(%one, %x, %padded) : (tensor<f32>, tensor<4x5xf32>, tensor<4xi64>) -> tensor<4x5xf32>
  call @print_grad(%g2) : (tensor<4x5xf32>) -> ()

  // An ignored class (a padding token), at the first and third rows.
  %classes = arith.constant dense<[2, 0, 2, 4]> : tensor<4xi32>
  // CHECK: [3.89107]
  %l3 = call @ignoring_a_class(%x, %classes) : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  call @print(%l3) : (tensor<f32>) -> ()
  // CHECK: [0, 0, 0, 0, 0, -0.4, 0.1, 0.1, 0.1, 0.1, 0, 0, 0, 0, 0, 0.000383623, 0.420694, 0.0209451, 0.0569347, -0.498957]
  %g3 = call @ignoring_a_class_grad(%one, %x, %classes) : (tensor<f32>, tensor<4x5xf32>, tensor<4xi32>) -> tensor<4x5xf32>
  call @print_grad(%g3) : (tensor<4x5xf32>) -> ()

  // Smoothing 1: the labels only choose which rows count.
  // CHECK: [31.745]
  %l4 = call @uniform(%x, %labels) : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  call @print(%l4) : (tensor<f32>) -> ()
  // CHECK: [0.119515, 0.00182577, -0.0388197, -0.0573972, -0.0251239, 0, 0, 0, 0, 0, 0.266667, -0.0666667, -0.0666667, -0.0666667, -0.0666667, -0.0664109, 0.213796, -0.0527033, -0.0287102, -0.0659715]
  %g4 = call @uniform_grad(%one, %x, %labels) : (tensor<f32>, tensor<4x5xf32>, tensor<4xi32>) -> tensor<4x5xf32>
  call @print_grad(%g4) : (tensor<4x5xf32>) -> ()

  // Every row ignored: the mean is 0 / 0, NaN, and the gradient zero, as in
  // PyTorch.
  %none = arith.constant dense<-100> : tensor<4xi64>
  // CHECK: [{{-?}}nan]
  %l5 = call @ignoring(%x, %none) : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
  call @print(%l5) : (tensor<f32>) -> ()
  // CHECK: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  %g5 = call @ignoring_grad(%one, %x, %none) : (tensor<f32>, tensor<4x5xf32>, tensor<4xi64>) -> tensor<4x5xf32>
  call @print_grad(%g5) : (tensor<4x5xf32>) -> ()
  return
}
