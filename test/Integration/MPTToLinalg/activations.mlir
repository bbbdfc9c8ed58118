// Runs the activations, bias_add, reduce_sum and the shape ops lowered to
// linalg on the CPU. f16/bf16 gelu and gelu_grad compute in f32 and round
// their result once, as PyTorch's kernels do: the expected f16/bf16 values are
// PyTorch's f32 kernels rounded to the type (Inputs/gelu_reference.py), the
// f32 ones a NumPy transcription of PyTorch's formulas.
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

func.func @gelu_erf_f32(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = mpt.gelu %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func @gelu_grad_erf_f32(%g: tensor<8xf32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %dx = mpt.gelu_grad %g, %x : tensor<8xf32>
  return %dx : tensor<8xf32>
}

func.func @gelu_tanh_f32(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = mpt.gelu %x {approximate} : tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func @gelu_grad_tanh_f32(%g: tensor<8xf32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %dx = mpt.gelu_grad %g, %x {approximate} : tensor<8xf32>
  return %dx : tensor<8xf32>
}

func.func @gelu_erf_f16(%x: tensor<8xf16>) -> tensor<8xf16> {
  %y = mpt.gelu %x : tensor<8xf16>
  return %y : tensor<8xf16>
}
func.func @gelu_grad_erf_f16(%g: tensor<8xf16>, %x: tensor<8xf16>) -> tensor<8xf16> {
  %dx = mpt.gelu_grad %g, %x : tensor<8xf16>
  return %dx : tensor<8xf16>
}

func.func @gelu_tanh_f16(%x: tensor<8xf16>) -> tensor<8xf16> {
  %y = mpt.gelu %x {approximate} : tensor<8xf16>
  return %y : tensor<8xf16>
}
func.func @gelu_grad_tanh_f16(%g: tensor<8xf16>, %x: tensor<8xf16>) -> tensor<8xf16> {
  %dx = mpt.gelu_grad %g, %x {approximate} : tensor<8xf16>
  return %dx : tensor<8xf16>
}

func.func @gelu_erf_bf16(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %y = mpt.gelu %x : tensor<8xbf16>
  return %y : tensor<8xbf16>
}
func.func @gelu_grad_erf_bf16(%g: tensor<8xbf16>, %x: tensor<8xbf16>) -> tensor<8xbf16> {
  %dx = mpt.gelu_grad %g, %x : tensor<8xbf16>
  return %dx : tensor<8xbf16>
}

func.func @gelu_tanh_bf16(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %y = mpt.gelu %x {approximate} : tensor<8xbf16>
  return %y : tensor<8xbf16>
}
func.func @gelu_grad_tanh_bf16(%g: tensor<8xbf16>, %x: tensor<8xbf16>) -> tensor<8xbf16> {
  %dx = mpt.gelu_grad %g, %x {approximate} : tensor<8xbf16>
  return %dx : tensor<8xbf16>
}

func.func @relu(%x: tensor<6xf32>) -> tensor<6xf32> {
  %y = mpt.relu %x : tensor<6xf32>
  return %y : tensor<6xf32>
}
func.func @relu_grad(%g: tensor<6xf32>, %x: tensor<6xf32>) -> tensor<6xf32> {
  %dx = mpt.relu_grad %g, %x : tensor<6xf32>
  return %dx : tensor<6xf32>
}
func.func @bias_add_f16(%x: tensor<2x3xf16>, %b: tensor<3xf16>) -> tensor<2x3xf16> {
  %y = mpt.bias_add %x, %b : tensor<2x3xf16>, tensor<3xf16>
  return %y : tensor<2x3xf16>
}
func.func @bias_add_axis0(%x: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  %y = mpt.bias_add %x, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<2xf32>
  return %y : tensor<2x3xf32>
}
func.func @reduce_sum_keep(%x: tensor<2x3x2xf16>) -> tensor<1x3x1xf32> {
  %s = mpt.reduce_sum %x [0, 2] {keep_dims} : tensor<2x3x2xf16> -> tensor<1x3x1xf32>
  return %s : tensor<1x3x1xf32>
}
func.func @reduce_sum_all_f16(%x: tensor<2x3x2xf16>) -> tensor<f16> {
  %s = mpt.reduce_sum %x [0, 1, 2] : tensor<2x3x2xf16> -> tensor<f16>
  return %s : tensor<f16>
}
func.func @transpose(%x: tensor<2x3x2xf32>) -> tensor<2x2x3xf32> {
  %t = mpt.transpose %x [2, 0, 1] : tensor<2x3x2xf32> -> tensor<2x2x3xf32>
  return %t : tensor<2x2x3xf32>
}
func.func @reshape(%x: tensor<2x3x2xf32>) -> tensor<3x4xf32> {
  %r = mpt.reshape %x : tensor<2x3x2xf32> -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

func.func @main() {
  %v1 = arith.constant dense<[-3.0, -1.0, -0.5, -0.0, 0.5, 1.0, 2.0, 3.5]> : tensor<8xf32>
  %v2 = arith.constant dense<[1.0, 2.0, -1.0, 0.5, 1.0, 1.0, 3.0, -2.0]> : tensor<8xf32>
  // gelu erf_f32
  // CHECK: [-0.00404969, -0.158655, -0.154269, -0, 0.345731, 0.841345, 1.9545, 3.49919]
  %v3 = call @gelu_erf_f32(%v1) : (tensor<8xf32>) -> tensor<8xf32>
  %v4 = tensor.cast %v3 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v4) : (tensor<*xf32>) -> ()
  // CHECK: [-0.0119456, -0.166631, -0.132505, 0.25, 0.867495, 1.08332, 3.2557, -2.00564]
  %v5 = call @gelu_grad_erf_f32(%v2, %v1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %v6 = tensor.cast %v5 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v6) : (tensor<*xf32>) -> ()
  %v7 = arith.constant dense<[-3.0, -1.0, -0.5, -0.0, 0.5, 1.0, 2.0, 3.5]> : tensor<8xf32>
  %v8 = arith.constant dense<[1.0, 2.0, -1.0, 0.5, 1.0, 1.0, 3.0, -2.0]> : tensor<8xf32>
  // gelu tanh_f32
  // CHECK: [-0.00363743, -0.158808, -0.154286, -0, 0.345714, 0.841192, 1.9546, 3.49938]
  %v9 = call @gelu_tanh_f32(%v7) : (tensor<8xf32>) -> tensor<8xf32>
  %v10 = tensor.cast %v9 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v10) : (tensor<*xf32>) -> ()
  // CHECK: [-0.0115842, -0.165928, -0.13263, 0.25, 0.86737, 1.08296, 3.2583, -2.00484]
  %v11 = call @gelu_grad_tanh_f32(%v8, %v7) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %v12 = tensor.cast %v11 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v12) : (tensor<*xf32>) -> ()
  %v13 = arith.constant dense<[-3.0, -1.0, -0.5, -0.0, 0.5, 1.0, 2.0, 3.5]> : tensor<8xf16>
  %v14 = arith.constant dense<[1.0, 2.0, -1.0, 0.5, 1.0, 1.0, 3.0, -2.0]> : tensor<8xf16>
  // gelu erf_f16
  // CHECK: [-0.00405121, -0.158691, -0.154297, -0, 0.345703, 0.841309, 1.9541, 3.5]
  %v15 = call @gelu_erf_f16(%v13) : (tensor<8xf16>) -> tensor<8xf16>
  %v16 = arith.extf %v15 : tensor<8xf16> to tensor<8xf32>
  %v17 = tensor.cast %v16 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v17) : (tensor<*xf32>) -> ()
  // CHECK: [-0.0119476, -0.166626, -0.132446, 0.25, 0.867676, 1.08301, 3.25586, -2.00586]
  %v18 = call @gelu_grad_erf_f16(%v14, %v13) : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  %v19 = arith.extf %v18 : tensor<8xf16> to tensor<8xf32>
  %v20 = tensor.cast %v19 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v20) : (tensor<*xf32>) -> ()
  %v21 = arith.constant dense<[-3.0, -1.0, -0.5, -0.0, 0.5, 1.0, 2.0, 3.5]> : tensor<8xf16>
  %v22 = arith.constant dense<[1.0, 2.0, -1.0, 0.5, 1.0, 1.0, 3.0, -2.0]> : tensor<8xf16>
  // gelu tanh_f16
  // CHECK: [-0.00363731, -0.158813, -0.154297, -0, 0.345703, 0.841309, 1.95508, 3.5]
  %v23 = call @gelu_tanh_f16(%v21) : (tensor<8xf16>) -> tensor<8xf16>
  %v24 = arith.extf %v23 : tensor<8xf16> to tensor<8xf32>
  %v25 = tensor.cast %v24 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v25) : (tensor<*xf32>) -> ()
  // CHECK: [-0.0115814, -0.165894, -0.13269, 0.25, 0.867188, 1.08301, 3.25781, -2.00391]
  %v26 = call @gelu_grad_tanh_f16(%v22, %v21) : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  %v27 = arith.extf %v26 : tensor<8xf16> to tensor<8xf32>
  %v28 = tensor.cast %v27 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v28) : (tensor<*xf32>) -> ()
  %v29 = arith.constant dense<[-3.0, -1.0, -0.5, -0.0, 0.5, 1.0, 2.0, 3.5]> : tensor<8xbf16>
  %v30 = arith.constant dense<[1.0, 2.0, -1.0, 0.5, 1.0, 1.0, 3.0, -2.0]> : tensor<8xbf16>
  // gelu erf_bf16
  // CHECK: [-0.00405884, -0.158203, -0.154297, -0, 0.345703, 0.839844, 1.95312, 3.5]
  %v31 = call @gelu_erf_bf16(%v29) : (tensor<8xbf16>) -> tensor<8xbf16>
  %v32 = arith.extf %v31 : tensor<8xbf16> to tensor<8xf32>
  %v33 = tensor.cast %v32 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v33) : (tensor<*xf32>) -> ()
  // CHECK: [-0.0119629, -0.166992, -0.132812, 0.25, 0.867188, 1.08594, 3.25, -2]
  %v34 = call @gelu_grad_erf_bf16(%v30, %v29) : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
  %v35 = arith.extf %v34 : tensor<8xbf16> to tensor<8xf32>
  %v36 = tensor.cast %v35 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v36) : (tensor<*xf32>) -> ()
  %v37 = arith.constant dense<[-3.0, -1.0, -0.5, -0.0, 0.5, 1.0, 2.0, 3.5]> : tensor<8xbf16>
  %v38 = arith.constant dense<[1.0, 2.0, -1.0, 0.5, 1.0, 1.0, 3.0, -2.0]> : tensor<8xbf16>
  // gelu tanh_bf16
  // CHECK: [-0.00363159, -0.15918, -0.154297, -0, 0.345703, 0.839844, 1.95312, 3.5]
  %v39 = call @gelu_tanh_bf16(%v37) : (tensor<8xbf16>) -> tensor<8xbf16>
  %v40 = arith.extf %v39 : tensor<8xbf16> to tensor<8xf32>
  %v41 = tensor.cast %v40 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v41) : (tensor<*xf32>) -> ()
  // CHECK: [-0.0115967, -0.166016, -0.132812, 0.25, 0.867188, 1.08594, 3.26562, -2]
  %v42 = call @gelu_grad_tanh_bf16(%v38, %v37) : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
  %v43 = arith.extf %v42 : tensor<8xbf16> to tensor<8xf32>
  %v44 = tensor.cast %v43 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%v44) : (tensor<*xf32>) -> ()
  
  // relu keeps NaN (so the overflow check sees it); relu_grad passes the
  // gradient where the input is > 0 or NaN.
  %v45 = arith.constant dense<[-2.0, -0.0, 0.0, 3.0, 0x7FC00000, 0x7F800000]> : tensor<6xf32>
  %v46 = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  // CHECK: [0, 0, 0, 3, nan, inf]
  %v47 = call @relu(%v45) : (tensor<6xf32>) -> tensor<6xf32>
  %v48 = tensor.cast %v47 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%v48) : (tensor<*xf32>) -> ()
  // CHECK: [0, 0, 0, 4, 5, 6]
  %v49 = call @relu_grad(%v46, %v45) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %v50 = tensor.cast %v49 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%v50) : (tensor<*xf32>) -> ()
  
  // f16 bias add rounds like the hardware: 2048 + 1 = 2048, 2048 + 3 = 2052.
  %v51 = arith.constant dense<[[2048.0, 2048.0, 0.5], [1.0, 2.0, 65504.0]]> : tensor<2x3xf16>
  %v52 = arith.constant dense<[1.0, 3.0, 0.25]> : tensor<3xf16>
  // CHECK: [2048, 2052, 0.75, 2, 5, 65504]
  %v53 = call @bias_add_f16(%v51, %v52) : (tensor<2x3xf16>, tensor<3xf16>) -> tensor<2x3xf16>
  %v54 = arith.extf %v53 : tensor<2x3xf16> to tensor<2x3xf32>
  %v55 = tensor.collapse_shape %v54 [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %v56 = tensor.cast %v55 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%v56) : (tensor<*xf32>) -> ()
  %v57 = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %v58 = arith.constant dense<[10.0, 20.0]> : tensor<2xf32>
  // CHECK: [11, 12, 13, 24, 25, 26]
  %v59 = call @bias_add_axis0(%v57, %v58) : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  %v60 = tensor.collapse_shape %v59 [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %v61 = tensor.cast %v60 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%v61) : (tensor<*xf32>) -> ()
  
  // reduce_sum accumulates f16 input in f32: 2048 + 1 + 1 + 1 + 1 + 0.5.
  %v62 = arith.constant dense<[[[2048.0, 1.0], [1.0, 2.0], [3.0, 4.0]], [[1.0, 1.0], [5.0, 6.0], [7.0, 8.0]]]> : tensor<2x3x2xf16>
  // CHECK: sizes = [3]
  // CHECK-NEXT: [2051, 14, 22]
  %v63 = call @reduce_sum_keep(%v62) : (tensor<2x3x2xf16>) -> tensor<1x3x1xf32>
  %v64 = tensor.collapse_shape %v63 [[0, 1, 2]] : tensor<1x3x1xf32> into tensor<3xf32>
  %v65 = tensor.cast %v64 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v65) : (tensor<*xf32>) -> ()
  // 2087.0 = 2088.0 in f16 (f16 partial sums would give 2080).
  // CHECK: [2088]
  %v66 = call @reduce_sum_all_f16(%v62) : (tensor<2x3x2xf16>) -> tensor<f16>
  %v67 = arith.extf %v66 : tensor<f16> to tensor<f32>
  %v68 = tensor.cast %v67 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%v68) : (tensor<*xf32>) -> ()
  
  %v69 = arith.constant dense<[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], [[6.0, 7.0], [8.0, 9.0], [10.0, 11.0]]]> : tensor<2x3x2xf32>
  // CHECK: [0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11]
  %v70 = call @transpose(%v69) : (tensor<2x3x2xf32>) -> tensor<2x2x3xf32>
  %v71 = tensor.collapse_shape %v70 [[0, 1, 2]] : tensor<2x2x3xf32> into tensor<12xf32>
  %v72 = tensor.cast %v71 : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%v72) : (tensor<*xf32>) -> ()
  // CHECK: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
  %v73 = call @reshape(%v69) : (tensor<2x3x2xf32>) -> tensor<3x4xf32>
  %v74 = tensor.collapse_shape %v73 [[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
  %v75 = tensor.cast %v74 : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%v75) : (tensor<*xf32>) -> ()
  return
}
