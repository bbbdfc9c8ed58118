"""Trains an imported model in mpt (FP32) and in PyTorch from the same
weights on the same batches, and compares the losses step for step.

The tolerance is PyTorch's own: at each step, 4x the largest difference so
far between PyTorch in float32 and the same run in float64, plus 8 f32 ulps
of the loss. mpt and PyTorch's f32 runs are two f32 computations of the same
f64 truth (different summation orders, im2col against direct convolution),
each about that far from it.

usage: step_for_step.py EXAMPLE.py BATCH STEPS SEED...
"""

import copy
import importlib.util
import sys
import tempfile

import torch
import torch.nn.functional as F

import mpt

path, batch, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
seeds = [int(s) for s in sys.argv[4:]]
loader = importlib.util.spec_from_file_location("example", path)
example = importlib.util.module_from_spec(loader)
loader.loader.exec_module(example)

first = example.mpt_model(batch, seeds[0])
step = mpt.compile(first["model"], first["inputs"], first["target"],
                   optimizer=first["optimizer"])
fresh = tempfile.NamedTemporaryFile(suffix=".safetensors")
step.save(fresh.name)


def torch_losses(description, batches, dtype):
    model, optimizer = description["model"].to(dtype), description["optimizer"]
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x.to(dtype)), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


for seed in seeds:
    generator = torch.Generator().manual_seed(1000 + seed)
    shape = tuple(first["inputs"].shape)
    batches = [(torch.randn(shape, generator=generator),
                torch.randint(0, 10, (batch,), generator=generator))
               for _ in range(steps)]
    reference = example.mpt_model(batch, seed)
    step.load(fresh.name)
    step.load_state_dict(reference["model"].state_dict())
    mine = [step(x, y)["loss"] for x, y in batches]
    f32 = torch_losses(reference, batches, torch.float32)
    f64 = torch_losses(example.mpt_model(batch, seed), batches, torch.float64)
    worst, drift = 0.0, 0.0
    for k in range(steps):
        drift = max(drift, abs(f32[k] - f64[k]))
        tolerance = 4 * drift + 8 * 2.0 ** -24 * abs(f64[k])
        worst = max(worst, abs(mine[k] - f32[k]) / tolerance)
    verdict = "within" if worst <= 1 else "OUTSIDE"
    print(f"seed {seed}: {steps} steps, loss {f32[0]:.4f} -> {f32[-1]:.4f}, "
          f"max |mpt - torch f32| / tolerance = {worst:.3f}: {verdict} "
          f"tolerance (largest torch f32-f64 difference {drift:.2e})")
