"""A small CNN for 1x28x28 images (Fashion-MNIST): two conv-BN-ReLU-pool
blocks and a linear classifier, trained by SGD with momentum.

    mpt-import-torch examples/pytorch/cnn.py -o cnn.mlir
    mpt-run cnn.mlir --init-state cnn.safetensors --precision f16
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(torch.flatten(x, 1))


def mpt_model(batch=64, seed=0):
    torch.manual_seed(seed)
    model = Net()
    return {"model": model,
            "inputs": torch.zeros(batch, 1, 28, 28),
            "target": torch.zeros(batch, dtype=torch.int64),
            "optimizer": torch.optim.SGD(model.parameters(), lr=0.05,
                                         momentum=0.9)}
