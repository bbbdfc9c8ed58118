// Runs one training step of examples/mlp_manual.mlir, lowered by
// convert-mpt-to-linalg, on the CPU, and checks the loss and the update of
// the last bias (its gradient and momentum buffer).
//
// RUN: cat %examples/mlp_manual.mlir %s | mpt-opt --convert-mpt-to-linalg --convert-elementwise-to-linalg \
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
func.func private @printMemrefI32(tensor<*xi32>)
func.func private @printMemrefI64(tensor<*xi64>)

// All weights 0.01, all inputs 0.5: every logit of a row is the same, so each
// row's loss is log(10) = 2.3025851 (their f32 mean over 128 rows rounds to
// 2.3025827) and the bias gradient is (0.1 - onehot) per class (all labels
// are 3); one SGD step from a zero momentum buffer moves b3 by -0.02 times
// the gradient.

func.func @main() {
  %w1 = arith.constant dense<0.01> : tensor<784x256xf32>
  %b1 = arith.constant dense<0.0> : tensor<256xf32>
  %w2 = arith.constant dense<0.01> : tensor<256x128xf32>
  %b2 = arith.constant dense<0.0> : tensor<128xf32>
  %w3 = arith.constant dense<0.01> : tensor<128x10xf32>
  %b3 = arith.constant dense<0.0> : tensor<10xf32>
  %w1m = arith.constant dense<0.0> : tensor<784x256xf32>
  %w2m = arith.constant dense<0.0> : tensor<256x128xf32>
  %w3m = arith.constant dense<0.0> : tensor<128x10xf32>
  %x = arith.constant dense<0.5> : tensor<128x784xf32>
  %y = arith.constant dense<3> : tensor<128xi32>
  %r:13 = call @train_step(%w1, %b1, %w2, %b2, %w3, %b3, %w1m, %b1, %w2m, %b2, %w3m, %b3, %x, %y)
      : (tensor<784x256xf32>, tensor<256xf32>, tensor<256x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>,
         tensor<784x256xf32>, tensor<256xf32>, tensor<256x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>,
         tensor<128x784xf32>, tensor<128xi32>)
      -> (tensor<784x256xf32>, tensor<256xf32>, tensor<256x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>,
          tensor<784x256xf32>, tensor<256xf32>, tensor<256x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>,
          tensor<f32>)
  // CHECK: [2.30258]
  %loss = tensor.cast %r#12 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%loss) : (tensor<*xf32>) -> ()
  // CHECK: [-0.002, -0.002, -0.002, 0.018, -0.002, -0.002, -0.002, -0.002, -0.002, -0.002]
  %nb3 = tensor.cast %r#5 : tensor<10xf32> to tensor<*xf32>
  call @printMemrefF32(%nb3) : (tensor<*xf32>) -> ()
  // CHECK: [0.1, 0.1, 0.1, -0.900001, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]
  %mb3 = tensor.cast %r#11 : tensor<10xf32> to tensor<*xf32>
  call @printMemrefF32(%mb3) : (tensor<*xf32>) -> ()
  return
}
