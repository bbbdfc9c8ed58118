"""A MobileNet-style network for the importer's step-for-step test on
non-square images: a strided stem, a depthwise-separable block (depthwise
3x3, pointwise 1x1), a grouped convolution (groups neither 1 nor the
channels, fewer filters than channels, a non-square window), adaptive
average pooling to a size that divides the image, and windowed average
pooling with the padding out of and in the divisor."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self.bn_stem = nn.BatchNorm2d(8)
        self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False)
        self.bn_depthwise = nn.BatchNorm2d(8)
        self.pointwise = nn.Conv2d(8, 12, 1)
        self.grouped = nn.Conv2d(12, 6, (3, 2), padding=(1, 0), groups=3)
        self.pool = nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)
        self.fc = nn.Linear(6 * 3 * 2, 10)

    def forward(self, x):                                   # 3 x 20 x 18
        x = F.relu(self.bn_stem(self.stem(x)))              # 8 x 10 x 9
        x = F.relu(self.bn_depthwise(self.depthwise(x)))    # 8 x 10 x 9
        x = F.relu(self.pointwise(x))                       # 12 x 10 x 9
        x = self.grouped(x)                                 # 6 x 10 x 8
        x = F.adaptive_avg_pool2d(x, (5, 4))                # 6 x 5 x 4
        x = self.pool(x)                                    # 6 x 3 x 2
        x = F.avg_pool2d(x, (3, 1), stride=1, padding=(1, 0))
        return self.fc(torch.flatten(x, 1))


def mpt_model(batch=16, seed=0):
    torch.manual_seed(seed)
    model = Net()
    return {"model": model,
            "inputs": torch.zeros(batch, 3, 20, 18),
            "target": torch.zeros(batch, dtype=torch.int64),
            "optimizer": torch.optim.SGD(model.parameters(), lr=0.05,
                                         momentum=0.9)}
