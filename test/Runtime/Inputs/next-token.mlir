// A next-token step for token files: ids (4, 6) through a token table and a
// head to logits (4*6, 16), one label per id. No eval step.
func.func @train_step(%tokens: tensor<16x8xf32> {mpt.param}, %head: tensor<16x8xf32> {mpt.param},
                      %ids: tensor<4x6xi32> {mpt.data}, %y: tensor<24xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "adam", lr = 1.0e-2 : f32}} {
  %e = mpt.embedding %tokens, %ids : tensor<16x8xf32>, tensor<4x6xi32> -> tensor<4x6x8xf32>
  %rows = mpt.reshape %e : tensor<4x6x8xf32> -> tensor<24x8xf32>
  %logits = mpt.matmul %rows, %head {transpose_b} : tensor<24x8xf32>, tensor<16x8xf32> -> tensor<24x16xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<24x16xf32>, tensor<24xi32>
  return %loss : tensor<f32>
}
