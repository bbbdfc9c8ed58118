// Runs one training step of examples/mlp_manual.mlir after the f16 mixed-precision
// rewrite (loss scaling included), lowered by mpt-convert-to-linalg, on the
// CPU, twice: with the loss scale 65536 the f16 weight gradient of the last
// layer overflows (128 * 10.04 * 51.2 > 65504), so the step is skipped (state
// unchanged, scale halved); with 1024 it is a clean step whose bias update,
// unscaled in f32, matches the FP32 step. The rewritten step is spliced
// (without its `module` wrapper) in front of this file's @main.
//
// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-mixed-precision="compute-type=f16" \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.mlir
// RUN: cat %t.mlir %s | mpt-opt --mpt-convert-to-linalg --convert-elementwise-to-linalg \
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

func.func @step(%scale: tensor<f32>) {
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
  %tracker = arith.constant dense<0> : tensor<i64>
  %r:19 = call @train_step(%w1, %b1, %w2, %b2, %w3, %b3, %w1m, %b1, %w2m, %b2, %w3m, %b3, %x, %y, %scale, %tracker)
      : (tensor<784x256xf32>, tensor<256xf32>, tensor<256x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>,
         tensor<784x256xf32>, tensor<256xf32>, tensor<256x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>,
         tensor<128x784xf32>, tensor<128xi32>, tensor<f32>, tensor<i64>)
      -> (tensor<784x256xf32>, tensor<256xf32>, tensor<256x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>,
          tensor<784x256xf32>, tensor<256xf32>, tensor<256x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>,
          tensor<f32>, tensor<f32>, tensor<i64>, tensor<f32>, tensor<i1>, tensor<i64>, tensor<i64>)
  // Loss, new b3, new scale, new tracker, skipped.
  %loss = tensor.cast %r#12 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%loss) : (tensor<*xf32>) -> ()
  %nb3 = tensor.cast %r#5 : tensor<10xf32> to tensor<*xf32>
  call @printMemrefF32(%nb3) : (tensor<*xf32>) -> ()
  %ns = tensor.cast %r#13 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%ns) : (tensor<*xf32>) -> ()
  %nt = tensor.cast %r#14 : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%nt) : (tensor<*xi64>) -> ()
  %skipped = arith.extui %r#16 : tensor<i1> to tensor<i32>
  %sk = tensor.cast %skipped : tensor<i32> to tensor<*xi32>
  call @printMemrefI32(%sk) : (tensor<*xi32>) -> ()
  return
}

func.func @main() {
  // Overflow: skipped, b3 unchanged, the scale halved, the tracker reset.
  // CHECK: [2.30258]
  // CHECK: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  // CHECK: [32768]
  // CHECK: [0]
  // CHECK: [1]
  %big = arith.constant dense<65536.0> : tensor<f32>
  call @step(%big) : (tensor<f32>) -> ()
  // Clean step: the FP32 update, the scale kept, the tracker counting.
  // CHECK: [2.30258]
  // CHECK: [-0.002, -0.002, -0.002, 0.018, -0.002, -0.002, -0.002, -0.002, -0.002, -0.002]
  // CHECK: [1024]
  // CHECK: [1]
  // CHECK: [0]
  %small = arith.constant dense<1024.0> : tensor<f32>
  call @step(%small) : (tensor<f32>) -> ()
  return
}
