#!/usr/bin/env python3
"""GPU training-step throughput: mpt mixed precision against PyTorch AMP.

Models (the three examples scaled to fill a GPU, as issue 7 asks):
  MLP 784-4096-4096-10, batch 4096, SGD momentum 0.9;
  pre-LN transformer block d=1024, 16 heads, sequence 512, batch 16, AdamW;
  CNN with batch norm, 8x wider (64 and 128 channels), batch 256, SGD momentum.
PyTorch side: torch.autocast f16 with GradScaler, and bf16 autocast; steps/s
(median of several timed windows, CUDA events). Update-phase bandwidth: the
bytes the optimizer step reads and writes over its time, against a
device-to-device copy of the same bytes.

mpt side: run through `mpt-run --device cuda` when that option exists. The
CUDA backend is not wired into the runtime yet (runtime/src/cuda/README.md),
so today this prints "mpt: not measured" and the ratios are absent; nothing
is faked. NEVER RUN YET on a GPU.
"""
import argparse
import os
import statistics
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mpt-build", default="build-cuda")
    parser.add_argument("--windows", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
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
    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")

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

    models = {
        "mlp": (lambda: nn.Sequential(nn.Linear(784, 4096), nn.ReLU(), nn.Linear(4096, 4096),
                                      nn.ReLU(), nn.Linear(4096, 10)),
                lambda: torch.randn(4096, 784, device=dev), 4096, "sgd"),
        "transformer": (Block, lambda: torch.randn(16, 512, 1024, device=dev), 16, "adamw"),
        "cnn": (lambda: nn.Sequential(nn.Conv2d(1, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64),
                                      nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(64, 128, 3, padding=1, bias=False), nn.BatchNorm2d(128),
                                      nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(128 * 49, 10)),
                lambda: torch.randn(256, 1, 28, 28, device=dev), 256, "sgd"),
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

    has_mpt_cuda = False
    mpt_run = os.path.join(args.mpt_build, "bin", "mpt-run")
    if os.path.exists(mpt_run):
        help_text = subprocess.run([mpt_run, "--help"], capture_output=True, text=True)
        has_mpt_cuda = "--device" in help_text.stdout + help_text.stderr

    for name, (make, data, batch, optimizer) in models.items():
        for dtype in (torch.float16, torch.bfloat16):
            torch.manual_seed(0)
            model = make().to(dev)
            opt = (torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9) if optimizer == "sgd"
                   else torch.optim.AdamW(model.parameters(), lr=1e-4))
            scaler = torch.cuda.amp.GradScaler(enabled=dtype == torch.float16)
            x, y = data(), torch.randint(0, 10, (batch,), device=dev)

            def step():
                opt.zero_grad(set_to_none=True)
                with torch.autocast("cuda", dtype=dtype):
                    loss = nn.functional.cross_entropy(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()

            rate = time_steps(step)
            # Update phase alone, against a copy of the bytes it moves.
            # Per f32 parameter with k state tensors of its size: read p, g
            # and the states, write p and the states: (3 + 2k) * 4 bytes.
            nbytes = 0
            for p in model.parameters():
                k = sum(1 for t in opt.state[p].values()
                        if torch.is_tensor(t) and t.numel() == p.numel())
                nbytes += p.numel() * 4 * (3 + 2 * k)
            update = time_steps(lambda: opt.step())
            src = torch.empty(nbytes // 2, dtype=torch.uint8, device=dev)
            dst = torch.empty_like(src)
            copy = time_steps(lambda: dst.copy_(src))
            print(f"{name} {str(dtype).split('.')[-1]}: PyTorch AMP {rate:.1f} steps/s; "
                  f"update phase {nbytes * update / 1e9:.0f} GB/s vs copy {nbytes * copy / 1e9:.0f} GB/s "
                  f"({update / copy:.0%})")
            if has_mpt_cuda:
                print("  mpt: mpt-run --device cuda exists, but this script does not drive it yet")
            else:
                print("  mpt: not measured (the CUDA backend is not wired into mpt-run yet)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
