#!/usr/bin/env python3
"""Compares the numbers two mlir-runner runs printed with printMemref*.

Usage: compare.py EXPECTED ACTUAL --rtol R --atol A [--min-count N]
       compare.py EXPECTED ACTUAL --tensor-rtol R [--min-count N]

Every number after a "data =" header is compared in order (the headers hold
buffer addresses, which differ between runs): |a - e| <= atol + rtol * |e|,
NaN equal to NaN, infinities equal only to themselves. Prints the count and the
largest differences; exits 1 on any mismatch, a different count, or fewer than
--min-count numbers (so an empty or truncated run cannot pass).

With --tensor-rtol, each printed memref is compared as a whole instead:
||a - e|| <= R * ||e|| (2-norms), for steps whose rounding differences are
amplified element by element (batch norm over few samples) but stay a
rounding-sized fraction of each tensor, where a wrong kernel is not.
"""
import argparse
import math
import re
import sys

NUMBER = re.compile(r"-?(?:inf|nan|\d+(?:\.\d*)?(?:e[-+]?\d+)?)", re.IGNORECASE)


def tensors(path):
    """The numbers of each printed memref, in order."""
    printed = []
    with open(path) as f:
        for line in f:
            if line.startswith("Unranked Memref") or line.startswith("Memref"):
                printed.append([])
            elif printed:
                printed[-1].extend(float(t) for t in NUMBER.findall(line))
    return printed


def compare_tensors(expected, actual, tensor_rtol):
    """The number of tensors whose difference exceeds tensor_rtol of their
    norm; prints the largest relative difference."""
    mismatches, worst = 0, 0.0
    for i, (e, a) in enumerate(zip(expected, actual)):
        norm = math.sqrt(math.fsum(v * v for v in e))
        diff = math.sqrt(math.fsum((x - y) ** 2 for x, y in zip(e, a)))
        relative = diff / norm if norm else (0.0 if diff == 0 else math.inf)
        if not relative <= tensor_rtol:
            if mismatches < 10:
                print(f"mismatch in tensor {i} ({len(e)} numbers): relative "
                      f"difference {relative:.3g}")
            mismatches += 1
        worst = max(worst, relative)
    print(f"compared {len(expected)} tensors: {mismatches} mismatches, "
          f"max relative difference {worst:.3g}")
    return mismatches


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("expected")
    parser.add_argument("actual")
    parser.add_argument("--rtol", type=float)
    parser.add_argument("--atol", type=float)
    parser.add_argument("--tensor-rtol", type=float)
    parser.add_argument("--min-count", type=int, default=1)
    args = parser.parse_args()
    if (args.tensor_rtol is None) == (args.rtol is None or args.atol is None):
        parser.error("give --rtol and --atol, or --tensor-rtol")
    expected_tensors = tensors(args.expected)
    actual_tensors = tensors(args.actual)
    expected = [v for t in expected_tensors for v in t]
    actual = [v for t in actual_tensors for v in t]
    if [len(t) for t in expected_tensors] != [len(t) for t in actual_tensors]:
        print(f"count mismatch: {len(expected)} expected, {len(actual)} actual "
              f"in {len(expected_tensors)} and {len(actual_tensors)} tensors")
        return 1
    if len(expected) < args.min_count:
        print(f"only {len(expected)} numbers, expected at least {args.min_count}")
        return 1
    if args.tensor_rtol is not None:
        return 1 if compare_tensors(expected_tensors, actual_tensors,
                                    args.tensor_rtol) else 0
    mismatches, max_abs, max_rel = 0, 0.0, 0.0
    for i, (e, a) in enumerate(zip(expected, actual)):
        if math.isnan(e) or math.isnan(a) or math.isinf(e) or math.isinf(a):
            same = (math.isnan(e) and math.isnan(a)) or e == a
            diff = 0.0 if same else math.inf
        else:
            diff = abs(a - e)
            same = diff <= args.atol + args.rtol * abs(e)
        if not same:
            if mismatches < 10:
                print(f"mismatch at {i}: expected {e!r}, actual {a!r}")
            mismatches += 1
        if math.isfinite(diff):
            max_abs = max(max_abs, diff)
            if e != 0:
                max_rel = max(max_rel, diff / abs(e))
    print(f"compared {len(expected)} numbers: {mismatches} mismatches, "
          f"max abs diff {max_abs:.3g}, max rel diff {max_rel:.3g}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
