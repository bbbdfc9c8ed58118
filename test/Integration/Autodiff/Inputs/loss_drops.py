#!/usr/bin/env python3
"""Checks that training lowers the loss: the mean loss of the last LAST steps of
an mpt-run metrics CSV is below FRACTION times the loss of the first step."""
import csv
import sys


def main():
    path, last, fraction = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    with open(path) as f:
        losses = [float(row["loss"]) for row in csv.DictReader(f)]
    if len(losses) <= last:
        sys.exit(f"FAILED: {path} has {len(losses)} steps, need more than {last}")
    first, tail = losses[0], sum(losses[-last:]) / last
    print(f"{path}: first loss {first:.4f}, mean of the last {last} {tail:.4f}")
    if not tail < fraction * first:
        sys.exit(f"FAILED: {tail:.4f} is not below {fraction} x {first:.4f}")
    print("loss dropped")


if __name__ == "__main__":
    main()
