#!/usr/bin/env python3
"""Training-step time of the PyTorch examples (examples/pytorch) imported into mpt, against the
same modules in PyTorch eager and under torch.compile (inductor), on the CPU, in one run.

Each model is imported and compiled once per precision through the Python API (mpt.compile),
and PyTorch's sides train copies of the same module on the same batch with the same optimizer.
After a warm-up (which also triggers torch.compile's compilation), each of `--pairs` rounds runs
`--steps` steps of every side in turn: mpt FP32, mpt bf16, eager FP32, eager bf16 autocast, and
torch.compile FP32. The script prints each side's median ms/step and the median of the per-round
ratios against mpt FP32 (and mpt bf16 against eager bf16), with the ratios' range.

With `--device cuda` both sides run on the GPU: mpt FP32, f16 and bf16 against PyTorch eager
FP32 and AMP (autocast with f16 and GradScaler, autocast with bf16), and against torch.compile
of the f16 AMP step where torch has it. Both sides read each step's loss back to the host (mpt's
step returns its metrics), so both wait for every step.

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


def torch_side(torch, description, x, y, device="cpu", autocast=None,
               compiled=False):
    """A closure that runs one PyTorch training step of a copy of the model,
    under autocast to the `autocast` dtype if given; f16 on the GPU scales
    the loss with a GradScaler, as AMP does."""
    model = copy.deepcopy(description["model"]).to(device)
    optimizer = same_optimizer(description, model)
    forward = torch.compile(model) if compiled else model
    loss_fn = torch.nn.functional.cross_entropy
    scaler = (torch.cuda.amp.GradScaler()
              if device == "cuda" and autocast == torch.float16 else None)

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device, dtype=autocast or torch.float32,
                            enabled=autocast is not None):
            # From the host each step, as mpt's side takes its batch.
            loss = loss_fn(forward(x.to(device)), y.to(device))
        if scaler is None:
            loss.backward()
            optimizer.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        # The loss back on the host, as mpt's step returns its metrics: both
        # sides wait for each step.
        return loss.item()
    return step


def timed(step, steps, synchronize):
    synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    synchronize()
    return (time.perf_counter() - start) / steps * 1e3


def sides_of(torch, mpt, name, description, x, y, device, has_compile):
    """The timed sides, by name, and the (side, reference) pairs to compare."""
    precisions = ("fp32", "f16", "bf16") if device == "cuda" else ("fp32", "bf16")
    sides = {}
    for precision in precisions:
        start = time.perf_counter()
        step = mpt.compile(description["model"], x, y, optimizer=description["optimizer"],
                           precision=precision, device=device)
        print(f"{name}: mpt {precision} compiled in {time.perf_counter() - start:.1f} s")
        sides[f"mpt {precision}"] = (lambda s=step: s(x, y))
    sides["eager fp32"] = torch_side(torch, description, x, y, device)
    if device == "cuda":
        sides["amp f16"] = torch_side(torch, description, x, y, device, torch.float16)
        sides["amp bf16"] = torch_side(torch, description, x, y, device, torch.bfloat16)
        if has_compile:
            sides["compile amp f16"] = torch_side(torch, description, x, y, device,
                                                  torch.float16, compiled=True)
        return sides, [("eager fp32", "mpt fp32"), ("amp f16", "mpt f16"),
                       ("amp bf16", "mpt bf16"), ("compile amp f16", "mpt f16")]
    sides["eager bf16"] = torch_side(torch, description, x, y, device, torch.bfloat16)
    if has_compile:
        sides["compile fp32"] = torch_side(torch, description, x, y, device,
                                           compiled=True)
    return sides, [("eager fp32", "mpt fp32"), ("compile fp32", "mpt fp32"),
                   ("eager bf16", "mpt bf16")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torch
    import mpt
    torch.set_num_threads(args.threads)
    has_compile = hasattr(torch, "compile")
    if args.device == "cuda" and not torch.cuda.is_available():
        print("error: --device cuda, but torch sees no GPU", file=sys.stderr)
        return 1
    synchronize = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    flags = set(next(line for line in open("/proc/cpuinfo")
                     if line.startswith("flags")).split()[2:])
    shown = [f for f in ("avx2", "fma", "f16c", "avx512f", "avx512_bf16", "avx512_fp16",
                         "amx_bf16") if f in flags]
    print(f"CPU: {cpu_name()} ({' '.join(shown)}); {args.threads} threads; torch "
          f"{torch.__version__}; {args.pairs} rounds of {args.steps} steps per side")
    if args.device == "cuda":
        print(f"GPU: {torch.cuda.get_device_name()}")
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
        sides, comparisons = sides_of(torch, mpt, name, description, x, y,
                                      args.device, has_compile)
        for side in sides.values():  # warm-up, and torch.compile's compilation
            timed(side, 3, synchronize)
        times = {side: [] for side in sides}
        for _ in range(args.pairs):
            for side, run in sides.items():
                times[side].append(timed(run, args.steps, synchronize))
        for side, samples in times.items():
            print(f"{name}: {side:15s} {statistics.median(samples):9.2f} ms/step")
        for side, base in comparisons:
            if side not in times:
                continue
            ratios = [b / a for a, b in zip(times[base], times[side])]
            print(f"{name}: {base} is {statistics.median(ratios):.2f}x as fast as {side} "
                  f"(rounds {min(ratios):.2f}-{max(ratios):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
