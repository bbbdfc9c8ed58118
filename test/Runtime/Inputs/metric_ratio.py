#!/usr/bin/env python3
"""Checks that every row of column COLUMN of metrics CSV A is exactly RATIO times B's.

The CSV holds f32 values (9 significant digits round-trip them), compared as f32."""
import csv
import struct
import sys


def f32(value):
    return struct.unpack("<f", struct.pack("<f", value))[0]


def main():
    path_a, path_b, column, ratio = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    with open(path_a) as a, open(path_b) as b:
        rows_a, rows_b = list(csv.DictReader(a)), list(csv.DictReader(b))
    if len(rows_a) != len(rows_b) or not rows_a:
        sys.exit(f"FAILED: {len(rows_a)} rows against {len(rows_b)}")
    for row_a, row_b in zip(rows_a, rows_b):
        value_a, value_b = f32(float(row_a[column])), f32(float(row_b[column]))
        if value_a != f32(ratio * value_b):
            sys.exit(f"FAILED: step {row_a['step']}: {column} {value_a!r} is not {ratio} x {value_b!r}")
    print(f"{len(rows_a)} steps: {column} is exactly {ratio} x the other's")


if __name__ == "__main__":
    main()
