"""torchvision's VisionTransformer for 1x28x28 images (Fashion-MNIST) and 10
classes: 7x7 patches (a 4x4 grid and the class token: 17 tokens), 4 pre-LN
encoder layers of width 64 with 4 heads and an exact-erf GELU MLP of 128,
and a linear head on the class token. The stem's convolution takes one
channel; everything else is torchvision's (nn.MultiheadAttention with its
packed in_proj_weight, the class token joined by torch.cat, read back by
x[:, 0]). AdamW, with no weight decay on norms, biases, the class token and
the position embedding (a second parameter group).

    mpt-import-torch examples/pytorch/vit.py -o vit.mlir
    mpt-run vit.mlir --init-state vit.safetensors --precision bf16

(--init-state: torchvision's own initialization, which mpt's PyTorch module
defaults do not reproduce for the class token, the position embedding and
the attention's Xavier-initialized in_proj_weight.)
"""

import torch
import torch.nn as nn
from torchvision.models.vision_transformer import VisionTransformer


def make_model():
    model = VisionTransformer(image_size=28, patch_size=7, num_layers=4,
                              num_heads=4, hidden_dim=64, mlp_dim=128,
                              num_classes=10)
    model.conv_proj = nn.Conv2d(1, 64, kernel_size=7, stride=7)
    return model


def decays(name, parameter):
    """Weight decay on weight matrices and filters only: not on norms,
    biases, the class token or the position embedding."""
    return parameter.dim() > 1 and name not in ("class_token",
                                                "encoder.pos_embedding")


def make_optimizer(model, lr=1e-3):
    named = list(model.named_parameters())
    return torch.optim.AdamW(
        [{"params": [p for n, p in named if decays(n, p)], "weight_decay": 0.05},
         {"params": [p for n, p in named if not decays(n, p)],
          "weight_decay": 0.0}],
        lr=lr)


def mpt_model(batch=64, seed=0):
    torch.manual_seed(seed)
    model = make_model()
    return {"model": model,
            "inputs": torch.zeros(batch, 1, 28, 28),
            "target": torch.zeros(batch, dtype=torch.int64),
            "optimizer": make_optimizer(model)}
