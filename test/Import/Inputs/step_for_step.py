"""Trains an imported model in mpt (FP32) and in PyTorch from the same
weights on the same batches, and compares the losses step for step.

The tolerance is PyTorch's own spread: at each step, 4x the largest
difference so far between PyTorch's float32 run and three other runs of the
same training that are as right as it: one in float64; one in float32 with
the samples of every batch permuted (which reorders the sums of batch-norm
statistics, the loss mean and every weight gradient, the kind of difference
mpt's summation order makes); and one in float32 from weights moved by up
to 16 f32 ulps, the error of mpt's polynomial exp, erf and tanh on the CPU
(libm's is under 1), so that the spread covers a perturbation of mpt's own
size; plus 8 f32 ulps of the loss. In a deep network such differences stay
near f32 precision for some steps and are then amplified (ResNet-18 on
random labels: from ~1e-7 to ~1e-2 within a few steps), and a larger
perturbation gets there sooner: a reference run of the smallest
perturbation alone would mark the onset later than mpt's.

usage: step_for_step.py EXAMPLE.py BATCH STEPS LR SEED...

LR replaces the example's learning rate in every parameter group: small
enough that 20 steps on random labels stay in the regime where f32 and f64
runs stay close, which the comparison needs (a diverging run amplifies
rounding until f32 and f64 disagree in the first digit).
"""

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


def torch_losses(description, batches, dtype, permute=False, nudge=False):
    model, optimizer = description["model"].to(dtype), description["optimizer"]
    if nudge:
        generator = torch.Generator().manual_seed(7)
        with torch.no_grad():
            for parameter in model.parameters():
                noise = torch.rand(parameter.shape, generator=generator) * 2 - 1
                parameter.mul_(1 + 16 * 2.0 ** -24 * noise)
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
    nudged = torch_losses(model(seed), batches, torch.float32, nudge=True)
    spread = [max(abs(a - b), abs(a - c), abs(a - d))
              for a, b, c, d in zip(f32, f64, permuted, nudged)]
    worst, drift = 0.0, 0.0
    for k in range(steps):
        drift = max(spread[:k + 1])
        tolerance = 4 * drift + 8 * 2.0 ** -24 * abs(f64[k])
        worst = max(worst, abs(mine[k] - f32[k]) / tolerance)
        print(f"  step {k:2d}: mpt {mine[k]:.7f}, torch f32 {f32[k]:.7f}, "
              f"f64 {f64[k]:.7f}, f32 permuted {permuted[k]:.7f}, "
              f"f32 nudged {nudged[k]:.7f}, "
              f"|mpt - f32| / tolerance "
              f"{abs(mine[k] - f32[k]) / tolerance:.3f}")
    verdict = "within" if worst <= 1 else "OUTSIDE"
    print(f"seed {seed}: {steps} steps, loss {f32[0]:.4f} -> {f32[-1]:.4f}, "
          f"max |mpt - torch f32| / tolerance = {worst:.3f}: {verdict} "
          f"tolerance (largest difference among torch's runs {drift:.2e})")
