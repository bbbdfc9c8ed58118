"""torchvision's ResNet-18 for 1x28x28 images (Fashion-MNIST) and 10
classes: the stem's convolution takes one channel; everything else is
torchvision's (7x7/2 stem, 3x3/2 max pooling, four stages of basic blocks
with 1x1/2 downsampling, global average pooling). At 28x28 the last stage is
1x1. SGD with momentum and weight decay, none on batch-norm parameters and
biases (a second parameter group).

    mpt-import-torch examples/pytorch/resnet18.py -o resnet18.mlir
    mpt-run resnet18.mlir --init-state resnet18.safetensors --precision bf16
"""

import torch
import torch.nn as nn
import torchvision


def make_model():
    model = torchvision.models.resnet18(num_classes=10)
    model.conv1 = nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3,
                            bias=False)
    return model


def make_optimizer(model, lr=0.05):
    decay = [p for n, p in model.named_parameters() if p.dim() > 1]
    no_decay = [p for n, p in model.named_parameters() if p.dim() <= 1]
    return torch.optim.SGD([{"params": decay, "weight_decay": 5e-4},
                            {"params": no_decay, "weight_decay": 0.0}],
                           lr=lr, momentum=0.9)


def mpt_model(batch=64, seed=0):
    torch.manual_seed(seed)
    model = make_model()
    return {"model": model,
            "inputs": torch.zeros(batch, 1, 28, 28),
            "target": torch.zeros(batch, dtype=torch.int64),
            "optimizer": make_optimizer(model)}
