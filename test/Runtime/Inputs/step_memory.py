"""Compares the peak memory mpt-run measured with the precision report's.

Usage: step_memory.py REPORT FP32_METRICS MIXED_METRICS --rtol T
           [--check-mixed] [--max-ratio R]

REPORT is mpt-mixed-precision's report (stages "fp32" and "mixed"), the
metrics are mpt-run's --metrics-json of the FP32 and the mixed-precision run
of the same step. The report predicts the step's bytes without its inputs, so
each prediction is compared with the measured peak less the "data" bytes.
Prints every number, then fails if the FP32 prediction (and with
--check-mixed the mixed one) is off by more than T relative, or, with
--max-ratio, if the mixed step's measured peak exceeds R times the FP32
step's.
"""

import argparse
import json
import sys

CATEGORIES = ["parameters", "masters", "working_copies", "gradients",
              "activations", "optimizer_state", "other_state", "data",
              "workspace"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("fp32")
    parser.add_argument("mixed")
    parser.add_argument("--rtol", type=float, required=True)
    parser.add_argument("--check-mixed", action="store_true")
    parser.add_argument("--max-ratio", type=float)
    args = parser.parse_args()
    with open(args.report) as f:
        report = json.load(f)
    failures = []
    measured = {}
    for stage, path in (("fp32", args.fp32), ("mixed", args.mixed)):
        with open(path) as f:
            peak = json.load(f)["peak_memory"]
        predicted = report[stage]["train_step"]["bytes"]["total"]
        without_data = peak["total"] - peak["data"]
        measured[stage] = peak["total"]
        off = abs(predicted - without_data) / without_data
        print(f"{stage}: measured {peak['total']} bytes (" +
              ", ".join(f"{c} {peak[c]}" for c in CATEGORIES) + ")")
        print(f"{stage}: predicted {predicted}, measured without data "
              f"{without_data}: off by {off:.1%}")
        if off > args.rtol and (stage == "fp32" or args.check_mixed):
            failures.append(f"{stage}: the prediction is off by {off:.1%}, "
                            f"more than {args.rtol:.0%}")
    ratio = measured["mixed"] / measured["fp32"]
    print(f"mixed/fp32 measured peak: {ratio:.3f}")
    if args.max_ratio is not None and ratio > args.max_ratio:
        failures.append(f"the mixed step's peak is {ratio:.3f} of the FP32 "
                        f"step's, more than {args.max_ratio}")
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
