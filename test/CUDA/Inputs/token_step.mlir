// A next-token step, GPT's loss layout: ids (4, 6) through a token table and
// a head to logits viewed as (4*6, 16), labels (24) of which the padded ones
// (-100, PyTorch's ignore_index) count for nothing, with label smoothing.
// Forward only: mpt-autodiff builds the backward.
func.func @train_step(%tokens: tensor<16x32xf32> {mpt.param}, %head: tensor<16x32xf32> {mpt.param},
                      %ids: tensor<4x6xi32> {mpt.data}, %y: tensor<24xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "adam", lr = 1.0e-2 : f32}} {
  %e = mpt.embedding %tokens, %ids : tensor<16x32xf32>, tensor<4x6xi32> -> tensor<4x6x32xf32>
  %g = mpt.gelu %e : tensor<4x6x32xf32>
  %rows = mpt.reshape %g : tensor<4x6x32xf32> -> tensor<24x32xf32>
  %logits = mpt.matmul %rows, %head {transpose_b} : tensor<24x32xf32>, tensor<16x32xf32> -> tensor<24x16xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y {label_smoothing = 0.1, ignore_index = -100}
      : tensor<24x16xf32>, tensor<24xi32>
  return %loss : tensor<f32>
}
