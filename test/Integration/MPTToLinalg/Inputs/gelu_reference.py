#!/usr/bin/env python3
"""Expected f16/bf16 gelu and gelu_grad values of activations.mlir, from PyTorch.

PyTorch's f16/bf16 gelu kernels compute in f32 and round the result once
(opmath); this takes the f32 kernels and rounds their results, for the inputs
of activations.mlir, and prints them as printMemrefF32 does (%g, 6 digits).
Benchmark and golden-data scripts may use PyTorch; the tests never run it:
  /usr/bin/python3 gelu_reference.py
"""
import torch

X = [-3.0, -1.0, -0.5, -0.0, 0.5, 1.0, 2.0, 3.5]
GRAD = [1.0, 2.0, -1.0, 0.5, 1.0, 1.0, 3.0, -2.0]


def show(values):
    return "[" + ", ".join(f"{v:.6g}" for v in values.float().tolist()) + "]"


for dtype in (torch.float16, torch.bfloat16):
    for approximate in ("none", "tanh"):
        # The inputs as the test's tensors hold them (exact in both types).
        x = torch.tensor(X, dtype=dtype).float()
        grad = torch.tensor(GRAD, dtype=dtype).float()
        y = torch.nn.functional.gelu(x, approximate=approximate)
        # gelu(-0) is x * (...) = -0 by the formula, as mpt and PyTorch's
        # tanh kernel give; PyTorch's vectorized erf kernel returns +0.
        y = torch.where(x == 0, x, y).to(dtype)
        dx = torch.ops.aten.gelu_backward(grad, x, approximate=approximate).to(dtype)
        print(f"{dtype} {approximate}: gelu {show(y)}")
        print(f"{dtype} {approximate}: gelu_grad {show(dx)}")
