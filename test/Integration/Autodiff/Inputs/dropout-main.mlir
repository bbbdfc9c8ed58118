// The @main of ../dropout.test: for the step mpt-autodiff built (SGD with
// lr 1, so the gradient is x - the updated x), prints <gradient, t> and
// (L(x + eps t) - L(x - eps t)) / (2 eps), every call at the same counter.
func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %x = arith.constant dense<[[2.887104e-01, 1.032585e+00, -1.501571e+00, -1.128526e+00, 3.283103e-01, 1.927328e+00, -8.000620e-01, -1.965205e+00], [1.018714e+00, -4.894315e-01, 1.434910e+00, 1.040220e+00, -3.824029e-01, -4.421637e-01, 1.001595e+00, -2.133451e-01], [-1.345823e+00, -1.264060e+00, -3.808991e-01, -7.163118e-01, -1.750113e-01, 3.822476e-01, -6.304291e-01, -1.015647e+00], [1.581471e+00, 9.929558e-01, -8.573010e-01, -8.544961e-01, 3.111628e-01, 5.125726e-01, -1.264170e+00, 9.211787e-01], [-7.426120e-02, -7.378967e-01, -2.568603e-01, -1.187399e+00, 1.354766e+00, 7.247750e-02, 6.960730e-01, -7.678248e-02], [-2.242435e+00, 4.717102e-01, 9.955261e-01, 1.584193e+00, -6.128111e-01, 5.853573e-01, 1.012591e-01, -1.534903e+00]]> : tensor<6x8xf32>
  %t = arith.constant dense<[[9.789923e-01, -1.078232e+00, 1.863728e+00, -1.549941e-01, 6.636962e-02, 9.942817e-01, 7.283347e-01, 4.117591e-03], [1.653181e-01, -3.211060e-01, -2.284142e+00, -6.179320e-01, -2.343051e+00, 9.083705e-02, 5.877802e-01, -9.496646e-01], [1.631332e+00, 1.164087e+00, 7.095321e-02, -2.288706e-01, -5.939841e-01, 8.982256e-01, -1.322554e-01, 8.736086e-01], [-1.321102e-01, -9.016873e-01, -9.551910e-01, -2.554287e+00, 1.582353e+00, 3.161633e-01, 8.046890e-01, 9.588245e-01], [1.761026e+00, 1.845170e-01, -1.949215e+00, -5.420956e-01, 2.320446e-01, -6.883726e-01, -1.283972e+00, 3.966842e-01], [-1.775452e+00, 1.411579e+00, -1.216519e+00, -1.313639e+00, -6.549479e-01, 2.750652e-01, -8.797815e-01, -8.138963e-01]]> : tensor<6x8xf32>
  %eps = arith.constant dense<1.0e-02> : tensor<6x8xf32>
  %inv2eps = arith.constant dense<5.0e+01> : tensor<f32>
  %counter = arith.constant dense<5> : tensor<i64>
  %r:3 = call @train_step(%x, %counter) : (tensor<6x8xf32>, tensor<i64>) -> (tensor<f32>, tensor<6x8xf32>, tensor<i64>)
  %g = arith.subf %x, %r#1 : tensor<6x8xf32>
  %gt = arith.mulf %g, %t : tensor<6x8xf32>
  %vjp = mpt.reduce_sum %gt [0, 1] : tensor<6x8xf32> -> tensor<f32>
  %d = arith.mulf %eps, %t : tensor<6x8xf32>
  %xp = arith.addf %x, %d : tensor<6x8xf32>
  %xm = arith.subf %x, %d : tensor<6x8xf32>
  %rp:3 = call @train_step(%xp, %counter) : (tensor<6x8xf32>, tensor<i64>) -> (tensor<f32>, tensor<6x8xf32>, tensor<i64>)
  %rm:3 = call @train_step(%xm, %counter) : (tensor<6x8xf32>, tensor<i64>) -> (tensor<f32>, tensor<6x8xf32>, tensor<i64>)
  %dl = arith.subf %rp#0, %rm#0 : tensor<f32>
  %fd = arith.mulf %dl, %inv2eps : tensor<f32>
  %pv = tensor.cast %vjp : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%pv) : (tensor<*xf32>) -> ()
  %pf = tensor.cast %fd : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%pf) : (tensor<*xf32>) -> ()
  return
}
