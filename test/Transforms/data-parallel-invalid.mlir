// Option errors name the option and the value.
// RUN: not mpt-opt %s --mpt-data-parallel=world-size=0 2>&1 | FileCheck %s --check-prefix=WORLD
// RUN: not mpt-opt %s --mpt-data-parallel=bucket-bytes=0 2>&1 | FileCheck %s --check-prefix=BUCKET
// RUN: not mpt-opt %s --mpt-data-parallel=reduce-type=f8 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: mpt-opt %s --mpt-data-parallel -split-input-file -verify-diagnostics

// WORLD: error: mpt-data-parallel: world-size must be at least 1, got 0
// BUCKET: error: mpt-data-parallel: bucket-bytes must be at least 1, got 0
// TYPE: for the --reduce-type option: Cannot find option named 'f8'!

// A hand-written step without a backward seed has nothing to divide by N.
// expected-error @+1 {{mpt-data-parallel: expected exactly one mpt.loss_grad (the backward seed) in a training step, found 0}}
func.func @no_seed(%w: tensor<4xf32> {mpt.param}, %g: tensor<4xf32> {mpt.data})
    -> (tensor<4xf32> {mpt.next = 0}) attributes {mpt.train_step} {
  %w2 = mpt.sgd %w, %g {lr = 0.1 : f32} : tensor<4xf32>
  return %w2 : tensor<4xf32>
}
