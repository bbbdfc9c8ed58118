// The forward-only step of ../dropout.test: loss = sum(c * dropout(p)^2).
func.func @train_step(%p: tensor<6x8xf32> {mpt.param}) -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "sgd", lr = 1.0 : f32}} {
  %d = mpt.dropout %p {p = 3.0e-01 : f64, seed = 11} : tensor<6x8xf32>
  %sq = arith.mulf %d, %d : tensor<6x8xf32>
  %c = arith.constant dense<[[-9.710773e-01, -1.843084e-01, -9.546036e-01, 2.729019e-01, -2.131349e-01, 8.323423e-01, -6.311648e-01, 4.855651e-02], [6.442110e-01, 3.119630e-01, -8.484105e-01, 2.508275e-01, 3.748360e-01, -7.174684e-01, -9.480566e-01, -1.265729e-01], [8.020157e-01, -3.336098e-01, -5.424948e-01, -8.072815e-01, 9.615045e-01, 6.594611e-01, 4.786898e-01, 5.222384e-02], [7.536716e-01, -6.184703e-01, 3.150496e-01, 3.452237e-01, 9.248776e-01, -3.774787e-02, -8.184872e-01, 1.291880e-01], [2.081733e-03, -3.492574e-01, 5.219365e-01, 2.036888e-01, 2.254832e-01, 5.291758e-01, -9.071612e-02, -8.596042e-01], [-2.955182e-01, -1.837036e-01, -6.055730e-01, -7.727500e-01, 5.118480e-01, 8.020415e-01, 7.233736e-01, 1.798673e-01]]> : tensor<6x8xf32>
  %w = arith.mulf %sq, %c : tensor<6x8xf32>
  %loss = mpt.reduce_sum %w [0, 1] : tensor<6x8xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
