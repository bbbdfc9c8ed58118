#!/usr/bin/env python3
"""Compares the per-step metrics of two mpt-run --metrics-csv files.

Usage: compare_losses.py GPU.csv CPU.csv --steps N --rtol R --atol A
Fails unless both hold exactly N steps, every loss agrees within
|gpu - cpu| <= atol + rtol * |cpu|, and the loss scale and the skipped flag
are the same at every step. Prints the largest differences either way, so a
failing run says by how much.
"""
import argparse
import csv
import sys


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gpu")
    parser.add_argument("cpu")
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--rtol", type=float, required=True)
    parser.add_argument("--atol", type=float, required=True)
    args = parser.parse_args()
    gpu, cpu = read(args.gpu), read(args.cpu)
    problems = []
    if len(gpu) != args.steps or len(cpu) != args.steps:
        problems.append(f"steps: gpu {len(gpu)}, cpu {len(cpu)}, expected {args.steps}")
    worst_abs = worst_rel = 0.0
    for g, c in zip(gpu, cpu):
        step = g["step"]
        lg, lc = float(g["loss"]), float(c["loss"])
        diff = abs(lg - lc)
        worst_abs = max(worst_abs, diff)
        if lc != 0:
            worst_rel = max(worst_rel, diff / abs(lc))
        if not diff <= args.atol + args.rtol * abs(lc):
            problems.append(f"step {step}: loss gpu {lg} cpu {lc}")
        for key in ("loss_scale", "skipped"):
            if g[key] != c[key]:
                problems.append(f"step {step}: {key} gpu {g[key]} cpu {c[key]}")
    print(f"{min(len(gpu), len(cpu))} steps: max |loss difference| {worst_abs:.3g}, "
          f"max relative {worst_rel:.3g} (allowed {args.atol:g} + {args.rtol:g}|cpu|)")
    for problem in problems[:20]:
        print("MISMATCH " + problem)
    if problems:
        sys.exit(1)
    print("losses agree; loss scale and skipped steps identical")


if __name__ == "__main__":
    main()
