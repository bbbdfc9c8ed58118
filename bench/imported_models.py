#!/usr/bin/env python3
"""Training-step time of the PyTorch examples (examples/pytorch) imported into mpt, against the
same modules in PyTorch eager and under torch.compile (inductor), on the CPU, in one run.

Each model is imported and compiled once per precision through the Python API (mpt.compile),
and PyTorch's sides train copies of the same module on the same batch with the same optimizer.
After a warm-up (which also triggers torch.compile's compilation), each of `--pairs` rounds runs
`--steps` steps of every side in turn: mpt FP32, mpt bf16, eager FP32, eager bf16 autocast, and
torch.compile FP32. The script prints each side's median ms/step and the median of the per-round
ratios against mpt FP32 (and mpt bf16 against eager bf16), with the ratios' range.

torch.compile needs torch 2.x: run this with the interpreter of a virtual environment that has
PyPI's torch (scripts/check-torch2.sh makes one), with build/lib/python3/dist-packages on
PYTHONPATH. With Debian's torch 1.13 the torch.compile column is left out. This also exercises
the importer on torch 2.x. PyTorch is a benchmark-only dependency, never CI's.
"""
import argparse
import copy
import importlib.util
import os
import platform
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = {"mlp": (128, 10), "cnn": (64, 10), "resnet18": (32, 10),
          "gpt": (16, 256)}  # name -> (batch, classes)


def load_example(name):
    path = os.path.join(ROOT, "examples", "pytorch", f"{name}.py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def same_optimizer(description, model):
    """The description's optimizer, parameter groups and all, over `model`, a
    copy of its model."""
    names = {id(p): n for n, p in description["model"].named_parameters()}
    parameters = dict(model.named_parameters())
    original = description["optimizer"]
    groups = [dict({k: v for k, v in group.items() if k != "params"},
                   params=[parameters[names[id(p)]] for p in group["params"]])
              for group in original.param_groups]
    return type(original)(groups)


def torch_side(torch, description, x, y, autocast=False, compiled=False):
    """A closure that runs one PyTorch training step of a copy of the model."""
    model = copy.deepcopy(description["model"])
    optimizer = same_optimizer(description, model)
    forward = torch.compile(model) if compiled else model
    loss_fn = torch.nn.functional.cross_entropy

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = loss_fn(forward(x), y)
        loss.backward()
        optimizer.step()
    return step


def timed(step, steps):
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - start) / steps * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torch
    import mpt
    torch.set_num_threads(args.threads)
    has_compile = hasattr(torch, "compile")
    flags = set(next(line for line in open("/proc/cpuinfo")
                     if line.startswith("flags")).split()[2:])
    shown = [f for f in ("avx2", "fma", "f16c", "avx512f", "avx512_bf16", "avx512_fp16",
                         "amx_bf16") if f in flags]
    print(f"CPU: {cpu_name()} ({' '.join(shown)}); {args.threads} threads; torch "
          f"{torch.__version__}; {args.pairs} rounds of {args.steps} steps per side")
    for name in args.models.split(","):
        example = load_example(name)
        batch, classes = MODELS[name]
        description = example.mpt_model(batch, 0)
        generator = torch.Generator().manual_seed(0)
        inputs, target = description["inputs"], description["target"]
        x = (torch.randn(tuple(inputs.shape), generator=generator)
             if inputs.is_floating_point() else
             torch.randint(0, classes, tuple(inputs.shape), generator=generator))
        y = torch.randint(0, classes, tuple(target.shape), generator=generator)
        sides = {}
        for precision in ("fp32", "bf16"):
            start = time.perf_counter()
            step = mpt.compile(description["model"], x, y,
                               optimizer=description["optimizer"], precision=precision)
            print(f"{name}: mpt {precision} compiled in {time.perf_counter() - start:.1f} s")
            sides[f"mpt {precision}"] = (lambda s=step: s(x, y))
        sides["eager fp32"] = torch_side(torch, description, x, y)
        sides["eager bf16"] = torch_side(torch, description, x, y, autocast=True)
        if has_compile:
            sides["compile fp32"] = torch_side(torch, description, x, y, compiled=True)
        for side in sides.values():  # warm-up, and torch.compile's compilation
            timed(side, 3)
        times = {side: [] for side in sides}
        for _ in range(args.pairs):
            for side, run in sides.items():
                times[side].append(timed(run, args.steps))
        for side, samples in times.items():
            print(f"{name}: {side:13s} {statistics.median(samples):9.2f} ms/step")
        for side, base in [("eager fp32", "mpt fp32"), ("compile fp32", "mpt fp32"),
                           ("eager bf16", "mpt bf16")]:
            if side not in times:
                continue
            ratios = [b / a for a, b in zip(times[base], times[side])]
            print(f"{name}: {base} is {statistics.median(ratios):.2f}x as fast as {side} "
                  f"(rounds {min(ratios):.2f}-{max(ratios):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
