// Runs the loss-scaling ops lowered to linalg on the CPU: unscale (f32
// result whatever the gradient type), all_finite (inf and NaN in f32, f16 and
// bf16 inputs) and update_loss_scale (PyTorch's GradScaler rule: backoff,
// growth at the interval, clamping to [min_scale, max_scale]).
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
func.func private @printMemrefI32(tensor<*xi32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @unscale_f16(%g: tensor<5xf16>, %s: tensor<f32>) -> tensor<5xf32> {
  %u = mpt.unscale %g, %s : tensor<5xf16> -> tensor<5xf32>
  return %u : tensor<5xf32>
}
func.func @unscale_f32(%g: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xf32> {
  %u = mpt.unscale %g, %s : tensor<3xf32> -> tensor<3xf32>
  return %u : tensor<3xf32>
}
func.func @all_finite(%a: tensor<2x2xf32>, %b: tensor<3xf16>, %c: tensor<2xbf16>) -> tensor<i1> {
  %ok = mpt.all_finite %a, %b, %c : tensor<2x2xf32>, tensor<3xf16>, tensor<2xbf16>
  return %ok : tensor<i1>
}
func.func @update(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i1>) -> (tensor<f32>, tensor<i64>) {
  %s2, %n2 = mpt.update_loss_scale %s, %n, %ok
      {growth_interval = 3 : i64, min_scale = 1.000000e+00 : f32, max_scale = 1.024000e+03 : f32}
      : tensor<i64>
  return %s2, %n2 : tensor<f32>, tensor<i64>
}
func.func @update_default_i32(%s: tensor<f32>, %n: tensor<i32>, %ok: tensor<i1>) -> (tensor<f32>, tensor<i32>) {
  %s2, %n2 = mpt.update_loss_scale %s, %n, %ok : tensor<i32>
  return %s2, %n2 : tensor<f32>, tensor<i32>
}

func.func @main() {
  // unscale: f32(grad) * (1 / scale). With S = 65536 the f16 gradients, the
  // subnormal 6e-8 included, come out exact in f32.
  %v1 = arith.constant dense<[65504.0, 0.00010001659393310547, 5.960464477539063e-08, -3.0, 0.0]> : tensor<5xf16>
  %v2 = arith.constant dense<65536.0> : tensor<f32>
  // CHECK: [0.999512, 1.52613e-09, 9.09495e-13, -4.57764e-05, 0]
  %v3 = call @unscale_f16(%v1, %v2) : (tensor<5xf16>, tensor<f32>) -> tensor<5xf32>
  %v4 = tensor.cast %v3 : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%v4) : (tensor<*xf32>) -> ()
  %v5 = arith.constant dense<[3.0, 1.0, -6.0]> : tensor<3xf32>
  %v6 = arith.constant dense<3.0> : tensor<f32>
  // A scale of 3: the reciprocal rounds first, so 3 * (1/3) is 1 and 1 * (1/3) is 0.333333.
  // CHECK: [1, 0.333333, -2]
  %v7 = call @unscale_f32(%v5, %v6) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %v8 = tensor.cast %v7 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v8) : (tensor<*xf32>) -> ()
  
  // all_finite: one flag over every element of every input.
  // finite, f16 max and f32 max
  %v9 = arith.constant dense<[[1.0, -2.0], [3.40282347E+38, 0.0]]> : tensor<2x2xf32>
  %v10 = arith.constant dense<[65504.0, -65504.0, 6.0e-08]> : tensor<3xf16>
  %v11 = arith.constant dense<[1.0, -3.0e+38]> : tensor<2xbf16>
  // CHECK: [1]
  %v12 = call @all_finite(%v9, %v10, %v11) : (tensor<2x2xf32>, tensor<3xf16>, tensor<2xbf16>) -> tensor<i1>
  %v13 = arith.extui %v12 : tensor<i1> to tensor<i32>
  %v14 = tensor.cast %v13 : tensor<i32> to tensor<*xi32>
  call @printMemrefI32(%v14) : (tensor<*xi32>) -> ()
  // +inf in the f16 input
  %v15 = arith.constant dense<[[1.0, -2.0], [3.0, 0.0]]> : tensor<2x2xf32>
  %v16 = arith.constant dense<[1.0, 0x7C00, 0.0]> : tensor<3xf16>
  %v17 = arith.constant dense<[1.0, 2.0]> : tensor<2xbf16>
  // CHECK: [0]
  %v18 = call @all_finite(%v15, %v16, %v17) : (tensor<2x2xf32>, tensor<3xf16>, tensor<2xbf16>) -> tensor<i1>
  %v19 = arith.extui %v18 : tensor<i1> to tensor<i32>
  %v20 = tensor.cast %v19 : tensor<i32> to tensor<*xi32>
  call @printMemrefI32(%v20) : (tensor<*xi32>) -> ()
  // NaN in the bf16 input
  %v21 = arith.constant dense<[[1.0, -2.0], [3.0, 0.0]]> : tensor<2x2xf32>
  %v22 = arith.constant dense<[1.0, 2.0, 0.0]> : tensor<3xf16>
  %v23 = arith.constant dense<[0x7FC0, 2.0]> : tensor<2xbf16>
  // CHECK: [0]
  %v24 = call @all_finite(%v21, %v22, %v23) : (tensor<2x2xf32>, tensor<3xf16>, tensor<2xbf16>) -> tensor<i1>
  %v25 = arith.extui %v24 : tensor<i1> to tensor<i32>
  %v26 = tensor.cast %v25 : tensor<i32> to tensor<*xi32>
  call @printMemrefI32(%v26) : (tensor<*xi32>) -> ()
  // -inf in the f32 input
  %v27 = arith.constant dense<[[1.0, 0xFF800000], [3.0, 0.0]]> : tensor<2x2xf32>
  %v28 = arith.constant dense<[1.0, 2.0, 0.0]> : tensor<3xf16>
  %v29 = arith.constant dense<[1.0, 2.0]> : tensor<2xbf16>
  // CHECK: [0]
  %v30 = call @all_finite(%v27, %v28, %v29) : (tensor<2x2xf32>, tensor<3xf16>, tensor<2xbf16>) -> tensor<i1>
  %v31 = arith.extui %v30 : tensor<i1> to tensor<i32>
  %v32 = tensor.cast %v31 : tensor<i32> to tensor<*xi32>
  call @printMemrefI32(%v32) : (tensor<*xi32>) -> ()
  
  // update_loss_scale with growth_interval 3, factors 2 / 0.5, scale in [1, 1024].
  // (256, 0, finite=1): clean step: the tracker counts
  %v33 = arith.constant dense<256.0> : tensor<f32>
  %v34 = arith.constant dense<0> : tensor<i64>
  %v35 = arith.constant dense<true> : tensor<i1>
  %v36:2 = call @update(%v33, %v34, %v35) : (tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i64>)
  // CHECK: [256]
  %v37 = tensor.cast %v36#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v37) : (tensor<*xf32>) -> ()
  // CHECK: [1]
  %v38 = tensor.cast %v36#1 : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%v38) : (tensor<*xi64>) -> ()
  // (256, 1, finite=1): clean step
  %v39 = arith.constant dense<256.0> : tensor<f32>
  %v40 = arith.constant dense<1> : tensor<i64>
  %v41 = arith.constant dense<true> : tensor<i1>
  %v42:2 = call @update(%v39, %v40, %v41) : (tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i64>)
  // CHECK: [256]
  %v43 = tensor.cast %v42#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v43) : (tensor<*xf32>) -> ()
  // CHECK: [2]
  %v44 = tensor.cast %v42#1 : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%v44) : (tensor<*xi64>) -> ()
  // (256, 2, finite=1): third clean step: the scale grows, the tracker resets
  %v45 = arith.constant dense<256.0> : tensor<f32>
  %v46 = arith.constant dense<2> : tensor<i64>
  %v47 = arith.constant dense<true> : tensor<i1>
  %v48:2 = call @update(%v45, %v46, %v47) : (tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i64>)
  // CHECK: [512]
  %v49 = tensor.cast %v48#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v49) : (tensor<*xf32>) -> ()
  // CHECK: [0]
  %v50 = tensor.cast %v48#1 : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%v50) : (tensor<*xi64>) -> ()
  // (512, 0, finite=0): overflow: backoff, the tracker resets
  %v51 = arith.constant dense<512.0> : tensor<f32>
  %v52 = arith.constant dense<0> : tensor<i64>
  %v53 = arith.constant dense<false> : tensor<i1>
  %v54:2 = call @update(%v51, %v52, %v53) : (tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i64>)
  // CHECK: [256]
  %v55 = tensor.cast %v54#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v55) : (tensor<*xf32>) -> ()
  // CHECK: [0]
  %v56 = tensor.cast %v54#1 : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%v56) : (tensor<*xi64>) -> ()
  // (256, 2, finite=0): overflow in the middle of a run
  %v57 = arith.constant dense<256.0> : tensor<f32>
  %v58 = arith.constant dense<2> : tensor<i64>
  %v59 = arith.constant dense<false> : tensor<i1>
  %v60:2 = call @update(%v57, %v58, %v59) : (tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i64>)
  // CHECK: [128]
  %v61 = tensor.cast %v60#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v61) : (tensor<*xf32>) -> ()
  // CHECK: [0]
  %v62 = tensor.cast %v60#1 : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%v62) : (tensor<*xi64>) -> ()
  // (1024, 2, finite=1): growth past max_scale clamps to 1024
  %v63 = arith.constant dense<1024.0> : tensor<f32>
  %v64 = arith.constant dense<2> : tensor<i64>
  %v65 = arith.constant dense<true> : tensor<i1>
  %v66:2 = call @update(%v63, %v64, %v65) : (tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i64>)
  // CHECK: [1024]
  %v67 = tensor.cast %v66#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v67) : (tensor<*xf32>) -> ()
  // CHECK: [0]
  %v68 = tensor.cast %v66#1 : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%v68) : (tensor<*xi64>) -> ()
  // (1, 1, finite=0): backoff below min_scale clamps to 1
  %v69 = arith.constant dense<1.0> : tensor<f32>
  %v70 = arith.constant dense<1> : tensor<i64>
  %v71 = arith.constant dense<false> : tensor<i1>
  %v72:2 = call @update(%v69, %v70, %v71) : (tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i64>)
  // CHECK: [1]
  %v73 = tensor.cast %v72#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v73) : (tensor<*xf32>) -> ()
  // CHECK: [0]
  %v74 = tensor.cast %v72#1 : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%v74) : (tensor<*xi64>) -> ()
  // Defaults (interval 2000) with an i32 tracker: the 2000th clean step grows.
  %v75 = arith.constant dense<65536.0> : tensor<f32>
  %v76 = arith.constant dense<1999> : tensor<i32>
  %v77 = arith.constant dense<true> : tensor<i1>
  %v78:2 = call @update_default_i32(%v75, %v76, %v77) : (tensor<f32>, tensor<i32>, tensor<i1>) -> (tensor<f32>, tensor<i32>)
  // CHECK: [131072]
  %v79 = tensor.cast %v78#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v79) : (tensor<*xf32>) -> ()
  // CHECK: [0]
  %v80 = tensor.cast %v78#1 : tensor<i32> to tensor<*xi32>
  call @printMemrefI32(%v80) : (tensor<*xi32>) -> ()
  return
}
