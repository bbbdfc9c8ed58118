#!/usr/bin/env python3
"""Models at the size people train, through the PyTorch importer: what
compiling them costs and a few training steps on the CPU.

Models: GPT-2-small (examples/pytorch/gpt.py at GPT-2's sizes: 124M
parameters, 12 layers of width 768, 12 heads, vocabulary 50257, sequence
1024; AdamW), torchvision's ViT-B/16 (86M, 224x224, AdamW with
examples/pytorch/vit.py's groups) and ResNet-50 (26M, 224x224, SGD with
momentum and examples/pytorch/resnet18.py's groups).

For each model and precision, in a process of its own: the seconds mpt.compile
takes (import, the mixed-precision rewrite, lowering, JIT; for CUDA also
ptxas and fatbinary for sm_80 and sm_90), the process's peak resident
memory, and on the CPU the ms per step after the first of --steps steps and
the step's measured peak memory (mpt_step_metrics_t). The FP32 losses are
compared with PyTorch eager's on the same module, batch and optimizer,
step for step.

--cuda compiles the CUDA form too. Without a GPU, --recording-driver LIB
runs it on the recording driver (runtime/unittests/RecordingCudaDriver.cpp,
build/lib/libmpt_recording_cuda.so), which runs no kernel: then only the
compile and the step's captured CUDA graph (its kernels and GEMMs) are
reported.

    PYTHONPATH=build/lib/python3/dist-packages python3 bench/real_size_models.py \\
        --models gpt2-small --cuda --recording-driver build/lib/libmpt_recording_cuda.so

--gpu (on a GPU, with a CUDA torch) times the training steps instead: mpt f16
and bf16 (mpt.compile(device="cuda"): CUDA graphs, dynamic loss scaling for
f16) against PyTorch AMP (autocast, with a GradScaler for f16) and, with
torch 2.x, torch.compile of the f16 AMP step, sides alternating over --pairs
rounds of --steps steps (bench/imported_models.py's sides: both read each
step's loss back). Per side: median ms/step; model FLOP utilisation, the
step's FLOPs (torch.utils.flop_counter on PyTorch's step) per second against
the H200's 989 TFLOP/s dense bf16 and the ~790 TFLOP/s measured GEMM
ceiling; peak device memory (mpt's measured step peak, PyTorch's
max_memory_allocated); and the ratio of each mpt side to AMP.
"""
import argparse
import copy
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from imported_models import load_example

def gpt2_small(torch):
    gpt = load_example("gpt")
    model = gpt.GPT(vocab=50257, context=1024, dim=768, heads=12, layers=12)
    generator = torch.Generator().manual_seed(0)
    x = torch.randint(0, 50257, (1, 1024), generator=generator)
    y = torch.randint(0, 50257, (1024,), generator=generator)
    return model, gpt.make_optimizer(model, lr=6e-4), x, y


def imagenet_classifier(torch, model, batch, optimizer_example):
    """`model` on a batch of 224x224 images of ImageNet's 1000 classes, with
    the optimizer of examples/pytorch/<optimizer_example>.py."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(batch, 3, 224, 224, generator=generator)
    y = torch.randint(0, 1000, (batch,), generator=generator)
    return model, load_example(optimizer_example).make_optimizer(model), x, y


def vit_b16(torch):
    import torchvision
    return imagenet_classifier(torch, torchvision.models.vit_b_16(), 2, "vit")


def resnet50(torch):
    import torchvision
    return imagenet_classifier(torch, torchvision.models.resnet50(), 4, "resnet18")


MODELS = {"gpt2-small": gpt2_small, "vit-b16": vit_b16, "resnet50": resnet50}


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(name, side, steps):
    """One side of one model in this process; prints its result as JSON."""
    import torch
    torch.manual_seed(0)
    model, optimizer, x, y = MODELS[name](torch)
    result = {"parameters": sum(p.numel() for p in model.parameters())}
    if side == "eager":
        losses, times = [], []
        for _ in range(steps):
            start = time.perf_counter()
            optimizer.zero_grad(set_to_none=True)
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            times.append(time.perf_counter() - start)
        result.update(losses=losses, step_ms=statistics.median(times[1:]) * 1e3)
    else:
        import mpt
        precision, device = side.split("-")
        start = time.perf_counter()
        step = mpt.compile(model, x, y, optimizer=optimizer, precision=precision,
                           device=device)
        result.update(compile_s=time.perf_counter() - start,
                      compile_rss_mb=peak_rss_mb())
        losses, times, peak = [], [], None
        for _ in range(steps):
            start = time.perf_counter()
            metrics = step(x, y)
            times.append(time.perf_counter() - start)
            losses.append(metrics["loss"])
            peak = metrics["peak_memory"]
        result.update(losses=losses, step_ms=statistics.median(times[1:]) * 1e3,
                      peak_memory=peak)
    result["rss_mb"] = peak_rss_mb()
    print(json.dumps(result))


def run_worker(name, side, steps, env):
    command = [sys.executable, os.path.abspath(__file__), "--worker", name, side,
               "--steps", str(steps)]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def graph_nodes(log):
    """The training step's captured graph, from the recording driver's log."""
    lines = open(log).read().splitlines()
    begin = next(i for i, line in enumerate(lines)
                 if line.startswith("cuStreamBeginCapture"))
    end = next(i for i in range(begin, len(lines))
               if lines[i].startswith("cuStreamEndCapture"))
    captured = [line[2:].split(" ")[0] for line in lines[begin + 1:end]]
    return (f"{end - begin - 1} nodes: {captured.count('cuLaunchKernel')} "
            f"kernels, {captured.count('cublasLtMatmul')} GEMMs")


H200_DENSE_BF16 = 989e12
MEASURED_GEMM_CEILING = 790e12


def step_flops(torch, model, x, y):
    """FLOPs of one forward and backward of `model`, as PyTorch counts them;
    None where this torch has no flop counter."""
    try:
        from torch.utils.flop_counter import FlopCounterMode
    except ImportError:
        return None
    counter = FlopCounterMode(display=False)
    with counter:
        torch.nn.functional.cross_entropy(model(x), y).backward()
    return counter.get_total_flops()


def time_on_gpu(args):
    """mpt's CUDA steps against PyTorch AMP, alternating, per model."""
    import torch
    import mpt
    from imported_models import timed, torch_side
    print(f"GPU: {torch.cuda.get_device_name()}; torch {torch.__version__}; "
          f"{args.pairs} rounds of {args.steps} steps per side")
    synchronize = torch.cuda.synchronize
    for name in args.models.split(","):
        torch.manual_seed(0)
        model, optimizer, x, y = MODELS[name](torch)
        description = {"model": model, "optimizer": optimizer}
        flops = step_flops(torch, copy.deepcopy(model).cuda(), x.cuda(), y.cuda())
        sides, peaks = {}, {}
        for precision in args.precisions.split(","):
            start = time.perf_counter()
            step = mpt.compile(model, x, y, optimizer=optimizer,
                               precision=precision, device="cuda")
            print(f"{name}: mpt {precision} compiled in "
                  f"{time.perf_counter() - start:.1f} s", flush=True)

            def run(step=step, side=f"mpt {precision}"):
                peaks[side] = step(x, y)["peak_memory"]["total"]
            sides[f"mpt {precision}"] = run
        sides["amp f16"] = torch_side(torch, description, x, y, "cuda", torch.float16)
        sides["amp bf16"] = torch_side(torch, description, x, y, "cuda", torch.bfloat16)
        if hasattr(torch, "compile"):
            sides["compile amp f16"] = torch_side(torch, description, x, y, "cuda",
                                                  torch.float16, compiled=True)
        times = {side: [] for side in sides}
        for side, run in sides.items():
            timed(run, 3, synchronize)  # warm-up, and torch.compile's compile
            if not side.startswith("mpt"):
                torch.cuda.reset_peak_memory_stats()
                timed(run, 1, synchronize)
                peaks[side] = torch.cuda.max_memory_allocated()
        for _ in range(args.pairs):
            for side, run in sides.items():
                times[side].append(timed(run, args.steps, synchronize))
        for side, samples in times.items():
            ms = statistics.median(samples)
            line = (f"{name}: {side:16s} {ms:8.2f} ms/step, peak "
                    f"{peaks[side] / 2**30:.2f} GiB")
            if flops:
                achieved = flops / (ms / 1e3)
                line += (f", MFU {achieved / H200_DENSE_BF16:.1%} of 989 TFLOP/s "
                         f"({achieved / MEASURED_GEMM_CEILING:.1%} of the "
                         "790 TFLOP/s GEMM ceiling)")
            print(line, flush=True)
        for side, base in (("mpt f16", "amp f16"), ("mpt bf16", "amp bf16"),
                           ("mpt f16", "compile amp f16")):
            if side in times and base in times:
                ratios = [b / a for a, b in zip(times[side], times[base])]
                print(f"{name}: {side} is {statistics.median(ratios):.2f}x as "
                      f"fast as {base} (rounds {min(ratios):.2f}-"
                      f"{max(ratios):.2f})", flush=True)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--precisions", default=None,
                        help="default: fp32,bf16 on the CPU, f16,bf16 with --gpu")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--cuda", action="store_true")
    parser.add_argument("--recording-driver")
    parser.add_argument("--gpu", action="store_true")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker, args.steps)
        return 0
    if args.gpu:
        args.precisions = args.precisions or "f16,bf16"
        return time_on_gpu(args)
    args.precisions = args.precisions or "fp32,bf16"
    flags = set(next(line for line in open("/proc/cpuinfo")
                     if line.startswith("flags")).split()[2:])
    cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
               if line.startswith("model name"))
    shown = [f for f in ("avx2", "fma", "f16c", "avx512f", "avx512_bf16",
                         "avx512_fp16", "amx_bf16") if f in flags]
    print(f"CPU: {cpu} ({' '.join(shown)}), {os.cpu_count()} threads; "
          f"{args.steps} steps per side")
    for name in args.models.split(","):
        sides = [f"{p}-cpu" for p in args.precisions.split(",")]
        if args.cuda:
            sides.append("f16-cuda")
        eager = run_worker(name, "eager", args.steps, dict(os.environ))
        print(f"{name}: PyTorch eager fp32: "
              + (eager.get("error") or
                 f"{eager['parameters'] / 1e6:.1f}M parameters, "
                 f"{eager['step_ms']:.0f} ms/step, losses "
                 + " ".join(f"{v:.5f}" for v in eager["losses"])), flush=True)
        for side in sides:
            env = dict(os.environ)
            log = None
            if side.endswith("cuda") and args.recording_driver:
                log = tempfile.NamedTemporaryFile(suffix=".log", delete=False).name
                env.update(MPT_CUDA_DRIVER_LIBRARY=args.recording_driver,
                           MPT_CUBLASLT_LIBRARY=args.recording_driver,
                           MPT_RECORDING_CUDA_LOG=log)
            result = run_worker(name, side, args.steps, env)
            if "error" in result:
                print(f"{name}: mpt {side}: failed: {result['error']}", flush=True)
                continue
            line = (f"{name}: mpt {side}: compiled in {result['compile_s']:.1f} s, "
                    f"peak RSS {result['compile_rss_mb'] / 1024:.1f} GiB")
            if log:
                line += f"; recording driver, step graph {graph_nodes(log)}"
                os.unlink(log)
            else:
                peak = result["peak_memory"]
                line += (f"; {result['step_ms']:.0f} ms/step, step peak "
                         f"{peak['total'] / 2**30:.2f} GiB (activations "
                         f"{peak['activations'] / 2**30:.2f}), losses "
                         + " ".join(f"{v:.5f}" for v in result["losses"]))
                if side == "fp32-cpu" and "losses" in eager:
                    gap = max(abs(a - b) / abs(b) for a, b in
                              zip(result["losses"], eager["losses"]))
                    line += f"; largest relative gap to eager {gap:.1e}"
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
