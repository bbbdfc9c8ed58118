# examples/transformer_block.mlir at batch 64 instead of 8: 2048 tokens
# instead of 256, 256 attention matrices instead of 32. The parameters keep
# their shapes; the layer norms' statistics (one per token) change where
# b_fc1 (256) does not, and w_fc2 (256x64) looks like a token matrix.
s/tensor<64xf32> -> tensor<256xf32>/tensor<64xf32> -> tensor<2048xf32>/
s/tensor<256x\(64\|256\)xf32>/tensor<2048x\1xf32>/g
s/tensor<32x32x\(32\|16\)xf32>/tensor<256x32x\1xf32>/g
s/tensor<8x\(32x4x16\|4x32x16\|32x64\|64\|10\)xf32>/tensor<64x\1xf32>/g
s/tensor<8xi32>/tensor<64xi32>/g
s/%w_fc2: tensor<2048x64xf32>/%w_fc2: tensor<256x64xf32>/
s/tensor<2048x256xf32>, tensor<2048x64xf32> ->/tensor<2048x256xf32>, tensor<256x64xf32> ->/g
