#!/usr/bin/env python3
"""Training-step time of every example on the CPU: mpt against PyTorch CPU eager, same run.

For examples/mlp.mlir, cnn_bn.mlir, transformer_block.mlir and vit.mlir, times mpt FP32, f16 mixed and bf16
mixed (through `mpt-run --data synthetic`) and the same model in PyTorch eager, FP32 and bf16
autocast (same shapes, ops, optimizer and hyperparameters), at 1 and 2 threads. After a warm-up,
each pair runs every mpt precision, then both PyTorch variants, `--pairs` times; it prints the
median of each side and the median of the per-pair ratios, the GEMM GFLOP/s the step reaches (the
step's matmul and convolution FLOPs over its time, next to the machine's sgemm peak), and the peak
RSS of both processes.

Time is CPU time per step at 1 thread (robust on a shared machine: other processes stretch wall
time, not CPU time) and wall time per step at 2 threads (where parallel work is the point; on a
loaded machine these are mostly a measure of the load). mpt's times are read from a running
mpt-run between its epoch lines, after a warm-up epoch, so that compilation and data generation
drop out (see mpt_sample).

Each sample is the fastest of `--launches` runs of its side (mpt-run launches; runs of the PyTorch
worker), and each ratio line also gives the range of its per-pair ratios. Interference on a
shared machine only ever slows a run down, so the fastest of a few is the estimate least moved
by it. At 2 threads on the 2-vCPU VMs here it also sets aside the host's slow placement: a whole
mpt-run process, FP32 and mixed alike, ran the transformer's step at about 1.2 ms or about 2.4 ms
(2026-12-03, Zen 4 EPYC; perf: OpenBLAS's packing and C-scaling, the memory-bound parts, took 4-5x
their time, its compute kernel 1.3x), with no steal time shown, so that a pair whose two sides
landed differently read 0.5x or 2x.

PyTorch is a benchmark reference only, never a CI dependency: Debian's python3-torch (run this with
/usr/bin/python3, `apt install python3-torch libopenblas0-pthread`). OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE are unset for this command so that OpenBLAS picks its kernels for this CPU, unless
--max-cpu-isa avx2 limits both sides to AVX2.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Steps per sample: at least 0.7 s of steps on a Zen 5 (MLP 0.7 ms, CNN 3 ms, transformer 0.6 ms
# at one thread), so that the 4 ms resolution of CPU time is under 1% of a sample.
MODELS = {  # name -> (example, steps per sample)
    "mlp": ("mlp.mlir", 1200),
    "cnn_bn": ("cnn_bn.mlir", 240),
    "transformer_block": ("transformer_block.mlir", 1200),
    "vit": ("vit.mlir", 20),
}


# examples/vit.mlir's AdamW settings (its mpt.optimizer attribute).
VIT_LR, VIT_WEIGHT_DECAY = 1e-3, 0.05


def gemm_flops(path, mpt_opt):
    """Multiply-add FLOPs of the matmuls and convolutions of the file's training step, backward
    pass included: the examples leave it to mpt-autodiff, so count after running that."""
    text = subprocess.run([mpt_opt, path, "--mpt-autodiff"], check=True, capture_output=True,
                          text=True).stdout
    start = text.index("mpt.train_step")
    text = text[text.rfind("func.func", 0, start):]
    text = text[:re.search(r"\n\s*return ", text).start()]
    flops = 0
    shape = lambda s: [int(d) for d in s.split("x")]
    for op, attrs, types in re.findall(
            r"mpt\.(matmul|conv2d|conv2d_filter_grad|conv2d_input_grad)\b[^{:]*(\{[^}]*\})?\s*"
            r":\s*(tensor<[^>]*>,\s*tensor<[^>]*>\s*->\s*tensor<[^>]*>)", text):
        a, b, c = [shape(t[:t.rindex("x")]) for t in re.findall(r"tensor<([^>]*)>", types)]
        if op == "matmul":
            k = a[-2] if "transpose_a" in (attrs or "") else a[-1]
            batch = c[0] if len(c) == 3 else 1
            flops += 2 * batch * c[-2] * c[-1] * k
        elif op == "conv2d":  # input NCHW, filter FCkk -> output NFhw
            flops += 2 * c[0] * c[1] * c[2] * c[3] * b[1] * b[2] * b[3]
        elif op == "conv2d_filter_grad":  # input NCHW, output grad NFhw -> filter FCkk
            flops += 2 * b[0] * b[1] * b[2] * b[3] * c[1] * c[2] * c[3]
        else:  # output grad NFhw, filter FCkk -> input grad NCHW
            flops += 2 * a[0] * a[1] * a[2] * a[3] * b[1] * b[2] * b[3]
    return flops


# ---------------------------------------------------------------------------------------------
# PyTorch side: a worker process per (model, threads) keeps the model and answers timing requests,
# so that PyTorch and mpt alternate without re-importing torch, and its peak RSS is its own.


def torch_model(name, torch):
    nn = torch.nn
    if name == "mlp":
        model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                              nn.Linear(128, 10))
        return model, torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9), (128, 784)
    if name == "cnn_bn":
        model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8),
                              nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(8, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
                              nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(784, 10))
        return model, torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9), (64, 1, 28, 28)

    class Block(nn.Module):
        """examples/transformer_block.mlir: pre-LN, 4 heads of 16, no q/k/v/o biases, exact gelu,
        mean pool over the sequence, linear classifier."""

        def __init__(self, d=64, heads=4, hidden=256, classes=10):
            super().__init__()
            self.heads = heads
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.wq, self.wk, self.wv, self.wo = (nn.Linear(d, d, bias=False) for _ in range(4))
            self.fc1, self.fc2 = nn.Linear(d, hidden), nn.Linear(hidden, d)
            self.cls = nn.Linear(d, classes)

        def forward(self, x):
            b, s, d = x.shape
            t = x.reshape(b * s, d)
            a = self.ln1(t)
            split = lambda p: p.reshape(b, s, self.heads, -1).transpose(1, 2).reshape(
                b * self.heads, s, -1)
            q, k, v = split(self.wq(a)), split(self.wk(a)), split(self.wv(a))
            probs = torch.softmax(torch.bmm(q, k.transpose(1, 2)) * 0.25, dim=-1)
            ctx = torch.bmm(probs, v).reshape(b, self.heads, s, -1).transpose(1, 2).reshape(
                b * s, d)
            r1 = t + self.wo(ctx)
            r2 = r1 + self.fc2(nn.functional.gelu(self.fc1(self.ln2(r1))))
            return self.cls(r2.reshape(b, s, d).mean(dim=1))

    if name == "transformer_block":
        model = Block()
        return model, torch.optim.Adam(model.parameters(), lr=1e-3), (8, 32, 64)

    class ViT(nn.Module):
        """examples/vit.mlir: 49 patches of 4x4 by reshape/transpose, linear embedding, learned
        position embedding, 2 pre-LN blocks (4 heads of 16, no q/k/v biases, an output bias, exact
        gelu MLP of 128), final layer norm, mean pool, linear classifier."""

        def __init__(self, d=64, heads=4, hidden=128, classes=10, layers=2):
            super().__init__()
            self.heads = heads
            self.embed = nn.Linear(16, d)
            self.pos = nn.Parameter(torch.empty(49, d))
            nn.init.kaiming_uniform_(self.pos, a=5 ** 0.5)  # mpt's bound 1/sqrt(d)
            self.blocks = nn.ModuleList()
            for _ in range(layers):
                block = nn.Module()
                block.ln1, block.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
                block.wq, block.wk, block.wv = (nn.Linear(d, d, bias=False) for _ in range(3))
                block.wo = nn.Linear(d, d)
                block.fc1, block.fc2 = nn.Linear(d, hidden), nn.Linear(hidden, d)
                self.blocks.append(block)
            self.lnf = nn.LayerNorm(d)
            self.cls = nn.Linear(d, classes)

        def forward(self, x):
            b = x.shape[0]
            patches = x.reshape(b, 7, 4, 7, 4).transpose(2, 3).reshape(b * 49, 16)
            t = (self.embed(patches).reshape(b, 49, -1) + self.pos).reshape(b * 49, -1)
            split = lambda p: p.reshape(b, 49, self.heads, -1).transpose(1, 2).reshape(
                b * self.heads, 49, -1)
            for blk in self.blocks:
                a = blk.ln1(t)
                q, k, v = split(blk.wq(a)), split(blk.wk(a)), split(blk.wv(a))
                probs = torch.softmax(torch.bmm(q, k.transpose(1, 2)) * 0.25, dim=-1)
                ctx = torch.bmm(probs, v).reshape(b, self.heads, 49, -1).transpose(1, 2).reshape(
                    b * 49, -1)
                t = t + blk.wo(ctx)
                t = t + blk.fc2(nn.functional.gelu(blk.fc1(blk.ln2(t))))
            return self.cls(self.lnf(t).reshape(b, 49, -1).mean(dim=1))

    model = ViT()
    # AdamW as in vit.mlir: no weight decay on biases, norms and the position embedding.
    decayed = [p for n, p in model.named_parameters() if n.endswith("weight") and p.dim() == 2]
    others = [p for n, p in model.named_parameters() if not (n.endswith("weight") and p.dim() == 2)]
    optimizer = torch.optim.AdamW([{"params": decayed}, {"params": others, "weight_decay": 0.0}],
                                  lr=VIT_LR, weight_decay=VIT_WEIGHT_DECAY)
    return model, optimizer, (128, 28, 28)


def torch_worker(name, threads):
    import resource
    import torch
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model, optimizer, shape = torch_model(name, torch)
    loss_fn = torch.nn.CrossEntropyLoss()
    batches = 64
    xs = torch.randn(batches, *shape)
    ys = torch.randint(0, 10, (batches, shape[0]))

    def step(i, bf16):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = loss_fn(model(xs[i % batches]), ys[i % batches])
        loss.backward()
        optimizer.step()

    for line in sys.stdin:
        request = line.split()
        if request[0] == "quit":
            print(json.dumps({"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
            return
        if request[0] == "sgemm":
            a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
            torch.mm(a, b)
            start, reps = time.perf_counter(), 10
            for _ in range(reps):
                torch.mm(a, b)
            print(json.dumps({"gflops": 2 * 1024 ** 3 * reps / (time.perf_counter() - start) / 1e9}))
        else:
            bf16, steps = request[0] == "bf16", int(request[1])
            for i in range(5):  # warm-up
                step(i, bf16)
            cpu, wall = time.process_time(), time.perf_counter()
            for i in range(steps):
                step(i, bf16)
            print(json.dumps({"cpu_ms": 1e3 * (time.process_time() - cpu) / steps,
                              "wall_ms": 1e3 * (time.perf_counter() - wall) / steps}))
        sys.stdout.flush()


class TorchWorker:
    def __init__(self, name, threads):
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--torch-worker", name, str(threads)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, request):
        self.process.stdin.write(request + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self):
        result = self.ask("quit")
        self.process.wait()
        return result


# ---------------------------------------------------------------------------------------------
# mpt side.


def cpu_seconds(pid):
    """CPU time of the process's threads so far, read through its CPU-time clock.

    The kernel brings a running thread's CPU time up to date at each scheduler tick (4 ms on the
    machines here); /proc/<pid>/stat further rounds it to 10 ms. The CPU-time clock
    (clock_getcpuclockid; Linux encodes it as ~pid << 3 | CPUCLOCK_SCHED) keeps the tick's
    resolution, so a sample must span some hundred ticks (MODELS' step counts).
    """
    return time.clock_gettime((~pid << 3) | 2)


def mpt_sample(mpt_run, model, precision, batch, steps, threads):
    """(CPU ms/step, wall ms/step, peak RSS in MB) of mpt-run in its steady state.

    The run has one warm-up epoch and then four epochs of steps/4 steps each (synthetic sets sized
    to the batch); mpt-run prints a line after every epoch, when this reads the process's CPU time
    (cpu_seconds) and the clock. Per-step times come from the last four epochs only, so
    neither compilation nor data generation nor the first steps count.
    """
    per_epoch = max(1, steps // 4)
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    process = subprocess.Popen(
        [mpt_run, model, "--precision", precision, "--data", "synthetic",
         "--synthetic-examples", str(batch * per_epoch), "--epochs", "5", "--no-eval"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    marks = []
    for line in process.stdout:
        match = re.match(r"epoch \d+: steps (\d+)", line)
        if match:
            marks.append((int(match.group(1)), cpu_seconds(process.pid), time.perf_counter()))
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) or len(marks) < 2:
        sys.exit(f"mpt-run failed on {model} ({precision}) or printed no epoch lines:\n{err}")
    (steps0, cpu0, wall0), (steps1, cpu1, wall1) = marks[0], marks[-1]
    return (1e3 * (cpu1 - cpu0) / (steps1 - steps0), 1e3 * (wall1 - wall0) / (steps1 - steps0),
            usage.ru_maxrss / 1024)


def host_ticks():
    """(steal, total) clock ticks of all CPUs so far, from /proc/stat.

    Steal is time the hypervisor ran something else while this VM wanted its CPUs: on the 2-vCPU
    machines here it grows during two-thread runs and moves their wall times by up to 2x, so each
    model's lines say how much of the time went to it.
    """
    fields = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    return fields[7], sum(fields[:8])


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def bench_model(args, name, threads):
    example, steps = MODELS[name]
    steps = max(1, int(steps * args.scale))
    path = os.path.join(ROOT, "examples", example)
    precisions = args.precisions
    flops = gemm_flops(path, os.path.join(os.path.dirname(args.mpt_run), "mpt-opt"))
    worker = TorchWorker(name, threads)
    sgemm = worker.ask("sgemm")["gflops"]
    batch = {"mlp": 128, "cnn_bn": 64, "transformer_block": 8, "vit": 128}[name]
    torch_variants = ("fp32", "bf16") if args.torch_bf16 else ("fp32",)
    # Warm-up of both sides (page cache, CPU frequency).
    mpt_sample(args.mpt_run, path, precisions[0], batch, 8, threads)
    for variant in torch_variants:
        worker.ask(f"{variant} {steps}")

    steal0, total0 = host_ticks()
    samples = {key: [] for key in [f"mpt {p}" for p in precisions]
               + [f"torch {variant}" for variant in torch_variants]}
    rss = 0.0
    measure = "cpu_ms" if threads == 1 else "wall_ms"

    def fastest(runs):
        return min(runs, key=lambda run: run[measure])

    for _ in range(args.pairs):
        for p in precisions:
            runs = []
            for _ in range(args.launches):
                cpu, wall, peak = mpt_sample(args.mpt_run, path, p, batch, steps, threads)
                runs.append({"cpu_ms": cpu, "wall_ms": wall})
                rss = max(rss, peak)
            samples[f"mpt {p}"].append(fastest(runs))
        for variant in torch_variants:
            runs = [worker.ask(f"{variant} {steps}") for _ in range(args.launches)]
            samples[f"torch {variant}"].append(fastest(runs))
    torch_rss = worker.close()["rss_mb"]
    steal1, total1 = host_ticks()
    steal = 100.0 * (steal1 - steal0) / max(1, total1 - total0)

    # At 1 thread CPU time, at more threads wall time (see the module docstring).
    times = {key: [s[measure] for s in values] for key, values in samples.items()}
    print(f"\n{name} ({example}), {threads} thread(s), {args.pairs} pairs, {steps} steps each, "
          f"fastest of {args.launches} runs, "
          f"{'CPU' if threads == 1 else 'wall'} ms/step; GEMM work {flops / 1e6:.1f} MFLOP/step, "
          f"sgemm peak (torch.mm 1024^3) {sgemm:.1f} GFLOP/s")
    print(f"  {'':12} {'median ms':>10} {'GEMM GFLOP/s':>13}")
    for key, values in times.items():
        ms = median(values)
        print(f"  {key:12} {ms:10.3f} {flops / ms / 1e6:13.1f}")

    def ratios(num, den):
        return [a / b for a, b in zip(times[num], times[den]) if a and b]

    rows = [("mpt fp32", "torch fp32", "target <= 1.0"),
            ("mpt bf16", "torch bf16", ""),
            ("mpt f16", "mpt fp32", "target <= 1.15 without native f16"),
            ("mpt bf16", "mpt fp32", "target <= 1.15 (< 1 with avx512_bf16)")]
    result = {"model": name, "threads": threads,
              "ms": {k: median(v) for k, v in times.items()}, "ratios": {},
              "ratio_ranges": {}, "launches": args.launches, "steal_percent": steal}
    for num, den, note in rows:
        if num in times and den in times:
            per_pair = ratios(num, den)
            value = median(per_pair)
            result["ratios"][f"{num} / {den}"] = value
            result["ratio_ranges"][f"{num} / {den}"] = [min(per_pair), max(per_pair)]
            print(f"  ratio {num} / {den}: {value:.2f} (pairs {min(per_pair):.2f}-"
                  f"{max(per_pair):.2f}) {note}")
    print(f"  peak RSS: mpt-run {rss:.0f} MB (compiler included), PyTorch worker "
          f"{torch_rss:.0f} MB (torch included)")
    print(f"  host steal during the pairs: {steal:.1f}% of all CPUs' time")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mpt-run", default=os.path.join(ROOT, "build", "bin", "mpt-run"))
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--precisions", nargs="+", default=["fp32", "f16", "bf16"])
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--launches", type=int, default=3,
                        help="each sample is the fastest of this many runs of its side")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiplies the steps per sample")
    parser.add_argument("--max-cpu-isa", choices=["native", "avx2"], default="native",
                        help="avx2: both sides keep to AVX2/FMA/F16C on a host with AVX-512 "
                        "(MPT_MAX_CPU_ISA, OPENBLAS_CORETYPE=Haswell, ATEN_CPU_CAPABILITY, "
                        "ONEDNN_MAX_CPU_ISA), to time what CPUs without native f16/bf16 run")
    parser.add_argument("--json", help="also write the medians and ratios here")
    parser.add_argument("--torch-worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_worker:
        torch_worker(args.torch_worker[0], int(args.torch_worker[1]))
        return 0
    for variable in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "MPT_MAX_CPU_ISA"):
        os.environ.pop(variable, None)
    if args.max_cpu_isa == "avx2":
        os.environ.update(MPT_MAX_CPU_ISA="avx2", OPENBLAS_CORETYPE="Haswell",
                          ATEN_CPU_CAPABILITY="avx2", ONEDNN_MAX_CPU_ISA="AVX2",
                          DNNL_MAX_CPU_ISA="AVX2")
    if args.pairs < 1 or args.launches < 1:
        sys.exit(f"--pairs ({args.pairs}) and --launches ({args.launches}) must be at least 1")
    if "fp32" not in args.precisions:
        args.precisions.insert(0, "fp32")
    try:
        import torch
        print(f"PyTorch {torch.__version__}, eager; {os.cpu_count()} CPUs: "
              f"{open('/proc/cpuinfo').read().split('model name')[1].split(':')[1].splitlines()[0].strip()}")
    except ImportError:
        sys.exit("PyTorch is not importable: run with /usr/bin/python3 after "
                 "`apt install python3-torch libopenblas0-pthread`")
    flags = next(line for line in open("/proc/cpuinfo") if line.startswith("flags")).split()
    wanted = ("avx2", "fma", "f16c", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16")
    print("CPU flags: " + " ".join(f for f in wanted if f in flags)
          + ("; both sides limited to AVX2 (--max-cpu-isa avx2)"
             if args.max_cpu_isa == "avx2" else ""))
    # oneDNN's bf16 kernels need AVX-512: under ONEDNN_MAX_CPU_ISA=AVX2 PyTorch's bf16 autocast
    # fails, and on a CPU with only AVX2 it falls back to reference kernels 11x slower than its
    # FP32 (the MLP on a Zen 3 EPYC, 2026-12-02), no reference worth the minutes it takes.
    args.torch_bf16 = args.max_cpu_isa != "avx2" and "avx512f" in flags
    if not args.torch_bf16:
        print("PyTorch bf16 autocast left out: oneDNN has no bf16 kernels without AVX-512")
    print("Load average at start: " + open("/proc/loadavg").read().split(" ", 3)[0])
    results = [bench_model(args, name, threads)
               for threads in args.threads for name in args.models]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
