// Runs batch_norm (training, with running statistics), batch_norm_grad,
// batch_norm_inference, layer_norm and layer_norm_grad lowered to linalg on
// the CPU, for f32 activations and for f16 activations with f32 statistics.
// Inputs are small integers so that every sum is exact; the expected values
// are an f32 transcription of PyTorch's formulas (checked in float64 against
// the definitions and finite differences) with the lowering's order of ops.
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

func.func @bn_nchw(%x: tensor<2x3x2x2xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>)
    -> (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm, %rv {momentum = 0.1 : f32, epsilon = 1.000000e-05 : f32} : tensor<2x3x2x2xf32>, tensor<3xf32>
  return %y, %mean, %invstd, %rm2, %rv2 : tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
func.func @bn_grad_nchw(%dy: tensor<2x3x2x2xf32>, %x: tensor<2x3x2x2xf32>, %g: tensor<3xf32>, %mean: tensor<3xf32>, %invstd: tensor<3xf32>) -> (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>) {
  %dx, %dg, %db = mpt.batch_norm_grad %dy, %x, %g, %mean, %invstd : tensor<2x3x2x2xf32>, tensor<3xf32>
  return %dx, %dg, %db : tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>
}
func.func @bn_inference_nchw(%x: tensor<2x3x2x2xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x2x2xf32> {
  %y = mpt.batch_norm_inference %x, %g, %b, %m, %v {epsilon = 1.000000e-05 : f32} : tensor<2x3x2x2xf32>, tensor<3xf32>
  return %y : tensor<2x3x2x2xf32>
}

func.func @bn_nc(%x: tensor<4x2xf32>, %g: tensor<2xf32>, %b: tensor<2xf32>, %rm: tensor<2xf32>, %rv: tensor<2xf32>)
    -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm, %rv {momentum = 0.25 : f32, epsilon = 1.000000e-03 : f32} : tensor<4x2xf32>, tensor<2xf32>
  return %y, %mean, %invstd, %rm2, %rv2 : tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
func.func @bn_grad_nc(%dy: tensor<4x2xf32>, %x: tensor<4x2xf32>, %g: tensor<2xf32>, %mean: tensor<2xf32>, %invstd: tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %dx, %dg, %db = mpt.batch_norm_grad %dy, %x, %g, %mean, %invstd : tensor<4x2xf32>, tensor<2xf32>
  return %dx, %dg, %db : tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>
}
func.func @bn_inference_nc(%x: tensor<4x2xf32>, %g: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<4x2xf32> {
  %y = mpt.batch_norm_inference %x, %g, %b, %m, %v {epsilon = 1.000000e-03 : f32} : tensor<4x2xf32>, tensor<2xf32>
  return %y : tensor<4x2xf32>
}

func.func @bn_nchw_f16(%x: tensor<2x2x2x2xf16>, %g: tensor<2xf32>, %b: tensor<2xf32>, %rm: tensor<2xf32>, %rv: tensor<2xf32>)
    -> (tensor<2x2x2x2xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %y, %mean, %invstd, %rm2, %rv2 = mpt.batch_norm %x, %g, %b, %rm, %rv {momentum = 0.1 : f32, epsilon = 1.000000e-05 : f32} : tensor<2x2x2x2xf16>, tensor<2xf32>
  return %y, %mean, %invstd, %rm2, %rv2 : tensor<2x2x2x2xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
func.func @bn_grad_nchw_f16(%dy: tensor<2x2x2x2xf16>, %x: tensor<2x2x2x2xf16>, %g: tensor<2xf32>, %mean: tensor<2xf32>, %invstd: tensor<2xf32>) -> (tensor<2x2x2x2xf16>, tensor<2xf32>, tensor<2xf32>) {
  %dx, %dg, %db = mpt.batch_norm_grad %dy, %x, %g, %mean, %invstd : tensor<2x2x2x2xf16>, tensor<2xf32>
  return %dx, %dg, %db : tensor<2x2x2x2xf16>, tensor<2xf32>, tensor<2xf32>
}
func.func @bn_inference_nchw_f16(%x: tensor<2x2x2x2xf16>, %g: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<2x2x2x2xf16> {
  %y = mpt.batch_norm_inference %x, %g, %b, %m, %v {epsilon = 1.000000e-05 : f32} : tensor<2x2x2x2xf16>, tensor<2xf32>
  return %y : tensor<2x2x2x2xf16>
}

func.func @ln_3d(%x: tensor<2x2x4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<2x2x4xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %y, %mean, %invstd = mpt.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f32} : tensor<2x2x4xf32>, tensor<4xf32> -> tensor<2x2xf32>
  return %y, %mean, %invstd : tensor<2x2x4xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
func.func @ln_grad_3d(%dy: tensor<2x2x4xf32>, %x: tensor<2x2x4xf32>, %g: tensor<4xf32>, %mean: tensor<2x2xf32>, %invstd: tensor<2x2xf32>) -> (tensor<2x2x4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %dx, %dg, %db = mpt.layer_norm_grad %dy, %x, %g, %mean, %invstd : tensor<2x2x4xf32>, tensor<4xf32>, tensor<2x2xf32>
  return %dx, %dg, %db : tensor<2x2x4xf32>, tensor<4xf32>, tensor<4xf32>
}

func.func @ln_2d_f16(%x: tensor<3x4xf16>, %g: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<3x4xf16>, tensor<3xf32>, tensor<3xf32>) {
  %y, %mean, %invstd = mpt.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f32} : tensor<3x4xf16>, tensor<4xf32> -> tensor<3xf32>
  return %y, %mean, %invstd : tensor<3x4xf16>, tensor<3xf32>, tensor<3xf32>
}
func.func @ln_grad_2d_f16(%dy: tensor<3x4xf16>, %x: tensor<3x4xf16>, %g: tensor<4xf32>, %mean: tensor<3xf32>, %invstd: tensor<3xf32>) -> (tensor<3x4xf16>, tensor<4xf32>, tensor<4xf32>) {
  %dx, %dg, %db = mpt.layer_norm_grad %dy, %x, %g, %mean, %invstd : tensor<3x4xf16>, tensor<4xf32>, tensor<3xf32>
  return %dx, %dg, %db : tensor<3x4xf16>, tensor<4xf32>, tensor<4xf32>
}

func.func @main() {
  // batch_norm nchw: tensor<2x3x2x2xf32>
  %v1 = arith.constant dense<[[[[-3.0, -3.0], [3.0, 0.0]], [[1.0, 1.0], [2.0, -4.0]], [[0.0, -3.0], [-1.0, 4.0]]], [[[0.0, -4.0], [0.0, -3.0]], [[2.0, 4.0], [4.0, 1.0]], [[3.0, -1.0], [-3.0, 0.0]]]]> : tensor<2x3x2x2xf32>
  %v2 = arith.constant dense<[2.0, 2.0, 3.0]> : tensor<3xf32>
  %v3 = arith.constant dense<[-1.0, 2.0, -2.0]> : tensor<3xf32>
  %v4 = arith.constant dense<[-1.0, 1.0, -1.0]> : tensor<3xf32>
  %v5 = arith.constant dense<[3.0, 2.0, 2.0]> : tensor<3xf32>
  %v6 = arith.constant dense<[[[[3.0, 2.0], [2.0, 0.0]], [[3.0, 3.0], [-3.0, -2.0]], [[-1.0, 0.0], [2.0, 0.0]]], [[[3.0, -1.0], [3.0, 1.0]], [[2.0, -2.0], [1.0, 2.0]], [[3.0, 3.0], [3.0, -3.0]]]]> : tensor<2x3x2x2xf32>
  %v7:5 = call @bn_nchw(%v1, %v2, %v3, %v4, %v5) : (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %v8:3 = call @bn_grad_nchw(%v6, %v1, %v2, %v7#1, %v7#2) : (tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
  // output
  // CHECK: [-2.57512, -2.57512, 2.82529, 0.125087, 1.67974, 1.67974, 2.53376, -2.59034, -1.84167, -5.64168, -3.10834, 3.22502, 0.125087, -3.47519, 0.125087, -2.57512, 2.53376, 4.24179, 4.24179, 1.67974, 1.95834, -3.10834, -5.64168, -1.84167]
  %v9 = tensor.collapse_shape %v7#0 [[0, 1, 2, 3]] : tensor<2x3x2x2xf32> into tensor<24xf32>
  %v10 = tensor.cast %v9 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%v10) : (tensor<*xf32>) -> ()
  // batch mean
  // CHECK: [-1.25, 1.375, -0.125]
  %v11 = tensor.cast %v7#1 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v11) : (tensor<*xf32>) -> ()
  // batch invstd
  // CHECK: [0.450035, 0.427008, 0.422223]
  %v12 = tensor.cast %v7#2 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v12) : (tensor<*xf32>) -> ()
  // new running mean
  // CHECK: [-1.025, 1.0375, -0.9125]
  %v13 = tensor.cast %v7#3 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v13) : (tensor<*xf32>) -> ()
  // new running var (unbiased batch var)
  // CHECK: [3.26429, 2.42679, 2.44107]
  %v14 = tensor.cast %v7#4 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v14) : (tensor<*xf32>) -> ()
  // input grad
  // CHECK: [1.56658, 0.666507, -0.461426, -1.6976, 2.16789, 2.16789, -3.0438, -1.66424, -2.36045, -1.44309, 1.32312, -0.628044, 1.00261, -1.84571, 1.00261, -0.233563, 1.22628, -2.36497, 0.197081, 1.31387, 3.05553, 2.58979, 2.35693, -4.89379]
  %v15 = tensor.collapse_shape %v8#0 [[0, 1, 2, 3]] : tensor<2x3x2x2xf32> into tensor<24xf32>
  %v16 = tensor.cast %v15 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%v16) : (tensor<*xf32>) -> ()
  // gamma grad
  // CHECK: [3.71279, 1.92154, -1.74167]
  %v17 = tensor.cast %v8#1 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v17) : (tensor<*xf32>) -> ()
  // beta grad
  // CHECK: [13, 4, 7]
  %v18 = tensor.cast %v8#2 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v18) : (tensor<*xf32>) -> ()
  // batch_norm_inference with the running statistics
  // CHECK: [-3.3094, -3.3094, 3.61879, 0.154699, 2, 2, 3.41421, -5.07105, 0.121315, -6.24263, -2, 8.60658, 0.154699, -4.4641, 0.154699, -3.3094, 3.41421, 6.24263, 6.24263, 2, 6.48526, -2, -6.24263, 0.121315]
  %v19 = call @bn_inference_nchw(%v1, %v2, %v3, %v4, %v5) : (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x2x2xf32>
  %v20 = tensor.collapse_shape %v19 [[0, 1, 2, 3]] : tensor<2x3x2x2xf32> into tensor<24xf32>
  %v21 = tensor.cast %v20 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%v21) : (tensor<*xf32>) -> ()
  
  // batch_norm nc: tensor<4x2xf32>
  %v22 = arith.constant dense<[[3.0, 0.0], [2.0, -2.0], [-4.0, -4.0], [4.0, 4.0]]> : tensor<4x2xf32>
  %v23 = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %v24 = arith.constant dense<[-1.0, -2.0]> : tensor<2xf32>
  %v25 = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %v26 = arith.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %v27 = arith.constant dense<[[0.0, 3.0], [3.0, -2.0], [1.0, -3.0], [-2.0, -2.0]]> : tensor<4x2xf32>
  %v28:5 = call @bn_nc(%v22, %v23, %v24, %v25, %v26) : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %v29:3 = call @bn_grad_nc(%v27, %v22, %v23, %v28#1, %v28#2) : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>)
  // output
  // CHECK: [-0.437775, -1.66196, -0.759047, -3.01413, -2.68667, -4.3663, -0.116504, 1.04238]
  %v30 = tensor.collapse_shape %v28#0 [[0, 1]] : tensor<4x2xf32> into tensor<8xf32>
  %v31 = tensor.cast %v30 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v31) : (tensor<*xf32>) -> ()
  // batch mean
  // CHECK: [1.25, -0.5]
  %v32 = tensor.cast %v28#1 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v32) : (tensor<*xf32>) -> ()
  // batch invstd
  // CHECK: [0.321271, 0.338042]
  %v33 = tensor.cast %v28#2 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v33) : (tensor<*xf32>) -> ()
  // new running mean
  // CHECK: [1.8125, 0.625]
  %v34 = tensor.cast %v28#3 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v34) : (tensor<*xf32>) -> ()
  // new running var (unbiased batch var)
  // CHECK: [3.97917, 3.66667]
  %v35 = tensor.cast %v28#4 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v35) : (tensor<*xf32>) -> ()
  // input grad
  // CHECK: [-0.0373216, 2.6464, 0.856027, -0.502254, -0.209306, -0.946565, -0.609399, -1.19758]
  %v36 = tensor.collapse_shape %v29#0 [[0, 1]] : tensor<4x2xf32> into tensor<8xf32>
  %v37 = tensor.cast %v36 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v37) : (tensor<*xf32>) -> ()
  // gamma grad
  // CHECK: [-2.7308, 2.02825]
  %v38 = tensor.cast %v29#1 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v38) : (tensor<*xf32>) -> ()
  // beta grad
  // CHECK: [2, -4]
  %v39 = tensor.cast %v29#2 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v39) : (tensor<*xf32>) -> ()
  // batch_norm_inference with the running statistics
  // CHECK: [-0.000499606, -3.999, -1, -7.997, -6.997, -11.995, 0.999001, 3.997]
  %v40 = call @bn_inference_nc(%v22, %v23, %v24, %v25, %v26) : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %v41 = tensor.collapse_shape %v40 [[0, 1]] : tensor<4x2xf32> into tensor<8xf32>
  %v42 = tensor.cast %v41 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v42) : (tensor<*xf32>) -> ()
  
  // batch_norm nchw_f16: tensor<2x2x2x2xf16>
  %v43 = arith.constant dense<[[[[-1.0, -1.0], [2.0, 0.0]], [[-1.0, 4.0], [1.0, 2.0]]], [[[2.0, -1.0], [4.0, -4.0]], [[-2.0, -3.0], [-4.0, 4.0]]]]> : tensor<2x2x2x2xf16>
  %v44 = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %v45 = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %v46 = arith.constant dense<[2.0, -2.0]> : tensor<2xf32>
  %v47 = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %v48 = arith.constant dense<[[[[-2.0, 2.0], [-3.0, 1.0]], [[-3.0, -1.0], [3.0, -1.0]]], [[[-1.0, -3.0], [2.0, -2.0]], [[0.0, -3.0], [-3.0, 2.0]]]]> : tensor<2x2x2x2xf16>
  %v49:5 = call @bn_nchw_f16(%v43, %v44, %v45, %v46, %v47) : (tensor<2x2x2x2xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2x2x2xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %v50:3 = call @bn_grad_nchw_f16(%v48, %v43, %v44, %v49#1, %v49#2) : (tensor<2x2x2x2xf16>, tensor<2x2x2x2xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2x2x2xf16>, tensor<2xf32>, tensor<2xf32>)
  // output
  // CHECK: [1.51367, 1.51367, 2.81055, 1.94629, 0.221802, 3.67969, 1.60547, 2.29688, 2.81055, 1.51367, 3.67383, 0.21814, -0.469971, -1.16211, -1.85352, 3.67969]
  %v51 = arith.extf %v49#0 : tensor<2x2x2x2xf16> to tensor<2x2x2x2xf32>
  %v52 = tensor.collapse_shape %v51 [[0, 1, 2, 3]] : tensor<2x2x2x2xf32> into tensor<16xf32>
  %v53 = tensor.cast %v52 : tensor<16xf32> to tensor<*xf32>
  call @printMemrefF32(%v53) : (tensor<*xf32>) -> ()
  // batch mean
  // CHECK: [0.125, 0.125]
  %v54 = tensor.cast %v49#1 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v54) : (tensor<*xf32>) -> ()
  // batch invstd
  // CHECK: [0.431959, 0.34587]
  %v55 = tensor.cast %v49#2 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v55) : (tensor<*xf32>) -> ()
  // new running mean
  // CHECK: [1.8125, -1.7875]
  %v56 = tensor.cast %v49#3 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v56) : (tensor<*xf32>) -> ()
  // new running var (unbiased batch var)
  // CHECK: [2.4125, 1.85536]
  %v57 = tensor.cast %v49#4 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v57) : (tensor<*xf32>) -> ()
  // input grad
  // CHECK: [-0.406738, 1.32129, -1.19434, 0.770508, -1.20996, -1.36523, 2.32422, -0.75, -0.329834, -0.838867, 0.729004, -0.0516357, 1.17285, -0.594727, -0.287109, 0.709961]
  %v58 = arith.extf %v50#0 : tensor<2x2x2x2xf16> to tensor<2x2x2x2xf32>
  %v59 = tensor.collapse_shape %v58 [[0, 1, 2, 3]] : tensor<2x2x2x2xf32> into tensor<16xf32>
  %v60 = tensor.cast %v59 : tensor<16xf32> to tensor<*xf32>
  call @printMemrefF32(%v60) : (tensor<*xf32>) -> ()
  // gamma grad
  // CHECK: [5.07552, 10.2896]
  %v61 = tensor.cast %v50#1 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v61) : (tensor<*xf32>) -> ()
  // beta grad
  // CHECK: [-6, -6]
  %v62 = tensor.cast %v50#2 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%v62) : (tensor<*xf32>) -> ()
  // batch_norm_inference with the running statistics
  // CHECK: [-0.121338, -0.121338, 2, 0.585938, 3, 13, 7, 9, 2, -0.121338, 3.41406, -2.24219, 1, -1, -3, 13]
  %v63 = call @bn_inference_nchw_f16(%v43, %v44, %v45, %v46, %v47) : (tensor<2x2x2x2xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2x2x2xf16>
  %v64 = arith.extf %v63 : tensor<2x2x2x2xf16> to tensor<2x2x2x2xf32>
  %v65 = tensor.collapse_shape %v64 [[0, 1, 2, 3]] : tensor<2x2x2x2xf32> into tensor<16xf32>
  %v66 = tensor.cast %v65 : tensor<16xf32> to tensor<*xf32>
  call @printMemrefF32(%v66) : (tensor<*xf32>) -> ()
  
  // layer_norm 3d: tensor<2x2x4xf32>
  %v67 = arith.constant dense<[[[-4.0, 0.0, -1.0, -3.0], [1.0, 2.0, 4.0, -3.0]], [[4.0, -4.0, -3.0, 1.0], [3.0, 4.0, 2.0, -4.0]]]> : tensor<2x2x4xf32>
  %v68 = arith.constant dense<[2.0, 3.0, 2.0, 1.0]> : tensor<4xf32>
  %v69 = arith.constant dense<[1.0, -2.0, 1.0, -2.0]> : tensor<4xf32>
  %v70 = arith.constant dense<[[[-1.0, -1.0, 3.0, 2.0], [1.0, 0.0, -1.0, 2.0]], [[3.0, -2.0, -2.0, -1.0], [0.0, -2.0, -1.0, 3.0]]]> : tensor<2x2x4xf32>
  %v71:3 = call @ln_3d(%v67, %v68, %v69) : (tensor<2x2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x2x4xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  %v72:3 = call @ln_grad_3d(%v70, %v67, %v68, %v71#1, %v71#2) : (tensor<2x2x4xf32>, tensor<2x2x4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  // output
  // CHECK: [-1.52982, 1.79473, 2.26491, -2.63245, 1, -0.823304, 3.35339, -3.56893, 3.81113, -5.27965, -0.561737, -1.53148, 2.12451, 0.650622, 1.48193, -3.68676]
  %v73 = tensor.collapse_shape %v71#0 [[0, 1, 2]] : tensor<2x2x4xf32> into tensor<16xf32>
  %v74 = tensor.cast %v73 : tensor<16xf32> to tensor<*xf32>
  call @printMemrefF32(%v74) : (tensor<*xf32>) -> ()
  // mean
  // CHECK: [-2, 1, -0.5, 1.25]
  %v75 = tensor.collapse_shape %v71#1 [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %v76 = tensor.cast %v75 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v76) : (tensor<*xf32>) -> ()
  // invstd
  // CHECK: [0.632454, 0.392232, 0.312347, 0.321288]
  %v77 = tensor.collapse_shape %v71#2 [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %v78 = tensor.cast %v77 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v78) : (tensor<*xf32>) -> ()
  // input grad
  // CHECK: [-1.48627, -2.62468, 3.19389, 0.917058, 0.588348, 0.0150855, -0.346975, -0.256458, 0.327586, 0.0228533, 0.217119, -0.567557, 0.891313, -0.756581, -0.0310926, -0.10364]
  %v79 = tensor.collapse_shape %v72#0 [[0, 1, 2]] : tensor<2x2x4xf32> into tensor<16xf32>
  %v80 = tensor.cast %v79 : tensor<16xf32> to tensor<*xf32>
  call @printMemrefF32(%v80) : (tensor<*xf32>) -> ()
  // gamma grad
  // CHECK: [5.4816, -0.845559, 2.04144, -9.93156]
  %v81 = tensor.cast %v72#1 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v81) : (tensor<*xf32>) -> ()
  // beta grad
  // CHECK: [3, -5, -1, 6]
  %v82 = tensor.cast %v72#2 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v82) : (tensor<*xf32>) -> ()
  
  // layer_norm 2d_f16: tensor<3x4xf16>
  %v83 = arith.constant dense<[[-1.0, 4.0, 0.0, -1.0], [4.0, -1.0, 2.0, -2.0], [4.0, 2.0, 3.0, -4.0]]> : tensor<3x4xf16>
  %v84 = arith.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %v85 = arith.constant dense<[2.0, -1.0, -2.0, 2.0]> : tensor<4xf32>
  %v86 = arith.constant dense<[[-1.0, 2.0, -1.0, 0.0], [-3.0, 1.0, 3.0, 1.0], [3.0, 2.0, 0.0, 3.0]]> : tensor<3x4xf16>
  %v87:3 = call @ln_2d_f16(%v83, %v84, %v85) : (tensor<3x4xf16>, tensor<4xf32>, tensor<4xf32>) -> (tensor<3x4xf16>, tensor<3xf32>, tensor<3xf32>)
  %v88:3 = call @ln_grad_2d_f16(%v86, %v83, %v84, %v87#1, %v87#2) : (tensor<3x4xf16>, tensor<3x4xf16>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3x4xf16>, tensor<4xf32>, tensor<4xf32>)
  // output
  // CHECK: [1.27246, 0.697754, -2.48438, 0.544922, 3.36328, -1.7334, -0.95166, -0.306152, 2.88281, -0.759277, -0.875488, -1.37305]
  %v89 = arith.extf %v87#0 : tensor<3x4xf16> to tensor<3x4xf32>
  %v90 = tensor.collapse_shape %v89 [[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
  %v91 = tensor.cast %v90 : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%v91) : (tensor<*xf32>) -> ()
  // mean
  // CHECK: [0.5, 0.75, 1.25]
  %v92 = tensor.cast %v87#1 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v92) : (tensor<*xf32>) -> ()
  // invstd
  // CHECK: [0.485071, 0.419314, 0.321288]
  %v93 = tensor.cast %v87#2 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v93) : (tensor<*xf32>) -> ()
  // input grad
  // CHECK: [0.0427856, 0.1427, -0.713379, 0.527832, -1.31738, -0.516113, 2.10547, -0.271973, 0.576172, -0.105713, -0.567871, 0.0974121]
  %v94 = arith.extf %v88#0 : tensor<3x4xf16> to tensor<3x4xf32>
  %v95 = tensor.collapse_shape %v94 [[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
  %v96 = tensor.cast %v95 : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%v96) : (tensor<*xf32>) -> ()
  // gamma grad
  // CHECK: [-0.710079, 3.14363, 1.81496, -6.21339]
  %v97 = tensor.cast %v88#1 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v97) : (tensor<*xf32>) -> ()
  // beta grad
  // CHECK: [-1, 5, 2, 4]
  %v98 = tensor.cast %v88#2 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%v98) : (tensor<*xf32>) -> ()
  
  return
}
