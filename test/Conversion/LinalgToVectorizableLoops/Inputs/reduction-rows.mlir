// Softmax's backward row dot, sum(dy * y), over the attention rows of the ViT
// (batch times heads 512, 49 patches attending to 49). The output may not
// alias the inputs (a step's buffers are distinct allocations).
func.func @row_dot(%dy: memref<512x49x49xf32>, %y: memref<512x49x49xf32>,
                   %dots: memref<512x49xf32> {llvm.noalias}) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %y : memref<512x49x49xf32>, memref<512x49x49xf32>) outs(%dots : memref<512x49xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
