# examples/mlp.mlir at batch 64 instead of 128. Its hidden layer is 128 wide
# too: w2 (256x128), b2 (128) and w3 (128x10) keep their shapes.
s/tensor<128x\(784\|256\|128\)x/tensor<64x\1x/g
s/tensor<128xi32>/tensor<64xi32>/g
s/tensor<128x10xf32>/tensor<64x10xf32>/g
s/%w3: tensor<64x10xf32>/%w3: tensor<128x10xf32>/
s/tensor<64x128xf32>, tensor<64x10xf32> ->/tensor<64x128xf32>, tensor<128x10xf32> ->/g
