"""The GPT example (examples/pytorch/gpt.py), imported and trained on the
bytes of a text Debian ships (base-files' GPL-3), in FP32, f16 and bf16 mixed
precision, over three seeds: the validation loss after STEPS steps.

Training and validation are examples/pytorch/train_lm.py's: tokens are the
text's bytes, the last tenth is the validation set, each step takes `batch`
windows of context+1 bytes at offsets drawn from the seed, and the
validation loss is the mean cross-entropy of the eval step's logits over the
validation set's consecutive windows, computed in float64. The threshold for
f16 and bf16 comes from FP32 itself: the mean over the seeds must lie within
3 standard errors of FP32's mean (its seed-to-seed spread over sqrt(3)), plus
1% of it.

usage: gpt_mixed_precision.py TEXT STEPS
"""

import math
import os
import statistics
import sys
import tempfile

import mpt

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "examples", "pytorch"))
import gpt  # noqa: E402
from train_lm import (read_tokens, train, validation_batches,  # noqa: E402
                      validation_loss)

path, steps = sys.argv[1], int(sys.argv[2])
tokens = read_tokens(path, 1)
split = len(tokens) * 9 // 10
train_tokens = tokens[:split]
batch, context = 16, 64
valid_batches = validation_batches(tokens[split:], batch, context)

seeds = [0, 1, 2]
losses = {}
for precision in ("fp32", "f16", "bf16"):
    first = gpt.mpt_model(batch, seeds[0], context)
    step = mpt.compile(first["model"], first["inputs"], first["target"],
                       optimizer=first["optimizer"], precision=precision)
    fresh = tempfile.NamedTemporaryFile(suffix=".safetensors")
    step.save(fresh.name)
    losses[precision] = []
    for seed in seeds:
        step.load(fresh.name)
        step.load_state_dict(gpt.mpt_model(batch, seed, context)["model"].state_dict())
        train(step, train_tokens, steps, batch, context, seed)
        losses[precision].append(validation_loss(step, valid_batches))
    print(f"{precision}: validation loss after {steps} steps, seeds "
          f"{', '.join(f'{v:.4f}' for v in losses[precision])}; mean "
          f"{statistics.mean(losses[precision]):.4f}")

reference = statistics.mean(losses["fp32"])
spread = statistics.stdev(losses["fp32"]) / math.sqrt(len(seeds))
threshold = 3 * spread + 0.01 * reference
print(f"initial loss ln(256) = {math.log(256):.4f}; threshold {threshold:.4f}")
for precision in ("f16", "bf16"):
    difference = abs(statistics.mean(losses[precision]) - reference)
    verdict = "within" if difference <= threshold else "OUTSIDE"
    print(f"{precision}: |mean - fp32 mean| = {difference:.4f}: {verdict} threshold")
