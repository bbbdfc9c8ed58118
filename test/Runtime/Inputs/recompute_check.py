"""Compares two mpt-run --metrics-json files of one run, without and with
--recompute: every step's metrics must be identical (recomputation changes
no value), and the recomputed run's peak memory at most --max-ratio of the
other's. Prints both peaks and their ratio.

recompute_check.py KEPT.json RECOMPUTED.json --max-ratio R
"""

import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kept")
    parser.add_argument("recomputed")
    parser.add_argument("--max-ratio", type=float, required=True)
    args = parser.parse_args()
    with open(args.kept) as file:
        kept = json.load(file)
    with open(args.recomputed) as file:
        recomputed = json.load(file)
    if len(kept["metrics"]) != len(recomputed["metrics"]):
        sys.exit("the runs trained %d and %d steps" %
                 (len(kept["metrics"]), len(recomputed["metrics"])))
    for a, b in zip(kept["metrics"], recomputed["metrics"]):
        a = {k: v for k, v in a.items() if k != "peak_memory_bytes"}
        b = {k: v for k, v in b.items() if k != "peak_memory_bytes"}
        if a != b:
            sys.exit("step %d differs:\n  %s\n  %s" % (a["step"], a, b))
    peak = kept["peak_memory"]["total"]
    peak_recomputed = recomputed["peak_memory"]["total"]
    ratio = peak_recomputed / peak
    print("%d steps identical (%d skipped); peak %d bytes, recomputed %d "
          "bytes: %.3f" % (len(kept["metrics"]), kept["skipped"], peak,
                           peak_recomputed, ratio))
    if ratio > args.max_ratio:
        sys.exit("the recomputed peak is %.3f of the other, above %.3f" %
                 (ratio, args.max_ratio))


if __name__ == "__main__":
    main()
