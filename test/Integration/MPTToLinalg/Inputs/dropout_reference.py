#!/usr/bin/env python3
"""Writes the module of ../dropout.test, or checks its output.

`gen`: prints a @main that runs mpt.dropout on fixed inputs for every case
below (element type, p, seed, stream, counter) and prints each result widened
to f32 as its bit pattern.

`check`: each result must be the documented one bit for bit: the mask of
mpt.dropout's description (transcribed here in Python's integers), the kept
elements f32(x) * (1.0f / f32(1 - p)) rounded once to the element type, the
others +0. Each case's kept count must lie within 5 standard deviations of
the binomial's mean n (1 - p) (a false alarm about once in 2 million cases),
and two cases of one p must agree on a fraction of elements within the same
bound of p^2 + (1 - p)^2, as independent masks do.
"""
import math
import struct
import sys

from activation_reference import printed_f32, round_to

SHAPE = (48, 80)
N = SHAPE[0] * SHAPE[1]
# (element type, p, seed, stream, counter): seeds, streams and counters that
# differ in one of them at a time, and each element type.
CASES = [("f32", p, seed, stream, counter)
         for p in (0.1, 0.5, 0.9)
         for seed, stream, counter in ((0, 0, 0), (1, 0, 0), (0, 1, 0),
                                       (0, 0, 1), (7, 2, 1000))]
CASES += [("f16", 0.3, 0, 0, 3), ("bf16", 0.3, 0, 0, 4)]
# f32 values, which 10 significant digits give back exactly.
X = [round_to(math.sin(0.37 * i) * (1.0 + (i % 7)), "f32") for i in range(N)]
MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def output(base, offset):
    return mix((base + GOLDEN * (offset + 1)) & MASK64)


def mask(p, seed, stream, counter):
    key = output(output(seed, stream), counter)
    threshold = math.floor(math.ldexp(p, 64))
    return [output(key, i) >= threshold for i in range(N)]


def dense(values):
    return ("dense<[" + ", ".join(f"{v:.9e}" for v in values)
            + f"]> : tensor<{N}xf32>")


def gen():
    shape = "x".join(map(str, SHAPE))
    lines = ["func.func private @printMemrefI32(tensor<*xi32>)",
             "func.func @main() {",
             f"  %flat = arith.constant {dense(X)}",
             f"  %x = tensor.expand_shape %flat [[0, 1]] output_shape [{SHAPE[0]}, {SHAPE[1]}]"
             f" : tensor<{N}xf32> into tensor<{shape}xf32>"]
    for k, (elt, p, seed, stream, counter) in enumerate(CASES):
        t, f32 = f"tensor<{shape}x{elt}>", f"tensor<{shape}xf32>"
        x = "%x"
        if elt != "f32":
            lines.append(f"  %x{k} = arith.truncf %x : {f32} to {t}")
            x = f"%x{k}"
        lines += [f"  %c{k} = arith.constant dense<{counter}> : tensor<i64>",
                  f"  %y{k} = mpt.dropout {x}, %c{k} {{p = {p!r} : f64, seed = {seed}, "
                  f"stream = {stream}}} : {t}"]
        y = f"%y{k}"
        if elt != "f32":
            lines.append(f"  %w{k} = arith.extf %y{k} : {t} to {f32}")
            y = f"%w{k}"
        lines += [f"  %b{k} = arith.bitcast {y} : {f32} to tensor<{shape}xi32>",
                  f"  %p{k} = tensor.cast %b{k} : tensor<{shape}xi32> to tensor<*xi32>",
                  f"  call @printMemrefI32(%p{k}) : (tensor<*xi32>) -> ()"]
    lines += ["  return", "}"]
    print("\n".join(lines))


def within_binomial(count, n, q):
    return abs(count - n * q) <= 5 * math.sqrt(n * q * (1 - q))


def check():
    numbers = printed_f32(sys.stdin.read())
    if len(numbers) != len(CASES) * N:
        sys.exit(f"FAILED: expected {len(CASES) * N} numbers, got {len(numbers)}")
    failures = 0
    masks = {}
    for k, (elt, p, seed, stream, counter) in enumerate(CASES):
        got = numbers[k * N:(k + 1) * N]
        keep = mask(p, seed, stream, counter)
        scale = round_to(1.0 / round_to(1.0 - p, "f32"), "f32")
        for i, (a, kept) in enumerate(zip(got, keep)):
            x = round_to(X[i], elt)
            expected = round_to(round_to(x * scale, "f32"), elt) if kept else 0.0
            if struct.pack("f", a) != struct.pack("f", expected):
                failures += 1
                if failures < 10:
                    print(f"FAILED case {k} element {i}: got {a!r}, expected {expected!r}")
        kept = sum(keep)
        verdict = "within" if within_binomial(kept, N, 1 - p) else "OUTSIDE"
        print(f"{elt} p={p} seed={seed} stream={stream} counter={counter}: "
              f"kept {kept} of {N}, {verdict} the binomial bound")
        masks.setdefault(p, []).append(keep)
    for p, same_p in masks.items():
        q = p * p + (1 - p) * (1 - p)
        for a in range(len(same_p)):
            for b in range(a + 1, len(same_p)):
                agree = sum(u == v for u, v in zip(same_p[a], same_p[b]))
                if not within_binomial(agree, N, q):
                    failures += 1
                    print(f"FAILED p={p}: masks {a} and {b} agree on {agree} of {N}")
    if failures:
        sys.exit(f"FAILED: {failures} mismatches")
    print("all match")


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen()
    else:
        check()
