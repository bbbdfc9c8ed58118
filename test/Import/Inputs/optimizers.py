"""RMSprop, Adagrad and Adadelta in mpt against torch.optim.

usage: optimizers.py compare STEPS SEED...
       optimizers.py skipped

compare: for every optimizer configuration below, a small GELU MLP trains in
mpt (FP32) and in PyTorch (float32 and float64, foreach=False) from the same
weights on the same batches; after STEPS steps every parameter and every
piece of optimizer state mpt keeps (`<param>.<state_dict key>`) is compared
with PyTorch's float32 run. Every run takes the hyperparameters rounded to
float32, the values mpt's attributes hold. The tolerance is PyTorch's own, per tensor: 4x
the largest difference between its float32 and float64 runs (mpt and
PyTorch's float32 run are two f32 computations of the float64 truth, each
about that far from it), plus 32 f32 ulps of the tensor's largest magnitude:
mpt's polynomial exp and erf (in the loss and GELU gradients) are a few ulps
from libm's, which a square average of gradients shows as is where PyTorch's
own drift is smaller (measured: at most 16 ulps).

skipped: in f16 mixed precision, a step whose gradients are not finite (an
infinite input) is skipped, and every parameter and piece of optimizer state
(step counts included) keeps its bits; the next step trains again.
"""

import sys
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import mpt

BATCH, FEATURES, HIDDEN, CLASSES = 8, 6, 16, 5


def weights_and_biases(model):
    named = list(model.named_parameters())
    return ([p for n, p in named if n.endswith("weight")],
            [p for n, p in named if n.endswith("bias")])


def f32_rounded(options):
    """The options with every float rounded to float32, as mpt's attributes
    hold them: PyTorch then computes, for instance, 1 - alpha from the same
    alpha (1 - float32(0.99) is not float32(1 - 0.99), a relative difference
    of 1e-6 in every square average, beyond the float32 rounding the
    tolerance measures)."""
    return {key: float(np.float32(value)) if isinstance(value, float) else value
            for key, value in options.items()}


def grouped(optimizer, **bias_options):
    """An optimizer over two parameter groups: the weights with the options
    given, the biases with `bias_options` replacing some of them."""
    def make(model, **options):
        weights, biases = weights_and_biases(model)
        return optimizer([{"params": weights},
                          {"params": biases, **f32_rounded(bias_options)}],
                         **options)
    return make


def single(optimizer):
    return lambda model, **options: optimizer(model.parameters(), **options)


# (name, optimizer factory, options): every option of each optimizer, and
# parameter groups whose options change the state kept (momentum, centering).
CONFIGS = [
    ("rmsprop defaults", single(torch.optim.RMSprop), dict(lr=1e-3)),
    ("rmsprop alpha eps weight_decay", single(torch.optim.RMSprop),
     dict(lr=1e-3, alpha=0.9, eps=1e-6, weight_decay=0.05)),
    ("rmsprop momentum", single(torch.optim.RMSprop),
     dict(lr=1e-3, momentum=0.9)),
    ("rmsprop centered", single(torch.optim.RMSprop),
     dict(lr=1e-3, centered=True)),
    ("rmsprop centered momentum, biases plain",
     grouped(torch.optim.RMSprop, momentum=0.0, centered=False, weight_decay=0.0),
     dict(lr=1e-3, momentum=0.5, centered=True, weight_decay=0.01)),
    ("adagrad defaults", single(torch.optim.Adagrad), dict()),
    ("adagrad lr_decay weight_decay initial_accumulator_value eps",
     single(torch.optim.Adagrad),
     dict(lr=0.05, lr_decay=0.1, weight_decay=0.05,
          initial_accumulator_value=0.1, eps=1e-6)),
    # torch.optim.Adagrad starts every sum from its constructor's
    # initial_accumulator_value, not from the group's.
    ("adagrad, biases own lr_decay and accumulator",
     grouped(torch.optim.Adagrad, lr_decay=0.5, initial_accumulator_value=1.0),
     dict(lr=0.02, initial_accumulator_value=0.5)),
    ("adadelta defaults", single(torch.optim.Adadelta), dict()),
    ("adadelta rho eps weight_decay", single(torch.optim.Adadelta),
     dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.05)),
    ("adadelta, biases own rho", grouped(torch.optim.Adadelta, rho=0.5),
     dict(lr=2.0)),
]


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(FEATURES, HIDDEN)
        self.out = nn.Linear(HIDDEN, CLASSES)

    def forward(self, x):
        return self.out(F.gelu(self.hidden(x)))


def build(seed, factory, options, dtype=torch.float32):
    torch.manual_seed(seed)
    model = MLP().to(dtype)
    return model, factory(model, foreach=False, **f32_rounded(options))


def batches(seed, steps):
    generator = torch.Generator().manual_seed(1000 + seed)
    return [(torch.randn(BATCH, FEATURES, generator=generator),
             torch.randint(0, CLASSES, (BATCH,), generator=generator))
            for _ in range(steps)]


def train_torch(seed, factory, options, data, dtype):
    model, optimizer = build(seed, factory, options, dtype)
    for x, y in data:
        optimizer.zero_grad()
        F.cross_entropy(model(x.to(dtype)), y).backward()
        optimizer.step()
    tensors = {}
    for name, param in model.named_parameters():
        tensors[name] = param.detach().double()
        for key, value in optimizer.state[param].items():
            tensors[f"{name}.{key}"] = torch.as_tensor(value).double()
    return tensors


def compare(steps, seeds):
    for name, factory, options in CONFIGS:
        model, optimizer = build(seeds[0], factory, options)
        example = batches(seeds[0], 1)[0]
        step = mpt.compile(model, example[0], example[1], optimizer=optimizer)
        fresh = tempfile.NamedTemporaryFile(suffix=".safetensors")
        step.save(fresh.name)
        for seed in seeds:
            data = batches(seed, steps)
            step.load(fresh.name)
            step.load_state_dict(build(seed, factory, options)[0].state_dict())
            for x, y in data:
                step(x, y)
            mine = step.state()
            f32 = train_torch(seed, factory, options, data, torch.float32)
            f64 = train_torch(seed, factory, options, data, torch.float64)
            compared, worst = [], 0.0
            for key, reference in f32.items():
                if key not in mine:
                    # torch's unused counters (RMSprop's and Adadelta's step).
                    continue
                ours = torch.from_numpy(mine[key]).double()
                truth = f64[key]
                tolerance = (4 * (reference - truth).abs().max().item()
                             + 32 * 2.0 ** -24 * truth.abs().max().item())
                error = (ours - reference).abs().max().item()
                worst = max(worst, error / tolerance if tolerance else
                            float("inf") if error else 0.0)
                compared.append(key)
            missing = [k for k in mine if k not in f32]
            if missing:
                print(f"{name}: mpt state without a torch counterpart: {missing}")
            verdict = "within" if worst <= 1 else "OUTSIDE"
            print(f"{name}: seed {seed}: {steps} steps, {len(compared)} tensors "
                  f"({', '.join(sorted({k.split('.', 2)[-1] for k in compared}))}), "
                  f"max |mpt - torch f32| / tolerance = {worst:.3f}: {verdict} "
                  "tolerance")


def skipped():
    for name, factory, options in CONFIGS:
        model, optimizer = build(0, factory, options)
        data = batches(0, 3)
        step = mpt.compile(model, data[0][0], data[0][1], optimizer=optimizer,
                           precision="f16", loss_scale="dynamic")
        step(*data[0])
        before = step.state()
        poisoned = data[1][0].clone()
        poisoned[0, 0] = float("inf")
        metrics = step(poisoned, data[1][1])
        after = step.state()
        # The loss scale backs off on a skipped step; everything else stays.
        kept = [k for k in before if "loss_scale" not in k]
        changed = [k for k in kept if before[k].tobytes() != after[k].tobytes()]
        state = sorted({k.split(".", 2)[-1] for k in kept if k.count(".") == 2})
        print(f"{name}: skipped={metrics['skipped']}, {len(kept)} tensors "
              f"(optimizer state {', '.join(state)}), changed: "
              f"{', '.join(changed) or 'none'}")
        trained = step(*data[2])
        moved = [k for k in kept if before[k].tobytes() != step.state()[k].tobytes()]
        print(f"{name}: next step skipped={trained['skipped']}, "
              f"{len(moved)} of {len(kept)} tensors updated")


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare(int(sys.argv[2]), [int(s) for s in sys.argv[3:]])
    else:
        skipped()
