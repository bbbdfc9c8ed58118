// The forward-only examples verify, round-trip, and become training steps
// under mpt-autodiff with one optimizer update per parameter (the hand-written
// forms are checked in examples.mlir).

// RUN: for e in mlp cnn_bn transformer_block vit; do \
// RUN:   mpt-opt %examples/$e.mlir > %t.$e.mlir && mpt-opt %t.$e.mlir | diff %t.$e.mlir - || exit 1; \
// RUN:   mpt-opt --mlir-print-op-generic %examples/$e.mlir | mpt-opt | diff %t.$e.mlir - || exit 1; \
// RUN: done
// RUN: mpt-opt %examples/mlp.mlir --mpt-autodiff | grep -c "= mpt.sgd" | FileCheck %s --check-prefix=SIX
// RUN: mpt-opt %examples/cnn_bn.mlir --mpt-autodiff | grep -c "= mpt.sgd" | FileCheck %s --check-prefix=EIGHT
// RUN: mpt-opt %examples/transformer_block.mlir --mpt-autodiff | grep -c "= mpt.adam " | FileCheck %s --check-prefix=FOURTEEN
// The ViT's 33 parameters: weight decay 0.05 on the 14 matrices (embedding,
// 6 per block, classifier), none on biases, norms and the position embedding.
// RUN: mpt-opt %examples/vit.mlir --mpt-autodiff | grep "= mpt.adamw " | grep -c "weight_decay = 5.000000e-02" | FileCheck %s --check-prefix=FOURTEEN
// RUN: mpt-opt %examples/vit.mlir --mpt-autodiff | grep "= mpt.adamw " | grep -c "weight_decay = 0.000000e+00" | FileCheck %s --check-prefix=NINETEEN
// SIX: {{^}}6{{$}}
// EIGHT: {{^}}8{{$}}
// FOURTEEN: {{^}}14{{$}}
// NINETEEN: {{^}}19{{$}}
