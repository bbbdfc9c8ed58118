#!/usr/bin/env python3
"""Compares the state after one training step of a hand-written step and of its
mpt-autodiff version (two mpt-run checkpoints, F32).

After one step from zero optimizer state the optimizer state holds the gradient
itself (SGD momentum buffer = g) or a fixed multiple of it (Adam exp_avg =
(1 - beta1) g, exp_avg_sq = (1 - beta2) g^2), so comparing it compares every
gradient. The autodiff version names the state it created argN; MANUAL=AUTO
pairs map the hand-written names onto those. Every tensor of the hand-written
checkpoint must be compared: max |manual - auto| <= rtol * max |manual|,
exp_avg_sq through its square root.
"""
import argparse
import json
import math
import struct
import sys


def read_f32(path):
    with open(path, "rb") as f:
        data = f.read()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + header_len])
    body = data[8 + header_len:]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        raw = body[begin:end]
        if info["dtype"] == "F32":
            tensors[name] = struct.unpack(f"<{len(raw) // 4}f", raw)
        elif info["dtype"] == "I64":
            tensors[name] = struct.unpack(f"<{len(raw) // 8}q", raw)
        else:
            sys.exit(f"FAILED: {path}: tensor '{name}' has dtype {info['dtype']}")
    return tensors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("manual")
    parser.add_argument("auto")
    parser.add_argument("pairs", nargs="*", help="MANUAL=AUTO tensor names")
    parser.add_argument("--rtol", type=float, default=1e-6)
    args = parser.parse_args()
    manual, auto = read_f32(args.manual), read_f32(args.auto)
    names = {name: name for name in manual}
    for pair in args.pairs:
        manual_name, auto_name = pair.split("=")
        names[manual_name] = auto_name
    worst = 0.0
    for manual_name, auto_name in sorted(names.items()):
        if auto_name not in auto:
            sys.exit(f"FAILED: no tensor '{auto_name}' (for '{manual_name}') in {args.auto}")
        a, b = manual[manual_name], auto[auto_name]
        if auto_name.endswith(".exp_avg_sq"):
            # (1 - beta2) g^2: its relative error is twice g's, so compare
            # |g| (up to the constant), in the units of every other tensor.
            a, b = [math.sqrt(v) for v in a], [math.sqrt(v) for v in b]
        if len(a) != len(b):
            sys.exit(f"FAILED: '{manual_name}' has {len(a)} elements, '{auto_name}' {len(b)}")
        scale = max(abs(v) for v in a)
        if scale == 0.0:
            sys.exit(f"FAILED: '{manual_name}' is all zeros: nothing is compared")
        diff = max(abs(x - y) for x, y in zip(a, b)) / scale
        worst = max(worst, diff)
        if diff > args.rtol:
            sys.exit(f"FAILED: '{manual_name}' vs '{auto_name}': relative difference {diff:.3g} > {args.rtol}")
    print(f"{len(names)} tensors within rtol {args.rtol}")
    print(f"largest relative difference {worst:.3g}")


if __name__ == "__main__":
    main()
