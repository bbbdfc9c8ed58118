"""An f16 gradient sum that overflows across ranks, each rank's own finite.

overflow.py SEED MLP64 MLP128 MPIEXEC MPT-RUN

At the smallest power-of-2 static loss scale at which one process's step 0
(batch 128) overflows in f16, 2 ranks of batch 64 must skip step 0 too when
they sum in f16 (--grad-reduce compute: the sum overflows in the reduction),
and must not when they sum in f32: which shows that each rank's f16
gradients were finite, and that the finite check saw the reduced ones.
"""

import json
import os
import subprocess
import sys
import tempfile


def step0(command, scale, extra):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "metrics.json")
        subprocess.run(command + [
            "--precision", "f16", "--loss-scale", "static", "--init-scale", str(scale),
            "--data", "synthetic", "--steps", "1", "--no-eval", "--seed", sys.argv[1],
            "--on-nonfinite", "continue", "--metrics-json", path] + extra,
            check=True, stdout=subprocess.DEVNULL)
        return json.load(open(path))["metrics"][0]


def main():
    _, mlp64, mlp128, mpiexec, mpt_run = sys.argv[1:6]
    os.environ["OMP_NUM_THREADS"] = "1"
    one = [mpt_run, mlp128]
    ranks = [mpiexec, "-n", "2", mpt_run, mlp64, "--data-parallel"]
    scale = next(2**e for e in range(10, 25) if step0(one, 2**e, [])["skipped"])
    half = step0(ranks, scale, ["--grad-reduce", "compute"])
    full = step0(ranks, scale, ["--grad-reduce", "f32"])
    print("scale 2^%d: one process skipped, %d non-finite; f16 sum skipped %s, "
          "%d non-finite; f32 sum skipped %s" % (
              scale.bit_length() - 1, step0(one, scale, [])["grad_nonfinite"],
              half["skipped"], half["grad_nonfinite"], full["skipped"]))


if __name__ == "__main__":
    main()
