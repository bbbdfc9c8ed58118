#!/usr/bin/env python3
"""GPU training-step throughput: mpt mixed precision against PyTorch AMP.

Models (the three examples scaled to fill a GPU, as issue 7 asks; the mpt
steps come from gpu_models.py, the same graphs as the examples):
  MLP 784-4096-4096-10, batch 4096, SGD momentum 0.9;
  pre-LN transformer block d=1024, 16 heads, sequence 512, batch 16, Adam;
  CNN with batch norm, 8x wider (64 and 128 channels), batch 256, SGD momentum.
Precisions: f16 (PyTorch: torch.autocast + GradScaler; mpt: dynamic loss
scaling) and bf16 (no scaling on either side).

Each pair runs the PyTorch side (median of --windows timed windows of --steps
steps, CUDA events, after 3 warm-up steps) and then the mpt side (`mpt-run
--device cuda` for --steps steps, its wall time per step after the first,
which pays the one-time costs: cuBLASLt plans, device buffers); sides
alternate over --pairs pairs and the medians and the ratio mpt/PyTorch are
printed. What each side's time covers differs, against mpt: mpt-run gathers
each batch on the host and copies it in (through page-locked memory, while
the previous step runs: it queues a step before reading the metrics of the
one before); PyTorch's batch stays on the GPU. mpt-run's host time per step
is printed too: preparing and queueing a step, and waiting for metrics (the
device time the host did not hide).

Update-phase bandwidth, against a device-to-device copy (PyTorch, same
run) of the bytes PyTorch's formula counts for the optimizer step (per f32
parameter with k state tensors: (3 + 2k) * 4 bytes), for both sides:
PyTorch's optimizer step timed alone; mpt's from one more run with
MPT_CUDA_KERNEL_TIMES, the runtime's per-launch GPU times: its update
kernels (the optimizer's, which also unscale and write the working copies,
and the loss scale's: the kernels mpt-name-state-update-kernels names
*_update*), and everything the step launches after its last GEMM (those,
plus the gradient counts and the finite check). Medians over the steps
after the first. `--kernel-times FILE --steps N` prints the same summary
of such a file.

--validate (no GPU, no PyTorch): the generated steps at the examples' own
sizes train exactly like the examples on the CPU (same per-step metrics).
Run on an H200 on 2026-11-30 (scripts/device-check.sh); the numbers are in
runtime/src/cuda/README.md.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_models  # noqa: E402

# name: (generated step, batch, optimizer of the PyTorch side)
SCALED = {
    "mlp": (lambda: gpu_models.mlp(4096, 4096, 4096), 4096, "sgd"),
    "transformer": (lambda: gpu_models.transformer(16, 512, 1024, 16), 16, "adam"),
    "cnn": (lambda: gpu_models.cnn(256, 64, 128), 256, "sgd"),
}
EXAMPLE_SIZED = {
    "mlp": (gpu_models.mlp(128, 256, 128), 128, "mlp.mlir"),
    "transformer_block": (gpu_models.transformer(8, 32, 64, 4), 8, "transformer_block.mlir"),
    "cnn_bn": (gpu_models.cnn(64, 8, 16), 64, "cnn_bn.mlir"),
}


def run_mpt(mpt_run, step_file, device, precision, batch, steps, metrics, env=None):
    """Trains `steps` steps of `step_file`; returns mpt-run's summary (ms/step after the first)."""
    examples = 4 * batch  # 4 steps an epoch, so the data stays small
    command = [mpt_run, step_file, "--device", device, "--precision", precision,
               "--data", "synthetic", "--synthetic-examples", str(examples),
               "--epochs", str(steps // 4 + 2), "--steps", str(steps), "--no-eval",
               "--quiet", "--metrics-json", metrics + ".json", "--metrics-csv", metrics + ".csv"]
    result = subprocess.run(command, capture_output=True, text=True,
                            env=dict(os.environ, **(env or {})))
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout}{result.stderr}")
    with open(metrics + ".json") as f:
        return json.load(f)


def update_phase(times_csv, steps):
    """(update kernels, launches after the last GEMM), GPU microseconds per
    step: medians over the steps after the first of a MPT_CUDA_KERNEL_TIMES
    file of `steps` training steps (every step launches the same sequence)."""
    with open(times_csv) as f:
        rows = [(row["name"], float(row["microseconds"])) for row in csv.DictReader(f)]
    if steps < 2 or len(rows) % steps:
        raise ValueError(f"{times_csv}: {len(rows)} launches do not make {steps} equal steps")
    per_step = len(rows) // steps
    updates, tails = [], []
    for step in range(1, steps):
        launches = rows[step * per_step:(step + 1) * per_step]
        updates.append(sum(us for name, us in launches if "_update" in name))
        gemms = [i for i, (name, _) in enumerate(launches) if name.startswith("mpt_cuda_matmul")]
        tails.append(sum(us for _, us in launches[gemms[-1] + 1 if gemms else 0:]))
    return statistics.median(updates), statistics.median(tails)


def validate(mpt_run, scratch):
    """The generated steps at the examples' sizes against the examples."""
    examples_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
    failed = 0
    for name, (text, batch, example) in EXAMPLE_SIZED.items():
        generated = os.path.join(scratch, name + ".generated.mlir")
        with open(generated, "w") as f:
            f.write(text)
        rows = []
        for label, path in (("generated", generated), ("example", os.path.join(examples_dir, example))):
            metrics = os.path.join(scratch, f"{name}.{label}")
            run_mpt(mpt_run, path, "cpu", "f16", batch, 6, metrics)
            with open(metrics + ".csv") as f:
                rows.append(list(csv.DictReader(f)))
        same = rows[0] == rows[1] and len(rows[0]) == 6
        failed += not same
        print(f"{name}: generated step {'trains exactly like' if same else 'DIFFERS FROM'} {example} "
              f"({len(rows[0])} f16 steps)")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mpt-run", default="build-cuda/bin/mpt-run")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--windows", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--validate", action="store_true")
    parser.add_argument("--kernel-times", help="summarize this MPT_CUDA_KERNEL_TIMES file")
    args = parser.parse_args()
    if args.kernel_times:
        update, tail = update_phase(args.kernel_times, args.steps)
        print(f"update kernels {update:.1f} us per step; after the last GEMM {tail:.1f} us")
        return 0
    scratch = tempfile.mkdtemp(prefix="mpt-bench-")
    if args.validate:
        return validate(args.mpt_run, scratch)
    try:
        import torch
        import torch.nn as nn
    except ImportError:
        print("PyTorch is not installed: no reference to measure against")
        return 1
    if not torch.cuda.is_available():
        print("no CUDA device visible to PyTorch")
        return 1
    dev = torch.device("cuda")
    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}; "
          f"{args.pairs} pairs, {args.steps} steps per side per pair")

    class Block(nn.Module):
        def __init__(self, d=1024, heads=16, classes=10):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, heads, bias=False, batch_first=True)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
            self.head = nn.Linear(d, classes)

        def forward(self, x):
            a = self.ln1(x)
            x = x + self.attn(a, a, a, need_weights=False)[0]
            x = x + self.mlp(self.ln2(x))
            return self.head(x.mean(1))

    torch_models = {
        "mlp": (lambda: nn.Sequential(nn.Linear(784, 4096), nn.ReLU(), nn.Linear(4096, 4096),
                                      nn.ReLU(), nn.Linear(4096, 10)),
                lambda: torch.randn(4096, 784, device=dev)),
        "transformer": (Block, lambda: torch.randn(16, 512, 1024, device=dev)),
        "cnn": (lambda: nn.Sequential(nn.Conv2d(1, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64),
                                      nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(64, 128, 3, padding=1, bias=False), nn.BatchNorm2d(128),
                                      nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(128 * 49, 10)),
                lambda: torch.randn(256, 1, 28, 28, device=dev)),
    }

    def time_steps(step):
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        rates = []
        for _ in range(args.windows):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(args.steps):
                step()
            end.record()
            end.synchronize()
            rates.append(args.steps / (start.elapsed_time(end) / 1e3))
        return statistics.median(rates)

    status = 0
    for name, (make_step, batch, optimizer) in SCALED.items():
        step_file = os.path.join(scratch, name + ".mlir")
        with open(step_file, "w") as f:
            f.write(make_step())
        make_model, make_data = torch_models[name]
        for dtype, precision in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
            torch.manual_seed(0)
            model = make_model().to(dev)
            opt = (torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9) if optimizer == "sgd"
                   else torch.optim.Adam(model.parameters(), lr=1e-4))
            scaler = torch.cuda.amp.GradScaler(enabled=dtype == torch.float16)
            x, y = make_data(), torch.randint(0, 10, (batch,), device=dev)

            def step():
                opt.zero_grad(set_to_none=True)
                with torch.autocast("cuda", dtype=dtype):
                    loss = nn.functional.cross_entropy(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()

            torch_rates, mpt_runs = [], []
            for pair in range(args.pairs):
                torch_rates.append(time_steps(step))
                try:
                    mpt_runs.append(run_mpt(args.mpt_run, step_file, "cuda", precision, batch,
                                            args.steps,
                                            os.path.join(scratch, f"{name}.{precision}.{pair}")))
                except RuntimeError as error:
                    print(f"{name} {precision}: mpt failed: {error}")
                    status = 1
            torch_rate = statistics.median(torch_rates)
            line = f"{name} {precision}: PyTorch AMP {torch_rate:.1f} steps/s"
            if mpt_runs:
                def median(key):
                    return statistics.median(run[key] for run in mpt_runs)
                mpt_rate = 1e3 / median("ms_per_step_after_first")
                line += (f"; mpt {mpt_rate:.1f} steps/s; mpt/PyTorch {mpt_rate / torch_rate:.2f}"
                         f" (mpt host per step: queueing {median('ms_per_step_queueing'):.2f} ms,"
                         f" waiting {median('ms_per_step_waiting'):.2f} ms)")
            print(line, flush=True)

            # PyTorch's update phase alone, against a copy of the bytes it
            # moves. Per f32 parameter with k state tensors of its size: read
            # p, g and the states, write p and the states: (3 + 2k) * 4 bytes.
            nbytes = 0
            for p in model.parameters():
                k = sum(1 for t in opt.state[p].values()
                        if torch.is_tensor(t) and t.numel() == p.numel())
                nbytes += p.numel() * 4 * (3 + 2 * k)
            update = time_steps(lambda: opt.step())
            src = torch.empty(nbytes // 2, dtype=torch.uint8, device=dev)
            dst = torch.empty_like(src)
            copy = time_steps(lambda: dst.copy_(src))
            line = (f"  PyTorch update phase {nbytes * update / 1e9:.0f} GB/s vs copy "
                    f"{nbytes * copy / 1e9:.0f} GB/s ({update / copy:.0%})")
            times = os.path.join(scratch, f"{name}.{precision}.kernel-times.csv")
            try:
                run_mpt(args.mpt_run, step_file, "cuda", precision, batch, args.steps,
                        os.path.join(scratch, f"{name}.{precision}.timed"),
                        env={"MPT_CUDA_KERNEL_TIMES": times})
                mpt_update, mpt_tail = update_phase(times, args.steps)
                for label, us in (("update kernels", mpt_update),
                                  ("after the last GEMM", mpt_tail)):
                    rate = nbytes / (us * 1e-6)
                    line += (f"; mpt {label} {us:.0f} us, {rate / 1e9:.0f} GB/s "
                             f"({rate / (nbytes * copy):.0%} of copy)")
            except (RuntimeError, ValueError, OSError) as error:
                line += f"; mpt's not measured: {error}"
                status = 1
            print(line, flush=True)
            del model, opt, x
            torch.cuda.empty_cache()
    return status


if __name__ == "__main__":
    sys.exit(main())
