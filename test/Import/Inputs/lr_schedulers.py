"""torch.optim.lr_scheduler schedules compiled into mpt steps, against
torch.optim and the same scheduler.

usage: lr_schedulers.py compare STEPS SEED...
       lr_schedulers.py skipped
       lr_schedulers.py errors

compare: for every configuration below, a small GELU MLP trains in mpt (FP32)
and in PyTorch (float32 and float64, foreach=False, scheduler.step() after
every optimizer.step()) from the same weights on the same batches. At every
step the rate mpt reports (metric "lr") must be PyTorch's rate of the first
parameter group for that step within one f32 ulp (mpt computes PyTorch's
closed form in f64 and rounds it to f32 once; PyTorch's recursive forms
differ from it by a few f64 ulps); and the loss, and after STEPS steps every
parameter, must be within PyTorch's own spread: 4x the largest difference
between its float32 and float64 runs, plus 32 f32 ulps of the magnitude
(mpt's polynomial exp and erf, as Inputs/optimizers.py explains). A rate
that ignored the schedule, or a group's own base rate, is off by a factor
after the first boundary, far outside both.

skipped: in f16 with dynamic loss scaling, a step with an infinite input is
skipped and does not advance the schedule: the rate of each step is the
closed form of StepLR at the count of steps applied before it, and the
schedule's count (state lr_schedule_step) is that count.

errors: the schedulers the importer refuses, each with its ImportError.
"""

import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

import mpt
# The model and the batches of Inputs/optimizers.py.
from optimizers import MLP, batches

schedulers = torch.optim.lr_scheduler


def groups(model, bias_options):
    named = list(model.named_parameters())
    return [{"params": [p for n, p in named if n.endswith("weight")]},
            {"params": [p for n, p in named if n.endswith("bias")],
             **bias_options}]


def sgd(model):
    # Rates exact in f32, so that PyTorch and mpt start from the same one.
    return torch.optim.SGD(groups(model, {"lr": 0.0625}), lr=0.125,
                           momentum=0.5, foreach=False)


def adamw(model):
    return torch.optim.AdamW(groups(model, {"weight_decay": 0.0}), lr=2.0 ** -6,
                             weight_decay=0.125, foreach=False)


def rmsprop(model):
    # alpha exact in f32: mpt's 1 - alpha is then PyTorch's (optimizers.py).
    return torch.optim.RMSprop(groups(model, {"lr": 2.0 ** -9}), lr=2.0 ** -8,
                               alpha=0.875, momentum=0.5, foreach=False)


def warmup_cosine(optimizer):
    return schedulers.SequentialLR(optimizer, [
        schedulers.LinearLR(optimizer, start_factor=0.25, total_iters=3),
        schedulers.CosineAnnealingLR(optimizer, T_max=9, eta_min=2.0 ** -10)],
        milestones=[3])


# (name, optimizer factory, scheduler factory, total_steps for a table).
CONFIGS = [
    ("sgd StepLR", sgd,
     lambda o: schedulers.StepLR(o, step_size=4, gamma=0.5), None),
    ("sgd CosineAnnealingLR", sgd,
     lambda o: schedulers.CosineAnnealingLR(o, T_max=12, eta_min=0.001), None),
    ("sgd LinearLR", sgd,
     lambda o: schedulers.LinearLR(o, start_factor=0.5, total_iters=5), None),
    ("adamw StepLR", adamw,
     lambda o: schedulers.StepLR(o, step_size=5, gamma=0.25), None),
    ("adamw LinearLR+CosineAnnealingLR", adamw, warmup_cosine, None),
    ("rmsprop StepLR", rmsprop,
     lambda o: schedulers.StepLR(o, step_size=4, gamma=0.5), None),
    ("adamw LambdaLR tabulated", adamw,
     lambda o: schedulers.LambdaLR(o, lambda s: 0.8 ** s), 12),
]


def build(seed, make_optimizer, make_scheduler, dtype=torch.float32):
    torch.manual_seed(seed)
    model = MLP().to(dtype)
    optimizer = make_optimizer(model)
    return model, optimizer, make_scheduler(optimizer)


def train_torch(seed, make_optimizer, make_scheduler, data, dtype):
    model, optimizer, scheduler = build(seed, make_optimizer, make_scheduler,
                                        dtype)
    losses, rates = [], []
    for x, y in data:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x.to(dtype)), y)
        loss.backward()
        rates.append(optimizer.param_groups[0]["lr"])
        losses.append(loss.item())
        optimizer.step()
        scheduler.step()
    return losses, rates, {n: p.detach().double()
                           for n, p in model.named_parameters()}


def compare(steps, seeds):
    for name, make_optimizer, make_scheduler, total_steps in CONFIGS:
        model, optimizer, scheduler = build(seeds[0], make_optimizer,
                                            make_scheduler)
        example = batches(seeds[0], 1)[0]
        step = mpt.compile(model, example[0], example[1], optimizer=optimizer,
                           lr_scheduler=scheduler, total_steps=total_steps)
        fresh = tempfile.NamedTemporaryFile(suffix=".safetensors")
        step.save(fresh.name)
        for seed in seeds:
            data = batches(seed, steps)
            step.load(fresh.name)
            step.load_state_dict(build(seed, make_optimizer,
                                       make_scheduler)[0].state_dict())
            metrics = [step(x, y) for x, y in data]
            f32 = train_torch(seed, make_optimizer, make_scheduler, data,
                              torch.float32)
            f64 = train_torch(seed, make_optimizer, make_scheduler, data,
                              torch.float64)
            rate_ulps = max(abs(m["lr"] - r) / (2.0 ** -23 * r)
                            for m, r in zip(metrics, f32[1]))
            worst = 0.0
            for m, reference, truth in zip(metrics, f32[0], f64[0]):
                tolerance = (4 * abs(reference - truth)
                             + 32 * 2.0 ** -24 * abs(truth))
                worst = max(worst, abs(m["loss"] - reference) / tolerance)
            mine = step.state()
            for key, reference in f32[2].items():
                truth = f64[2][key]
                tolerance = (4 * (reference - truth).abs().max().item()
                             + 32 * 2.0 ** -24 * truth.abs().max().item())
                error = (torch.from_numpy(mine[key]).double()
                         - reference).abs().max().item()
                worst = max(worst, error / tolerance)
            rates = ", ".join(f"{r:.6g}" for r in f32[1])
            verdict = ("within" if worst <= 1 and rate_ulps <= 1
                       else "OUTSIDE")
            print(f"{name}: seed {seed}: {steps} steps, rates [{rates}], "
                  f"lr within {rate_ulps:.2f} ulp, max |mpt - torch f32| / "
                  f"tolerance = {worst:.3f}: {verdict} tolerance")


def skipped():
    model, optimizer, scheduler = build(
        0, sgd, lambda o: schedulers.StepLR(o, step_size=2, gamma=0.5))
    data = batches(0, 7)
    step = mpt.compile(model, data[0][0], data[0][1], optimizer=optimizer,
                       lr_scheduler=scheduler, precision="f16",
                       loss_scale="dynamic")
    applied = 0
    for i, (x, y) in enumerate(data):
        if i in (2, 3):
            x = x.clone()
            x[0, 0] = float("inf")
        metrics = step(x, y)
        expected = np.float32(0.125 * 0.5 ** (applied // 2))
        applied += not metrics["skipped"]
        same = np.float32(metrics["lr"]) == expected
        print(f"step {i}: skipped={metrics['skipped']}, lr {metrics['lr']:.6g} "
              f"{'==' if same else '!='} StepLR at the steps applied before "
              f"{expected:.6g}, lr_schedule_step "
              f"{int(step.state()['lr_schedule_step'])}, applied {applied}")


def errors():
    def stepped(optimizer):
        scheduler = schedulers.StepLR(optimizer, step_size=2)
        optimizer.step()
        scheduler.step()
        return scheduler

    def other_optimizer(optimizer):
        return schedulers.StepLR(torch.optim.SGD(optimizer.param_groups[0]["params"],
                                                 lr=0.1), step_size=2)

    cases = [
        ("MultiStepLR without total_steps", sgd,
         lambda o: schedulers.MultiStepLR(o, milestones=[2, 5])),
        ("ReduceLROnPlateau", sgd, schedulers.ReduceLROnPlateau),
        ("a stepped StepLR", sgd, stepped),
        ("another optimizer's StepLR", sgd, other_optimizer),
    ]
    for name, make_optimizer, make_scheduler in cases:
        model, optimizer, scheduler = build(0, make_optimizer, make_scheduler)
        x, y = batches(0, 1)[0]
        try:
            mpt.import_module(model, x, y, optimizer=optimizer,
                              lr_scheduler=scheduler)
            print(f"{name}: imported")
        except mpt.ImportError as error:
            print(f"{name}: {error}")


if __name__ == "__main__":
    {"compare": lambda: compare(int(sys.argv[2]),
                                [int(s) for s in sys.argv[3:]]),
     "skipped": skipped, "errors": errors}[sys.argv[1]]()
