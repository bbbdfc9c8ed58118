// Loss scaling on the backward pass mpt-autodiff builds for the forward-only
// examples: every gradient stays scaled through the whole backward pass
// (including the mpt.broadcast of a mean-pool or position-embedding gradient),
// is unscaled only where it leaves it for its optimizer, and reaches the one
// finite check: 6 (MLP), 8 (CNN), 14 (transformer) and 33 (ViT) gradients.
// RUN: mpt-opt %examples/mlp.mlir --mpt-mixed-precision | FileCheck %s --check-prefix=MLP
// RUN: mpt-opt %examples/cnn_bn.mlir --mpt-mixed-precision | FileCheck %s --check-prefix=CNN
// RUN: mpt-opt %examples/transformer_block.mlir --mpt-mixed-precision | FileCheck %s --check-prefix=TF
// RUN: mpt-opt %examples/vit.mlir --mpt-mixed-precision | FileCheck %s --check-prefix=VIT

// MLP: mpt.loss_grad {{.*}} scale %[[SCALE:[^ ]*]]
// MLP-COUNT-6: mpt.unscale %{{[^ ,]+}}, %[[SCALE]]
// MLP-NOT: mpt.unscale
// MLP: mpt.all_finite {{(%[0-9]+, ){5}%[0-9]+}} :
// MLP-NOT: mpt.all_finite

// CNN: mpt.loss_grad {{.*}} scale %[[SCALE:[^ ]*]]
// CNN-COUNT-8: mpt.unscale %{{[^ ,]+}}, %[[SCALE]]
// CNN-NOT: mpt.unscale
// CNN: mpt.all_finite {{(%[0-9]+, ){7}%[0-9]+}} :
// CNN-NOT: mpt.all_finite

// TF: mpt.loss_grad {{.*}} scale %[[SCALE:[^ ]*]]
// TF-COUNT-14: mpt.unscale %{{[^ ,]+}}, %[[SCALE]]
// TF-NOT: mpt.unscale
// TF: mpt.all_finite {{(%[0-9]+, ){13}%[0-9]+}} :
// TF-NOT: mpt.all_finite

// VIT: mpt.loss_grad {{.*}} scale %[[SCALE:[^ ]*]]
// VIT-COUNT-33: mpt.unscale %{{[^ ,]+}}, %[[SCALE]]
// VIT-NOT: mpt.unscale
// VIT: mpt.all_finite {{(%[0-9]+, ){32}%[0-9]+}} :
// VIT-NOT: mpt.all_finite
