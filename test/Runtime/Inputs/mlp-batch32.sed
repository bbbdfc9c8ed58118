# examples/mlp.mlir at batch 32 instead of 128 (a micro-batch of 4 in a batch
# of 128). Its hidden layer is 128 wide too: w2 (256x128), b2 (128) and w3
# (128x10) keep their shapes.
s/tensor<128x\(784\|256\|128\|10\)xf32>/tensor<32x\1xf32>/g
s/tensor<128xi32>/tensor<32xi32>/g
s/%w3: tensor<32x10xf32>/%w3: tensor<128x10xf32>/g
s/tensor<32x128xf32>, tensor<32x10xf32>/tensor<32x128xf32>, tensor<128x10xf32>/g
