// Counts the zeros and the non-finite elements of a gradient into two step
// results (0-d out-parameters), as the loss scaler's gradient statistics do.
func.func @gradient_counts(%grad: memref<256x784xf32>, %zeros: memref<i64>, %nonfinite: memref<i64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%grad : memref<256x784xf32>) outs(%zeros, %nonfinite : memref<i64>, memref<i64>) {
  ^bb0(%g: f32, %zero_count: i64, %nonfinite_count: i64):
    %zero = arith.constant 0.0 : f32
    %inf = arith.constant 0x7F800000 : f32
    %is_zero = arith.cmpf oeq, %g, %zero : f32
    %magnitude = math.absf %g : f32
    %is_nonfinite = arith.cmpf ueq, %magnitude, %inf : f32
    %one_zero = arith.extui %is_zero : i1 to i64
    %one_nonfinite = arith.extui %is_nonfinite : i1 to i64
    %zeros_sum = arith.addi %zero_count, %one_zero : i64
    %nonfinite_sum = arith.addi %nonfinite_count, %one_nonfinite : i64
    linalg.yield %zeros_sum, %nonfinite_sum : i64, i64
  }
  return
}
