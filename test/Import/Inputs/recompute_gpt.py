"""Activation recomputation on the GPT example with 4 blocks (batch 16,
context 64), imported and compiled through the Python API with
recompute="none" and "sqrt", FP32 and f16: after 3 steps on the same random
token batches, the state must be bitwise equal and every step's metrics
equal, and the recomputed step's peak memory at most --max-ratio of the
other's. Prints the peaks and their ratio per precision.

recompute_gpt.py EXAMPLES_DIR --max-ratio R
"""

import argparse
import sys

import numpy as np
import torch

import mpt


def train(gpt, precision, recompute, batches):
    torch.manual_seed(0)
    model = gpt.GPT(context=64, layers=4)
    step = mpt.compile(model, torch.zeros(16, 64, dtype=torch.int64),
                       torch.zeros(16 * 64, dtype=torch.int64),
                       optimizer=gpt.make_optimizer(model),
                       precision=precision, recompute=recompute)
    metrics = [step(tokens[:, :-1], tokens[:, 1:].reshape(-1))
               for tokens in batches]
    return step.state(), metrics


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("examples")
    parser.add_argument("--max-ratio", type=float, required=True)
    args = parser.parse_args()
    sys.path.insert(0, args.examples)
    import gpt

    rng = np.random.default_rng(1)
    batches = [rng.integers(0, 256, size=(16, 65)) for _ in range(3)]
    failed = False
    for precision in ("fp32", "f16"):
        kept_state, kept = train(gpt, precision, "none", batches)
        state, recomputed = train(gpt, precision, "sqrt", batches)
        for name in kept_state:
            if not np.array_equal(kept_state[name], state[name]):
                print("%s: %s differs" % (precision, name))
                failed = True
        peaks = [m.pop("peak_memory")["total"] for m in kept + recomputed]
        if kept != recomputed:
            print("%s: the metrics differ:\n  %s\n  %s" %
                  (precision, kept, recomputed))
            failed = True
        peak, peak_recomputed = max(peaks[:3]), max(peaks[3:])
        ratio = peak_recomputed / peak
        print("%s: state and metrics identical; peak %d bytes, recomputed %d "
              "bytes: %.3f" % (precision, peak, peak_recomputed, ratio))
        failed |= ratio > args.max_ratio
    try:
        train(gpt, "fp32", "every", batches[:1])
    except mpt.Error as error:
        print("%s: %s" % (error.code, error))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
