func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mpt.relu %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
