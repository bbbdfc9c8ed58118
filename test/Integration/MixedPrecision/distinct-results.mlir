// A step that returns one value as two results (a step counter as the next
// state and as a metric, the loss under two names), an argument unchanged and
// a constant, compiled with the CPU pipeline and run: every result holds its
// own correct value. Before mpt-distinct-results the pipeline crashed in
// buffer-results-to-out-params.
//
// RUN: mpt-opt %s --mpt-lower-to-cpu \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @step(%count: tensor<i64>, %x: tensor<3xf32>, %kept: tensor<3xf32>)
    -> (tensor<i64>, tensor<i64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %one = arith.constant dense<1> : tensor<i64>
  %next = arith.addi %count, %one : tensor<i64>
  %half = arith.constant dense<[0.5, 0.25, -2.0]> : tensor<3xf32>
  %loss = arith.mulf %x, %half : tensor<3xf32>
  return %next, %next, %loss, %loss, %kept, %half
      : tensor<i64>, tensor<i64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

func.func @main() {
  %count = arith.constant dense<41> : tensor<i64>
  %x = arith.constant dense<[2.0, 8.0, 1.5]> : tensor<3xf32>
  %kept = arith.constant dense<[7.0, -1.0, 3.0]> : tensor<3xf32>
  %n0, %n1, %l0, %l1, %k, %h = func.call @step(%count, %x, %kept)
      : (tensor<i64>, tensor<3xf32>, tensor<3xf32>)
      -> (tensor<i64>, tensor<i64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  // CHECK: [42]
  // CHECK: [42]
  // CHECK: [1,  2,  -3]
  // CHECK: [1,  2,  -3]
  // CHECK: [7,  -1,  3]
  // CHECK: [0.5,  0.25,  -2]
  %n0u = tensor.cast %n0 : tensor<i64> to tensor<*xi64>
  %n1u = tensor.cast %n1 : tensor<i64> to tensor<*xi64>
  %l0u = tensor.cast %l0 : tensor<3xf32> to tensor<*xf32>
  %l1u = tensor.cast %l1 : tensor<3xf32> to tensor<*xf32>
  %ku = tensor.cast %k : tensor<3xf32> to tensor<*xf32>
  %hu = tensor.cast %h : tensor<3xf32> to tensor<*xf32>
  call @printMemrefI64(%n0u) : (tensor<*xi64>) -> ()
  call @printMemrefI64(%n1u) : (tensor<*xi64>) -> ()
  call @printMemrefF32(%l0u) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%l1u) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%ku) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%hu) : (tensor<*xf32>) -> ()
  return
}
