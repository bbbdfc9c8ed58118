"""The GPT example (examples/pytorch/gpt.py), imported and trained on the
bytes of a text Debian ships (base-files' GPL-3), in FP32, f16 and bf16 mixed
precision, over three seeds: the validation loss after STEPS steps.

Tokens are the text's bytes; the last tenth is the validation set. Each step
takes `batch` windows of context+1 bytes at offsets drawn from the seed; the
validation loss is the mean cross-entropy of the eval step's logits over
fixed windows of the validation set, computed here in float64. The
threshold for f16 and bf16 comes from FP32 itself: the mean over the seeds
must lie within 3 standard errors of FP32's mean (its seed-to-seed spread
over sqrt(3)), plus 1% of it.

usage: gpt_mixed_precision.py TEXT STEPS
"""

import math
import os
import statistics
import sys
import tempfile

import numpy as np

import mpt

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "examples", "pytorch"))
import gpt  # noqa: E402

path, steps = sys.argv[1], int(sys.argv[2])
tokens = np.frombuffer(open(path, "rb").read(), dtype=np.uint8).astype(np.int64)
split = len(tokens) * 9 // 10
train, valid = tokens[:split], tokens[split:]
batch, context = 16, 64


def windows(data, offsets):
    x = np.stack([data[o:o + context] for o in offsets])
    y = np.stack([data[o + 1:o + context + 1] for o in offsets])
    return x, y.reshape(-1)


valid_batches = [windows(valid, range(start, start + batch * context, context))
                 for start in range(0, len(valid) - batch * context - 1,
                                    batch * context)]


def validation_loss(step):
    total, count = 0.0, 0
    for x, y in valid_batches:
        logits = step.evaluate(x).astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        log_probabilities = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        total -= log_probabilities[np.arange(len(y)), y].sum()
        count += len(y)
    return total / count


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
        generator = np.random.default_rng(seed)
        for _ in range(steps):
            offsets = generator.integers(0, len(train) - context - 1, batch)
            step(*windows(train, offsets))
        losses[precision].append(validation_loss(step))
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
