// Every op of the three example training steps lowers, in f32 and after the
// mixed-precision rewrite to f16 and bf16 compute.

// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-convert-to-linalg | FileCheck %s --check-prefixes=CHECK,MLP32
// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-mixed-precision="compute-type=f16" --mpt-convert-to-linalg \
// RUN:   | FileCheck %s --check-prefixes=CHECK,MLP16
// RUN: mpt-opt %examples/mlp_manual.mlir --mpt-mixed-precision="compute-type=bf16" --mpt-convert-to-linalg \
// RUN:   | FileCheck %s --check-prefixes=CHECK,MLPBF16

// RUN: mpt-opt %examples/cnn_bn_manual.mlir --mpt-convert-to-linalg | FileCheck %s --check-prefixes=CHECK,CNN
// RUN: mpt-opt %examples/cnn_bn_manual.mlir --mpt-mixed-precision="compute-type=f16" --mpt-convert-to-linalg \
// RUN:   | FileCheck %s --check-prefixes=CHECK,CNN16
// RUN: mpt-opt %examples/cnn_bn_manual.mlir --mpt-mixed-precision="compute-type=bf16" --mpt-convert-to-linalg \
// RUN:   | FileCheck %s --check-prefixes=CHECK,CNN

// RUN: mpt-opt %examples/transformer_block_manual.mlir --mpt-convert-to-linalg | FileCheck %s --check-prefixes=CHECK,TF
// RUN: mpt-opt %examples/transformer_block_manual.mlir --mpt-mixed-precision="compute-type=f16" --mpt-convert-to-linalg \
// RUN:   | FileCheck %s --check-prefixes=CHECK,TF16
// RUN: mpt-opt %examples/transformer_block_manual.mlir --mpt-mixed-precision="compute-type=bf16" --mpt-convert-to-linalg \
// RUN:   | FileCheck %s --check-prefixes=CHECK,TFBF16

// No mpt op is left.
// CHECK-LABEL: func.func @train_step
// CHECK-NOT: = mpt.

// The first layer's product: f32, or f16/bf16 operands into an f32
// accumulator.
// MLP32: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<128x784xf32>, tensor<784x256xf32>) outs(%{{.*}} : tensor<128x256xf32>)
// MLP16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<128x784xf16>, tensor<784x256xf16>) outs(%{{.*}} : tensor<128x256xf32>)
// MLPBF16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<128x784xbf16>, tensor<784x256xbf16>) outs(%{{.*}} : tensor<128x256xf32>)
// CNN: linalg.conv_2d_nchw_fchw
// CNN16: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<64x1x30x30xf16>, tensor<8x1x3x3xf16>) outs(%{{.*}} : tensor<64x8x28x28xf32>)
// TF: linalg.batch_matmul
// TF16: linalg.batch_matmul {{.*}} ins(%{{.*}}, %{{.*}} : tensor<32x32x16xf16>, tensor<32x32x16xf16>) outs(%{{.*}} : tensor<32x32x32xf32>)
// TFBF16: linalg.batch_matmul {{.*}} ins(%{{.*}}, %{{.*}} : tensor<32x32x16xbf16>, tensor<32x32x16xbf16>) outs(%{{.*}} : tensor<32x32x32xf32>)

// CHECK-NOT: = mpt.
// CHECK-LABEL: func.func @predict
// CHECK-NOT: = mpt.
