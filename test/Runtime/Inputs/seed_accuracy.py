#!/usr/bin/env python3
"""Checks the test accuracy of several seeds of one model.

  seed_accuracy.py --min-mean M --max-std S [--max-gap G] [--last K]
                   [--min-seeds N]
                   NAME=RUN.json,RUN.json,... [NAME=...]

Each NAME (a precision) lists the --metrics-json files of its seeds. A run's
accuracy is its final one, or with --last K the mean of its last K
evaluations (mpt-run --eval-at); exactly K must be recorded. Every
NAME's mean must reach M and its sample standard deviation stay within S;
with --max-gap, every NAME's mean must lie within G of the first NAME's (the
FP32 reference). Every NAME needs at least N seeds (3 unless given; 2 is
the least a standard deviation takes). Prints the accuracies, means and
spreads it checked.
"""
import argparse
import json
import statistics
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--min-mean", type=float, required=True)
parser.add_argument("--max-std", type=float, required=True)
parser.add_argument("--max-gap", type=float)
parser.add_argument("--last", type=int)
parser.add_argument("--min-seeds", type=int, default=3, choices=range(2, 100),
                    metavar="N")
parser.add_argument("runs", nargs="+")
args = parser.parse_args()

means, failures = {}, []
for group in args.runs:
    name, paths = group.split("=", 1)
    accuracies = []
    for path in paths.split(","):
        with open(path) as f:
            run = json.load(f)
        if args.last is None:
            accuracies.append(run["test_accuracy"][-1])
            continue
        evaluations = [e["test_accuracy"] for e in run["evaluations"]]
        if len(evaluations) != args.last:
            sys.exit(f"{path}: {len(evaluations)} evaluations, expected "
                     f"--last {args.last}")
        accuracies.append(statistics.mean(evaluations))
    if len(accuracies) < args.min_seeds:
        sys.exit(f"{name}: {len(accuracies)} seeds; at least {args.min_seeds} "
                 "are needed")
    mean, std = statistics.mean(accuracies), statistics.stdev(accuracies)
    means[name] = mean
    print(f"{name}: {' '.join(f'{a:.4f}' for a in accuracies)}: "
          f"mean {mean:.4f}, standard deviation {std:.4f}")
    if not mean >= args.min_mean:
        failures.append(f"{name}: mean {mean:.4f} below {args.min_mean}")
    if not std <= args.max_std:
        failures.append(f"{name}: standard deviation {std:.4f} above "
                        f"{args.max_std}")
if args.max_gap is not None:
    reference = next(iter(means))
    for name, mean in means.items():
        gap = mean - means[reference]
        print(f"{name} - {reference}: {gap * 100:+.2f} points")
        if not abs(gap) <= args.max_gap:
            failures.append(f"{name}: mean {gap * 100:+.2f} points from "
                            f"{reference}, beyond {args.max_gap * 100:.2f}")
for failure in failures:
    print("error: " + failure)
sys.exit(1 if failures else 0)
