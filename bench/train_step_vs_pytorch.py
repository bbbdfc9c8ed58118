#!/usr/bin/env python3
"""Time per training step of the compiled MLP (examples/mlp.mlir) against PyTorch CPU eager.

Both train the same 784-256-128-10 ReLU MLP with SGD (lr 0.02, momentum 0.9), batch 128, on
Fashion-MNIST-shaped batches, on this machine, in this run. Prints ms/step for mpt FP32, f16
mixed and bf16 mixed, PyTorch FP32 and bf16 autocast, and the ratios. The target is mpt FP32 not
slower than PyTorch FP32 (ratio <= 1).

PyTorch is a benchmark reference only: Debian's python3-torch (run this with /usr/bin/python3)
or a PyPI wheel. Unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE when timing OpenBLAS.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def time_mpt(mpt_run, model, precision, steps, data):
    with tempfile.TemporaryDirectory() as tmp:
        metrics = os.path.join(tmp, "metrics.json")
        subprocess.run([mpt_run, model, "--precision", precision, "--steps", str(steps),
                        "--epochs", str(steps),
                        "--data", data, "--no-eval", "--quiet", "--metrics-json", metrics],
                       check=True, stdout=subprocess.DEVNULL)
        with open(metrics) as f:
            return json.load(f)["ms_per_step"]


def time_torch(steps, autocast_bf16):
    """The faster of one thread and all cores: the reference at its best."""
    import torch
    times = []
    for threads in sorted({1, os.cpu_count()}):
        torch.set_num_threads(threads)
        times.append(time_torch_with_current_threads(torch, steps, autocast_bf16))
    return min(times)


def time_torch_with_current_threads(torch, steps, autocast_bf16):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.rand(steps, 128, 784)
    y = torch.randint(0, 10, (steps, 128))

    def step(i):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast_bf16):
            loss = loss_fn(model(x[i]), y[i])
        loss.backward()
        optimizer.step()

    for i in range(20):  # warm-up
        step(i)
    start = time.perf_counter()
    for i in range(steps):
        step(i)
    return 1000.0 * (time.perf_counter() - start) / steps


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mpt-run", default=os.path.join(root, "build", "bin", "mpt-run"))
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--data", default="synthetic", help="synthetic or fashion-mnist")
    args = parser.parse_args()
    for variable in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        os.environ.pop(variable, None)

    model = os.path.join(root, "examples", "mlp.mlir")
    mpt = {p: time_mpt(args.mpt_run, model, p, args.steps, args.data)
           for p in ("fp32", "f16", "bf16")}
    try:
        import torch
        torch_fp32 = time_torch(args.steps, False)
        torch_bf16 = time_torch(args.steps, True)
        print(f"PyTorch {torch.__version__} eager, best of 1 and {os.cpu_count()} threads")
    except ImportError:
        torch_fp32 = torch_bf16 = None
        print("PyTorch not importable: run with /usr/bin/python3 after "
              "`apt install python3-torch libopenblas0-pthread`")

    for precision, ms in mpt.items():
        print(f"mpt {precision:>4}: {ms:7.3f} ms/step")
    if torch_fp32:
        print(f"torch fp32: {torch_fp32:7.3f} ms/step")
        print(f"torch bf16 autocast: {torch_bf16:7.3f} ms/step")
        print(f"ratio mpt fp32 / torch fp32: {mpt['fp32'] / torch_fp32:.2f} (target <= 1)")
        print(f"ratio mpt bf16 / torch bf16 autocast: {mpt['bf16'] / torch_bf16:.2f}")
    print(f"ratio mpt f16 mixed / mpt fp32: {mpt['f16'] / mpt['fp32']:.2f}")
    print(f"ratio mpt bf16 mixed / mpt fp32: {mpt['bf16'] / mpt['fp32']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
