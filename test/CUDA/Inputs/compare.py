#!/usr/bin/env python3
"""Compares the numbers two mlir-runner runs printed with printMemref*.

Usage: compare.py EXPECTED ACTUAL --rtol R --atol A [--min-count N]

Every number after a "data =" header is compared in order (the headers hold
buffer addresses, which differ between runs): |a - e| <= atol + rtol * |e|,
NaN equal to NaN, infinities equal only to themselves. Prints the count and the
largest differences; exits 1 on any mismatch, a different count, or fewer than
--min-count numbers (so an empty or truncated run cannot pass).
"""
import argparse
import math
import re
import sys

NUMBER = re.compile(r"-?(?:inf|nan|\d+(?:\.\d*)?(?:e[-+]?\d+)?)", re.IGNORECASE)


def numbers(path):
    values = []
    with open(path) as f:
        for line in f:
            if line.startswith("Unranked Memref") or line.startswith("Memref"):
                continue
            values.extend(float(token) for token in NUMBER.findall(line))
    return values


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("expected")
    parser.add_argument("actual")
    parser.add_argument("--rtol", type=float, required=True)
    parser.add_argument("--atol", type=float, required=True)
    parser.add_argument("--min-count", type=int, default=1)
    args = parser.parse_args()
    expected, actual = numbers(args.expected), numbers(args.actual)
    if len(expected) != len(actual):
        print(f"count mismatch: {len(expected)} expected, {len(actual)} actual")
        return 1
    if len(expected) < args.min_count:
        print(f"only {len(expected)} numbers, expected at least {args.min_count}")
        return 1
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
