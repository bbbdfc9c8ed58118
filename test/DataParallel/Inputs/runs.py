"""Trains a step on 2 ranks and its twice-as-large-batch form in one process,
for seeds 1-3, and compares them (compare.py).

runs.py DIR STEP_HALF STEP_FULL MPIEXEC MPT-RUN PRECISIONS MPT-RUN-FLAGS...

PRECISIONS: a comma-separated list of --precision values. Prints, for seed
1, the bytes each rank all-reduced per step in each precision.

Each rank, and the one process, runs on one thread (OMP_NUM_THREADS=1): two
ranks share two cores.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def train(out, command, precision, seed, flags, extra=()):
    name = "ranks" if "--data-parallel" in command else "one"
    path = os.path.join(out, "%s-%s-%d%s.json" % (name, precision, seed, "".join(extra)))
    subprocess.run(command + flags + list(extra) + [
        "--precision", precision, "--seed", str(seed), "--metrics-json", path],
        check=True, stdout=subprocess.DEVNULL)
    return path


def main():
    out, half, full, mpiexec, mpt_run, precisions = sys.argv[1:7]
    flags = sys.argv[7:]
    os.environ["OMP_NUM_THREADS"] = "1"
    ranks = [mpiexec, "-n", "2", mpt_run, half, "--data-parallel"]
    one = [mpt_run, full]
    sizes = {}
    for seed in (1, 2, 3):
        for precision in precisions.split(","):
            a = train(out, ranks, precision, seed, flags)
            b = train(out, one, precision, seed, flags)
            print("seed %d %s:" % (seed, precision), end=" ", flush=True)
            compare = [sys.executable, os.path.join(HERE, "compare.py"), a, b]
            floor = train(out, one, precision, seed, flags, ["--cpu-kernels=false"])
            compare += ["--floor", floor]
            if precision == "fp32":
                # 16 ulps: the halves' sums round apart from the whole's in
                # every batch reduction, the convolutions' filter gradients
                # included (one product over each batch's N*OH*OW, blocked
                # by its depth): 1.5e-6 on the CNN's seed 2 after 50 steps.
                compare += ["--loss-rtol", "2e-6"]
            else:
                # Each rank rounds its half batch's gradients to f16/bf16
                # and the halves are summed, where one process rounds the
                # whole batch's once: up to twice the rounding, which the
                # steps then amplify as they do the floor's.
                compare += ["--loss-rtol", "1e-2", "--floor-factor", "4", "--same-scale"]
            subprocess.run(compare, check=True)
            sys.stdout.flush()
            if seed == 1:
                sizes[precision] = json.load(open(a))["metrics"][-1]["bytes_all_reduced"]
    print("bytes all-reduced per step: " + " ".join("%s %d" % kv for kv in sizes.items()))


if __name__ == "__main__":
    main()
