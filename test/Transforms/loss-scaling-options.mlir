// Option errors name the option and the value; bf16 scaling is allowed with a warning.
// RUN: not mpt-opt %s --mpt-loss-scaling=mode=sometimes 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not mpt-opt %s --mpt-loss-scaling=init-scale=0 2>&1 | FileCheck %s --check-prefix=INIT
// RUN: not mpt-opt %s --mpt-loss-scaling=backoff-factor=2 2>&1 | FileCheck %s --check-prefix=BACKOFF
// RUN: not mpt-opt %s --mpt-loss-scaling=growth-factor=0.5 2>&1 | FileCheck %s --check-prefix=GROWTH
// RUN: not mpt-opt %s --mpt-loss-scaling=growth-interval=0 2>&1 | FileCheck %s --check-prefix=INTERVAL
// RUN: not mpt-opt %s "--mpt-loss-scaling=min-scale=8 max-scale=4" 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: not mpt-opt %s --mpt-loss-scaling=min-scale=0 2>&1 | FileCheck %s --check-prefix=MIN-ZERO
// RUN: not mpt-opt %s --mpt-loss-scaling=min-scale=inf 2>&1 | FileCheck %s --check-prefix=MIN-INF
// RUN: not mpt-opt %s --mpt-loss-scaling=max-scale=nan 2>&1 | FileCheck %s --check-prefix=MAX-NAN
// RUN: not mpt-opt %s --mpt-loss-scaling=max-scale=1e39 2>&1 | FileCheck %s --check-prefix=MAX-F32
// The initial scale is within the bounds, and an f32 (1e300 is inf as one).
// RUN: not mpt-opt %s --mpt-loss-scaling=init-scale=1e300 2>&1 | FileCheck %s --check-prefix=INIT-INF
// RUN: not mpt-opt %s --mpt-loss-scaling=init-scale=0.5 2>&1 | FileCheck %s --check-prefix=INIT-LOW
// RUN: not mpt-opt %s "--mpt-loss-scaling=mode=dynamic init-scale=1e8" 2>&1 | FileCheck %s --check-prefix=INIT-HIGH
// RUN: not mpt-opt %s "--mpt-loss-scaling=mode=static init-scale=1e39" 2>&1 | FileCheck %s --check-prefix=STATIC-INF
// A static scale has no bounds.
// RUN: mpt-opt %s "--mpt-loss-scaling=mode=static init-scale=1e8" 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: mpt-opt %s --mpt-loss-scaling=mode=dynamic 2>&1 | FileCheck %s --check-prefix=BF16
// RUN: mpt-opt %s --mpt-loss-scaling 2>&1 | FileCheck %s --check-prefix=AUTO

// MODE: mpt-opt: for the --mode option: Cannot find option named 'sometimes'!
// INIT: error: mpt-loss-scaling: init-scale must be positive and finite, got 0
// BACKOFF: error: mpt-loss-scaling: backoff-factor must be in (0, 1], got 2
// GROWTH: error: mpt-loss-scaling: growth-factor must be at least 1, got 5.000000e-01
// INTERVAL: error: mpt-loss-scaling: growth-interval must be at least 1, got 0{{$}}
// BOUNDS: error: mpt-loss-scaling: min-scale 8 is above max-scale 4{{$}}
// MIN-ZERO: error: mpt-loss-scaling: min-scale must be positive and finite, got 0{{$}}
// MIN-INF: error: mpt-loss-scaling: min-scale must be positive and finite, got inf{{$}}
// MAX-NAN: error: mpt-loss-scaling: max-scale must be positive and finite, got nan{{$}}
// MAX-F32: error: mpt-loss-scaling: max-scale must be at most the largest f32, 3.40282e+38, got 1e+39
// INIT-INF: error: mpt-loss-scaling: init-scale 1e+300 is outside [min-scale, max-scale] = [1, 1.67772e+07]
// INIT-LOW: error: mpt-loss-scaling: init-scale 0.5 is outside [min-scale, max-scale] = [1, 1.67772e+07]
// INIT-HIGH: error: mpt-loss-scaling: init-scale 1e+08 is outside [min-scale, max-scale] = [1, 1.67772e+07]
// STATIC-INF: error: mpt-loss-scaling: init-scale must be at most the largest f32, 3.40282e+38, got 1e+39
// STATIC: mpt.init = dense<1.000000e+08> : tensor<f32>
// BF16: warning: loss scaling a bf16 graph: bf16 has the exponent range of f32
// BF16: mpt.loss_grad %{{.*}} scale
// BF16: mpt.update_loss_scale
// AUTO-NOT: warning
// AUTO-NOT: mpt.unscale
// AUTO: mpt.loss_grad %{{[0-9]+}}{{$}}

func.func @bf16_step(%w: tensor<8x4xf32> {mpt.param}, %x: tensor<2x8xbf16> {mpt.data},
                     %y: tensor<2xi32> {mpt.data})
    -> (tensor<8x4xf32> {mpt.next = 0}, tensor<f32> {mpt.metric = "loss"})
    attributes {mpt.train_step} {
  %w16 = arith.truncf %w : tensor<8x4xf32> to tensor<8x4xbf16>
  %o = mpt.matmul %x, %w16 : tensor<2x8xbf16>, tensor<8x4xbf16> -> tensor<2x4xbf16>
  %o32 = arith.extf %o : tensor<2x4xbf16> to tensor<2x4xf32>
  %loss = mpt.softmax_cross_entropy %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %seed = mpt.loss_grad %loss
  %do = mpt.softmax_cross_entropy_grad %seed, %o32, %y : tensor<2x4xf32>, tensor<2xi32>
  %do16 = arith.truncf %do : tensor<2x4xf32> to tensor<2x4xbf16>
  %dw = mpt.matmul %x, %do16 {transpose_a} : tensor<2x8xbf16>, tensor<2x4xbf16> -> tensor<8x4xbf16>
  %dw32 = arith.extf %dw : tensor<8x4xbf16> to tensor<8x4xf32>
  %w2 = mpt.sgd %w, %dw32 {lr = 0.1 : f32} : tensor<8x4xf32>
  return %w2, %loss : tensor<8x4xf32>, tensor<f32>
}
