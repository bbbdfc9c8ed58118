#!/usr/bin/env python3
"""Writes the module of ../sigmoid-tanh-silu-mse.test, or checks its output
against float64 references.

`gen`: prints functions that apply sigmoid, tanh, silu, their gradients and
mse_loss with its gradient in f32, f16 and bf16, and a @main that calls them
on fixed inputs and prints every result widened to f32, as its bit pattern
(exact, where printMemrefF32 prints 6 digits).

`check RTOL_F32`: reads the printed results and compares each with the float64
formula on the same inputs, rounded to the element type as they were: within
RTOL_F32 relative in f32 (and for every loss), and within one unit in the last
place of f16 (2^-10 relative, 2^-24 among its subnormals) or bf16 (2^-7)
otherwise: the op computes
in f32 and rounds once, so it can land on the other side of a rounding
boundary only.
"""
import math
import re
import struct
import sys

TYPES = ["f32", "f16", "bf16"]
N = 16
# Inputs across both tails, where sigmoid and tanh saturate and exp(-x)
# overflows f16, and around 0.
X = [-17.0, -8.5, -4.25, -2.0, -1.1, -0.6, -0.25, -0.01,
     0.0, 0.03, 0.4, 0.9, 1.7, 3.3, 6.1, 12.0]
G = [0.5 * math.sin(1.3 * i + 0.2) + 0.1 for i in range(N)]
TARGET = [math.cos(0.7 * i) for i in range(N)]


def round_to(value, elt):
    if elt == "f32":
        return struct.unpack("f", struct.pack("f", value))[0]
    if elt == "f16":
        return struct.unpack("e", struct.pack("e", value))[0]
    bits = struct.unpack("I", struct.pack("f", value))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000  # nearest even
    return struct.unpack("f", struct.pack("I", bits))[0]


def printed_f32(text):
    """The f32 values whose bit patterns printMemrefI32 printed in `text`."""
    bits = [int(v) for v in re.findall(r"-?\d+", re.sub(r"^.*Memref.*$", "", text, flags=re.M))]
    return [struct.unpack("f", struct.pack("i", b))[0] for b in bits]


def dense(values):
    return "dense<[" + ", ".join(f"{v:.9e}" for v in values) + f"]> : tensor<{N}xf32>"


def gen():
    lines = ["func.func private @printMemrefI32(tensor<*xi32>)"]
    for elt in TYPES:
        t = f"tensor<{N}x{elt}>"
        lines += [
            f"func.func @activations_{elt}(%x: {t}, %g: {t}) -> ({', '.join([t] * 6)}) {{",
            f"  %s = mpt.sigmoid %x : {t}",
            f"  %ds = mpt.sigmoid_grad %g, %s : {t}",
            f"  %t = mpt.tanh %x : {t}",
            f"  %dt = mpt.tanh_grad %g, %t : {t}",
            f"  %u = mpt.silu %x : {t}",
            f"  %du = mpt.silu_grad %g, %x : {t}",
            f"  return %s, %ds, %t, %dt, %u, %du : {', '.join([t] * 6)}",
            "}",
            f"func.func @mse_{elt}(%x: {t}, %y: {t}) -> (tensor<f32>, {t}) {{",
            f"  %loss = mpt.mse_loss %x, %y : {t}",
            "  %seed = mpt.loss_grad %loss",
            f"  %dx = mpt.mse_loss_grad %seed, %x, %y : {t}",
            f"  return %loss, %dx : tensor<f32>, {t}",
            "}"]
    lines += ["func.func @main() {",
              f"  %x = arith.constant {dense(X)}",
              f"  %g = arith.constant {dense(G)}",
              f"  %y = arith.constant {dense(TARGET)}"]
    f32 = f"tensor<{N}xf32>"
    for elt in TYPES:
        t = f"tensor<{N}x{elt}>"
        for name in ["x", "g", "y"]:
            if elt == "f32":
                lines.append(f"  %{name}_{elt} = tensor.cast %{name} : {f32} to {t}")
            else:
                lines.append(f"  %{name}_{elt} = arith.truncf %{name} : {f32} to {t}")
        lines.append(f"  %a_{elt}:6 = call @activations_{elt}(%x_{elt}, %g_{elt}) : ({t}, {t}) -> ({', '.join([t] * 6)})")
        lines.append(f"  %m_{elt}:2 = call @mse_{elt}(%x_{elt}, %y_{elt}) : ({t}, {t}) -> (tensor<f32>, {t})")
        results = [f"%a_{elt}#{i}" for i in range(6)] + [f"%m_{elt}#1"]
        i32 = f"tensor<{N}xi32>"
        for i, value in enumerate(results):
            if elt != "f32":
                lines.append(f"  %w_{elt}_{i} = arith.extf {value} : {t} to {f32}")
                value = f"%w_{elt}_{i}"
            lines.append(f"  %b_{elt}_{i} = arith.bitcast {value} : {f32} to {i32}")
            lines.append(f"  %p_{elt}_{i} = tensor.cast %b_{elt}_{i} : {i32} to tensor<*xi32>")
            lines.append(f"  call @printMemrefI32(%p_{elt}_{i}) : (tensor<*xi32>) -> ()")
        lines.append(f"  %b_{elt}_loss = arith.bitcast %m_{elt}#0 : tensor<f32> to tensor<i32>")
        lines.append(f"  %p_{elt}_loss = tensor.cast %b_{elt}_loss : tensor<i32> to tensor<*xi32>")
        lines.append(f"  call @printMemrefI32(%p_{elt}_loss) : (tensor<*xi32>) -> ()")
    lines += ["  return", "}"]
    print("\n".join(lines))


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0


def expected(elt, got):
    """The float64 results of @activations and @mse in the order @main prints
    them. The gradients of sigmoid and tanh are computed from the outputs the
    step printed (`got`), which they read, in f32 arithmetic, rounding after
    each op as the kernels do: near y = +-1, 1 - y and 1 - y^2 cancel, so a
    last-bit difference in y (exp's and tanh's polynomials on the CPU) or in
    y^2 changes them a lot, in PyTorch's kernels too."""
    x = [round_to(v, elt) for v in X]
    g = [round_to(v, elt) for v in G]
    y = [round_to(v, elt) for v in TARGET]
    s = [sigmoid(v) for v in x]
    th = [math.tanh(v) for v in x]
    s_stored = got[0:N]
    th_stored = got[2 * N:3 * N]
    f32 = lambda v: round_to(v, "f32")
    outputs = [
        s,
        [f32(f32(gi * f32(1 - si)) * si) for gi, si in zip(g, s_stored)],
        th,
        [f32(gi * f32(1 - f32(ti * ti))) for gi, ti in zip(g, th_stored)],
        [xi * si for xi, si in zip(x, s)],
        [gi * si * (1 + xi * (1 - si)) for gi, xi, si in zip(g, x, s)],
        [2.0 / N * (xi - yi) for xi, yi in zip(x, y)],
    ]
    loss = sum((xi - yi) ** 2 for xi, yi in zip(x, y)) / N
    return [v for out in outputs for v in out], [loss]


def check(rtol_f32):
    numbers = printed_f32(sys.stdin.read())
    per_type = 7 * N + 1
    if len(numbers) != len(TYPES) * per_type:
        sys.exit(f"FAILED: expected {len(TYPES) * per_type} numbers, got {len(numbers)}")
    failures = 0
    for k, elt in enumerate(TYPES):
        got = numbers[k * per_type:(k + 1) * per_type]
        values, loss = expected(elt, got)
        # The loss is f32 in every case; the rest are rounded to the type,
        # f16 down to its subnormals, one unit (2^-24) apart.
        rtol = {"f32": rtol_f32, "f16": 2.0 ** -10, "bf16": 2.0 ** -7}[elt]
        atol = 2.0 ** -24 if elt == "f16" else 0.0
        tolerances = [(rtol, atol)] * len(values) + [(rtol_f32, 0.0)]
        worst = 0.0
        for i, (a, e, (rel, absolute)) in enumerate(zip(got, values + loss, tolerances)):
            if abs(a - e) > rel * abs(e) + absolute:
                failures += 1
                print(f"FAILED {elt} #{i}: got {a!r}, expected {e!r}")
            elif abs(e) > 1024 * absolute:  # f16: normal values only
                worst = max(worst, abs(a - e) / abs(e))
        print(f"{elt}: {per_type} values, largest relative error {worst:.1e}")
    if failures:
        sys.exit(f"FAILED: {failures} mismatches")
    print("all match")


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen()
    else:
        check(float(sys.argv[2]))
