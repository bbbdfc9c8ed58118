"""Compares the per-step metrics of two mpt-run --metrics-json files.

compare.py A.json B.json --loss-rtol R [--floor C.json [--floor-factor F]]
           [--same-scale] [--tail]

Every step's loss must agree within R relative (the ranks' mean loss against
one process's). With --floor, C is B's run again with another f32 summation
order (--cpu-kernels=false): the bound is then the larger of R and F (2 by
default) times C's difference from B, since data parallelism also sums in
another order (two halves of the batch, then across ranks), and that
rounding grows over the steps as any does. With --same-scale, every step's loss scale and skip
decision must be identical. With --tail, A is a resumed run: only B's and
C's steps that A has are compared. Prints the largest differences.
"""

import argparse
import json
import sys


def metrics(path):
    with open(path) as file:
        return json.load(file)["metrics"]


def largest_difference(a, b):
    if [m["step"] for m in a] != [m["step"] for m in b]:
        sys.exit("the runs trained different steps: %d and %d" % (len(a), len(b)))
    # A non-finite loss (an injected step, null in the JSON) must be one in
    # both.
    for x, y in zip(a, b):
        if (x["loss"] is None) != (y["loss"] is None):
            sys.exit("step %d: loss %s against %s" % (x["step"], x["loss"], y["loss"]))
    return max(abs(x["loss"] - y["loss"]) / abs(y["loss"])
               for x, y in zip(a, b) if y["loss"] is not None)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--loss-rtol", type=float, required=True)
    parser.add_argument("--floor")
    parser.add_argument("--floor-factor", type=float, default=2)
    parser.add_argument("--same-scale", action="store_true")
    parser.add_argument("--tail", action="store_true")
    args = parser.parse_args()
    a, b = metrics(args.a), metrics(args.b)
    steps = {m["step"] for m in a}
    tail = (lambda ms: [m for m in ms if m["step"] in steps]) if args.tail else (lambda ms: ms)
    b = tail(b)
    worst = largest_difference(a, b)
    bound = args.loss_rtol
    if args.floor:
        floor = largest_difference(tail(metrics(args.floor)), b)
        print("summation-order floor %.3g" % floor)
        bound = max(bound, args.floor_factor * floor)
    print("steps %d, largest relative loss difference %.3g" % (len(a), worst))
    if not worst <= bound:
        sys.exit("losses differ by %.3g > %.3g" % (worst, bound))
    if args.same_scale:
        for x, y in zip(a, b):
            if (x["loss_scale"], x["skipped"]) != (y["loss_scale"], y["skipped"]):
                sys.exit("step %d: loss scale %g skipped %s against %g %s" % (
                    x["step"], x["loss_scale"], x["skipped"], y["loss_scale"], y["skipped"]))
        print("loss scales %s, skipped steps %s" % (
            sorted({m["loss_scale"] for m in a}),
            [m["step"] for m in a if m["skipped"]]))


if __name__ == "__main__":
    main()
