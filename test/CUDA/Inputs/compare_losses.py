#!/usr/bin/env python3
"""Compares the per-step metrics of two mpt-run --metrics-csv files.

Usage: compare_losses.py GPU.csv CPU.csv --steps N [--rtol R] [--atol A]
                         [--first-rtol F] [--early N --early-rtol E]
                         [--drift OTHER.csv --drift-factor K]
Fails unless both hold exactly N steps, the loss scale and the skipped flag
are the same at every step, and every loss agrees within
|gpu - cpu| <= atol + rtol * |cpu| (+ K * drift, below).

--first-rtol bounds step 0 alone: its loss is the forward pass on identical
weights and data, before any update can amplify a difference.

--early N --early-rtol E bounds steps 1..N, before training has amplified a
difference much: a wrong gradient shows there.

--drift names a second CPU run of the same step that differs from CPU.csv
only in summation order (mpt-run --cpu-kernels=false). Training amplifies
any last-bit difference chaotically, so how far a correct GPU run may drift
is measured, not guessed: the GPU may differ from the CPU by at most K times
the largest difference between the two CPU runs, at any step.

Prints the largest differences either way, so a failing run says by how much.
"""
import argparse
import csv
import sys


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def max_abs_difference(a, b):
    return max((abs(float(x["loss"]) - float(y["loss"])) for x, y in zip(a, b)), default=0.0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gpu")
    parser.add_argument("cpu")
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--rtol", type=float, default=0.0)
    parser.add_argument("--atol", type=float, default=0.0)
    parser.add_argument("--first-rtol", type=float)
    parser.add_argument("--early", type=int, default=0)
    parser.add_argument("--early-rtol", type=float)
    parser.add_argument("--drift")
    parser.add_argument("--drift-factor", type=float, default=20.0)
    args = parser.parse_args()
    gpu, cpu = read(args.gpu), read(args.cpu)
    problems = []
    if len(gpu) != args.steps or len(cpu) != args.steps:
        problems.append(f"steps: gpu {len(gpu)}, cpu {len(cpu)}, expected {args.steps}")
    drift_bar = 0.0
    if args.drift:
        drift = read(args.drift)
        if len(drift) != len(cpu):
            problems.append(f"steps: drift run {len(drift)}, cpu {len(cpu)}")
        cpu_drift = max_abs_difference(drift, cpu)
        drift_bar = args.drift_factor * cpu_drift
        print(f"CPU against CPU in another summation order: max |loss difference| {cpu_drift:.3g}")
    worst_abs = worst_rel = 0.0
    for g, c in zip(gpu, cpu):
        step = g["step"]
        lg, lc = float(g["loss"]), float(c["loss"])
        diff = abs(lg - lc)
        worst_abs = max(worst_abs, diff)
        if lc != 0:
            worst_rel = max(worst_rel, diff / abs(lc))
        if not diff <= args.atol + args.rtol * abs(lc) + drift_bar:
            problems.append(f"step {step}: loss gpu {lg} cpu {lc}")
        for key in ("loss_scale", "skipped"):
            if g[key] != c[key]:
                problems.append(f"step {step}: {key} gpu {g[key]} cpu {c[key]}")
    if args.first_rtol is not None and gpu and cpu:
        lg, lc = float(gpu[0]["loss"]), float(cpu[0]["loss"])
        first = abs(lg - lc) / abs(lc)
        print(f"step 0: relative loss difference {first:.3g} (allowed {args.first_rtol:g})")
        if not first <= args.first_rtol:
            problems.append(f"step 0: loss gpu {lg} cpu {lc}")
    if args.early:
        early = [abs(float(g["loss"]) - float(c["loss"])) / abs(float(c["loss"]))
                 for g, c in zip(gpu[1:args.early + 1], cpu[1:args.early + 1])]
        print(f"steps 1-{args.early}: max relative loss difference {max(early, default=0):.3g} "
              f"(allowed {args.early_rtol:g})")
        for step, difference in enumerate(early, 1):
            if not difference <= args.early_rtol:
                problems.append(f"step {step}: relative loss difference {difference:.3g}")
    print(f"{min(len(gpu), len(cpu))} steps: max |loss difference| {worst_abs:.3g}, "
          f"max relative {worst_rel:.3g} (allowed {args.atol:g} + {args.rtol:g}|cpu|"
          + (f" + {args.drift_factor:g} x {drift_bar / args.drift_factor:.3g}" if args.drift else "")
          + ")")
    for problem in problems[:20]:
        print("MISMATCH " + problem)
    if problems:
        sys.exit(1)
    print("losses agree; loss scale and skipped steps identical")


if __name__ == "__main__":
    main()
