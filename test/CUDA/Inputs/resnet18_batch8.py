"""torchvision's ResNet-18 of examples/pytorch/resnet18.py at batch 8: the
smallest batch whose batch norms, over 8 samples at the 1x1 last stage, keep
FP32 rounding differences a rounding-sized fraction of each gradient
(imported-models.test), in a step small enough to run as loops."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "examples", "pytorch"))
import resnet18  # noqa: E402


def mpt_model():
    return resnet18.mpt_model(batch=8)
