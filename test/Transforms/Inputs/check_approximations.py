#!/usr/bin/env python3
"""Checks rows (x, erf(x), exp(x), tanh(x)) printed as f32 bit patterns by
approximate-math-accuracy.mlir against Python's math module."""
import math
import re
import struct
import sys


def f32(bits):
    return struct.unpack("<f", struct.pack("<i", bits))[0]


text = sys.stdin.read()
body = text[text.index("data =") + len("data ="):]
values = [f32(int(token)) for token in re.findall(r"-?\d+", body)]
rows = [values[i:i + 4] for i in range(0, len(values), 4)]
failures = []
finite = [r for r in rows if math.isfinite(r[0])]
smallest_normal = 2.0 ** -126

erf_error = max(abs(e - math.erf(x)) for x, e, _, _ in finite)
exp_error = 0.0
for x, _, e, _ in finite:
    truth = math.exp(x)
    if truth >= smallest_normal and truth <= 3.4028234663852886e38:
        exp_error = max(exp_error, abs(e - truth) / truth)
    elif truth < smallest_normal and e != 0.0 and abs(e - truth) > 2.0 ** -149:
        failures.append(f"exp({x}) = {e}, want 0 or {truth}")
tanh_excess = 0.0
tanh_error = 0.0
for x, _, _, t in finite:
    truth = math.tanh(x)
    tanh_error = max(tanh_error, abs(t - truth))
    tanh_excess = max(tanh_excess, abs(t - truth) - (1e-6 * abs(truth) + 1e-7))

for name, error, bound in [("erf", erf_error, 2.5e-7), ("exp", exp_error, 2.0e-7)]:
    kind = "abs" if name == "erf" else "rel"
    print(f"{name}: {len(rows)} points, max {kind} error {error:.3g}, "
          f"{'within' if error <= bound else 'ABOVE'} {bound:.1e}")
print(f"tanh: {len(rows)} points, max error {tanh_error:.3g}, "
      f"{'within' if tanh_excess <= 0 else 'ABOVE'} 1.0e-06 rel + 1.0e-07 abs")

special = {}
for x, e, p, t in rows:
    if not math.isfinite(x):
        special["nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")] = (e, p, t)
want = {"inf": (1.0, math.inf, 1.0), "-inf": (-1.0, 0.0, -1.0)}
for key, expected in want.items():
    if special.get(key) != expected:
        failures.append(f"erf/exp/tanh({key}) = {special.get(key)}, want {expected}")
if not all(math.isnan(v) for v in special.get("nan", (0.0,))):
    failures.append(f"erf/exp/tanh(nan) = {special.get('nan')}, want NaN")
print("special values: " + ("ok" if not failures else "; ".join(failures)))
sys.exit(1 if failures else 0)
