// A forward-only MLP step whose learning rates follow schedules: AdamW under
// a warmup and cosine (cos and divisions in f64), SGD with momentum under a
// step schedule (pow in f64), Adagrad under a table, and RMSprop (centered,
// with momentum) sharing AdamW's schedule.

func.func @train_step(
    %w1: tensor<32x64xf32> {mpt.param},
    %b1: tensor<64xf32> {mpt.param, mpt.optimizer = {kind = "sgd", lr = 5.0e-2, momentum = 0.9, lr_schedule = {kind = "step", step_size = 2, gamma = 0.5}}},
    %w2: tensor<64x10xf32> {mpt.param, mpt.optimizer = {kind = "adagrad", lr_decay = 0.01, lr_schedule = {kind = "table", values = [1.0e-3, 5.0e-4, 2.5e-4]}}},
    %b2: tensor<10xf32> {mpt.param, mpt.optimizer = {kind = "rmsprop", momentum = 0.9, centered}},
    %x: tensor<64x32xf32> {mpt.data}, %y: tensor<64xi32> {mpt.data})
    -> (tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step, mpt.optimizer = {kind = "adamw", lr = 1.0e-2, lr_schedule = {kind = "warmup_cosine", warmup_steps = 2, total_steps = 6, start_factor = 0.25, min_lr = 1.0e-4}}} {
  %xw1 = mpt.matmul %x, %w1 : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  %z1 = mpt.bias_add %xw1, %b1 : tensor<64x64xf32>, tensor<64xf32>
  %h1 = mpt.relu %z1 : tensor<64x64xf32>
  %h1w2 = mpt.matmul %h1, %w2 : tensor<64x64xf32>, tensor<64x10xf32> -> tensor<64x10xf32>
  %logits = mpt.bias_add %h1w2, %b2 : tensor<64x10xf32>, tensor<10xf32>
  %loss = mpt.softmax_cross_entropy %logits, %y : tensor<64x10xf32>, tensor<64xi32>
  return %loss : tensor<f32>
}
