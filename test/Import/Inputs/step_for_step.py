"""Trains an imported model in mpt (FP32) and in PyTorch from the same
weights on the same batches, and compares the losses step for step.

The tolerance is PyTorch's own spread: at each step, 4x the largest
difference so far between PyTorch's float32 run and two other runs of the
same training, one in float64 and one in float32 with the samples of every
batch permuted (which reorders the sums of batch-norm statistics, the loss
mean and every weight gradient, the kind of difference mpt's own summation
order makes), plus 8 f32 ulps of the loss. In a deep network such rounding
differences stay near f32 precision for some steps and are then amplified
(ResNet-18 on random labels: from ~1e-7 to ~1e-2 within a few steps); when
that happens depends on the perturbation: a larger one gets there sooner.
mpt's rounding differs from PyTorch's by up to about twice PyTorch's own
f32 error (measured on ResNet-18's parameters after two steps), and the
amplification here is about tenfold per step, so mpt's difference may
reach a size one step before PyTorch's runs do. The tolerance at step k
therefore takes PyTorch's spread up to step k+1.

usage: step_for_step.py EXAMPLE.py BATCH STEPS LR SEED...

LR replaces the example's learning rate in every parameter group: small
enough that 20 steps on random labels stay in the regime where f32 and f64
runs stay close, which the comparison needs (a diverging run amplifies
rounding until f32 and f64 disagree in the first digit).
"""

import copy
import importlib.util
import sys
import tempfile

import torch
import torch.nn.functional as F

import mpt

path, batch, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
learning_rate = float(sys.argv[4])
seeds = [int(s) for s in sys.argv[5:]]
loader = importlib.util.spec_from_file_location("example", path)
example = importlib.util.module_from_spec(loader)
loader.loader.exec_module(example)



def model(seed):
    description = example.mpt_model(batch, seed)
    for group in description["optimizer"].param_groups:
        group["lr"] = learning_rate
    return description


first = model(seeds[0])
step = mpt.compile(first["model"], first["inputs"], first["target"],
                   optimizer=first["optimizer"])
fresh = tempfile.NamedTemporaryFile(suffix=".safetensors")
step.save(fresh.name)


def torch_losses(description, batches, dtype, permute=False):
    model, optimizer = description["model"].to(dtype), description["optimizer"]
    losses = []
    for x, y in batches:
        if permute:
            order = torch.arange(len(y) - 1, -1, -1)
            x, y = x[order], y[order]
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
    reference = model(seed)
    step.load(fresh.name)
    step.load_state_dict(reference["model"].state_dict())
    mine = [step(x, y)["loss"] for x, y in batches]
    f32 = torch_losses(reference, batches, torch.float32)
    f64 = torch_losses(model(seed), batches, torch.float64)
    permuted = torch_losses(model(seed), batches, torch.float32, permute=True)
    spread = [max(abs(a - b), abs(a - c)) for a, b, c in zip(f32, f64, permuted)]
    worst, drift = 0.0, 0.0
    for k in range(steps):
        drift = max(spread[:k + 2])
        tolerance = 4 * drift + 8 * 2.0 ** -24 * abs(f64[k])
        worst = max(worst, abs(mine[k] - f32[k]) / tolerance)
        print(f"  step {k:2d}: mpt {mine[k]:.7f}, torch f32 {f32[k]:.7f}, "
              f"f64 {f64[k]:.7f}, f32 permuted {permuted[k]:.7f}, "
              f"|mpt - f32| / tolerance "
              f"{abs(mine[k] - f32[k]) / tolerance:.3f}")
    verdict = "within" if worst <= 1 else "OUTSIDE"
    print(f"seed {seed}: {steps} steps, loss {f32[0]:.4f} -> {f32[-1]:.4f}, "
          f"max |mpt - torch f32| / tolerance = {worst:.3f}: {verdict} "
          f"tolerance (largest difference among torch's runs {drift:.2e})")
