// Driver of ../unscale-at-boundary.mlir: runs the rewritten @train_step with
// the scale 1024, then with 3e38, and prints w', m', the loss and `skipped`.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)

func.func @run(%scale: tensor<f32>) {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  %m = arith.constant dense<1.0> : tensor<2x2xf32>
  %x = arith.constant dense<[[1.0, 3.0]]> : tensor<1x2xf32>
  %y = arith.constant dense<0> : tensor<1xi32>
  %r:8 = call @train_step(%w, %m, %x, %y, %scale)
      : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>, tensor<1xi32>, tensor<f32>)
      -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i1>, tensor<i64>, tensor<i64>)
  %w2 = tensor.cast %r#0 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%w2) : (tensor<*xf32>) -> ()
  %m2 = tensor.cast %r#1 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%m2) : (tensor<*xf32>) -> ()
  %loss = tensor.cast %r#2 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%loss) : (tensor<*xf32>) -> ()
  %skipped = arith.extui %r#5 : tensor<i1> to tensor<i32>
  %sk = tensor.cast %skipped : tensor<i32> to tensor<*xi32>
  call @printMemrefI32(%sk) : (tensor<*xi32>) -> ()
  return
}

func.func @main() {
  // CHECK:      [0.75,   0.5],
  // CHECK-NEXT: [1.25,   0.5]]
  // CHECK:      [0.5,   1.5],
  // CHECK-NEXT: [-0.5,   2.5]]
  // CHECK:      [0.693147]
  // CHECK:      [0]
  %s = arith.constant dense<1024.0> : tensor<f32>
  call @run(%s) : (tensor<f32>) -> ()
  // Overflow: skipped, w and m unchanged.
  // CHECK:      [1,   1],
  // CHECK-NEXT: [1,   1]]
  // CHECK:      [1,   1],
  // CHECK-NEXT: [1,   1]]
  // CHECK:      [0.693147]
  // CHECK:      [1]
  %huge = arith.constant dense<3.0e38> : tensor<f32>
  call @run(%huge) : (tensor<f32>) -> ()
  return
}
