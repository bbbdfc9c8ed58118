"""An MLP for 28x28 images (Fashion-MNIST) with layer norm and GELU, trained
by AdamW with no weight decay on biases and norms (a second parameter group),
as transformer recipes do.

    mpt-import-torch examples/pytorch/mlp.py -o mlp.mlir
    mpt-run mlp.mlir --init-state mlp.safetensors --precision bf16
"""

import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, hidden=256):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(28 * 28, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, 10)

    def forward(self, x):
        x = self.act(self.norm(self.fc1(self.flatten(x))))
        x = x + torch.relu(self.fc2(x))
        return self.head(x)


def mpt_model(batch=128, seed=0):
    torch.manual_seed(seed)
    model = MLP()
    decay = [p for p in model.parameters() if p.dim() > 1]
    no_decay = [p for p in model.parameters() if p.dim() <= 1]
    optimizer = torch.optim.AdamW([{"params": decay},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=1e-3, weight_decay=0.05)
    return {"model": model,
            "inputs": torch.zeros(batch, 1, 28, 28),
            "target": torch.zeros(batch, dtype=torch.int64),
            "optimizer": optimizer}
